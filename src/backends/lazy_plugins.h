/* Backends of this project built as plugins of their own (opencl) and registered
 * lazily: their shared library is imported on the first use of their target kind. */
#ifndef TL_BACKENDS_LAZY_PLUGINS_H
#define TL_BACKENDS_LAZY_PLUGINS_H

#include <stddef.h>

#include "tilelang/base.h"

/* Records tl_register_lazy_device_codegen("opencl", <path of libtilelang-opencl.so>)
 * (lazy_plugins.c says where the path comes from). Idempotent. */
tl_status tl__lazy_plugins_init(void);

/* The path the library looks for a plugin at: the environment variable `env` if
 * set (an explicit file); else the first existing of tilelang/plugins/<file> next
 * to the library's own file (the shared library in lib/), ../lib/tilelang/plugins/
 * from it (a program in bin/ linking the static library), the build tree's lib
 * directory (only when this code lives in the build tree: an installed library
 * never looks there) and the installation's; else the first of those. Written into buf (NUL-terminated); TL_ENOMEM
 * when the candidates cannot be made. */
tl_status tl__plugin_default_path(const char *env, const char *file, char *buf, size_t cap);

#endif
