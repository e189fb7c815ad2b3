/* What the GPU passes share to walk a module's kernels (gpu.h). */
#include "transform/gpu/gpu.h"

#include "transform/pass.h"
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

/* ------------------------------------------------------------ rank limit */

typedef struct {
  tl_status st;
} rank_check;

static bool rank_fails(tl_ir_visitor *v, tl_ir_span at, const char *what, const char *name, uint32_t n) {
  rank_check *rc = v->ctx;
  if (n <= TL__GPU_MAX_RANK) return false;
  rc->st = tl__pass_error(TL_EUNSUPPORTED, at, "%s '%s' has %u dimensions; GPU targets support at most %d", what,
                          name, n, TL__GPU_MAX_RANK);
  return true;
}

static bool rank_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  rank_check *rc = v->ctx;
  if (rc->st != TL_OK) return false;
  if (e->kind == TL_EXPR_LOAD) return !rank_fails(v, e->span, "buffer", e->u.load.buffer->name, e->u.load.n);
  if (e->kind == TL_EXPR_REGION)
    return !rank_fails(v, e->span, "region of buffer", e->u.region.buffer->name, e->u.region.ndim);
  return true;
}

static bool rank_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  rank_check *rc = v->ctx;
  if (rc->st != TL_OK) return false;
  switch (s->kind) {
  case TL_STMT_STORE:
    return !rank_fails(v, s->span, "buffer", s->u.store.buffer->name, s->u.store.n);
  case TL_STMT_ALLOC:
    return !rank_fails(v, s->span, "buffer", s->u.alloc.buffer->name, s->u.alloc.buffer->ndim);
  case TL_STMT_FOR:
    return !rank_fails(v, s->span, "loop over", s->u.loop.n ? s->u.loop.vars[0]->name : "?", s->u.loop.n);
  default:
    return true;
  }
}

tl_status tl__gpu_check_ranks(const tl_ir_stmt *k) {
  rank_check rc = {TL_OK};
  tl_ir_visitor v = {rank_expr, rank_stmt, &rc};
  tl_ir_visit_stmt(&v, k);
  return rc.st;
}
