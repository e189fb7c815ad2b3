/* gpu_lower_simt: tile-level kernels become code every thread of a block runs
 * (docs/lowering.md, "GPU pipeline").
 *
 *  - Thread binding: T.Kernel(grid..., threads=(X[, Y[, Z]])) gets thread
 *    variables tx[, ty[, tz]] (split_host_device tags them threadIdx.x/y/z, and
 *    the block variables blockIdx.x/y/z); the linear thread index is
 *    tid = tx + ty * X + tz * X * Y (a LET at the top of the kernel when there
 *    are several dimensions).
 *  - Fragments become TL_SCOPE_LOCAL buffers: a distributed fragment one of its
 *    layout's `slots` elements per thread, a replicated one of its own shape.
 *  - Each outermost T.Parallel loop runs as layout.c decided: over the slots of
 *    its layout (its variables rebuilt from the slot's row and column, accesses
 *    to distributed fragments at the loop's own element becoming accesses to the
 *    slot), in chunks of T iterations (symbolic extents), or whole in every
 *    thread. T.Parallel loops nested in it, and T.Pipelined loops, become serial.
 *  - A kernel that binds thread indices itself (T.get_thread_binding) is
 *    per-thread code: it keeps its variables, and its stores and atomics are
 *    every thread's own (no T.Parallel or block-wide tile ops reach here).
 *  - Block-level statements (outside T.Parallel) run in every thread, so lets,
 *    loops and ifs stay as they are; a store into shared or global memory there
 *    is done by thread 0, into a distributed fragment by the element's owner, and
 *    T.atomic_add_elem by thread 0.
 *  - T.gemm, T.reduce_* and T.cumsum become SIMT code (gemm.c, reduce.c, scan.c);
 *    every other tile op must have been lowered to T.Parallel loops before
 *    (lower_elementwise_tile_ops).
 * Barriers are left to gpu_insert_barriers, which sees where threads meet. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "ir/op_table.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct simt {
  tl__gpu_ctx g;
  const tl_ir_stmt *loop;    /* the original outermost T.Parallel being lowered, or NULL */
  const tl__gpu_loop *rec;   /* its record */
  tl_ir_expr *slot;          /* its slot expression (distributed by a layout) */
  tl_ir_expr *row_slot;      /* the slot of its element's row in a row projection */
  tl_ir_buffer *gather[TL__GPU_MAX_GATHERS]; /* shared buffers for rec->gathers */
  int depth;                 /* > 0 inside a kernel */
  bool per_thread;           /* the kernel binds thread indices itself: per-thread code (ir/parse/elab_simt.c) */
} simt;

static tl_status fail(tl_ir_mutator *mu, tl_status st) {
  tl_ir_mutator_fail(mu, st);
  return st;
}

bool tl__gpu_const_count(const tl_ir_buffer *b, int64_t *count) {
  int64_t n = 1;
  for (uint32_t d = 0; d < b->ndim; d++) {
    int64_t v;
    if (!tl__is_const_int(b->shape[d], &v) || v < 0 || __builtin_mul_overflow(n, v, &n)) return false;
  }
  *count = n;
  return true;
}

bool tl__gpu_region_is_whole(const tl_ir_expr *e) {
  const tl_ir_buffer *b = e->u.region.buffer;
  for (uint32_t d = 0; d < e->u.region.ndim; d++) {
    int64_t ext, dim;
    if (!tl__is_int(e->u.region.mins[d], 0)) return false;
    if (tl__expr_same(e->u.region.extents[d], b->shape[d])) continue;
    if (!tl__is_const_int(e->u.region.extents[d], &ext) || !tl__is_const_int(b->shape[d], &dim) || ext != dim)
      return false;
  }
  return true;
}

tl_ir_stmt *tl__gpu_one_thread(tl__gpu_ctx *c, tl_ir_stmt *s) {
  if (!s) return NULL;
  return tl_ir_if(c->mod, tl_ir_binary(c->mod, TL_BIN_EQ, c->tid, tl__int_like(c->mod, c->tid, 0)), s, NULL);
}

/* ------------------------------------------------------- fragment swapping */

static tl_ir_buffer *local_of(const tl__gpu_ctx *c, const tl_ir_buffer *b, const tl__gpu_frag **frag) {
  tl__gpu_frag *f = b->scope == TL_SCOPE_LOCAL_FRAGMENT ? tl__gpu_find_frag(c->info, b) : NULL;
  if (frag) *frag = f;
  return f ? f->local : NULL;
}

static tl_ir_expr *swap_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  tl__gpu_ctx *c = mu->ctx;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  const tl__gpu_frag *f;
  if (e->kind == TL_EXPR_LOAD && local_of(c, e->u.load.buffer, &f)) {
    if (!f->layout.replicated) {
      tl_ir_mutator_fail(mu, tl__pass_error(TL_EINTERNAL, e->span, "distributed fragment '%s' read where its layout does not apply",
                                            f->buf->name));
      return NULL;
    }
    tl_ir_span old = tl__loc_push(mu->mod, e->span);
    tl_ir_expr *r = tl_ir_load(mu->mod, f->local, e->u.load.n, e->u.load.indices);
    tl_ir_builder_set_loc(mu->mod, old);
    return r;
  }
  if (e->kind == TL_EXPR_REGION && local_of(c, e->u.region.buffer, &f) && f->layout.replicated) {
    tl_ir_span old = tl__loc_push(mu->mod, e->span);
    tl_ir_expr *r = tl_ir_region(mu->mod, f->local, e->u.region.mins, e->u.region.extents, e->u.region.form);
    tl_ir_builder_set_loc(mu->mod, old);
    return r;
  }
  return e;
}

static tl_ir_stmt *swap_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  tl__gpu_ctx *c = mu->ctx;
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_STORE) return r;
  const tl__gpu_frag *f;
  if (!local_of(c, r->u.store.buffer, &f)) return r;
  if (!f->layout.replicated) {
    tl_ir_mutator_fail(mu, tl__pass_error(TL_EINTERNAL, s->span, "distributed fragment '%s' written where its layout does not apply",
                                          f->buf->name));
    return NULL;
  }
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_stmt *n = tl_ir_store(mu->mod, f->local, r->u.store.n, r->u.store.indices, r->u.store.value);
  tl_ir_builder_set_loc(mu->mod, old);
  return n;
}

tl_status tl__gpu_swap_fragments(tl__gpu_ctx *c, tl_ir_stmt *s, tl_ir_stmt **out) {
  tl_ir_mutator mu = {c->mod, swap_expr, swap_stmt, c, TL_OK};
  *out = tl_ir_mutate_stmt(&mu, s);
  return *out ? TL_OK : mu.status != TL_OK ? mu.status : TL_EINTERNAL;
}

static tl_ir_expr *swap_value(tl_ir_mutator *outer, tl__gpu_ctx *c, tl_ir_expr *e) {
  tl_ir_mutator mu = {c->mod, swap_expr, swap_stmt, c, TL_OK};
  tl_ir_expr *r = tl_ir_mutate_expr(&mu, e);
  if (!r) tl_ir_mutator_fail(outer, mu.status != TL_OK ? mu.status : TL_EINTERNAL);
  return r;
}

/* -------------------------------------------------- inside T.Parallel loops */

/* True if idx are the leading variables of the loop being lowered, one fewer
 * than it has (the row of its own element). */
static bool own_row(const simt *sc, tl_ir_expr *const *idx, uint32_t n) {
  const tl_ir_stmt *l = sc->loop;
  if (!l || n + 1 != l->u.loop.n) return false;
  for (uint32_t d = 0; d < n; d++)
    if (!idx[d] || idx[d]->kind != TL_EXPR_VAR || idx[d]->u.var != l->u.loop.vars[d]) return false;
  return true;
}

/* True if idx are the variables of the loop being lowered (its own element). */
static bool own_element(const simt *sc, tl_ir_expr *const *idx, uint32_t n) {
  const tl_ir_stmt *l = sc->loop;
  if (!l || n != l->u.loop.n) return false;
  for (uint32_t d = 0; d < n; d++)
    if (!idx[d] || idx[d]->kind != TL_EXPR_VAR || idx[d]->u.var != l->u.loop.vars[d]) return false;
  return true;
}

static tl_ir_expr *body_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  simt *sc = mu->ctx;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  const tl__gpu_frag *f;
  if (e->kind == TL_EXPR_LOAD && local_of(&sc->g, e->u.load.buffer, &f)) {
    tl_ir_span old = tl__loc_push(mu->mod, e->span);
    tl_ir_expr *r = NULL;
    if (f->layout.replicated) r = tl_ir_load(mu->mod, f->local, e->u.load.n, e->u.load.indices);
    else if (sc->slot && own_element(sc, e->u.load.indices, e->u.load.n)) r = tl_ir_load(mu->mod, f->local, 1, &sc->slot);
    else if (sc->row_slot && f->layout.proj && sc->rec && !sc->rec->layout.proj &&
             tl__gpu_layout_rows_equal(&f->layout, &sc->rec->layout) && own_row(sc, e->u.load.indices, e->u.load.n))
      r = tl_ir_load(mu->mod, f->local, 1, &sc->row_slot); /* a row statistic beside its row's elements */
    else tl_ir_mutator_fail(mu, tl__pass_error(TL_EINTERNAL, e->span, "fragment '%s' read off its layout", f->buf->name));
    tl_ir_builder_set_loc(mu->mod, old);
    return r;
  }
  return e;
}

/* The shared buffer a distributed loop gathers fragment f into, or NULL. */
static tl_ir_buffer *gather_of(const simt *sc, const tl__gpu_frag *f) {
  if (!sc->rec) return NULL;
  for (uint32_t k = 0; k < sc->rec->ngathers; k++)
    if (&TL__VEC_AT(&sc->g.info->frags, tl__gpu_frag, sc->rec->gathers[k]) == f) return sc->gather[k];
  return NULL;
}

static tl_ir_stmt *body_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simt *sc = mu->ctx;
  tl_ir_module *mod = mu->mod;
  if (s->kind == TL_STMT_FOR && (s->u.loop.kind == TL_FOR_PARALLEL || s->u.loop.kind == TL_FOR_PIPELINED)) {
    tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
    if (!r) return NULL;
    tl_ir_span old = tl__loc_push(mod, s->span);
    tl_ir_stmt *n = tl_ir_for(mod, TL_FOR_SERIAL, r->u.loop.n, r->u.loop.vars, r->u.loop.mins, r->u.loop.extents,
                              r->u.loop.body);
    tl_ir_builder_set_loc(mod, old);
    return n;
  }
  if (s->kind != TL_STMT_STORE) return tl_ir_mutate_stmt_children(mu, s);
  const tl__gpu_frag *f;
  if (!local_of(&sc->g, s->u.store.buffer, &f)) {
    tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
    tl_ir_scope sp = s->u.store.buffer->scope;
    /* a loop run whole in every thread that writes memory: once (layout.c) */
    if (r && sc->rec && sc->rec->mode == TL__GPU_LOOP_REPLICATED && sc->rec->writes_memory &&
        (sp == TL_SCOPE_SHARED || sp == TL_SCOPE_SHARED_DYN || sp == TL_SCOPE_GLOBAL))
      r = tl__gpu_one_thread(&sc->g, r);
    return r;
  }
  tl_ir_expr *value = tl_ir_mutate_expr(mu, s->u.store.value);
  if (!value) return NULL;
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *r = NULL;
  tl_ir_buffer *gather = gather_of(sc, f);
  if (gather && sc->slot && own_element(sc, s->u.store.indices, s->u.store.n)) {
    r = tl_ir_store(mod, gather, s->u.store.n, s->u.store.indices, value);
  } else if (f->layout.replicated) {
    tl_ir_expr *idx[TL__GPU_MAX_RANK];
    bool ok = true;
    for (uint32_t d = 0; d < s->u.store.n; d++) ok &= (idx[d] = tl_ir_mutate_expr(mu, s->u.store.indices[d])) != NULL;
    if (ok) r = tl_ir_store(mod, f->local, s->u.store.n, idx, value);
  } else if (sc->slot && own_element(sc, s->u.store.indices, s->u.store.n)) {
    r = tl_ir_store(mod, f->local, 1, &sc->slot, value);
  } else {
    tl_ir_mutator_fail(mu, tl__pass_error(TL_EINTERNAL, s->span, "fragment '%s' written off its layout", f->buf->name));
  }
  tl_ir_builder_set_loc(mod, old);
  return r;
}

/* The loop's body with fragment accesses rewritten (slot: the own element's slot,
 * NULL when the loop is not distributed by a fragment layout). */
static tl_ir_stmt *rewrite_body(simt *sc, const tl_ir_stmt *loop, const tl__gpu_loop *rec, tl_ir_expr *slot,
                                tl_ir_expr *row_slot, tl_status *st) {
  simt inner = *sc;
  inner.loop = loop;
  inner.rec = rec;
  inner.slot = slot;
  inner.row_slot = row_slot;
  tl_ir_mutator mu = {sc->g.mod, body_expr, body_stmt, &inner, TL_OK};
  tl_ir_stmt *r = tl_ir_mutate_stmt(&mu, loop->u.loop.body);
  if (!r) *st = mu.status != TL_OK ? mu.status : TL_EINTERNAL;
  return r;
}

/* The loop's variables replaced by `values` in body. */
static tl_ir_stmt *bind_vars(tl_ir_module *mod, const tl_ir_stmt *loop, tl_ir_stmt *body, tl_ir_expr *const *values) {
  tl_ir_expr *vals[TL__GPU_MAX_RANK];
  for (uint32_t d = 0; d < loop->u.loop.n; d++) vals[d] = tl__add(mod, loop->u.loop.mins[d], values[d]);
  return tl_ir_substitute_stmt(mod, body, loop->u.loop.n, loop->u.loop.vars, vals);
}

/* After a loop that gathered replicated fragments into shared buffers: the
 * buffers allocated before it, and
 *   barrier; for every element: copy[idx] = gathered[idx]; barrier
 * so every thread holds all of each fragment, and the buffers may be written
 * again (a loop around this one). */
static tl_status gather_back(simt *sc, const tl__gpu_loop *rec, tl_ir_stmt **loop) {
  tl_ir_module *mod = sc->g.mod;
  tl_ir_stmt *items[2 * TL__GPU_MAX_GATHERS + 3];
  uint32_t n = 0;
  for (uint32_t k = 0; k < rec->ngathers; k++) items[n++] = tl_ir_alloc(mod, sc->gather[k]);
  items[n++] = *loop;
  items[n++] = tl_ir_barrier(mod);
  for (uint32_t k = 0; k < rec->ngathers; k++) {
    const tl__gpu_frag *f = &TL__VEC_AT(&sc->g.info->frags, tl__gpu_frag, rec->gathers[k]);
    uint32_t nd = f->buf->ndim;
    tl_ir_var *v[TL__GPU_MAX_RANK];
    tl_ir_expr *idx[TL__GPU_MAX_RANK];
    for (uint32_t d = 0; d < nd; d++) {
      v[d] = tl_ir_var_new(mod, "g", TL_DT_INT32);
      TL__TRY(tl__built(mod, v[d]));
      idx[d] = tl_ir_var_ref(mod, v[d]);
    }
    tl_ir_stmt *copy = tl_ir_store(mod, f->local, nd, idx, tl_ir_load(mod, sc->gather[k], nd, idx));
    items[n++] = tl_ir_for(mod, TL_FOR_SERIAL, nd, v, NULL, f->buf->shape, copy);
  }
  items[n++] = tl_ir_barrier(mod);
  *loop = tl_ir_seq(mod, n, items);
  return tl__built(mod, *loop);
}

static tl_status lower_parallel(simt *sc, const tl_ir_stmt *s, const tl__gpu_loop *rec, tl_ir_stmt **out) {
  tl_ir_module *mod = sc->g.mod;
  tl_status st = TL_OK;
  uint32_t n = s->u.loop.n;
  if (rec->mode == TL__GPU_LOOP_REPLICATED) {
    tl_ir_stmt *body = rewrite_body(sc, s, rec, NULL, NULL, &st);
    TL__TRY(st);
    *out = tl_ir_for(mod, TL_FOR_SERIAL, n, s->u.loop.vars, s->u.loop.mins, s->u.loop.extents, body);
    return tl__built(mod, *out);
  }
  if (rec->mode == TL__GPU_LOOP_LINEAR) {
    /* for ch in range(ceildiv(P, T)): e = ch * T + tid; if e < P: body(unravel(e)) */
    tl_ir_expr *P = tl_ir_i32(mod, 1);
    for (uint32_t d = 0; d < n; d++) P = tl__mul(mod, P, tl__cast_int(mod, TL_DT_INT32, s->u.loop.extents[d]));
    tl_ir_var *ch = tl_ir_var_new(mod, "ch", TL_DT_INT32);
    TL__TRY(tl__built(mod, ch));
    tl_ir_expr *T = tl_ir_i32(mod, sc->g.T);
    tl_ir_expr *e = tl__add(mod, tl__mul(mod, tl_ir_var_ref(mod, ch), T), sc->g.tid);
    tl_ir_expr *vals[TL__GPU_MAX_RANK];
    tl_ir_expr *stride = tl_ir_i32(mod, 1);
    for (uint32_t d = n; d-- > 0;) {
      tl_ir_expr *q = tl__floordiv(mod, e, stride);
      if (d > 0) q = tl__floormod(mod, q, tl__cast_int(mod, TL_DT_INT32, s->u.loop.extents[d]));
      vals[d] = tl__cast_int(mod, s->u.loop.vars[d]->dtype, q);
      stride = tl__mul(mod, stride, tl__cast_int(mod, TL_DT_INT32, s->u.loop.extents[d]));
    }
    tl_ir_stmt *body = rewrite_body(sc, s, rec, NULL, NULL, &st);
    TL__TRY(st);
    body = bind_vars(mod, s, body, vals);
    tl_ir_stmt *guarded = tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_LT, e, P), body, NULL);
    tl_ir_expr *chunks = tl__floordiv(mod, tl__add(mod, P, tl_ir_i32(mod, sc->g.T - 1)), T);
    *out = tl_ir_for(mod, TL_FOR_SERIAL, 1, &ch, NULL, &chunks, guarded);
    return tl__built(mod, *out);
  }
  const tl__gpu_layout *L = &rec->layout;
  tl__gpu_slots sl;
  TL__TRY(tl__gpu_slots_make(mod, L, sc->g.tid, &sl));
  tl_ir_expr *vals[TL__GPU_MAX_RANK];
  tl__gpu_slot_indices(mod, L, &sl, vals);
  for (uint32_t d = 0; d < n; d++) vals[d] = tl__cast_int(mod, s->u.loop.vars[d]->dtype, vals[d]);
  simt gsc = *sc;
  for (uint32_t k = 0; k < rec->ngathers; k++) {
    const tl__gpu_frag *f = &TL__VEC_AT(&sc->g.info->frags, tl__gpu_frag, rec->gathers[k]);
    char name[300];
    snprintf(name, sizeof name, "%s_gather", f->buf->name);
    gsc.gather[k] = tl_ir_buffer_new(mod, name, f->buf->dtype, f->buf->ndim, f->buf->shape, NULL, TL_SCOPE_SHARED);
    TL__TRY(tl__built(mod, gsc.gather[k]));
  }
  tl_ir_stmt *body = rewrite_body(&gsc, s, rec, rec->frag >= 0 ? sl.slot : NULL, rec->frag >= 0 ? sl.row_slot : NULL, &st);
  TL__TRY(st);
  body = bind_vars(mod, s, body, vals);
  /* Over row statistics, the threads sharing a row all run its iteration: one
   * of them writes memory (the others' fragment copies are updated in place). */
  if (L->proj && rec->writes_memory) body = tl_ir_if(mod, sl.first_col, body, NULL);
  *out = tl__gpu_slots_loops(mod, L, &sl, body);
  TL__TRY(tl__built(mod, *out));
  if (rec->ngathers) TL__TRY(gather_back(&gsc, rec, out));
  return tl__built(mod, *out);
}

/* ------------------------------------------------- block-level statements */

/* A store outside T.Parallel into a row projection: every thread holding the row
 * (a thread holds row r when its slot loops reach it) updates its copy. */
static tl_ir_stmt *owner_store_rows(simt *sc, const tl__gpu_frag *f, tl_ir_expr *const *idx, tl_ir_expr *value) {
  tl_ir_module *mod = sc->g.mod;
  const tl__gpu_layout *L = &f->layout;
  tl_ir_expr *r = tl_ir_i32(mod, 0);
  for (uint32_t d = 0; d < L->ndim; d++)
    r = tl__add(mod, tl__mul(mod, r, tl_ir_i32(mod, L->shape[d])), tl__cast_int(mod, TL_DT_INT32, idx[d]));
  tl__gpu_slots sl;
  if (tl__gpu_slots_make(mod, L, sc->g.tid, &sl) != TL_OK) return NULL;
  tl_ir_stmt *st = tl_ir_store(mod, f->local, 1, &sl.slot, value);
  st = tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_EQ, sl.r, r), st, NULL);
  return tl__gpu_slots_loops(mod, L, &sl, st);
}

/* A store outside T.Parallel into a distributed fragment: by the element's owner. */
static tl_ir_stmt *owner_store(simt *sc, const tl__gpu_frag *f, tl_ir_expr *const *idx, tl_ir_expr *value) {
  tl_ir_module *mod = sc->g.mod;
  const tl__gpu_layout *L = &f->layout;
  if (L->proj) return owner_store_rows(sc, f, idx, value);
  if (L->mma) {
    /* the owner as the layout's data says (tl__frag_mma_c) */
    tl__frag F;
    tl_ir_expr *owner = NULL, *slot = NULL, *ix[TL__GPU_MAX_RANK];
    for (uint32_t d = 0; d < L->ndim; d++) ix[d] = tl__cast_int(mod, TL_DT_INT32, idx[d]);
    if (tl__gpu_layout_frag(L, &F) != TL_OK || tl__frag_owner_exprs(mod, &F, ix, &owner, &slot) != TL_OK) return NULL;
    tl_ir_stmt *st = tl_ir_store(mod, f->local, 1, &slot, value);
    return tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_EQ, sc->g.tid, owner), st, NULL);
  }
  tl_ir_expr *r = tl_ir_i32(mod, 0);
  for (uint32_t d = 0; d + 1 < L->ndim; d++)
    r = tl__add(mod, tl__mul(mod, r, tl_ir_i32(mod, L->shape[d])), tl__cast_int(mod, TL_DT_INT32, idx[d]));
  tl_ir_expr *c = tl__cast_int(mod, TL_DT_INT32, idx[L->ndim - 1]);
  tl_ir_expr *rb = tl__floordiv(mod, r, tl_ir_i32(mod, L->mr)), *cb = tl__floordiv(mod, c, tl_ir_i32(mod, L->V));
  tl_ir_expr *owner = tl__add(mod, tl__mul(mod, tl__floormod(mod, rb, tl_ir_i32(mod, L->TR)), tl_ir_i32(mod, L->TC)),
                              tl__floormod(mod, cb, tl_ir_i32(mod, L->TC)));
  tl_ir_expr *rr = tl__floordiv(mod, rb, tl_ir_i32(mod, L->TR)), *rc = tl__floordiv(mod, cb, tl_ir_i32(mod, L->TC));
  tl_ir_expr *slot = tl__add(
      mod,
      tl__mul(mod,
              tl__add(mod, tl__mul(mod, tl__add(mod, tl__mul(mod, rr, tl_ir_i32(mod, L->RC)), rc), tl_ir_i32(mod, L->mr)),
                      tl__floormod(mod, r, tl_ir_i32(mod, L->mr))),
              tl_ir_i32(mod, L->V)),
      tl__floormod(mod, c, tl_ir_i32(mod, L->V)));
  tl_ir_stmt *st = tl_ir_store(mod, f->local, 1, &slot, value);
  return tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_EQ, sc->g.tid, owner), st, NULL);
}

static tl_ir_stmt *lower_store(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simt *sc = mu->ctx;
  tl_ir_module *mod = mu->mod;
  const tl_ir_buffer *b = s->u.store.buffer;
  const tl__gpu_frag *f;
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *out = NULL;
  if (local_of(&sc->g, b, &f) && !f->layout.replicated) {
    tl_ir_expr *idx[TL__GPU_MAX_RANK], *v;
    for (uint32_t d = 0; d < s->u.store.n; d++)
      if (!(idx[d] = swap_value(mu, &sc->g, s->u.store.indices[d]))) goto done;
    if ((v = swap_value(mu, &sc->g, s->u.store.value))) out = owner_store(sc, f, idx, v);
  } else {
    tl_status st = tl__gpu_swap_fragments(&sc->g, s, &out);
    if (st != TL_OK) fail(mu, st);
    else if (!sc->per_thread &&
             (b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN || b->scope == TL_SCOPE_GLOBAL))
      out = tl__gpu_one_thread(&sc->g, out);
  }
done:
  tl_ir_builder_set_loc(mod, old);
  return out;
}

/* The GPU column of the op table (ir/op_table.h): the SIMT lowering of a tile op
 * statement s; `none`: lowered before the GPU passes. */
typedef tl_status (*gpu_fn)(simt *sc, const tl_ir_stmt *s, tl_ir_stmt **out);

static tl_status gpu_gemm(simt *sc, const tl_ir_stmt *s, tl_ir_stmt **out) {
  tl__gpu_ctx *c = &sc->g;
  const tl_ir_expr *call = s->u.eval.expr;
  const tl__gpu_frag *f;
  if (local_of(c, call->u.call.args[2]->u.region.buffer, &f) && !f->layout.replicated)
    return tl__gpu_lower_gemm(c, call, out);
  tl_ir_stmt *sw;
  TL__TRY(tl__gpu_swap_fragments(c, (tl_ir_stmt *)s, &sw));
  return tl__lower_tile_op_serial(c->mod, sw->u.eval.expr, out);
}

static tl_status gpu_reduce(simt *sc, const tl_ir_stmt *s, tl_ir_stmt **out) {
  return tl__gpu_lower_reduce(&sc->g, s->u.eval.expr, out);
}

static tl_status gpu_cumsum(simt *sc, const tl_ir_stmt *s, tl_ir_stmt **out) {
  return tl__gpu_lower_cumsum(&sc->g, s->u.eval.expr, out);
}

static tl_status gpu_atomic_add_elem(simt *sc, const tl_ir_stmt *s, tl_ir_stmt **out) {
  tl__gpu_ctx *c = &sc->g;
  tl_ir_stmt *sw;
  TL__TRY(tl__gpu_swap_fragments(c, (tl_ir_stmt *)s, &sw));
  *out = sc->per_thread ? sw : tl__gpu_one_thread(c, sw);
  return tl__built(c->mod, *out);
}

/* cp.async commit and wait (made by gpu_pipeline at block level): every thread
 * runs them as they are, for its own copies. */
static tl_status gpu_async(simt *sc, const tl_ir_stmt *s, tl_ir_stmt **out) {
  (void)sc;
  *out = (tl_ir_stmt *)s;
  return TL_OK;
}

#define gpu_none NULL
#define GPU_ROW(op, name, front, sig, args, defaults, written, written_read, fold, verify, interp, check, serial, \
                elementwise, gpu)                                                                                \
  [TL_OP_##op] = gpu_##gpu,
static const gpu_fn k_gpu[TL_OP__COUNT] = {TL__TILE_OPS(GPU_ROW)};
#undef GPU_ROW
#undef gpu_none

static tl_status lower_tile(simt *sc, const tl_ir_stmt *s, tl_ir_stmt **out) {
  tl_ir_op op = s->u.eval.expr->u.call.op;
  gpu_fn lower = (unsigned)op < TL_OP__COUNT ? k_gpu[op] : NULL;
  if (!lower)
    return tl__pass_error(TL_EINVAL, s->u.eval.expr->span,
                          "%s remains: run lower_elementwise_tile_ops before the GPU passes", tl_ir_op_name(op));
  return lower(sc, s, out);
}

static tl_ir_expr *uniform_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  simt *sc = mu->ctx;
  if (sc->depth == 0) return tl_ir_mutate_expr_children(mu, e);
  return swap_value(mu, &sc->g, e);
}

static tl_ir_stmt *lower_kernel(tl_ir_mutator *mu, tl_ir_stmt *s);

static tl_ir_stmt *uniform_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simt *sc = mu->ctx;
  tl_ir_module *mod = mu->mod;
  if (s->kind == TL_STMT_KERNEL) return lower_kernel(mu, s);
  if (sc->depth == 0) return tl_ir_mutate_stmt_children(mu, s);
  switch (s->kind) {
  case TL_STMT_ALLOC: {
    const tl__gpu_frag *f;
    const tl_ir_buffer *b = s->u.alloc.buffer;
    int64_t n;
    if ((b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN || b->scope == TL_SCOPE_LOCAL) &&
        !tl__gpu_const_count(b, &n)) {
      fail(mu, tl__pass_error(TL_EUNSUPPORTED, b->span.line ? b->span : s->span,
                              "%s buffer '%s' needs a constant shape on GPU targets (%s)",
                              b->scope == TL_SCOPE_LOCAL ? "local" : "shared", b->name,
                              b->scope == TL_SCOPE_LOCAL ? "its registers are allocated per thread"
                                                         : "shared memory is planned when the kernel is compiled"));
      return NULL;
    }
    if (!local_of(&sc->g, b, &f)) return s;
    tl_ir_span old = tl__loc_push(mod, s->span);
    tl_ir_stmt *r = tl_ir_alloc(mod, f->local);
    tl_ir_builder_set_loc(mod, old);
    return r;
  }
  case TL_STMT_FOR: {
    const tl__gpu_loop *rec =
        s->u.loop.kind == TL_FOR_PARALLEL && !sc->per_thread ? tl__gpu_find_loop(sc->g.info, s) : NULL;
    if (rec) {
      tl_ir_span old = tl__loc_push(mod, s->span);
      tl_ir_stmt *r = NULL;
      tl_status st = lower_parallel(sc, s, rec, &r);
      tl_ir_builder_set_loc(mod, old);
      if (st != TL_OK) fail(mu, st);
      return r;
    }
    sc->g.loop_depth++;
    tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
    sc->g.loop_depth--;
    /* per-thread code: a T.Parallel (of an element op on this thread's buffers) runs whole in the thread */
    if (!r || (r->u.loop.kind != TL_FOR_PIPELINED && !(sc->per_thread && r->u.loop.kind == TL_FOR_PARALLEL)))
      return r;
    tl_ir_span old = tl__loc_push(mod, s->span);
    tl_ir_stmt *n = tl_ir_for(mod, TL_FOR_SERIAL, r->u.loop.n, r->u.loop.vars, r->u.loop.mins, r->u.loop.extents,
                              r->u.loop.body);
    tl_ir_builder_set_loc(mod, old);
    return n;
  }
  case TL_STMT_STORE: return lower_store(mu, s);
  case TL_STMT_EVAL:
    if (s->u.eval.expr && s->u.eval.expr->kind == TL_EXPR_CALL && tl_ir_op_is_tile(s->u.eval.expr->u.call.op)) {
      const tl_ir_expr *call = s->u.eval.expr;
      tl_ir_span old = tl__loc_push(mod, call->span.line ? call->span : s->span);
      tl_ir_stmt *r = NULL;
      tl_status st = lower_tile(sc, s, &r);
      tl_ir_builder_set_loc(mod, old);
      if (st != TL_OK) fail(mu, st);
      return r;
    }
    return tl_ir_mutate_stmt_children(mu, s);
  default: return tl_ir_mutate_stmt_children(mu, s);
  }
}

static const char *const k_thread_names[3] = {"tx", "ty", "tz"};

static tl_status make_locals(tl_ir_module *mod, tl__gpu_kernel_info *info) {
  for (size_t i = 0; i < info->frags.len; i++) {
    tl__gpu_frag *f = &TL__VEC_AT(&info->frags, tl__gpu_frag, i);
    tl_ir_span old = tl__loc_push(mod, f->buf->span);
    if (f->layout.replicated) {
      f->local = tl_ir_buffer_new(mod, f->buf->name, f->buf->dtype, f->buf->ndim, f->buf->shape, NULL, TL_SCOPE_LOCAL);
    } else {
      tl_ir_expr *n = tl_ir_i32(mod, f->layout.slots);
      f->local = n ? tl_ir_buffer_new(mod, f->buf->name, f->buf->dtype, 1, &n, NULL, TL_SCOPE_LOCAL) : NULL;
    }
    tl_ir_builder_set_loc(mod, old);
    TL__TRY(tl__built(mod, f->local));
  }
  return TL_OK;
}

static tl_ir_stmt *lower_kernel(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simt *sc = mu->ctx;
  tl_ir_module *mod = mu->mod;
  if (sc->depth) {
    fail(mu, tl__pass_error(TL_EINVAL, s->span, "nested T.Kernel"));
    return NULL;
  }
  sc->per_thread = s->u.kernel.thread_vars[0] || s->u.kernel.thread_vars[1] || s->u.kernel.thread_vars[2];
  tl__gpu_kernel_info info;
  tl_status st = tl__gpu_infer_layouts(s, sc->g.p, &info);
  if (st == TL_OK) st = make_locals(mod, &info);
  if (st != TL_OK) {
    tl__gpu_kernel_info_free(&info);
    fail(mu, st);
    return NULL;
  }
  tl_ir_span old = tl__loc_push(mod, s->span);
  uint32_t nt = s->u.kernel.threads_ndim;
  tl_ir_var *tv[3] = {NULL, NULL, NULL}, *tid_var = NULL;
  tl_ir_expr *tid = NULL;
  for (uint32_t i = 0; i < nt; i++)
    tv[i] = s->u.kernel.thread_vars[i] ? s->u.kernel.thread_vars[i] : tl_ir_var_new(mod, k_thread_names[i], TL_DT_INT32);
  if (nt == 1) {
    tid = tv[0] ? tl_ir_var_ref(mod, tv[0]) : NULL;
  } else {
    tid_var = tl_ir_var_new(mod, "tid", TL_DT_INT32);
    tid = tid_var ? tl_ir_var_ref(mod, tid_var) : NULL;
  }
  st = tl__built(mod, tid);
  tl_ir_stmt *body = NULL;
  if (st == TL_OK) {
    sc->g.info = &info;
    sc->g.tid = tid;
    sc->g.T = info.T;
    sc->depth++;
    body = tl_ir_mutate_stmt(mu, s->u.kernel.body);
    sc->depth--;
    sc->g.info = NULL;
  }
  tl_ir_stmt *r = NULL;
  if (body && tid_var) {
    /* tid = tx + ty * X + tz * X * Y */
    tl_ir_expr *lin = tl_ir_var_ref(mod, tv[nt - 1]);
    for (uint32_t i = nt - 1; i-- > 0;)
      lin = tl__add(mod, tl__mul(mod, lin, tl__cast_int(mod, TL_DT_INT32, s->u.kernel.threads[i])), tl_ir_var_ref(mod, tv[i]));
    body = tl_ir_let(mod, tid_var, lin, body);
  }
  if (body) {
    r = tl_ir_kernel(mod, s->u.kernel.grid_ndim, s->u.kernel.grid, nt, s->u.kernel.threads, s->u.kernel.block_vars, body);
    if (r)
      for (uint32_t i = 0; i < nt; i++) r->u.kernel.thread_vars[i] = tv[i];
  }
  tl_ir_builder_set_loc(mod, old);
  tl__gpu_kernel_info_free(&info);
  return r;
}

tl_status tl__pass_gpu_lower_simt(tl_ir_module *mod, const tl_target *target) {
  tl__gpu_params p;
  tl__gpu_params_get(target, &p);
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEFAULT || !f->body) continue;
    simt sc;
    memset(&sc, 0, sizeof sc);
    sc.g.mod = mod;
    sc.g.p = &p;
    tl_ir_mutator mu = {mod, uniform_expr, uniform_stmt, &sc, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    if (!body) return mu.status != TL_OK ? mu.status : TL_EINTERNAL;
    f->body = body;
  }
  return TL_OK;
}
