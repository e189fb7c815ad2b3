/* tilelang/engine.h - the compile entry: one call from a tile-level function to a
 * loaded, callable kernel.
 *
 * tl_compile resolves one backend context (target, host, execution backend) and
 * passes it through every stage: semantic check, the backend's lowering pipeline,
 * device code generation, host hooks and host code generation (when the execution
 * backend wants host code), then the execution backend's build and load, with the
 * kernel cache in between. No later stage re-resolves anything. */
#ifndef TILELANG_ENGINE_H
#define TILELANG_ENGINE_H

#include <stdio.h>

#include "tilelang/base.h"
#include "tilelang/ir.h"
#include "tilelang/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tl_backend_context;

typedef struct tl_compile_options {
  size_t struct_size;              /* sizeof(tl_compile_options): fields are only appended */
  const char *target;              /* NULL or "auto": TILELANG_DEFAULT_TARGET, else detection */
  const char *target_host;         /* NULL: the default host ("c") */
  const char *execution_backend;   /* NULL: TILELANG_EXECUTION_BACKEND, else "auto" */
  const char *const *pass_configs; /* "key=value" strings, NULL-terminated; may be NULL */
  const char *cache_dir;           /* NULL: TILELANG_CACHE_DIR, else ~/.tilelang-c/cache */
  bool disable_cache;              /* also TILELANG_DISABLE_CACHE=1 */
  /* A context resolved by the caller; when set, target/target_host/execution_backend
   * are ignored. Borrowed for the duration of the call. */
  const struct tl_backend_context *context;
  /* Instrumentation (also TL_LOWER_TRACE=1 for a trace line per pass). */
  bool time_passes;                /* per-pass wall time, written to `log` */
  bool print_after_all;            /* the IR after every pass, written to `log` */
  const char *print_after;         /* the IR after the named pass */
  FILE *log;                       /* NULL: stderr */
} tl_compile_options;

/* Compiles function `func_name` of `mod` (NULL: the module's only function). The
 * module is not modified (lowering works on a copy). On success *out is a kernel the
 * caller releases with tl_kernel_release. Errors: those of context resolution
 * (TL_EINVAL, TL_ENOTFOUND, TL_EUNAVAILABLE), the semantic check and passes
 * (TL_EINVAL with file:line:col), code generation (TL_EUNSUPPORTED), external
 * compilers (TL_ECOMPILE with their output), the cache (TL_EIO). Thread-safe. */
TL_API tl_status tl_compile(const tl_ir_module *mod, const char *func_name, const tl_compile_options *opts,
                            tl_kernel **out);

/* Ahead-of-time export: lowers and generates code for `func_name` (NULL: the
 * module's only function) as tl_compile does, has the execution backend build it
 * (the kernel cache is not used), and writes into `dir` (created, mode 0700, if
 * missing; existing files of the same names are replaced):
 *   lib<func>.so                 the execution backend's shared library
 *   <func>.h                     the packed entry `int32_t <func>(const TLValue *args,
 *                                int32_t nargs, void *stream, char *err, size_t errcap)`
 *                                and a typed wrapper `<func>_call(tensors and scalars
 *                                in parameter order, err, errcap)`
 *   <func>_device.<fmt>, <func>_host.<fmt>   the generated sources
 *   <func>.kernel_table.json     the kernel table (tl_kernel_table_to_json)
 * The execution backend must produce a shared library (`native` does; TL_EUNSUPPORTED
 * otherwise). Errors as tl_compile, and TL_EIO for the directory. Thread-safe. */
TL_API tl_status tl_export(const tl_ir_module *mod, const char *func_name, const tl_compile_options *opts,
                           const char *dir);

/* Drops every kernel held in the in-memory cache (loaded kernels stay valid while
 * referenced). Thread-safe. */
TL_API void tl_kernel_cache_clear_memory(void);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_ENGINE_H */
