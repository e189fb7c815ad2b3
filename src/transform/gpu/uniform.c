/* Which values differ between the threads of a block, and the pass
 * gpu_check_sync that uses it.
 *
 * A value varies when it depends on a thread index: the thread variables, a let
 * or loop variable bound from varying values, a warp exchange, a load at a
 * varying index or of a per-thread buffer (local, local.var) that some thread
 * writes differently (a varying index or value, or under varying control). The
 * analysis iterates over the kernel body until nothing changes.
 *
 * gpu_check_sync (after gpu_lower_simt): every TL_STMT_BARRIER and every
 * T.warp_shfl_xor must be reached by all threads of the block together, so none
 * may sit under a condition or in a loop whose bounds vary between threads: a
 * lowering that produced one is a bug, reported as TL_EINTERNAL at the construct.
 * It also drops a barrier that directly follows another one. */
#include <string.h>

#include "base/error.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct ua {
  tl__gpu_uniform *u;
  bool changed;
  tl_status st;
} ua;

static bool has(const tl__vec *v, const void *p) { return tl__vec_has_ptr(v, p); }

static void mark(ua *a, tl__vec *v, const void *p) {
  if (has(v, p) || a->st != TL_OK) return;
  a->st = tl__vec_push(v, &p);
  a->changed = true;
}

typedef struct vctx {
  const tl__gpu_uniform *u;
  bool varies;
} vctx;

static bool vary_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  vctx *c = v->ctx;
  if (c->varies) return false;
  if (e->kind == TL_EXPR_VAR && has(&c->u->vars, e->u.var)) c->varies = true;
  if (e->kind == TL_EXPR_LOAD && has(&c->u->bufs, e->u.load.buffer)) c->varies = true;
  if (e->kind == TL_EXPR_CALL && e->u.call.op == TL_OP_WARP_SHFL_XOR) c->varies = true;
  return !c->varies;
}

bool tl__gpu_expr_varies(const tl__gpu_uniform *u, const tl_ir_expr *e) {
  if (!e) return false;
  vctx c = {u, false};
  tl_ir_visitor v = {vary_expr, NULL, &c};
  tl_ir_visit_expr(&v, e);
  return c.varies;
}

static void walk(ua *a, const tl_ir_stmt *s, bool control) {
  if (!s || a->st != TL_OK) return;
  const tl__gpu_uniform *u = a->u;
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) walk(a, s->u.seq.stmts[i], control);
    return;
  case TL_STMT_LET:
    if (control || tl__gpu_expr_varies(u, s->u.let.value)) mark(a, &a->u->vars, s->u.let.var);
    walk(a, s->u.let.body, control);
    return;
  case TL_STMT_FOR: {
    bool vb = control;
    for (uint32_t i = 0; i < s->u.loop.n; i++)
      vb |= tl__gpu_expr_varies(u, s->u.loop.mins[i]) || tl__gpu_expr_varies(u, s->u.loop.extents[i]);
    if (vb || s->u.loop.kind == TL_FOR_THREAD)
      for (uint32_t i = 0; i < s->u.loop.n; i++) mark(a, &a->u->vars, s->u.loop.vars[i]);
    walk(a, s->u.loop.body, vb);
    return;
  }
  case TL_STMT_IF: {
    bool vc = control || tl__gpu_expr_varies(u, s->u.if_.cond);
    walk(a, s->u.if_.then_, vc);
    walk(a, s->u.if_.else_, vc);
    return;
  }
  case TL_STMT_STORE: {
    const tl_ir_buffer *b = s->u.store.buffer;
    if (b->scope != TL_SCOPE_LOCAL && b->scope != TL_SCOPE_LOCAL_VAR && b->scope != TL_SCOPE_LOCAL_FRAGMENT) return;
    bool v = control || tl__gpu_expr_varies(u, s->u.store.value);
    for (uint32_t i = 0; i < s->u.store.n && !v; i++) v = tl__gpu_expr_varies(u, s->u.store.indices[i]);
    if (v) mark(a, &a->u->bufs, b);
    return;
  }
  case TL_STMT_EVAL: {
    /* A warp-collective step writes per-lane results into its local region. */
    const tl_ir_expr *e = s->u.eval.expr;
    if (e && e->kind == TL_EXPR_CALL && (e->u.call.op == TL_OP_MMA_M16N8K16 || e->u.call.op == TL_OP_LDMATRIX_X4) &&
        e->u.call.nargs == 3 &&
        e->u.call.args[0] && e->u.call.args[0]->kind == TL_EXPR_REGION)
      mark(a, &a->u->bufs, e->u.call.args[0]->u.region.buffer);
    return;
  }
  default:
    return;
  }
}

static bool tagged_thread(tl_ir_visitor *v, const tl_ir_expr *e) {
  ua *a = v->ctx;
  if (e->kind == TL_EXPR_VAR && e->u.var->thread_tag && strncmp(e->u.var->thread_tag, "threadIdx.", 10) == 0)
    mark(a, &a->u->vars, e->u.var);
  return true;
}

tl_status tl__gpu_uniform_analyze(const tl_ir_stmt *body, tl_ir_var *const *thread_vars, uint32_t n,
                                  tl__gpu_uniform *out) {
  tl__vec_init(&out->vars, sizeof(const tl_ir_var *));
  tl__vec_init(&out->bufs, sizeof(const tl_ir_buffer *));
  ua a = {out, false, TL_OK};
  for (uint32_t i = 0; i < n; i++)
    if (thread_vars[i]) mark(&a, &out->vars, thread_vars[i]);
  if (n == 0) {
    tl_ir_visitor v = {tagged_thread, NULL, &a};
    tl_ir_visit_stmt(&v, body);
  }
  for (int round = 0; round < 1000 && a.st == TL_OK; round++) {
    a.changed = false;
    walk(&a, body, false);
    if (!a.changed) break;
  }
  return a.st;
}

void tl__gpu_uniform_free(tl__gpu_uniform *u) {
  tl__vec_free(&u->vars);
  tl__vec_free(&u->bufs);
}

/* --------------------------------------------------------- gpu_check_sync */

typedef struct cctx {
  tl__gpu_uniform u;
  tl_status st;
} cctx;

static bool find_shfl(tl_ir_visitor *v, const tl_ir_expr *e) {
  const tl_ir_expr **found = v->ctx;
  if (!*found && e->kind == TL_EXPR_CALL && (e->u.call.op == TL_OP_WARP_SHFL_XOR || e->u.call.op == TL_OP_MMA_M16N8K16))
    *found = e;
  return !*found;
}

/* The first barrier or shuffle inside s, or NULL (its span in *at). */
static bool sync_inside(const tl_ir_stmt *s, tl_ir_span *at, const char **what) {
  if (!s) return false;
  if (s->kind == TL_STMT_BARRIER) {
    *at = s->span;
    *what = "a barrier";
    return true;
  }
  const tl_ir_expr *found = NULL;
  tl_ir_visitor v = {find_shfl, NULL, &found};
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if (sync_inside(s->u.seq.stmts[i], at, what)) return true;
    return false;
  case TL_STMT_FOR: return sync_inside(s->u.loop.body, at, what);
  case TL_STMT_IF: return sync_inside(s->u.if_.then_, at, what) || sync_inside(s->u.if_.else_, at, what);
  case TL_STMT_LET:
    tl_ir_visit_expr(&v, s->u.let.value);
    if (found) break;
    return sync_inside(s->u.let.body, at, what);
  default: tl_ir_visit_stmt(&v, s); break;
  }
  if (!found) return false;
  *at = found->span.line ? found->span : s->span;
  *what = found->u.call.op == TL_OP_MMA_M16N8K16 ? "T.mma_m16n8k16" : "T.warp_shfl_xor";
  return true;
}

static void check(cctx *c, const tl_ir_stmt *s) {
  if (!s || c->st != TL_OK) return;
  tl_ir_span at;
  const char *what;
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) check(c, s->u.seq.stmts[i]);
    return;
  case TL_STMT_LET: check(c, s->u.let.body); return;
  case TL_STMT_FOR: {
    bool vb = s->u.loop.kind == TL_FOR_THREAD;
    for (uint32_t i = 0; i < s->u.loop.n; i++)
      vb |= tl__gpu_expr_varies(&c->u, s->u.loop.mins[i]) || tl__gpu_expr_varies(&c->u, s->u.loop.extents[i]);
    if (vb && sync_inside(s->u.loop.body, &at, &what)) {
      c->st = tl__pass_error(TL_EINTERNAL, at.line ? at : s->span,
                             "%s inside a loop whose trip count differs between threads: they would not all reach it",
                             what);
      return;
    }
    check(c, s->u.loop.body);
    return;
  }
  case TL_STMT_IF:
    if (tl__gpu_expr_varies(&c->u, s->u.if_.cond) &&
        (sync_inside(s->u.if_.then_, &at, &what) || sync_inside(s->u.if_.else_, &at, &what))) {
      c->st = tl__pass_error(TL_EINTERNAL, at.line ? at : s->span,
                             "%s under a condition that differs between threads: they would not all reach it", what);
      return;
    }
    check(c, s->u.if_.then_);
    check(c, s->u.if_.else_);
    return;
  default: return;
  }
}

/* Drops a barrier right after another one in a sequence. */
static bool repeated_barrier(const tl_ir_stmt *seq, uint32_t i) {
  return i > 0 && seq->u.seq.stmts[i]->kind == TL_STMT_BARRIER && seq->u.seq.stmts[i - 1]->kind == TL_STMT_BARRIER;
}

static tl_ir_stmt *dedupe(tl_ir_mutator *mu, tl_ir_stmt *s) {
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_SEQ) return r;
  bool dup = false;
  for (uint32_t i = 0; i < r->u.seq.n; i++) dup |= repeated_barrier(r, i);
  if (!dup) return r;
  tl__vec items = TL__VEC_INIT(tl_ir_stmt *);
  for (uint32_t i = 0; i < r->u.seq.n && mu->status == TL_OK; i++)
    if (!repeated_barrier(r, i)) {
      tl_status st = tl__vec_push(&items, &r->u.seq.stmts[i]);
      if (st != TL_OK) tl_ir_mutator_fail(mu, st);
    }
  tl_ir_stmt *x = NULL;
  if (mu->status == TL_OK) {
    tl_ir_span old = tl__loc_push(mu->mod, s->span);
    x = tl_ir_seq(mu->mod, (uint32_t)items.len, (tl_ir_stmt *const *)items.data);
    tl_ir_builder_set_loc(mu->mod, old);
  }
  tl__vec_free(&items);
  return x;
}

static tl_ir_stmt *kernel_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (s->kind != TL_STMT_KERNEL) return tl_ir_mutate_stmt_children(mu, s);
  cctx c;
  c.st = tl__gpu_uniform_analyze(s->u.kernel.body, s->u.kernel.thread_vars, 3, &c.u);
  if (c.st == TL_OK) check(&c, s->u.kernel.body);
  tl__gpu_uniform_free(&c.u);
  if (c.st != TL_OK) {
    tl_ir_mutator_fail(mu, c.st);
    return NULL;
  }
  tl_ir_mutator inner = {mu->mod, NULL, dedupe, NULL, TL_OK};
  tl_ir_stmt *body = tl_ir_mutate_stmt(&inner, s->u.kernel.body);
  if (!body) {
    tl_ir_mutator_fail(mu, inner.status != TL_OK ? inner.status : TL_EINTERNAL);
    return NULL;
  }
  return tl__gpu_kernel_with_body(mu->mod, s, body);
}

tl_status tl__pass_gpu_check_sync(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  tl_ir_mutator mu = {mod, NULL, kernel_stmt, NULL, TL_OK};
  return tl__gpu_mutate_functions(mod, &mu);
}
