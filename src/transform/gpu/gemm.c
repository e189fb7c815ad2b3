/* T.gemm whose accumulator C is a distributed fragment: each thread updates the
 * elements of C it owns (its register micro-tiles of mr x V elements, layout.c),
 * reading A and B from shared memory (or replicated fragments and local
 * buffers):
 *
 *   for rr, rc: [if col_ok:] for k in range(K): for mi: [if row_ok:] for v:
 *       C[slot] = C[slot] + T.Cast(C.dtype, A[i, k] * B[k, j])
 *
 * Every element still accumulates with k ascending and the product rounded to
 * C's dtype as the interpreter does (the product is formed in
 * tl__gemm_product_dtype), so the result is bit for bit the tile program's. The
 * k loop sits outside the micro-tile, so one A element serves V columns and one
 * B row segment mr rows. clear_accum zeroes the owned elements first. A C region
 * that is not the whole fragment is handled by a guard on the element's place. */
#include <string.h>

#include "base/error.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct operand {
  const tl_ir_expr *e;
  const tl_ir_buffer *buf;
  uint32_t nd;
} operand;

static tl_status get_operand(const tl_ir_expr *call, uint32_t i, const char *which, operand *o) {
  const tl_ir_expr *e = call->u.call.args[i];
  if (!e || e->kind != TL_EXPR_REGION || e->u.region.ndim < 2)
    return tl__pass_error(TL_EINVAL, call->span, "T.gemm: %s must be a region of at least 2 dimensions", which);
  for (uint32_t d = 0; d + 2 < e->u.region.ndim; d++)
    if (!tl__is_int(e->u.region.extents[d], 1))
      return tl__pass_error(TL_EINVAL, call->span, "T.gemm: %s (buffer '%s') must be a matrix: dimension %u has extent other than 1",
                            which, e->u.region.buffer->name, d);
  o->e = e;
  o->buf = e->u.region.buffer;
  o->nd = e->u.region.ndim;
  return TL_OK;
}

/* Element (row, col) of an operand's matrix: the region's starts, plus row and col
 * in its last two dimensions. */
void tl__gpu_matrix_index(tl_ir_module *mod, const tl_ir_expr *region, tl_ir_expr *row, tl_ir_expr *col,
                          tl_ir_expr **idx) {
  uint32_t nd = region->u.region.ndim;
  tl_ir_expr *const *mins = region->u.region.mins;
  for (uint32_t d = 0; d < nd; d++) idx[d] = mins[d];
  idx[nd - 2] = tl__add(mod, mins[nd - 2], tl__cast_int(mod, mins[nd - 2]->dtype, row));
  idx[nd - 1] = tl__add(mod, mins[nd - 1], tl__cast_int(mod, mins[nd - 1]->dtype, col));
}

tl_ir_stmt *tl__gpu_loop1(tl_ir_module *mod, tl_ir_for_kind kind, tl_ir_var *v, tl_ir_expr *n, tl_ir_stmt *body) {
  return tl_ir_for(mod, kind, 1, &v, NULL, &n, body);
}

static void matrix_index(tl_ir_module *mod, const operand *o, tl_ir_expr *row, tl_ir_expr *col, tl_ir_expr **idx) {
  tl__gpu_matrix_index(mod, o->e, row, col, idx);
}

tl_status tl__gpu_lower_gemm(tl__gpu_ctx *c, const tl_ir_expr *orig, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  tl_ir_stmt *eval = tl_ir_eval(mod, (tl_ir_expr *)orig), *sw;
  TL__TRY(tl__built(mod, eval));
  TL__TRY(tl__gpu_swap_fragments(c, eval, &sw)); /* A and B when they are replicated fragments */
  const tl_ir_expr *call = sw->u.eval.expr;
  operand A, B, C;
  TL__TRY(get_operand(call, 0, "A", &A));
  TL__TRY(get_operand(call, 1, "B", &B));
  TL__TRY(get_operand(call, 2, "C", &C));
  const tl__gpu_frag *f = tl__gpu_find_frag(c->info, C.buf);
  if (!f || f->layout.replicated) return tl__pass_error(TL_EINTERNAL, call->span, "T.gemm: C is not a distributed fragment");
  if (f->layout.mma) return tl__gpu_lower_gemm_mma(c, call, out); /* the tensor cores (gemm_mma.c) */
  const tl__gpu_layout *L = &f->layout;
  int64_t ta = 0, tb = 0, clear = 0;
  tl__is_const_int(call->u.call.args[3], &ta);
  tl__is_const_int(call->u.call.args[4], &tb);
  tl__is_const_int(call->u.call.args[5], &clear);
  tl_dtype cd = C.buf->dtype;
  tl_ir_expr *K = tl__cast_int(mod, TL_DT_INT32, ta ? A.e->u.region.extents[A.nd - 2] : A.e->u.region.extents[A.nd - 1]);
  tl_ir_expr *M = tl__cast_int(mod, TL_DT_INT32, C.e->u.region.extents[C.nd - 2]);
  tl_ir_expr *N = tl__cast_int(mod, TL_DT_INT32, C.e->u.region.extents[C.nd - 1]);
  TL__TRY(tl__built(mod, K));

  /* The element of C a slot holds, and where it is in the region. */
  bool whole = tl__gpu_region_is_whole(C.e);
  tl__gpu_slots s;
  TL__TRY(tl__gpu_slots_make(mod, L, c->tid, &s));
  tl_ir_expr *cidx[TL__GPU_MAX_RANK], *in_region = NULL;
  for (uint32_t d = 0; d + 1 < L->ndim; d++) cidx[d] = tl__gpu_unravel_row(mod, L, s.r, d);
  cidx[L->ndim - 1] = s.c;
  tl_ir_expr *i = cidx[L->ndim - 2], *j = cidx[L->ndim - 1];
  if (!whole) {
    for (uint32_t d = 0; d < L->ndim; d++) {
      tl_ir_expr *lo = tl__cast_int(mod, TL_DT_INT32, C.e->u.region.mins[d]);
      tl_ir_expr *x = cidx[d];
      tl_ir_expr *ok;
      if (d + 2 < L->ndim) ok = tl_ir_binary(mod, TL_BIN_EQ, x, lo);
      else
        ok = tl__and(mod, tl_ir_binary(mod, TL_BIN_GE, x, lo),
                     tl_ir_binary(mod, TL_BIN_LT, x, tl__add(mod, lo, d + 2 == L->ndim ? M : N)));
      in_region = in_region ? tl__and(mod, in_region, ok) : ok;
    }
    i = tl__sub(mod, i, tl__cast_int(mod, TL_DT_INT32, C.e->u.region.mins[L->ndim - 2]));
    j = tl__sub(mod, j, tl__cast_int(mod, TL_DT_INT32, C.e->u.region.mins[L->ndim - 1]));
  }
  tl_ir_var *k = tl_ir_var_new(mod, "k", TL_DT_INT32);
  TL__TRY(tl__built(mod, k));
  tl_ir_expr *vk = tl_ir_var_ref(mod, k);
  tl_ir_expr *aidx[TL__GPU_MAX_RANK], *bidx[TL__GPU_MAX_RANK];
  matrix_index(mod, &A, ta ? vk : i, ta ? i : vk, aidx);
  matrix_index(mod, &B, tb ? j : vk, tb ? vk : j, bidx);
  tl_dtype pd = tl__gemm_product_dtype(A.buf->dtype, B.buf->dtype, cd);
  tl_ir_expr *prod = tl_ir_binary(mod, TL_BIN_MUL, tl__convert(mod, pd, tl_ir_load(mod, (tl_ir_buffer *)A.buf, A.nd, aidx)),
                                  tl__convert(mod, pd, tl_ir_load(mod, (tl_ir_buffer *)B.buf, B.nd, bidx)));
  tl_ir_expr *acc = tl_ir_binary(mod, TL_BIN_ADD, tl_ir_load(mod, f->local, 1, &s.slot), tl__convert(mod, cd, prod));
  tl_ir_stmt *update = tl_ir_store(mod, f->local, 1, &s.slot, acc);
  if (in_region) update = tl_ir_if(mod, in_region, update, NULL);

  /* for rr: for rc: [col_ok]: for k: for mi: [row_ok]: for v: update */
  tl_ir_expr *cV = tl_ir_i32(mod, L->V), *cmr = tl_ir_i32(mod, L->mr), *cRC = tl_ir_i32(mod, L->RC),
             *cRR = tl_ir_i32(mod, L->RR);
  tl_ir_stmt *b = tl__gpu_loop1(mod, L->V > 1 ? TL_FOR_VECTORIZED : TL_FOR_SERIAL, s.v, cV, update);
  if (s.row_ok) b = tl_ir_if(mod, s.row_ok, b, NULL);
  b = tl__gpu_loop1(mod, TL_FOR_UNROLLED, s.mi, cmr, b);
  b = tl__gpu_loop1(mod, TL_FOR_SERIAL, k, K, b);
  if (s.col_ok) b = tl_ir_if(mod, s.col_ok, b, NULL);
  b = tl__gpu_loop1(mod, TL_FOR_SERIAL, s.rr, cRR, tl__gpu_loop1(mod, TL_FOR_SERIAL, s.rc, cRC, b));
  TL__TRY(tl__built(mod, b));
  if (!clear) {
    *out = b;
    return TL_OK;
  }
  tl__gpu_slots z;
  TL__TRY(tl__gpu_slots_make(mod, L, c->tid, &z));
  tl_ir_stmt *zero = tl_ir_store(mod, f->local, 1, &z.slot, tl__zero(mod, cd));
  if (!whole) {
    /* the same region test over z's element */
    tl_ir_expr *vars[4] = {tl_ir_var_ref(mod, z.rr), tl_ir_var_ref(mod, z.rc), tl_ir_var_ref(mod, z.mi), tl_ir_var_ref(mod, z.v)};
    tl_ir_var *from[4] = {s.rr, s.rc, s.mi, s.v};
    tl_ir_expr *zin = tl_ir_substitute_expr(mod, in_region, 4, from, vars);
    zero = tl_ir_if(mod, zin, zero, NULL);
  }
  tl_ir_stmt *both[2] = {tl__gpu_slots_loops(mod, L, &z, zero), b};
  *out = tl_ir_seq(mod, 2, both);
  return tl__built(mod, *out);
}
