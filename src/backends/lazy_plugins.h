/* Backends of this project built as plugins of their own (opencl) and registered
 * lazily: their shared library is imported on the first use of their target kind. */
#ifndef TL_BACKENDS_LAZY_PLUGINS_H
#define TL_BACKENDS_LAZY_PLUGINS_H

#include <stddef.h>

#include "tilelang/base.h"

/* Records tl_register_lazy_device_codegen("opencl", <path of libtilelang-opencl.so>)
 * (lazy_plugins.c says where the path comes from). Idempotent. */
tl_status tl__lazy_plugins_init(void);

/* The path the library looks for a plugin at: TL_<NAME>_PLUGIN if set (an
 * explicit file), else tilelang/plugins/<file> next to the library's own file (the
 * installed layout), else under the build tree's lib directory when the library's
 * own file lies in the build tree, else under the installed lib directory. Written
 * into buf (NUL-terminated; truncated paths fail later with the loader's reason). */
void tl__plugin_default_path(const char *env, const char *file, char *buf, size_t cap);

#endif
