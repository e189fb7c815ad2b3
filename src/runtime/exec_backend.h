/* Execution backend implementations: the shared code that builds, loads and launches
 * what code generation produced. A backend manifest's tl_execution_backend_spec names
 * one of these by `name`; the engine looks the implementation up here. The kernel
 * cache sits between build and load: build writes files into a directory (a cache
 * staging directory or a scratch one), load reads them back from a directory. */
#ifndef TL_RUNTIME_EXEC_BACKEND_H
#define TL_RUNTIME_EXEC_BACKEND_H

#include "runtime/device_memory.h"
#include "tilelang/backend.h"
#include "tilelang/runtime.h"
#include "tilelang/target.h"

/* The request and the loaded state are the plugin-visible types of
 * tilelang/plugin.h (one definition for the built-ins and for plugins); these names
 * are the library's internal spelling of them. */
typedef tl_build_request tl__build_request;
typedef tl_loaded_kernel tl__loaded;

/* An implementation as the library keeps it: tl_exec_impl (plugin.h) without its
 * struct_size. A plugin's descriptor is copied into one of these when registered
 * through the host table (tl__register_plugin_exec_impl). */
typedef struct tl__exec_impl {
  const char *name;                  /* "native", "tcc", "source", "nvrtc", ... */
  /* Files build writes (NULL-terminated); a cache entry is complete when all exist. */
  const char *const *files;
  /* Identity of the toolchain and flags, for the cache key ("gcc 12.2.0|-O3 ..."). The
   * string is static or cached by the implementation; NULL on failure (message set).
   * The engine asks before lowering (the key decides whether to lower at all): only
   * func_name, target and pass_configs of `req` are set; device, host and table are
   * NULL. */
  const char *(*identity)(const tl__build_request *req);
  /* Writes what load needs into `dir` (which exists and is private). */
  tl_status (*build)(const tl__build_request *req, const char *dir);
  /* Loads from `dir`. */
  tl_status (*load)(const tl__build_request *req, const char *dir, tl__loaded *out);
  /* Where the kernels' tensors live when not in host memory (the CUDA backends), for
   * tl_kernel_device_alloc and its siblings; NULL: host tensors. Plugins: NULL. */
  const tl__device_memory *memory;
} tl__exec_impl;

/* Registers an implementation (kept by pointer). Same name and pointer: no-op; same
 * name, other pointer: TL_EEXIST. Thread-safe. */
tl_status tl__register_exec_impl(const tl__exec_impl *impl);
/* Registers a plugin's implementation (plugin.h's tl_exec_impl, kept by pointer:
 * it must stay alive): checked (struct_size 0 means the current size; one smaller
 * than the first version's, or a missing field, is TL_EINVAL), then copied into a
 * library-owned tl__exec_impl registered under its name. The same descriptor again
 * is a no-op. Thread-safe. */
tl_status tl__register_plugin_exec_impl(const tl_exec_impl *impl);
/* The implementation named `name` (case-sensitive), or NULL. Thread-safe. */
const tl__exec_impl *tl__find_exec_impl(const char *name);

#endif
