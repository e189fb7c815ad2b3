/* Lazily registered in-tree plugins. The opencl backend (src/backends/opencl/) is
 * compiled as its own shared library against plugin.h alone, the reference for
 * out-of-tree backends; the library only records where that library is, and the
 * registries import it on the first use of kind `opencl` (a device codegen lookup,
 * a context, a listing of the backends). */
#include "backends/lazy_plugins.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/str.h"
#include "tilelang/backend.h"

#ifndef TL_BUILD_LIBDIR
#define TL_BUILD_LIBDIR "."
#endif
#ifndef TL_INSTALL_LIBDIR
#define TL_INSTALL_LIBDIR "/usr/local/lib"
#endif

#define PLUGIN_SUBDIR "tilelang/plugins"

static bool exists(const char *path) { return access(path, R_OK) == 0; }

tl_status tl__plugin_default_path(const char *env, const char *file, char *buf, size_t cap) {
  const char *explicit_path = env ? tl__env(env) : NULL;
  if (explicit_path && *explicit_path) {
    snprintf(buf, cap, "%s", explicit_path);
    return TL_OK;
  }
  /* Where this code lives: the shared library (lib/), or a program linking the
   * static library (bin/, in the build tree or an installation). */
  Dl_info info;
  char self_dir[4096] = "";
  if (dladdr((void *)&tl__plugin_default_path, &info) && info.dli_fname) {
    snprintf(self_dir, sizeof self_dir, "%s", info.dli_fname);
    char *slash = strrchr(self_dir, '/');
    if (slash) *slash = '\0';
    else self_dir[0] = '\0';
  }
  /* The build tree is the directory above TL_BUILD_LIBDIR. */
  char build_root[4096];
  snprintf(build_root, sizeof build_root, "%s", TL_BUILD_LIBDIR);
  char *slash = strrchr(build_root, '/');
  if (slash) *slash = '\0';
  size_t n = strlen(build_root);
  bool in_build = self_dir[0] && n && strncmp(self_dir, build_root, n) == 0 && (self_dir[n] == '/' || !self_dir[n]);
  /* An installed library never looks into the build tree it came from: that tree
   * may be gone, or writable by others, long after the installation. */
  char *candidates[4] = {NULL, NULL, NULL, NULL};
  size_t k = 0;
  if (self_dir[0]) {
    candidates[k++] = tl__format("%s/" PLUGIN_SUBDIR "/%s", self_dir, file);
    candidates[k++] = tl__format("%s/../lib/" PLUGIN_SUBDIR "/%s", self_dir, file);
  }
  if (in_build) candidates[k++] = tl__format("%s/" PLUGIN_SUBDIR "/%s", TL_BUILD_LIBDIR, file);
  candidates[k++] = tl__format("%s/" PLUGIN_SUBDIR "/%s", TL_INSTALL_LIBDIR, file);
  tl_status s = TL_OK;
  const char *pick = NULL;
  for (size_t i = 0; i < k; i++)
    if (!candidates[i]) s = tl__oom();
  for (size_t i = 0; s == TL_OK && i < k && !pick; i++)
    if (exists(candidates[i])) pick = candidates[i];
  /* None is there: the path of the installed layout, which the loader's error names. */
  if (s == TL_OK) snprintf(buf, cap, "%s", pick ? pick : candidates[0]);
  for (size_t i = 0; i < k; i++) tl__free(candidates[i]);
  return s;
}

tl_status tl__lazy_plugins_init(void) {
  char path[4096];
  TL__TRY(tl__plugin_default_path("TL_OPENCL_PLUGIN", "libtilelang-opencl.so", path, sizeof path));
  return tl_register_lazy_device_codegen("opencl", path);
}
