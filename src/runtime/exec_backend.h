/* Execution backend implementations: the shared code that builds, loads and launches
 * what code generation produced. A backend manifest's tl_execution_backend_spec names
 * one of these by `name`; the engine looks the implementation up here. The kernel
 * cache sits between build and load: build writes files into a directory (a cache
 * staging directory or a scratch one), load reads them back from a directory. */
#ifndef TL_RUNTIME_EXEC_BACKEND_H
#define TL_RUNTIME_EXEC_BACKEND_H

#include "tilelang/backend.h"
#include "tilelang/runtime.h"
#include "tilelang/target.h"

typedef struct tl__build_request {
  const char *func_name;          /* the host entry's symbol */
  const tl_target *target;        /* device target, host attached */
  const tl_artifact *device;      /* device code (source or binary); may be NULL */
  const tl_artifact *host;        /* host code; NULL when the spec disables host codegen */
  const tl_kernel_table *table;
  const char *const *pass_configs;
} tl__build_request;

/* A loaded kernel's runtime state and how to call and free it. */
typedef struct tl__loaded {
  void *state;
  tl_status (*call)(void *state, const tl_value *args, int nargs, void *stream);
  void (*destroy)(void *state);
} tl__loaded;

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
} tl__exec_impl;

/* Registers an implementation (kept by pointer). Same name and pointer: no-op; same
 * name, other pointer: TL_EEXIST. Thread-safe. */
tl_status tl__register_exec_impl(const tl__exec_impl *impl);
/* The implementation named `name` (case-sensitive), or NULL. Thread-safe. */
const tl__exec_impl *tl__find_exec_impl(const char *name);

#endif
