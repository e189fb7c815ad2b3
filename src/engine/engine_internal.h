/* The stages of tl_compile, shared with tl_export and the tools that show
 * intermediate results (`tlc lower`, `tlc source`). docs/lowering.md has the flow;
 * docs/engine.md the rest. */
#ifndef TL_ENGINE_INTERNAL_H
#define TL_ENGINE_INTERNAL_H

#include "runtime/exec_backend.h"
#include "tilelang/backend.h"
#include "tilelang/engine.h"

/* tl_compile_options with every field readable: a copy of the caller's (NULL: all
 * defaults). TL_EINVAL when struct_size is neither 0 nor at least the first
 * version's size, or a pass config is not "key=value". */
tl_status tl__compile_options_normalize(const tl_compile_options *in, tl_compile_options *out);

/* The function to compile: `name`, else the module's only one. TL_ENOTFOUND naming
 * the missing function, TL_EINVAL when the module has none or several and no name
 * was given (listing them). */
tl_status tl__engine_pick_func(const tl_ir_module *mod, const char *name, const tl_ir_func **out);

/* The context: opts->context (a new reference), else tl_create_backend_context of
 * the options' target, host and execution backend. */
tl_status tl__engine_context(const tl_compile_options *opts, tl_backend_context **out);

/* What lowering and code generation produced for one function. */
typedef struct tl__lowered {
  tl_ir_module *mod;       /* the lowered module: host entry + device kernels */
  tl_kernel_table *table;  /* the host entry's kernel table */
  tl_artifact *device;     /* device code (NULL until codegen ran) */
  tl_artifact *host;       /* host code; NULL when the spec disables host codegen */
} tl__lowered;

void tl__lowered_free(tl__lowered *l);

/* Lowers `func` of `mod` (not modified: a copy restricted to func and the functions
 * it launches) with the context's pipeline inside a compilation session carrying
 * the options' pass configs and instrumentation: semantic check, the pipeline, the
 * kernel table. With `codegen`, then device codegen (the spec's compile flag) and,
 * when the spec enables it, the host hooks and host codegen. */
tl_status tl__engine_lower(const tl_ir_module *mod, const tl_ir_func *func, const tl_compile_options *opts,
                           const tl_backend_context *ctx, bool codegen, tl__lowered *out);

/* The implementation of the context's execution backend. TL_EUNSUPPORTED when the
 * library has none of that name. */
tl_status tl__engine_exec_impl(const tl_backend_context *ctx, const tl__exec_impl **out);

#endif
