/* What the GPU passes share to walk a module's kernels (gpu.h). */
#include "transform/gpu/gpu.h"

#include "transform/util.h"

tl_ir_stmt *tl__gpu_kernel_with_body(tl_ir_module *mod, const tl_ir_stmt *k, tl_ir_stmt *body) {
  if (body == k->u.kernel.body) return (tl_ir_stmt *)k;
  tl_ir_span old = tl__loc_push(mod, k->span);
  tl_ir_stmt *r = tl_ir_kernel(mod, k->u.kernel.grid_ndim, k->u.kernel.grid, k->u.kernel.threads_ndim,
                               k->u.kernel.threads, k->u.kernel.block_vars, body);
  if (r)
    for (int i = 0; i < 3; i++) r->u.kernel.thread_vars[i] = k->u.kernel.thread_vars[i];
  tl_ir_builder_set_loc(mod, old);
  return r;
}

tl_status tl__gpu_mutate_functions(tl_ir_module *mod, tl_ir_mutator *mu) {
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEFAULT || !f->body) continue;
    tl_ir_stmt *body = tl_ir_mutate_stmt(mu, f->body);
    if (!body) return mu->status != TL_OK ? mu->status : TL_EINTERNAL;
    f->body = body;
  }
  return TL_OK;
}
