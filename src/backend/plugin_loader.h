/* Loading plugins (tilelang/plugin.h): shared libraries and compiled-in backends
 * initialised through the host table, at most once per import path. */
#ifndef TL_BACKEND_PLUGIN_LOADER_H
#define TL_BACKEND_PLUGIN_LOADER_H

#include "tilelang/plugin.h"

/* Imports `import_path`: "path/lib.so" (init symbol tl_plugin_init),
 * "path/lib.so:symbol", or "builtin:NAME". Each import path is initialised at most
 * once per process, also when threads race on first use (the others wait for the
 * first). A load failure (missing file or symbol, ABI major mismatch, unknown
 * built-in) is TL_EUNAVAILABLE naming the path and the loader's reason; a failing
 * init function's status propagates with its message. After a failure the path is
 * not marked loaded, so a later call tries again. An import of a path whose init is
 * running on the calling thread returns TL_OK at once. Thread-safe. */
tl_status tl__plugin_import(const char *import_path);

/* TL_OK if import_path is well formed; TL_EINVAL naming the problem otherwise. */
tl_status tl__plugin_check_path(const char *import_path);

/* Makes a compiled-in init function importable as "builtin:NAME" (replacing an earlier
 * one of that name that has not been imported yet). Thread-safe. */
tl_status tl__plugin_register_builtin(const char *name, tl_plugin_init_fn init);

/* Imports the plugins listed in TL_PLUGIN_PATH, in order: colon-separated library
 * paths, each optionally followed by an element naming its init symbol
 * ("/a/libx.so:x_init:/b/liby.so"; an element without '/' or '.' is a symbol). Stops
 * at the first failure. Thread-safe. */
tl_status tl__plugin_load_env(void);

/* The host table handed to every plugin's init function. */
const tl_plugin_host *tl__plugin_host(void);

/* Completes the host table with the services of ABI 1.1 and later (fields from
 * `alloc` on, taken from `ext`; the 1.0 fields stay the loader's). The first call
 * wins; later calls do nothing. Called once while the built-ins are registered
 * (src/backends/plugin_services.c). Thread-safe. */
void tl__plugin_host_extend(const tl_plugin_host *ext);

#endif
