/* lower_kernel_cpu: T.Kernel for the CPU. The tile program runs at block level,
 * so threads disappear and the grid becomes one parallel loop:
 *
 *   with T.Kernel(gx, gy, threads=t) as (bx, by):  body
 * becomes
 *   with T.Kernel(1, threads=1):
 *     for by, bx in T.Parallel(gy, gx):  body'     (bz, by, bx order: bx fastest)
 *
 * The kernel statement stays (grid and threads 1, no indices) as the marker of
 * device code that split_host_device outlines, and so allocations stay inside a
 * kernel as the verifier wants. The block loop is the only TL_FOR_PARALLEL of the
 * kernel: T.Parallel and T.Pipelined loops inside become serial (their iterations
 * run in order on one core; vectorized and unrolled loops keep their kind as
 * hints), barriers are dropped (one core runs the whole block). A kernel that
 * binds thread indices (per-thread code, T.get_thread_binding) runs its threads as
 * loops between its barriers (lower_simt_cpu.c). Thread loops are refused. */
#include "base/error.h"
#include "transform/lower_simt_cpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct kctx {
  int depth; /* > 0 inside a kernel body */
  bool keep_barriers; /* a kernel of per-thread code: lower_simt_cpu splits it at them */
} kctx;

static const char *const k_block_names[3] = {"bx", "by", "bz"};

static tl_ir_stmt *lower_kernel(tl_ir_mutator *mu, tl_ir_stmt *s) {
  tl_ir_module *mod = mu->mod;
  kctx *c = mu->ctx;
  /* Per-thread code (the kernel binds thread indices): its threads become loops
   * between its barriers (lower_simt_cpu.c), so the barriers stay until then. */
  bool simt = s->u.kernel.thread_vars[0] || s->u.kernel.thread_vars[1] || s->u.kernel.thread_vars[2];
  c->depth++;
  c->keep_barriers = simt;
  tl_ir_stmt *body = tl_ir_mutate_stmt(mu, s->u.kernel.body);
  c->keep_barriers = false;
  c->depth--;
  if (!body) return NULL;
  if (simt) {
    tl_status st = tl__lower_simt_cpu(mod, s, body, &body);
    if (st != TL_OK) {
      tl_ir_mutator_fail(mu, st);
      return NULL;
    }
  }
  uint32_t n = s->u.kernel.grid_ndim;
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_var *vars[3];
  tl_ir_expr *exts[3];
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = n - 1 - k; /* outermost first: bz, by, bx */
    vars[k] = s->u.kernel.block_vars[i] ? s->u.kernel.block_vars[i] : tl_ir_var_new(mod, k_block_names[i], TL_DT_INT32);
    exts[k] = s->u.kernel.grid[i];
  }
  tl_ir_stmt *loop = tl_ir_for(mod, TL_FOR_PARALLEL, n, vars, NULL, exts, body);
  tl_ir_expr *one[1] = {tl_ir_i32(mod, 1)}, *one_t[1] = {tl_ir_i32(mod, 1)};
  tl_ir_stmt *r = tl_ir_kernel(mod, 1, one, 1, one_t, NULL, loop);
  tl_ir_builder_set_loc(mod, old);
  return r;
}

static tl_ir_stmt *lower_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  kctx *c = mu->ctx;
  tl_ir_module *mod = mu->mod;
  if (s->kind == TL_STMT_KERNEL) return lower_kernel(mu, s);
  if (c->depth == 0) return tl_ir_mutate_stmt_children(mu, s);
  if (s->kind == TL_STMT_BARRIER && !c->keep_barriers) {
    tl_ir_span old = tl__loc_push(mod, s->span);
    tl_ir_stmt *r = tl_ir_seq(mod, 0, NULL);
    tl_ir_builder_set_loc(mod, old);
    return r;
  }
  if (s->kind != TL_STMT_FOR) return tl_ir_mutate_stmt_children(mu, s);
  if (s->u.loop.kind == TL_FOR_THREAD) {
    tl_ir_mutator_fail(mu, tl__pass_error(TL_EUNSUPPORTED, s->span,
                                          "thread loop over '%s': the c target lowers block-level tile programs only",
                                          s->u.loop.vars[0]->name));
    return NULL;
  }
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || (r->u.loop.kind != TL_FOR_PARALLEL && r->u.loop.kind != TL_FOR_PIPELINED)) return r;
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *serial = tl_ir_for(mod, TL_FOR_SERIAL, r->u.loop.n, r->u.loop.vars, r->u.loop.mins, r->u.loop.extents,
                                 r->u.loop.body);
  tl_ir_builder_set_loc(mod, old);
  return serial;
}

tl_status tl__pass_lower_kernel_cpu(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEFAULT || !f->body) continue;
    kctx c = {0};
    tl_ir_mutator mu = {mod, NULL, lower_stmt, &c, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    if (!body) return mu.status;
    f->body = body;
  }
  return TL_OK;
}
