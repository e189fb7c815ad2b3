/* Opening a plugin library under the ownership policy of the kernel cache
 * (base/trust.h): a library named by a path (it contains '/') is opened by the
 * trusted walk and must be a regular file of the current user or root that neither
 * group nor others may write, in directories nobody else can change; it is then
 * loaded from that very descriptor (base/dl_fd.h). A bare file name is left to the
 * system's search (LD_LIBRARY_PATH, the loader's cache and default directories). */
#ifndef TL_BACKEND_PLUGIN_TRUST_H
#define TL_BACKEND_PLUGIN_TRUST_H

#include <stdint.h>

#include "tilelang/base.h"

/* dlopen(RTLD_NOW | RTLD_LOCAL) of `lib` by the policy above. TL_EUNAVAILABLE with
 * the reason (untrusted, missing, not loadable), TL_ENOMEM. */
tl_status tl__plugin_dlopen(const char *lib, void **handle);

/* Reads the plugin's ABI word (TL_PLUGIN_ABI_SYMBOL) as the data object it must be:
 * a defined object symbol of at least four bytes, copied without assuming its
 * alignment. TL_EUNAVAILABLE naming what is wrong. */
tl_status tl__plugin_abi_word(void *handle, uint32_t *abi);

#endif
