/* T.reduce_sum/max/min/abssum/absmax on GPU targets.
 *
 * The fast path: the source is a whole distributed fragment reduced along its
 * last dimension (layout.c views it as R rows of C columns; the destination has
 * the R row results, in row-major order). The TC threads tr * TC .. tr * TC +
 * TC - 1 hold the columns of the same rows, so
 *   1. each thread folds the elements it owns into one partial per row it owns
 *      (`red_part`, RR * mr of them, starting from the identity), in column order;
 *   2. a butterfly of T.warp_shfl_xor with masks W/2 .. 1 over segments of W
 *      lanes combines the partials of each W consecutive threads, W the largest
 *      power of two dividing TC that fits in the target's warp (1: no shuffles);
 *   3. the first lane of each segment stores its rows' values into a shared
 *      buffer `red_buf` of R x NW (NW = TC / W segments per row), and every
 *      thread combines the NW values of each row in segment order into its
 *      (replicated) destination, or the rows are spread over the threads when the
 *      destination is shared memory. With TR = 1 and NW = 1 every thread already
 *      holds every row's result and no shared memory is used.
 * gpu_insert_barriers puts the barriers between the stores into `red_buf` and
 * the reads, and before the next reduction overwrites it.
 * Otherwise (another dimension, a part of a fragment, a non-fragment source):
 * a distributed source is first staged whole into a shared buffer by its owners;
 * then the reduction runs as lower_tile_ops lowers it (index order, the
 * interpreter's results exactly) in every thread into a per-thread destination,
 * or in thread 0 into shared memory.
 * Combining across threads changes the order of a float sum (results agree to
 * rounding); max and min, with NaN propagation, and integer sums (wrapping) are
 * exact whatever the order. */
#include <string.h>

#include "base/error.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

/* T.warp_shfl_xor(x, mask, width); narrow integers travel as int32 (what warp
 * exchanges carry everywhere). */
static tl_ir_expr *shfl(tl_ir_module *mod, tl_ir_expr *x, int64_t mask, int64_t width) {
  if (!x) return NULL; /* out of memory building it: the caller's tl__built reports it */
  tl_dtype t = x->dtype;
  bool widen = tl_dtype_is_int(t) && t.bits < 32;
  tl_ir_expr *v = widen ? tl_ir_cast(mod, TL_DT_INT32, x) : x;
  tl_ir_expr *args[3] = {v, tl_ir_i32(mod, mask), tl_ir_i32(mod, width)};
  tl_ir_expr *r = v ? tl_ir_call(mod, TL_OP_WARP_SHFL_XOR, v->dtype, 3, args) : NULL;
  return widen ? tl_ir_cast(mod, t, r) : r;
}

static tl_ir_stmt *serial_loop(tl_ir_module *mod, tl_ir_var *v, tl_ir_expr *n, tl_ir_stmt *body) {
  return tl_ir_for(mod, TL_FOR_SERIAL, 1, &v, NULL, &n, body);
}

static bool per_thread(const tl_ir_buffer *b) {
  return b->scope == TL_SCOPE_LOCAL || b->scope == TL_SCOPE_LOCAL_VAR || b->scope == TL_SCOPE_LOCAL_FRAGMENT;
}

/* Non-unit constant extents of region e (skipping dimension `skip`); false if
 * one is not constant. */
static bool nonunit_extents(const tl_ir_expr *e, uint32_t skip, int64_t *ext, uint32_t *n) {
  *n = 0;
  for (uint32_t d = 0; d < e->u.region.ndim; d++) {
    int64_t v;
    if (d == skip) continue;
    if (!tl__is_const_int(e->u.region.extents[d], &v)) return false;
    if (v != 1) ext[(*n)++] = v;
  }
  return true;
}

/* dst's index in dimension d for row r: its start plus r unravelled over its
 * extents (row-major). */
static tl_ir_expr *dst_index(tl_ir_module *mod, const tl_ir_expr *dst, uint32_t d, tl_ir_expr *r) {
  int64_t stride = 1, ext;
  for (uint32_t k = d + 1; k < dst->u.region.ndim; k++) {
    tl__is_const_int(dst->u.region.extents[k], &ext);
    stride *= ext;
  }
  tl__is_const_int(dst->u.region.extents[d], &ext);
  tl_ir_expr *q = tl__floordiv(mod, r, tl_ir_i32(mod, stride));
  if (d > 0) q = tl__floormod(mod, q, tl_ir_i32(mod, ext));
  tl_ir_expr *min = dst->u.region.mins[d];
  return tl__add(mod, min, tl__cast_int(mod, min->dtype, q));
}

/* dst[row r] = clear ? v : combine(dst[row r], v). */
static tl_ir_stmt *store_result(tl_ir_module *mod, tl_ir_op op, const tl_ir_expr *dst, tl_ir_expr *r, tl_ir_expr *v,
                                bool clear) {
  tl_ir_expr *idx[TL__GPU_MAX_RANK];
  uint32_t nd = dst->u.region.ndim;
  for (uint32_t d = 0; d < nd; d++) idx[d] = dst_index(mod, dst, d, r);
  tl_ir_buffer *b = dst->u.region.buffer;
  tl_ir_expr *val = clear ? v : tl__fold_combine(mod, op, tl_ir_load(mod, b, nd, idx), v);
  return tl_ir_store(mod, b, nd, idx, val);
}

/* The fast path (see the top), its statements appended to `stmts`. src is the
 * fragment's whole region. */
static tl_status emit_rows(tl__gpu_ctx *c, const tl_ir_expr *call, const tl__gpu_frag *f, const tl_ir_expr *dst,
                           bool clear, tl__vec *stmts) {
  tl_ir_module *mod = c->mod;
  tl_ir_op op = call->u.call.op;
  const tl__gpu_layout *L = &f->layout;
  tl_dtype dt = dst->u.region.buffer->dtype;
  int64_t Q = L->RR * L->mr;
  /* W consecutive lanes share a row and fold it with shuffles; NW groups of them
   * (other warps, or lanes further apart) meet in shared memory. */
  int64_t W = 1, lanes = tl__gpu_layout_row_lanes(L);
  if (c->p->warp_size > 1)
    while (W * 2 <= c->p->warp_size && lanes % (W * 2) == 0) W *= 2;
  int64_t NW = L->TC / W;
  bool local_dst = per_thread(dst->u.region.buffer);
  tl_ir_expr *cQ = tl_ir_i32(mod, Q);

  tl_ir_buffer *part = tl_ir_buffer_new(mod, "red_part", dt, 1, &cQ, NULL, TL_SCOPE_LOCAL);
  TL__TRY(tl__built(mod, part));
  tl_ir_stmt *s;
#define EMIT(x)                                 \
  do {                                          \
    s = (x);                                    \
    TL__TRY(tl__built(mod, s));                 \
    TL__TRY(tl__vec_push(stmts, &s));           \
  } while (0)

  EMIT(tl_ir_alloc(mod, part));
  /* 1. partials */
  tl_ir_var *q0 = tl_ir_var_new(mod, "q", TL_DT_INT32);
  TL__TRY(tl__built(mod, q0));
  tl_ir_expr *vq0 = tl_ir_var_ref(mod, q0);
  EMIT(serial_loop(mod, q0, cQ, tl_ir_store(mod, part, 1, &vq0, tl__fold_identity(mod, op, dt))));
  tl__gpu_slots sl;
  TL__TRY(tl__gpu_slots_make(mod, L, c->tid, &sl));
  tl_ir_expr *pq = tl__add(mod, tl__mul(mod, tl_ir_var_ref(mod, sl.rr), tl_ir_i32(mod, L->mr)), tl_ir_var_ref(mod, sl.mi));
  tl_ir_expr *x = tl__convert(mod, dt, tl_ir_load(mod, f->local, 1, &sl.slot));
  x = tl__fold_input(mod, op, x);
  EMIT(tl__gpu_slots_loops(mod, L, &sl, tl_ir_store(mod, part, 1, &pq, tl__fold_combine(mod, op, tl_ir_load(mod, part, 1, &pq), x))));
  /* 2. butterfly within segments of W lanes */
  if (W > 1) {
    tl_ir_var *q = tl_ir_var_new(mod, "q", TL_DT_INT32);
    TL__TRY(tl__built(mod, q));
    tl_ir_expr *vq = tl_ir_var_ref(mod, q);
    tl_ir_stmt *steps[16]; /* log2(W) butterfly steps, W <= the warp size */
    uint32_t n = 0;
    for (int64_t m = W / 2; m >= 1; m /= 2) {
      tl_ir_expr *cur = tl_ir_load(mod, part, 1, &vq);
      steps[n++] = tl_ir_store(mod, part, 1, &vq, tl__fold_combine(mod, op, cur, shfl(mod, tl_ir_load(mod, part, 1, &vq), m, W)));
    }
    EMIT(serial_loop(mod, q, cQ, tl_ir_seq(mod, n, steps)));
  }
  /* 3. results */
  const tl__gpu_frag *pd = dst->u.region.buffer->scope == TL_SCOPE_LOCAL_FRAGMENT
                               ? tl__gpu_find_frag(c->info, dst->u.region.buffer) : NULL;
  if (pd && pd->layout.proj) {
    /* The destination is the source's row projection (layout.c): each thread
     * keeps its rows' results in their row slots. */
    if (!tl__gpu_layout_rows_equal(&pd->layout, L))
      return tl__pass_error(TL_EINTERNAL, call->span, "%s: the destination is not the rows of the source's layout",
                            tl_ir_op_name(op));
    tl_ir_buffer *red = NULL;
    if (NW > 1) {
      tl_ir_expr *nbuf = tl_ir_i32(mod, L->R * NW);
      red = tl_ir_buffer_new(mod, "red_buf", dt, 1, &nbuf, NULL, TL_SCOPE_SHARED);
      TL__TRY(tl__built(mod, red));
      EMIT(tl_ir_alloc(mod, red));
    }
    tl__gpu_slots wr;
    TL__TRY(tl__gpu_slots_make(mod, &pd->layout, c->tid, &wr));
    tl_ir_expr *v = tl_ir_load(mod, part, 1, &wr.row_slot);
    if (red) {
      /* segments of W lanes meet in shared memory: the first lane of each stores */
      tl_ir_expr *at = tl__add(mod, tl__mul(mod, wr.r, tl_ir_i32(mod, NW)), tl__floordiv(mod, wr.tc, tl_ir_i32(mod, W)));
      tl_ir_stmt *w = tl_ir_store(mod, red, 1, &at, v);
      w = tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_EQ, tl__floormod(mod, wr.tc, tl_ir_i32(mod, W)), tl_ir_i32(mod, 0)), w, NULL);
      EMIT(tl__gpu_slots_loops(mod, &pd->layout, &wr, w));
      EMIT(tl_ir_barrier(mod));
      tl__gpu_slots rd;
      TL__TRY(tl__gpu_slots_make(mod, &pd->layout, c->tid, &rd));
      tl_ir_var *wv = tl_ir_var_new(mod, "w", TL_DT_INT32);
      tl_ir_buffer *acc = tl_ir_buffer_new(mod, "acc", dt, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
      TL__TRY(tl__built(mod, wv));
      TL__TRY(tl__built(mod, acc));
      tl_ir_expr *ri = tl__add(mod, tl__mul(mod, rd.r, tl_ir_i32(mod, NW)), tl_ir_var_ref(mod, wv));
      tl_ir_expr *old = tl_ir_load(mod, pd->local, 1, &rd.slot);
      tl_ir_expr *res = tl_ir_load(mod, acc, 0, NULL);
      tl_ir_stmt *body[4] = {
          tl_ir_alloc(mod, acc), tl_ir_store(mod, acc, 0, NULL, tl__fold_identity(mod, op, dt)),
          serial_loop(mod, wv, tl_ir_i32(mod, NW),
                      tl_ir_store(mod, acc, 0, NULL,
                                  tl__fold_combine(mod, op, tl_ir_load(mod, acc, 0, NULL), tl_ir_load(mod, red, 1, &ri)))),
          tl_ir_store(mod, pd->local, 1, &rd.slot, clear ? res : tl__fold_combine(mod, op, old, res))};
      EMIT(tl__gpu_slots_loops(mod, &pd->layout, &rd, tl_ir_seq(mod, 4, body)));
      if (c->loop_depth) EMIT(tl_ir_barrier(mod));
    } else {
      tl_ir_expr *old = tl_ir_load(mod, pd->local, 1, &wr.slot);
      EMIT(tl__gpu_slots_loops(mod, &pd->layout, &wr,
                               tl_ir_store(mod, pd->local, 1, &wr.slot, clear ? v : tl__fold_combine(mod, op, old, v))));
    }
  } else if (L->TR == 1 && NW == 1) {
    /* Every thread holds every row: r = rr * mr + mi. */
    tl_ir_var *rr = tl_ir_var_new(mod, "rr", TL_DT_INT32), *mi = tl_ir_var_new(mod, "mi", TL_DT_INT32);
    TL__TRY(tl__built(mod, rr));
    TL__TRY(tl__built(mod, mi));
    tl_ir_expr *q = tl__add(mod, tl__mul(mod, tl_ir_var_ref(mod, rr), tl_ir_i32(mod, L->mr)), tl_ir_var_ref(mod, mi));
    tl_ir_stmt *st = store_result(mod, op, dst, q, tl_ir_load(mod, part, 1, &q), clear);
    if (L->RR * L->mr > L->R) st = tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_LT, q, tl_ir_i32(mod, L->R)), st, NULL);
    st = serial_loop(mod, rr, tl_ir_i32(mod, L->RR), serial_loop(mod, mi, tl_ir_i32(mod, L->mr), st));
    EMIT(local_dst ? st : tl__gpu_one_thread(c, st));
  } else {
    tl_ir_expr *nbuf = tl_ir_i32(mod, L->R * NW);
    tl_ir_buffer *red = tl_ir_buffer_new(mod, "red_buf", dt, 1, &nbuf, NULL, TL_SCOPE_SHARED);
    TL__TRY(tl__built(mod, red));
    EMIT(tl_ir_alloc(mod, red));
    /* the first lane of each segment: red[r * NW + tc / W] = part[rr * mr + mi] */
    tl__gpu_slots wr;
    TL__TRY(tl__gpu_slots_make(mod, L, c->tid, &wr));
    tl_ir_expr *tc = wr.tc; /* the thread's column coordinate, in [0, TC) */
    tl_ir_expr *wq = tl__add(mod, tl__mul(mod, tl_ir_var_ref(mod, wr.rr), tl_ir_i32(mod, L->mr)), tl_ir_var_ref(mod, wr.mi));
    tl_ir_expr *at = tl__add(mod, tl__mul(mod, wr.r, tl_ir_i32(mod, NW)), tl__floordiv(mod, tc, tl_ir_i32(mod, W)));
    tl_ir_stmt *w = tl_ir_store(mod, red, 1, &at, tl_ir_load(mod, part, 1, &wq));
    if (wr.row_ok) w = tl_ir_if(mod, wr.row_ok, w, NULL);
    w = serial_loop(mod, wr.rr, tl_ir_i32(mod, L->RR), serial_loop(mod, wr.mi, tl_ir_i32(mod, L->mr), w));
    EMIT(tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_EQ, tl__floormod(mod, tc, tl_ir_i32(mod, W)), tl_ir_i32(mod, 0)), w, NULL));
    EMIT(tl_ir_barrier(mod)); /* the stores before anyone reads */
    /* every row: acc = combine of its NW values in order */
    tl_ir_var *r = tl_ir_var_new(mod, "r", TL_DT_INT32), *wv = tl_ir_var_new(mod, "w", TL_DT_INT32);
    TL__TRY(tl__built(mod, r));
    TL__TRY(tl__built(mod, wv));
    tl_ir_buffer *acc = tl_ir_buffer_new(mod, "acc", dt, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
    TL__TRY(tl__built(mod, acc));
    tl_ir_expr *row = tl_ir_var_ref(mod, r);
    if (!local_dst) row = tl__add(mod, tl__mul(mod, row, tl_ir_i32(mod, c->T)), c->tid);
    tl_ir_expr *ri = tl__add(mod, tl__mul(mod, row, tl_ir_i32(mod, NW)), tl_ir_var_ref(mod, wv));
    tl_ir_stmt *body[4] = {
        tl_ir_alloc(mod, acc), tl_ir_store(mod, acc, 0, NULL, tl__fold_identity(mod, op, dt)),
        serial_loop(mod, wv, tl_ir_i32(mod, NW),
             tl_ir_store(mod, acc, 0, NULL, tl__fold_combine(mod, op, tl_ir_load(mod, acc, 0, NULL), tl_ir_load(mod, red, 1, &ri)))),
        store_result(mod, op, dst, row, tl_ir_load(mod, acc, 0, NULL), clear)};
    tl_ir_stmt *each = tl_ir_seq(mod, 4, body);
    if (local_dst) {
      EMIT(serial_loop(mod, r, tl_ir_i32(mod, L->R), each));
    } else {
      each = tl_ir_if(mod, tl_ir_binary(mod, TL_BIN_LT, row, tl_ir_i32(mod, L->R)), each, NULL);
      EMIT(serial_loop(mod, r, tl_ir_i32(mod, (L->R + c->T - 1) / c->T), each));
    }
    /* In a loop, the next round's stores must wait until everyone has read. */
    if (c->loop_depth) EMIT(tl_ir_barrier(mod));
  }
#undef EMIT
  return TL_OK;
}

static tl_status reduce_rows(tl__gpu_ctx *c, const tl_ir_expr *call, const tl__gpu_frag *f, const tl_ir_expr *dst,
                             bool clear, tl_ir_stmt **out) {
  tl__vec stmts = TL__VEC_INIT(tl_ir_stmt *);
  tl_status st = emit_rows(c, call, f, dst, clear, &stmts);
  *out = st == TL_OK ? tl_ir_seq(c->mod, (uint32_t)stmts.len, (tl_ir_stmt *const *)stmts.data) : NULL;
  tl__vec_free(&stmts);
  TL__TRY(st);
  return tl__built(c->mod, *out);
}

/* A distributed fragment copied whole into a new shared buffer by its owners. */
static tl_status stage(tl__gpu_ctx *c, const tl__gpu_frag *f, tl_ir_buffer **sh, tl_ir_stmt **alloc, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  const tl__gpu_layout *L = &f->layout;
  *sh = tl_ir_buffer_new(mod, "red_stage", f->buf->dtype, f->buf->ndim, f->buf->shape, NULL, TL_SCOPE_SHARED);
  TL__TRY(tl__built(mod, *sh));
  tl__gpu_slots s;
  TL__TRY(tl__gpu_slots_make(mod, L, c->tid, &s));
  tl_ir_expr *idx[TL__GPU_MAX_RANK];
  for (uint32_t d = 0; d + 1 < L->ndim; d++) idx[d] = tl__gpu_unravel_row(mod, L, s.r, d);
  idx[L->ndim - 1] = s.c;
  *alloc = tl_ir_alloc(mod, *sh);
  *out = tl__gpu_slots_loops(mod, L, &s, tl_ir_store(mod, *sh, L->ndim, idx, tl_ir_load(mod, f->local, 1, &s.slot)));
  TL__TRY(tl__built(mod, *alloc));
  return tl__built(mod, *out);
}

tl_status tl__gpu_lower_reduce(tl__gpu_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  const tl_ir_expr *src = call->u.call.args[0];
  int64_t dim = -1, clear = 1;
  tl__is_const_int(call->u.call.args[2], &dim);
  tl__is_const_int(call->u.call.args[3], &clear);
  if (src->kind != TL_EXPR_REGION || call->u.call.args[1]->kind != TL_EXPR_REGION || dim < 0 ||
      dim >= (int64_t)src->u.region.ndim)
    return tl__pass_error(TL_EINVAL, call->span, "%s: malformed arguments", tl_ir_op_name(call->u.call.op));
  /* Replicated fragments (the destination always) become their per-thread buffers. */
  tl_ir_stmt *eval = tl_ir_eval(mod, (tl_ir_expr *)call), *sw;
  TL__TRY(tl__built(mod, eval));
  TL__TRY(tl__gpu_swap_fragments(c, eval, &sw));
  const tl_ir_expr *scall = sw->u.eval.expr;
  const tl_ir_expr *dst = scall->u.call.args[1];
  const tl__gpu_frag *f = src->u.region.buffer->scope == TL_SCOPE_LOCAL_FRAGMENT ? tl__gpu_find_frag(c->info, src->u.region.buffer) : NULL;
  bool local_dst = per_thread(dst->u.region.buffer);
  if (f && !f->layout.replicated) {
    int64_t se[TL__GPU_MAX_RANK], de[TL__GPU_MAX_RANK];
    uint32_t ns, nd;
    const tl__gpu_layout *L = &f->layout;
    bool rows = dim == (int64_t)L->ndim - 1 && tl__gpu_region_is_whole(src) && tl__gpu_region_is_whole(dst) &&
                nonunit_extents(src, (uint32_t)dim, se, &ns) && nonunit_extents(dst, UINT32_MAX, de, &nd) && ns == nd &&
                memcmp(se, de, ns * sizeof se[0]) == 0;
    if (rows) return reduce_rows(c, scall, f, dst, clear != 0, out);
    /* Staged through shared memory, then reduced in index order. */
    tl_ir_buffer *sh;
    tl_ir_stmt *alloc, *staging, *lowered;
    TL__TRY(stage(c, f, &sh, &alloc, &staging));
    tl_ir_expr *reg = tl_ir_region(mod, sh, src->u.region.mins, src->u.region.extents, src->u.region.form);
    tl_ir_expr *args[4] = {reg, scall->u.call.args[1], scall->u.call.args[2], scall->u.call.args[3]};
    tl_ir_expr *ncall = reg ? tl_ir_call(mod, call->u.call.op, TL_DT_HANDLE, 4, args) : NULL;
    TL__TRY(tl__built(mod, ncall));
    TL__TRY(tl__lower_tile_op_serial(mod, ncall, &lowered));
    tl_ir_stmt *items[5] = {alloc, staging, tl_ir_barrier(mod), local_dst ? lowered : tl__gpu_one_thread(c, lowered),
                            tl_ir_barrier(mod)};
    *out = tl_ir_seq(mod, c->loop_depth ? 5 : 4, items);
    return tl__built(mod, *out);
  }
  /* Every thread can read the whole source. */
  tl_ir_stmt *lowered;
  TL__TRY(tl__lower_tile_op_serial(mod, scall, &lowered));
  *out = local_dst ? lowered : tl__gpu_one_thread(c, lowered);
  return tl__built(mod, *out);
}
