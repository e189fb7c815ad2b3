/* Plugin libraries under the ownership policy (see plugin_trust.h). */
#include "backend/plugin_trust.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "base/dl_fd.h"
#include "base/error.h"
#include "base/trust.h"
#include "tilelang/plugin.h"

tl_status tl__plugin_dlopen(const char *lib, void **handle) {
  *handle = NULL;
  if (!strchr(lib, '/')) {
    dlerror();
    *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (*handle) return TL_OK;
    const char *why = dlerror();
    return tl__error(TL_EUNAVAILABLE, "%s", why ? why : "dlopen failed");
  }
  int fd = -1;
  tl_status s = tl__trust_open(lib, false, TL__TRUST_OWNED, &fd);
  if (s == TL_ENOMEM) return s;
  if (s == TL_EUNAVAILABLE)
    return tl__error(TL_EUNAVAILABLE, "%s; a plugin is loaded only from files and directories that no other user can change",
                     tl_last_error());
  if (s != TL_OK) return tl__error(TL_EUNAVAILABLE, "%s", tl_last_error());
  s = tl__dlopen_fd(fd, lib, RTLD_NOW | RTLD_LOCAL, handle);
  close(fd);
  if (s != TL_OK && s != TL_ENOMEM) s = tl__error(TL_EUNAVAILABLE, "%s", tl_last_error());
  return s;
}

tl_status tl__plugin_abi_word(void *handle, uint32_t *abi) {
  *abi = 0;
  dlerror();
  void *p = dlsym(handle, TL_PLUGIN_ABI_SYMBOL);
  if (!p) {
    const char *why = dlerror();
    return tl__error(TL_EUNAVAILABLE, "it does not export '%s' (%s)", TL_PLUGIN_ABI_SYMBOL, why ? why : "symbol is NULL");
  }
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
    return tl__error(TL_EUNAVAILABLE, "its '%s' cannot be examined", TL_PLUGIN_ABI_SYMBOL);
  if (ELF32_ST_TYPE(sym->st_info) /* the same low four bits in ELF64 */ != STT_OBJECT || sym->st_size < sizeof *abi)
    return tl__error(TL_EUNAVAILABLE, "its '%s' is not a data object of at least %zu bytes (a uint32_t)",
                     TL_PLUGIN_ABI_SYMBOL, sizeof *abi);
  memcpy(abi, p, sizeof *abi);
  return TL_OK;
}
