/* Kernels written as per-thread (SIMT) code: T.get_thread_binding(i) and its
 * siblings, and the check of what such a kernel may hold.
 *
 * Upstream, every statement of a T.Kernel body outside T.Parallel runs in every
 * thread of the block; `tx = T.get_thread_binding()` is threadIdx.x, so code that
 * uses it is per-thread code with T.sync_threads between its phases. Here a
 * kernel that asks for a thread index gets T.Kernel's thread variables bound at
 * tile level (the IR's kernel.thread_vars), and every path runs its body once
 * per thread: the interpreter with one OS thread per GPU thread (races and
 * divergent barriers reported), the c target as loops over the threads between
 * barriers (lower_simt_cpu.c), the GPU lowering in every thread.
 *
 * Supported in such a kernel: scalar and element code (lets, stores, loads), ifs,
 * serial/unrolled/vectorized loops, T.sync_threads, shared, local and local.var
 * buffers, T.clear/T.fill of this thread's local buffers and atomics on one
 * element. Block-wide tile operations (T.copy of tiles, T.gemm, reductions, scans),
 * T.Parallel and T.Pipelined loops and fragments would need their collective
 * meaning mixed with per-thread code; they are refused at their line. */
#include <stdio.h>
#include <string.h>

#include "elab.h"

static bool const_dim(tl__elab *E, const tl__ast_expr *e, const char *n, int64_t *dim) {
  *dim = 0;
  if (e->u.call.nargs + e->u.call.nkw == 0) return true;
  static const char *const names[] = {"dim"};
  const tl__ast_expr *a[1];
  if (!tl__call_args(E, e, n, names, 1, 0, a)) return false;
  if (!a[0]) return true;
  tl__val *v = tl__eval(E, a[0]);
  if (!v || !tl__as_int(E, v, POS(a[0]), "the dimension", dim)) return false;
  if (*dim < 0 || *dim > 2) {
    tl__elab_error(E, POS(a[0]), "%s takes a dimension 0, 1 or 2, got %lld", n, (long long)*dim);
    return false;
  }
  return true;
}

static const char *const k_thread_names[3] = {"tx", "ty", "tz"};

tl__val *tl__elab_kernel_binding(tl__elab *E, const tl__ast_expr *e, const tl__val *fn) {
  const char *n = fn->u.bi.name;
  if (!E->fn || !E->fn->in_kernel) {
    tl__elab_error(E, POS(e), "%s must be inside a T.Kernel block", n);
    return NULL;
  }
  int64_t d;
  if (!const_dim(E, e, n, &d)) return NULL;
  tl__kernel_scope *k = &E->fn->kernel;
  tl__elab_at(E, POS(e));
  switch ((tl__builtin)fn->u.bi.id) {
    case BI_BLOCK_EXTENT:
      return tl__val_expr(E, (uint32_t)d < k->ng && k->grid[d] ? k->grid[d] : tl_ir_i32(E->mod, 1));
    case BI_THREAD_EXTENT:
      return tl__val_expr(E, (uint32_t)d < k->nt && k->threads[d] ? k->threads[d] : tl_ir_i32(E->mod, 1));
    case BI_BLOCK_BINDING: {
      if ((uint32_t)d >= k->ng) /* a grid dimension not given has extent 1: its index is 0 */
        return tl__val_expr(E, tl_ir_i32(E->mod, 0));
      tl__val *v = tl__val_new(E, V_VAR);
      if (v) v->u.var = k->blocks[d];
      return v;
    }
    default: break;
  }
  if (!k->threads_bound[d]) {
    if (!(k->threads_bound[d] = tl_ir_var_new(E->mod, k_thread_names[d], TL_DT_INT32))) {
      tl__elab_builder_failed(E);
      return NULL;
    }
    if (!k->first_line) {
      k->first_line = e->line;
      k->first_col = e->col;
    }
  }
  tl__val *v = tl__val_new(E, V_VAR);
  if (v) v->u.var = k->threads_bound[d];
  return v;
}

/* ------------------------------------------------------------------ check */

typedef struct simt_check {
  tl__elab *E;
  bool failed;
} simt_check;

static bool refuse(simt_check *c, tl_ir_span at, const char *what) {
  if (!c->failed) {
    const tl__kernel_scope *k = &c->E->fn->kernel;
    tl__elab_error(c->E, (tl__pos){at.line, at.col},
                   "%s in a kernel that uses T.get_thread_binding (line %u): per-thread code supports element "
                   "operations, serial loops and T.sync_threads, not block-wide tile operations",
                   what, k->first_line);
  }
  c->failed = true;
  return false;
}

static bool is_element(const tl_ir_expr *r) {
  if (!r || r->kind != TL_EXPR_REGION) return false;
  for (uint32_t d = 0; d < r->u.region.ndim; d++)
    if (!(r->u.region.extents[d]->kind == TL_EXPR_INT && r->u.region.extents[d]->u.int_value == 1)) return false;
  return true;
}

static bool is_thread_private(const tl_ir_expr *r) {
  return r && r->kind == TL_EXPR_REGION &&
         (r->u.region.buffer->scope == TL_SCOPE_LOCAL || r->u.region.buffer->scope == TL_SCOPE_LOCAL_VAR);
}

static bool check_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  simt_check *c = v->ctx;
  if (c->failed) return false;
  switch (s->kind) {
    case TL_STMT_FOR:
      if (s->u.loop.kind == TL_FOR_PARALLEL) return refuse(c, s->span, "T.Parallel");
      if (s->u.loop.kind == TL_FOR_PIPELINED) return refuse(c, s->span, "T.Pipelined");
      if (s->u.loop.kind == TL_FOR_THREAD) return refuse(c, s->span, "a thread-bound loop");
      return true;
    case TL_STMT_ALLOC:
      if (s->u.alloc.buffer->scope == TL_SCOPE_LOCAL_FRAGMENT) return refuse(c, s->span, "T.alloc_fragment");
      return true;
    case TL_STMT_EVAL: {
      const tl_ir_expr *e = s->u.eval.expr;
      if (!e || e->kind != TL_EXPR_CALL || !tl_ir_op_is_tile(e->u.call.op)) return true;
      tl_ir_span at = e->span.line ? e->span : s->span;
      switch (e->u.call.op) {
        case TL_OP_FILL: case TL_OP_CLEAR:
          /* this thread's own buffer: every thread fills its copy */
          if (e->u.call.nargs && is_thread_private(e->u.call.args[0])) return true;
          break;
        case TL_OP_ATOMIC_ADD: case TL_OP_ATOMIC_MAX: case TL_OP_ATOMIC_MIN:
          if (e->u.call.nargs == 2 && is_element(e->u.call.args[0]) && e->u.call.args[1]->kind != TL_EXPR_REGION)
            return true;
          break;
        default: break;
      }
      char what[96];
      snprintf(what, sizeof what, "%s of a tile", tl_ir_op_name(e->u.call.op));
      return refuse(c, at, what);
    }
    default: return true;
  }
}

bool tl__elab_check_simt_kernel(tl__elab *E, const tl_ir_stmt *body) {
  simt_check c = {E, false};
  tl_ir_visitor v = {NULL, check_stmt, &c};
  tl_ir_visit_stmt(&v, body);
  return !c.failed;
}
