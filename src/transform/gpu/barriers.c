/* gpu_insert_barriers: where the threads of a block must wait for each other.
 *
 * Runs on tile-level kernels (before gpu_lower_simt), where the body is a block
 * program: its block-level statements run one after another, and each T.Parallel
 * loop, tile op and block-level store becomes work spread over the threads (or
 * done by one of them). Those are the units ("steps"); within one step no two
 * threads touch one element of shared or global memory where one of them writes
 * it (T.Parallel iterations are independent, tile ops are lowered so). Between
 * steps they may: a step that reads a shared or global buffer written by an
 * earlier step since the last barrier (RAW), or writes one read or written since
 * (WAR, WAW), gets a TL_STMT_BARRIER before it, which also empties the record.
 *
 * Block-level structure is followed: sequences in order, lets, ifs (both branches
 * start from the same record; after the if, the union of both), and serial loops,
 * whose body is analysed again with what its end leaves behind until nothing
 * changes, so accesses carried into the next iteration are seen (the K loop of a
 * GEMM: the copy into A_shared at the top must wait for the T.gemm reading it at
 * the bottom of the previous iteration). Conditions, lets and loop bounds that
 * read memory are steps of their own. A T.sync_threads already there empties the
 * record; one inside T.Parallel is refused (threads would wait at different
 * iterations).
 *
 * Conflicts are per buffer (any element): a step never waits for itself, so the
 * only over-approximation is two steps touching disjoint parts of one buffer.
 * Block-level stores into memory (and atomic adds outside T.Parallel) are done
 * by thread 0 (gpu_lower_simt), so two of them never wait for each other.
 * Exchanges inside one tile op's lowering (reductions through shared memory) are
 * synchronised by that lowering (reduce.c).
 *
 * A stage's copies of a software pipeline (gpu_software_pipeline: the statements
 * of a sequence that end in a T.cp_async_commit, back to the previous barrier,
 * commit or wait) write a stage of a multi-buffered tile that no statement of
 * the iteration reads, and the pipeline's own wait and barrier order them with
 * the reads of that stage: their shared-memory writes are left out of the
 * record (their reads are kept). */
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "ir/op_table.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct access {
  const tl_ir_buffer *buf;
  bool read, write;
  bool one;   /* only by thread 0 (block-level stores into memory) */
} access;

typedef struct bctx {
  tl_ir_module *mod;
  bool stage_copies; /* walking a pipeline stage's copies (above) */
  tl_status st;
} bctx;


static bool tracked(const tl_ir_buffer *b) {
  return b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN || b->scope == TL_SCOPE_GLOBAL;
}

static void add_one(bctx *c, tl__vec *set, const tl_ir_buffer *b, bool read, bool write, bool one) {
  if (!tracked(b) || c->st != TL_OK) return;
  for (size_t i = 0; i < set->len; i++) {
    access *a = &TL__VEC_AT(set, access, i);
    if (a->buf == b) {
      a->read |= read;
      a->write |= write;
      a->one &= one;
      return;
    }
  }
  access a = {b, read, write, one};
  c->st = tl__vec_push(set, &a);
}

static void add(bctx *c, tl__vec *set, const tl_ir_buffer *b, bool read, bool write) { add_one(c, set, b, read, write, false); }

static void merge(bctx *c, tl__vec *into, const tl__vec *from) {
  for (size_t i = 0; i < from->len; i++) {
    const access *a = &TL__VEC_AT(from, access, i);
    add_one(c, into, a->buf, a->read, a->write, a->one);
  }
}

/* Two accesses conflict when one writes, unless thread 0 made both. */
static bool conflict(const tl__vec *state, const tl__vec *step) {
  for (size_t i = 0; i < step->len; i++) {
    const access *s = &TL__VEC_AT(step, access, i);
    for (size_t j = 0; j < state->len; j++) {
      const access *a = &TL__VEC_AT(state, access, j);
      if (a->buf == s->buf && (a->write || s->write) && !(a->one && s->one)) return true;
    }
  }
  return false;
}

static bool same_set(const tl__vec *a, const tl__vec *b) {
  if (a->len != b->len) return false;
  for (size_t i = 0; i < a->len; i++) {
    const access *x = &TL__VEC_AT(a, access, i);
    bool found = false;
    for (size_t j = 0; j < b->len && !found; j++) {
      const access *y = &TL__VEC_AT(b, access, j);
      found = y->buf == x->buf && y->read == x->read && y->write == x->write && y->one == x->one;
    }
    if (!found) return false;
  }
  return true;
}

static void copy_set(bctx *c, tl__vec *dst, const tl__vec *src) {
  tl__vec_clear(dst);
  merge(c, dst, src);
}

/* --------------------------------------------------------- step accesses */

typedef struct collect {
  bctx *c;
  tl__vec *set;
  const tl_ir_stmt *barrier; /* a T.sync_threads found inside the step */
} collect;

static bool col_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  collect *k = v->ctx;
  if (e->kind == TL_EXPR_LOAD) add(k->c, k->set, e->u.load.buffer, true, false);
  if (e->kind == TL_EXPR_CALL && tl_ir_op_is_tile(e->u.call.op)) {
    /* Regions: every one read (conservatively), the destination also written. */
    uint32_t dst = tl__tile_op(e->u.call.op)->written;
    for (uint32_t i = 0; i < e->u.call.nargs; i++) {
      const tl_ir_expr *a = e->u.call.args[i];
      if (a->kind == TL_EXPR_REGION) add(k->c, k->set, a->u.region.buffer, true, i == dst);
    }
  }
  return true;
}

static bool col_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  collect *k = v->ctx;
  if (s->kind == TL_STMT_STORE) add(k->c, k->set, s->u.store.buffer, false, true);
  if (s->kind == TL_STMT_BARRIER && !k->barrier) k->barrier = s;
  return true;
}

static void step_accesses(bctx *c, const tl_ir_stmt *s, const tl_ir_expr *e, tl__vec *set, const tl_ir_stmt **barrier) {
  collect k = {c, set, NULL};
  tl_ir_visitor v = {col_expr, col_stmt, &k};
  if (s) tl_ir_visit_stmt(&v, s);
  if (e) tl_ir_visit_expr(&v, e);
  if (barrier) *barrier = k.barrier;
}

/* ------------------------------------------------------------- the walk */

static tl_ir_stmt *walk(bctx *c, tl_ir_stmt *s, tl__vec *state);
static tl_ir_stmt *walk_step(bctx *c, tl_ir_stmt *s, tl__vec *state);

/* Accesses of the expression e (a condition, a let value, loop bounds): a step. */
static bool expr_step(bctx *c, const tl_ir_expr *const *es, uint32_t n, tl__vec *state) {
  tl__vec set = TL__VEC_INIT(access);
  for (uint32_t i = 0; i < n; i++) step_accesses(c, NULL, es[i], &set, NULL);
  bool wait = conflict(state, &set);
  if (wait) tl__vec_clear(state);
  merge(c, state, &set);
  tl__vec_free(&set);
  return wait;
}

static tl_ir_stmt *with_barrier(bctx *c, tl_ir_stmt *s, tl_ir_span span) {
  tl_ir_span old = tl__loc_push(c->mod, span);
  tl_ir_stmt *items[2] = {tl_ir_barrier(c->mod), s};
  tl_ir_stmt *r = items[0] ? tl_ir_seq(c->mod, 2, items) : NULL;
  tl_ir_builder_set_loc(c->mod, old);
  if (!r && c->st == TL_OK) c->st = tl__built(c->mod, NULL);
  return r;
}

static tl_ir_stmt *walk_seq(bctx *c, tl_ir_stmt *s, tl__vec *state) {
  tl__vec items = TL__VEC_INIT(tl_ir_stmt *);
  bool changed = false;
  bool outer = c->stage_copies;
  for (uint32_t i = 0; i < s->u.seq.n && c->st == TL_OK; i++) {
    tl_ir_stmt *x = s->u.seq.stmts[i];
    c->stage_copies = outer || tl__gpu_in_stage_copies(s->u.seq.stmts, s->u.seq.n, i);
    tl_ir_stmt *y = walk(c, x, state);
    c->stage_copies = outer;
    if (!y) break;
    /* A barrier put in front of a child joins the sequence (allocations stay at
     * this level, where they are live until its end). */
    if (y != x && y->kind == TL_STMT_SEQ && y->u.seq.n == 2 && y->u.seq.stmts[0]->kind == TL_STMT_BARRIER &&
        y->u.seq.stmts[1] == x) {
      if (c->st == TL_OK) c->st = tl__vec_push(&items, &y->u.seq.stmts[0]);
      y = x;
    }
    changed |= y != x;
    if (c->st == TL_OK) c->st = tl__vec_push(&items, &y);
  }
  tl_ir_stmt *r = NULL;
  if (c->st == TL_OK) {
    if (!changed && items.len == s->u.seq.n) r = s;
    else {
      tl_ir_span old = tl__loc_push(c->mod, s->span);
      r = tl_ir_seq(c->mod, (uint32_t)items.len, (tl_ir_stmt *const *)items.data);
      tl_ir_builder_set_loc(c->mod, old);
      if (!r) c->st = tl__built(c->mod, NULL);
    }
  }
  tl__vec_free(&items);
  return r;
}

static tl_ir_stmt *walk_loop(bctx *c, tl_ir_stmt *s, tl__vec *state) {
  bool wait = expr_step(c, (const tl_ir_expr *const *)s->u.loop.mins, s->u.loop.n, state);
  wait |= expr_step(c, (const tl_ir_expr *const *)s->u.loop.extents, s->u.loop.n, state);
  tl__vec entry = TL__VEC_INIT(access), cur = TL__VEC_INIT(access);
  copy_set(c, &entry, state);
  tl_ir_stmt *body = NULL;
  for (int round = 0; round < 64 && c->st == TL_OK; round++) {
    copy_set(c, &cur, &entry);
    body = walk(c, s->u.loop.body, &cur);
    if (!body) break;
    /* The next iteration starts from what this one leaves (or the loop's entry). */
    tl__vec next = TL__VEC_INIT(access);
    copy_set(c, &next, state);
    merge(c, &next, &cur);
    bool done = same_set(&next, &entry);
    copy_set(c, &entry, &next);
    tl__vec_free(&next);
    if (done) break;
  }
  /* After the loop: its entry (no iteration) or any iteration's end. */
  if (c->st == TL_OK) copy_set(c, state, &entry);
  tl__vec_free(&entry);
  tl__vec_free(&cur);
  if (!body) return NULL;
  tl_ir_stmt *r = s;
  if (body != s->u.loop.body) {
    tl_ir_span old = tl__loc_push(c->mod, s->span);
    r = tl_ir_for(c->mod, s->u.loop.kind, s->u.loop.n, s->u.loop.vars, s->u.loop.mins, s->u.loop.extents, body);
    if (r) {
      r->u.loop.num_stages = s->u.loop.num_stages;
      r->u.loop.thread_tag = s->u.loop.thread_tag;
    }
    tl_ir_builder_set_loc(c->mod, old);
    if (!r) c->st = tl__built(c->mod, NULL);
  }
  return wait && r ? with_barrier(c, r, s->span) : r;
}

static tl_ir_stmt *walk_if(bctx *c, tl_ir_stmt *s, tl__vec *state) {
  bool wait = expr_step(c, (const tl_ir_expr *const *)&s->u.if_.cond, 1, state);
  tl__vec other = TL__VEC_INIT(access);
  copy_set(c, &other, state);
  tl_ir_stmt *t = walk(c, s->u.if_.then_, state);
  tl_ir_stmt *e = s->u.if_.else_ && t ? walk(c, s->u.if_.else_, &other) : NULL;
  merge(c, state, &other);
  tl__vec_free(&other);
  if (!t || (s->u.if_.else_ && !e)) return NULL;
  tl_ir_stmt *r = s;
  if (t != s->u.if_.then_ || e != s->u.if_.else_) {
    tl_ir_span old = tl__loc_push(c->mod, s->span);
    r = tl_ir_if(c->mod, s->u.if_.cond, t, e);
    tl_ir_builder_set_loc(c->mod, old);
    if (!r) c->st = tl__built(c->mod, NULL);
  }
  return wait && r ? with_barrier(c, r, s->span) : r;
}

static tl_ir_stmt *walk(bctx *c, tl_ir_stmt *s, tl__vec *state) {
  if (c->st != TL_OK || !s) return NULL;
  switch (s->kind) {
  case TL_STMT_SEQ: return walk_seq(c, s, state);
  case TL_STMT_ALLOC: return s;
  case TL_STMT_BARRIER: tl__vec_clear(state); return s;
  case TL_STMT_LET: {
    bool wait = expr_step(c, (const tl_ir_expr *const *)&s->u.let.value, 1, state);
    tl_ir_stmt *body = walk(c, s->u.let.body, state);
    if (!body) return NULL;
    tl_ir_stmt *r = s;
    if (body != s->u.let.body) {
      tl_ir_span old = tl__loc_push(c->mod, s->span);
      r = tl_ir_let(c->mod, s->u.let.var, s->u.let.value, body);
      tl_ir_builder_set_loc(c->mod, old);
      if (!r) c->st = tl__built(c->mod, NULL);
    }
    return wait && r ? with_barrier(c, r, s->span) : r;
  }
  case TL_STMT_IF: return walk_if(c, s, state);
  case TL_STMT_FOR:
    if (s->u.loop.kind != TL_FOR_PARALLEL) return walk_loop(c, s, state);
    return walk_step(c, s, state); /* a T.Parallel loop is one step */
  default: return walk_step(c, s, state);
  }
}

static tl_ir_stmt *walk_step(bctx *c, tl_ir_stmt *s, tl__vec *state) {
  tl__vec set = TL__VEC_INIT(access);
  const tl_ir_stmt *inner_barrier = NULL;
  step_accesses(c, s, NULL, &set, &inner_barrier);
  if (inner_barrier && s->kind == TL_STMT_FOR) {
    tl__vec_free(&set);
    c->st = tl__pass_error(TL_EUNSUPPORTED, inner_barrier->span.line ? inner_barrier->span : s->span,
                           "T.sync_threads inside T.Parallel: the loop's iterations are spread over the threads, "
                           "which would wait at different places; put it between loops");
    return NULL;
  }
  /* A block-level store into shared or global memory, and an atomic add outside
   * T.Parallel, are done by thread 0 alone (gpu_lower_simt): all its accesses are. */
  bool one = (s->kind == TL_STMT_STORE && tracked(s->u.store.buffer)) ||
             (s->kind == TL_STMT_EVAL && s->u.eval.expr && s->u.eval.expr->kind == TL_EXPR_CALL &&
              tl__op_is_atomic_elem(s->u.eval.expr->u.call.op));
  for (size_t i = 0; i < set.len; i++) {
    access *a = &TL__VEC_AT(&set, access, i);
    a->one = one;
    if (c->stage_copies && a->buf->scope != TL_SCOPE_GLOBAL) a->write = false;
  }
  bool wait = conflict(state, &set);
  if (wait) tl__vec_clear(state);
  merge(c, state, &set);
  tl__vec_free(&set);
  if (c->st != TL_OK) return NULL;
  return wait ? with_barrier(c, s, s->span) : s;
}

static tl_ir_stmt *kernel_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (s->kind != TL_STMT_KERNEL) return tl_ir_mutate_stmt_children(mu, s);
  bctx c = {mu->mod, false, TL_OK};
  tl__vec state = TL__VEC_INIT(access);
  tl_ir_stmt *body = walk(&c, s->u.kernel.body, &state);
  tl__vec_free(&state);
  if (!body) {
    tl_ir_mutator_fail(mu, c.st != TL_OK ? c.st : TL_EINTERNAL);
    return NULL;
  }
  return tl__gpu_kernel_with_body(mu->mod, s, body);
}

tl_status tl__pass_gpu_insert_barriers(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  tl_ir_mutator mu = {mod, NULL, kernel_stmt, NULL, TL_OK};
  return tl__gpu_mutate_functions(mod, &mu);
}
