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
 * serial, unrolled and vectorized loops (T.Pipelined ones become serial: there is
 * nothing to overlap), T.sync_threads, shared, local and local.var buffers,
 * T.clear/T.fill of this thread's local buffers, atomics on one element and
 * T.atomic_addx2/x4 (each thread's own vector atomic). Block-wide tile operations
 * (T.copy of tiles, T.gemm, reductions, scans), T.Parallel loops and fragments
 * would need their collective meaning mixed with per-thread code; they are
 * refused at their line. */
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

static const char *const k_tags[6] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                       "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};

/* T.thread_binding(start, stop, thread=tag): T.Kernel's index of that tag, whose
 * range must be the kernel's own (the kernel launched the threads). *id is the
 * builtin it amounts to and *dim its dimension. */
static bool binding_of(tl__elab *E, const tl__ast_expr *e, const char *n, tl__builtin *id, int64_t *dim) {
  static const char *const names[] = {"start", "stop", "thread"};
  const tl__ast_expr *a[3];
  if (!tl__call_args(E, e, n, names, 3, 1, a)) return false;
  if (!a[2]) {
    tl__elab_error(E, POS(e), "%s needs thread=\"threadIdx.x\" (or another thread or block index)", n);
    return false;
  }
  tl__val *tag = tl__eval(E, a[2]);
  if (!tag) return false;
  int t = -1;
  for (int i = 0; tag->kind == V_STR && i < 6; i++)
    if (strlen(tag->u.str.s) == tag->u.str.n && strcmp(tag->u.str.s, k_tags[i]) == 0) t = i;
  if (t < 0) {
    tl__elab_error(E, POS(a[2]), "%s: thread must be one of threadIdx.x/y/z or blockIdx.x/y/z", n);
    return false;
  }
  int64_t lo = 0, ext;
  tl__val *x = tl__eval(E, a[0]);
  if (!x || !tl__as_int(E, x, POS(a[0]), a[1] ? "the start" : "the extent", a[1] ? &lo : &ext)) return false;
  if (a[1]) {
    tl__val *hi = tl__eval(E, a[1]);
    int64_t h;
    if (!hi || !tl__as_int(E, hi, POS(a[1]), "the stop", &h)) return false;
    ext = h - lo;
  }
  const tl__kernel_scope *k = &E->fn->kernel;
  *dim = t % 3;
  *id = t < 3 ? BI_THREAD_BINDING : BI_BLOCK_BINDING;
  const tl_ir_expr *have = t < 3 ? ((uint32_t)*dim < k->nt ? k->threads[*dim] : NULL)
                                 : ((uint32_t)*dim < k->ng ? k->grid[*dim] : NULL);
  int64_t want = have ? -1 : 1;
  if (have && have->kind == TL_EXPR_INT) want = have->u.int_value;
  if (lo != 0 || (want >= 0 && ext != want)) {
    tl__elab_error(E, POS(e), "%s(%lld, %lld, thread=\"%s\") does not cover T.Kernel's range of %s (0 to %lld)", n,
                   (long long)lo, (long long)(lo + ext), k_tags[t], k_tags[t], (long long)want);
    return false;
  }
  if (want < 0) {
    tl__elab_error(E, POS(e), "%s: T.Kernel's extent of %s is not a constant; use T.get_%s_binding(%d)", n, k_tags[t],
                   t < 3 ? "thread" : "block", (int)*dim);
    return false;
  }
  return true;
}

tl__val *tl__elab_kernel_binding(tl__elab *E, const tl__ast_expr *e, const tl__val *fn) {
  const char *n = fn->u.bi.name;
  if (!E->fn || !E->fn->in_kernel) {
    tl__elab_error(E, POS(e), "%s must be inside a T.Kernel block", n);
    return NULL;
  }
  int64_t d;
  tl__builtin id = (tl__builtin)fn->u.bi.id;
  if (id == BI_THREAD_BINDING_OF ? !binding_of(E, e, n, &id, &d) : !const_dim(E, e, n, &d)) return NULL;
  tl__kernel_scope *k = &E->fn->kernel;
  tl__elab_at(E, POS(e));
  switch (id) {
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
  tl_ir_var *tv = tl__elab_thread_var(E, (uint32_t)d, e, n);
  tl__val *v = tv ? tl__val_new(E, V_VAR) : NULL;
  if (v) v->u.var = tv;
  return v;
}

tl_ir_var *tl__elab_thread_var(tl__elab *E, uint32_t d, const tl__ast_expr *e, const char *what) {
  tl__kernel_scope *k = &E->fn->kernel;
  if (!k->threads_bound[d]) {
    const char *name = k->name_hint ? k->name_hint : k_thread_names[d];
    tl__elab_at(E, POS(e));
    if (!(k->threads_bound[d] = tl_ir_var_new(E->mod, name, TL_DT_INT32))) {
      tl__elab_builder_failed(E);
      return NULL;
    }
    if (!k->first_line) {
      k->first_line = e->line;
      k->first_col = e->col;
      k->first_what = what;
    }
  }
  return k->threads_bound[d];
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
                   "%s in a kernel that uses %s (line %u): per-thread code supports element "
                   "operations, serial loops and T.sync_threads, not block-wide tile operations",
                   what, k->first_what ? k->first_what : "T.get_thread_binding", k->first_line);
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
          /* T.atomic_addx2/x4: upstream's per-thread vector atomic of 2 or 4 elements */
          for (const tl__addx_call *a = c->E->fn->kernel.addx; a; a = a->next)
            if (a->call == e) return true;
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

/* T.Pipelined over per-thread code has nothing to overlap (no tile copies): its
 * serial meaning, as a serial loop, so that no path plans stages for it. */
static tl_ir_stmt *serial_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_FOR || r->u.loop.kind != TL_FOR_PIPELINED) return r;
  tl_ir_builder_set_loc(mu->mod, r->span);
  return tl_ir_for(mu->mod, TL_FOR_SERIAL, r->u.loop.n, r->u.loop.vars, r->u.loop.mins, r->u.loop.extents,
                   r->u.loop.body);
}

tl_ir_stmt *tl__elab_check_simt_kernel(tl__elab *E, tl_ir_stmt *body) {
  simt_check c = {E, false};
  tl_ir_visitor v = {NULL, check_stmt, &c};
  tl_ir_visit_stmt(&v, body);
  if (c.failed) return NULL;
  tl_ir_mutator mu = {E->mod, NULL, serial_stmt, NULL, TL_OK};
  tl_ir_stmt *r = tl_ir_mutate_stmt(&mu, body);
  if (!r) tl__elab_builder_failed(E);
  return r;
}
