/* The pass gpu_software_pipeline: T.Pipelined(n, num_stages=S) as a software
 * pipeline whose copies run S - 1 iterations ahead (docs/lowering.md, "Software
 * pipelines").
 *
 * Runs on tile-level kernels, before lower_elementwise_tile_ops, where a loop's
 * copies are still T.copy statements, for targets with asynchronous copies
 * (tl__gpu_params.cp_async). In a T.Pipelined loop of one variable k from m with
 * S >= 2, a *producer* is a statement of the loop's body (a direct child) that is
 * `T.copy(global region, shared region)` where
 *   - the source region's bounds read no memory (k and values from outside the
 *     loop only), and its buffer is not written in the loop;
 *   - the destination region has constant bounds, its buffer B is allocated in
 *     the kernel outside the loop (not a T.reshape / T.view, nor viewed by one),
 *     used nowhere else in the kernel, not touched by the body's statements
 *     before the copy, and only read after it.
 * Each such B becomes B' with a leading dimension of S stages; iteration k's copy
 * fills stage (k - m) % S, and the loop becomes
 *
 *   T.sync_threads()                    # an earlier run of the loop may still read stages
 *   for s in 0 .. S-2:  [if s < n:] producers of iteration m + s;  T.cp_async_commit()
 *   for k in T.serial(m, m + n):
 *     T.cp_async_wait(S - 2)            # this thread's copies of iteration k landed
 *     T.sync_threads()                  # everyone's, and everyone is done with k - 1
 *     if k + S - 1 < m + n: producers of iteration k + S - 1   (stage (k - 1 - m) % S)
 *     T.cp_async_commit()
 *     the rest of the body, reading stage (k - m) % S
 *   T.cp_async_wait(0)
 *
 * The one barrier per iteration orders both hazards on the stages: the copies of
 * iteration k (issued S - 1 iterations earlier, by every thread) are complete and
 * visible, and the stage the new copies overwrite was last read in iteration
 * k - 1, before the barrier. Within an iteration the copies write one stage and
 * the rest reads another, so gpu_insert_barriers leaves the producers' shared
 * writes out of its record (barriers.c: statements ending in a commit are a
 * stage's copies). At tile level the copies are ordinary stores and commit/wait
 * do nothing, so the pipelined program computes what the loop did; gpu_async_copy
 * later turns the copies' vector stores into cp.async, whose data lands at the
 * wait (the interpreter's SIMT mode models that, so a missing wait fails).
 *
 * Loops whose copies do not qualify stay as they are (synchronous copies, the
 * body's own barriers). */
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "ir/op_table.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct staged {
  const tl_ir_buffer *from; /* B */
  tl_ir_buffer *to;         /* B', shape (S, B's shape...) */
} staged;

typedef struct pctx {
  tl_ir_module *mod;
  const tl_ir_stmt *kernel_body; /* for uses of a buffer outside the loop */
  tl__vec staged;                /* staged: every buffer given stages in the kernel */
  tl_status st;
} pctx;

/* ----------------------------------------------------------------- uses */

typedef struct uses {
  const tl_ir_buffer *buf;
  int64_t reads, writes, allocs;
  bool loads; /* any load at all (for region bounds) */
} uses;

static bool uses_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  uses *u = v->ctx;
  if (e->kind == TL_EXPR_LOAD) {
    u->loads = true;
    if (e->u.load.buffer == u->buf) u->reads++;
  }
  if (e->kind == TL_EXPR_CALL && tl_ir_op_is_tile(e->u.call.op)) {
    const tl__tile_op_info *t = tl__tile_op(e->u.call.op);
    for (uint32_t i = 0; i < e->u.call.nargs; i++) {
      const tl_ir_expr *a = e->u.call.args[i];
      if (a->kind != TL_EXPR_REGION || a->u.region.buffer != u->buf) continue;
      if (t && i == t->written) u->writes++;
      if (!t || i != t->written || tl__tile_op_reads_written(t, e)) u->reads++;
    }
  }
  return true;
}

static bool uses_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  uses *u = v->ctx;
  if (s->kind == TL_STMT_STORE && s->u.store.buffer == u->buf) u->writes++;
  if (s->kind == TL_STMT_ALLOC && s->u.alloc.buffer == u->buf) u->allocs++;
  return true;
}

static uses uses_of(const tl_ir_buffer *b, const tl_ir_stmt *s, const tl_ir_expr *e) {
  uses u = {b, 0, 0, 0, false};
  tl_ir_visitor v = {uses_expr, uses_stmt, &u};
  if (s) tl_ir_visit_stmt(&v, s);
  if (e) tl_ir_visit_expr(&v, e);
  return u;
}

static bool touched(const tl_ir_buffer *b, const tl_ir_stmt *s) {
  uses u = uses_of(b, s, NULL);
  return u.reads || u.writes || u.allocs;
}

/* ------------------------------------------------------------ producers */

static bool is_shared(const tl_ir_buffer *b) {
  return b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN;
}

static bool const_region(const tl_ir_expr *r) {
  int64_t v;
  for (uint32_t d = 0; d < r->u.region.ndim; d++)
    if (!tl__is_const_int(r->u.region.mins[d], &v) || !tl__is_const_int(r->u.region.extents[d], &v)) return false;
  return true;
}

typedef struct view_of {
  const tl_ir_buffer *b;
  bool found;
} view_of;

static bool view_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  view_of *w = v->ctx;
  if (s->kind == TL_STMT_ALLOC && s->u.alloc.buffer->view && s->u.alloc.buffer->data == w->b->data) w->found = true;
  return !w->found;
}

/* Whether a T.reshape / T.view of b is declared in the kernel body. */
static bool has_view_of(const tl_ir_stmt *body, const tl_ir_buffer *b) {
  view_of w = {b, false};
  tl_ir_visitor v = {NULL, view_stmt, &w};
  tl_ir_visit_stmt(&v, body);
  return w.found;
}

/* Whether items[i] is a producer of the loop (the rules above). */
static bool is_producer(const pctx *c, const tl_ir_stmt *loop, tl_ir_stmt *const *items, uint32_t n, uint32_t i) {
  const tl_ir_stmt *s = items[i];
  if (s->kind != TL_STMT_EVAL || !s->u.eval.expr || s->u.eval.expr->kind != TL_EXPR_CALL ||
      s->u.eval.expr->u.call.op != TL_OP_COPY || s->u.eval.expr->u.call.nargs < 2)
    return false;
  const tl_ir_expr *src = s->u.eval.expr->u.call.args[0], *dst = s->u.eval.expr->u.call.args[1];
  if (src->kind != TL_EXPR_REGION || dst->kind != TL_EXPR_REGION) return false;
  const tl_ir_buffer *g = src->u.region.buffer, *b = dst->u.region.buffer;
  if (g->scope != TL_SCOPE_GLOBAL || !is_shared(b) || b->view || b->ndim + 1 > TL__GPU_MAX_RANK || !const_region(dst))
    return false;
  if (has_view_of(c->kernel_body, b)) return false; /* its storage has other names: it cannot be restaged alone */
  if (tl__gpu_shared_bytes(b) < 0) return false;
  if (uses_of(g, NULL, src).loads) return false; /* bounds that read memory could change */
  if (uses_of(g, loop->u.loop.body, NULL).writes) return false;
  for (uint32_t j = 0; j < n; j++) {
    if (j < i && touched(b, items[j])) return false;
    if (j > i && uses_of(b, items[j], NULL).writes) return false;
  }
  /* Nowhere else in the kernel but its allocation and this loop. */
  uses all = uses_of(b, c->kernel_body, NULL), here = uses_of(b, loop, NULL);
  return all.allocs == 1 && here.allocs == 0 && all.reads == here.reads && all.writes == here.writes;
}

static bool is_async_op(const tl_ir_stmt *s, tl_ir_op op) {
  return s->kind == TL_STMT_EVAL && s->u.eval.expr && s->u.eval.expr->kind == TL_EXPR_CALL &&
         s->u.eval.expr->u.call.op == op;
}

bool tl__gpu_in_stage_copies(tl_ir_stmt *const *items, uint32_t n, uint32_t i) {
  for (uint32_t j = i; j < n; j++) {
    const tl_ir_stmt *x = items[j];
    if (is_async_op(x, TL_OP_CP_ASYNC_COMMIT)) return j > i;
    if (x->kind == TL_STMT_BARRIER || is_async_op(x, TL_OP_CP_ASYNC_WAIT)) return false;
  }
  return false;
}

/* ------------------------------------------------------------- rewriting */

typedef struct restage {
  const tl__vec *staged; /* staged: the loop's buffers */
  tl_ir_expr *stage;     /* which stage the statement accesses */
} restage;

static tl_ir_buffer *staged_of(const tl__vec *v, const tl_ir_buffer *b) {
  for (size_t i = 0; i < v->len; i++)
    if (TL__VEC_AT(v, staged, i).from == b) return TL__VEC_AT(v, staged, i).to;
  return NULL;
}

/* Region r of B as the same region of one stage of B'. */
static tl_ir_expr *staged_region(tl_ir_module *mod, tl_ir_buffer *to, const tl_ir_expr *r, tl_ir_expr *stage) {
  tl_ir_expr *mins[TL__GPU_MAX_RANK], *ext[TL__GPU_MAX_RANK];
  mins[0] = stage;
  ext[0] = tl_ir_i32(mod, 1);
  for (uint32_t d = 0; d < r->u.region.ndim; d++) {
    mins[d + 1] = r->u.region.mins[d];
    ext[d + 1] = r->u.region.extents[d];
  }
  return tl_ir_region(mod, to, mins, ext, TL_REGION_SLICE);
}

static tl_ir_expr *restage_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  restage *r = mu->ctx;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  if (e->kind == TL_EXPR_LOAD) {
    tl_ir_buffer *to = staged_of(r->staged, e->u.load.buffer);
    if (!to) return e;
    tl_ir_expr *idx[TL__GPU_MAX_RANK];
    idx[0] = r->stage;
    for (uint32_t d = 0; d < e->u.load.n; d++) idx[d + 1] = e->u.load.indices[d];
    return tl_ir_load(mu->mod, to, e->u.load.n + 1, idx);
  }
  if (e->kind == TL_EXPR_REGION) {
    tl_ir_buffer *to = staged_of(r->staged, e->u.region.buffer);
    return to ? staged_region(mu->mod, to, e, r->stage) : e;
  }
  return e;
}

/* s with every access to a staged buffer going to `stage`. */
static tl_ir_stmt *restaged(pctx *c, const tl__vec *st, tl_ir_stmt *s, tl_ir_expr *stage) {
  restage r = {st, stage};
  tl_ir_mutator mu = {c->mod, restage_expr, NULL, &r, TL_OK};
  tl_ir_stmt *out = tl_ir_mutate_stmt(&mu, s);
  if (!out && c->st == TL_OK) c->st = mu.status != TL_OK ? mu.status : TL_EINTERNAL;
  return out;
}

static tl_ir_stmt *async_op(pctx *c, tl_ir_op op, int64_t n) {
  bool wait = op == TL_OP_CP_ASYNC_WAIT;
  tl_ir_expr *arg = wait ? tl_ir_i32(c->mod, n) : NULL;
  if (wait && !arg) return NULL;
  tl_ir_expr *call = tl_ir_call(c->mod, op, TL_DT_HANDLE, wait ? 1 : 0, wait ? &arg : NULL);
  return call ? tl_ir_eval(c->mod, call) : NULL;
}

/* The producers of iteration j (an expression of k), filling stage `stage`. */
static tl_ir_stmt *producers_at(pctx *c, const tl__vec *st, tl_ir_stmt *const *prods, uint32_t np, tl_ir_var *k,
                                tl_ir_expr *j, tl_ir_expr *stage) {
  tl_ir_stmt *items[64];
  for (uint32_t i = 0; i < np; i++) {
    tl_ir_stmt *s = tl_ir_substitute_stmt(c->mod, prods[i], 1, &k, &j);
    items[i] = s ? restaged(c, st, s, stage) : NULL;
    if (!items[i]) return NULL;
  }
  return np == 1 ? items[0] : tl_ir_seq(c->mod, np, items);
}

static tl_ir_expr *stage_of(tl_ir_module *mod, tl_ir_expr *iter, tl_ir_expr *min, int64_t S) {
  return tl__floormod(mod, tl__sub(mod, iter, min), tl__int_like(mod, iter, S));
}

/* The pipelined form of loop s (a T.Pipelined loop whose children are lowered),
 * or s when nothing in it qualifies. */
static tl_ir_stmt *pipeline_loop(pctx *c, tl_ir_stmt *s) {
  tl_ir_module *mod = c->mod;
  int64_t S = s->u.loop.num_stages;
  tl_ir_stmt *body = s->u.loop.body;
  tl_ir_stmt *const *items = body->kind == TL_STMT_SEQ ? body->u.seq.stmts : &body;
  uint32_t n = body->kind == TL_STMT_SEQ ? body->u.seq.n : 1;
  tl_ir_stmt *prods[64], *rest[256];
  uint32_t np = 0, nr = 0;
  tl__vec st = TL__VEC_INIT(staged);
  for (uint32_t i = 0; i < n && c->st == TL_OK; i++) {
    bool p = np < 64 && is_producer(c, s, items, n, i);
    if (p) {
      const tl_ir_buffer *b = items[i]->u.eval.expr->u.call.args[1]->u.region.buffer;
      if (staged_of(&st, b)) p = false; /* a second copy into one buffer: not a stage of its own */
    }
    if (!p) {
      if (nr == 256) {
        tl__vec_free(&st);
        return s;
      }
      rest[nr++] = items[i];
      continue;
    }
    const tl_ir_buffer *b = items[i]->u.eval.expr->u.call.args[1]->u.region.buffer;
    tl_ir_expr *shape[TL__GPU_MAX_RANK];
    shape[0] = tl_ir_i32(mod, S);
    for (uint32_t d = 0; d < b->ndim; d++) shape[d + 1] = b->shape[d];
    tl_ir_span old = tl__loc_push(mod, b->span);
    tl_ir_buffer *to = tl_ir_buffer_new(mod, b->name, b->dtype, b->ndim + 1, shape, NULL, b->scope);
    tl_ir_builder_set_loc(mod, old);
    staged sg = {b, to};
    c->st = to ? tl__vec_push(&st, &sg) : tl__built(mod, NULL);
    prods[np++] = items[i];
  }
  if (c->st != TL_OK || np == 0) {
    tl__vec_free(&st);
    return c->st == TL_OK ? s : NULL;
  }

  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_var *k = s->u.loop.vars[0];
  tl_ir_expr *m = s->u.loop.mins[0], *ext = s->u.loop.extents[0];
  tl_ir_expr *end = tl__add(mod, m, ext);
  tl__vec out = TL__VEC_INIT(tl_ir_stmt *);
  tl_ir_stmt *x = tl_ir_barrier(mod);
  /* Threads may still read the stages from an earlier run of the loop (it sits in
   * an outer loop) that the prologue's copies overwrite: a barrier first. */
  if (c->st == TL_OK) c->st = x ? tl__vec_push(&out, &x) : tl__built(mod, NULL);
  /* Prologue: stages 0 .. S-2. */
  for (int64_t i = 0; i + 1 < S && c->st == TL_OK; i++) {
    tl_ir_expr *j = tl__add(mod, m, tl__int_like(mod, m, i));
    x = producers_at(c, &st, prods, np, k, j, tl_ir_i32(mod, i));
    if (x) x = tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_LT, tl__int_like(mod, ext, i), ext), x, NULL);
    if (c->st == TL_OK) c->st = x ? tl__vec_push(&out, &x) : tl__built(mod, NULL);
    x = async_op(c, TL_OP_CP_ASYNC_COMMIT, 0);
    if (c->st == TL_OK) c->st = x ? tl__vec_push(&out, &x) : tl__built(mod, NULL);
  }
  /* The steady state. */
  tl_ir_expr *kref = tl_ir_var_ref(mod, k);
  tl_ir_expr *ahead = tl__add(mod, kref, tl__int_like(mod, kref, S - 1));
  tl_ir_stmt *loop_items[260];
  uint32_t nl = 0;
  loop_items[nl++] = async_op(c, TL_OP_CP_ASYNC_WAIT, S - 2);
  loop_items[nl++] = tl_ir_barrier(mod);
  x = producers_at(c, &st, prods, np, k, ahead, stage_of(mod, ahead, m, S));
  loop_items[nl++] = x ? tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_LT, ahead, end), x, NULL) : NULL;
  loop_items[nl++] = async_op(c, TL_OP_CP_ASYNC_COMMIT, 0);
  tl_ir_expr *now = stage_of(mod, kref, m, S);
  for (uint32_t i = 0; i < nr; i++) loop_items[nl++] = c->st == TL_OK ? restaged(c, &st, rest[i], now) : NULL;
  tl_ir_stmt *lbody = tl_ir_seq(mod, nl, loop_items);
  x = lbody ? tl_ir_for(mod, TL_FOR_SERIAL, 1, &k, &m, &ext, lbody) : NULL;
  if (c->st == TL_OK) c->st = x ? tl__vec_push(&out, &x) : tl__built(mod, NULL);
  x = async_op(c, TL_OP_CP_ASYNC_WAIT, 0);
  if (c->st == TL_OK) c->st = x ? tl__vec_push(&out, &x) : tl__built(mod, NULL);
  tl_ir_stmt *r = c->st == TL_OK ? tl_ir_seq(mod, (uint32_t)out.len, (tl_ir_stmt *const *)out.data) : NULL;
  if (!r && c->st == TL_OK) c->st = tl__built(mod, NULL);
  tl_ir_builder_set_loc(mod, old);
  for (size_t i = 0; i < st.len && c->st == TL_OK; i++) c->st = tl__vec_push(&c->staged, &TL__VEC_AT(&st, staged, i));
  tl__vec_free(&st);
  tl__vec_free(&out);
  return c->st == TL_OK ? r : NULL;
}

static tl_ir_stmt *loop_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  pctx *c = mu->ctx;
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_FOR || r->u.loop.kind != TL_FOR_PIPELINED || r->u.loop.num_stages < 2 || r->u.loop.n != 1)
    return r;
  tl_ir_stmt *p = pipeline_loop(c, r);
  if (!p) tl_ir_mutator_fail(mu, c->st != TL_OK ? c->st : TL_EINTERNAL);
  return p;
}

/* The allocations of the staged buffers become the staged ones'. */
static tl_ir_stmt *alloc_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  pctx *c = mu->ctx;
  if (s->kind != TL_STMT_ALLOC) return tl_ir_mutate_stmt_children(mu, s);
  tl_ir_buffer *to = staged_of(&c->staged, s->u.alloc.buffer);
  if (!to) return s;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_stmt *r = tl_ir_alloc(mu->mod, to);
  tl_ir_builder_set_loc(mu->mod, old);
  return r;
}

static tl_ir_stmt *kernel_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (s->kind != TL_STMT_KERNEL) return tl_ir_mutate_stmt_children(mu, s);
  pctx c = {mu->mod, s->u.kernel.body, TL__VEC_INIT(staged), TL_OK};
  tl_ir_mutator inner = {mu->mod, NULL, loop_stmt, &c, TL_OK};
  tl_ir_stmt *body = tl_ir_mutate_stmt(&inner, s->u.kernel.body);
  if (body && c.staged.len) {
    tl_ir_mutator allocs = {mu->mod, NULL, alloc_stmt, &c, TL_OK};
    tl_ir_stmt *b2 = tl_ir_mutate_stmt(&allocs, body);
    if (!b2) inner.status = allocs.status != TL_OK ? allocs.status : TL_EINTERNAL;
    body = b2;
  }
  tl__vec_free(&c.staged);
  if (!body) {
    tl_ir_mutator_fail(mu, inner.status != TL_OK ? inner.status : (c.st != TL_OK ? c.st : TL_EINTERNAL));
    return NULL;
  }
  return tl__gpu_kernel_with_body(mu->mod, s, body);
}

tl_status tl__pass_gpu_software_pipeline(tl_ir_module *mod, const tl_target *target) {
  tl__gpu_params p;
  tl__gpu_params_get(target, &p);
  if (!p.cp_async) return TL_OK;
  tl_ir_mutator mu = {mod, NULL, kernel_stmt, NULL, TL_OK};
  return tl__gpu_mutate_functions(mod, &mu);
}
