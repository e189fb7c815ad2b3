/* T.gemm on the tensor cores: mma.sync.m16n8k16 (TL_OP_MMA_M16N8K16, ir.h).
 *
 * The accumulator C has the mma layout (gpu.h, tl__gpu_layout_choose_mma): the
 * block's warps form the WM x WN grid the call's warp policy chooses (upstream's
 * rules, src/layout/warp_policy.c), warp w = wm + WM*wn owning the RR*16 x RC*8
 * tile at (rbase, cbase) = (wm*RR*16, wn*RC*8), 4 consecutive slots per 16 x 8
 * instruction tile. Each k step of 16 loads this lane's operand elements from
 * the shared tiles into two register arrays, as the instruction's fragment maps
 * place them (ldmatrix where the rows are 16-byte aligned), then issues one
 * instruction per tile:
 *
 *   for kk in range(K / 16):
 *     for rr, i in unrolled(RR, 8): a_frag[rr*8 + i] = A[rbase + rr*16 + g + 8*((i/2)%2), kk*16 + acol(i)]
 *     for rc, j in unrolled(RC, 4): b_frag[rc*4 + j] = B[kk*16 + bk(j), cbase + rc*8 + g]
 *     for rr, rc in unrolled(RR, RC): T.mma_m16n8k16(C[(rr*RC + rc)*4], a_frag[rr*8], b_frag[rc*4])
 *
 * with g = lane / 4, q = lane % 4, acol(i) = 2q + i%2 + 8*(i/4), bk(j) = 2q + j%2 +
 * 8*(j/2). A may be a fragment (RS): with the operand map's layout (accumulator
 * layout on C's warp rows, one warp column) a_frag is its own slots
 * [(rr*RC + 2kk)*4, +8) and is not loaded; with any other distributed layout it
 * is first staged into a padded shared tile and read as above. A square warp grid loads each operand element into RR + RC
 * registers' worth per warp instead of a whole B per warp, and 8 consecutive
 * rows per ldmatrix matrix keep the padded tiles free of bank conflicts. Every
 * element of C accumulates its products with k ascending, so under the
 * instruction's reference semantics the result is the tile-level T.gemm's bit
 * for bit. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "layout/warp_policy.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct mma_operand {
  const tl_ir_expr *e;
  const tl_ir_buffer *buf;
  uint32_t nd;
  int64_t rows, cols; /* the extents of its last two dimensions */
} mma_operand;

static bool why_not(char *why, size_t cap, const char *text) {
  if (why && cap) snprintf(why, cap, "%s", text);
  return false;
}

static bool shared_scope(const tl_ir_buffer *b) {
  return b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN;
}

/* A matrix operand with constant extents (leading dimensions of extent 1). */
static bool matrix_operand(const tl_ir_expr *e, mma_operand *o) {
  if (!e || e->kind != TL_EXPR_REGION || e->u.region.ndim < 2 || !e->u.region.buffer) return false;
  for (uint32_t d = 0; d + 2 < e->u.region.ndim; d++)
    if (!tl__is_int(e->u.region.extents[d], 1)) return false;
  o->e = e;
  o->buf = e->u.region.buffer;
  o->nd = e->u.region.ndim;
  return tl__is_const_int(e->u.region.extents[o->nd - 2], &o->rows) &&
         tl__is_const_int(e->u.region.extents[o->nd - 1], &o->cols);
}

static bool half_dtype(tl_dtype t) { return tl_dtype_eq(t, TL_DT_FLOAT16) || tl_dtype_eq(t, TL_DT_BFLOAT16); }

bool tl__gpu_gemm_mma_fits(const tl_ir_expr *call, int64_t T, const tl__gpu_params *p, char *why, size_t cap,
                           int64_t *wm, int64_t *wn) {
  if (!p || !(p->mma & TL__GPU_MMA_M16N8K16)) return why_not(why, cap, "the target has no mma.sync.m16n8k16");
  if (!call || call->kind != TL_EXPR_CALL || call->u.call.nargs != 7) return why_not(why, cap, "not a T.gemm call");
  mma_operand A, B, C;
  if (!matrix_operand(call->u.call.args[0], &A) || !matrix_operand(call->u.call.args[1], &B) ||
      !matrix_operand(call->u.call.args[2], &C))
    return why_not(why, cap, "an operand is not a matrix of constant shape");
  int64_t ta = 0, tb = 0, clear = 0, policy = 0;
  if (!tl__is_const_int(call->u.call.args[3], &ta) || !tl__is_const_int(call->u.call.args[4], &tb) ||
      !tl__is_const_int(call->u.call.args[5], &clear) || !tl__is_const_int(call->u.call.args[6], &policy))
    return why_not(why, cap, "transpose, clear or policy arguments are not constants");
  /* A in registers (RS): the whole fragment, not transposed (used from its
   * registers or staged through shared memory, tl__gpu_lower_gemm_mma) */
  bool rs = A.buf->scope == TL_SCOPE_LOCAL_FRAGMENT && ta == 0 && A.buf->ndim == 2 && tl__gpu_region_is_whole(A.e);
  if ((!shared_scope(A.buf) && !rs) || !shared_scope(B.buf))
    return why_not(why, cap, "A is not in shared memory or a whole untransposed fragment, or B is not in shared memory");
  if (!half_dtype(A.buf->dtype) || !tl_dtype_eq(A.buf->dtype, B.buf->dtype))
    return why_not(why, cap, "A and B are not both float16 or both bfloat16");
  if (C.buf->scope != TL_SCOPE_LOCAL_FRAGMENT || !tl_dtype_eq(C.buf->dtype, TL_DT_FLOAT32) || C.buf->ndim != 2 ||
      !tl__gpu_region_is_whole(C.e))
    return why_not(why, cap, "C is not a whole two-dimensional float32 fragment");
  int64_t M = C.rows, N = C.cols, K = ta ? A.rows : A.cols;
  if ((ta ? A.cols : A.rows) != M || (tb ? B.cols : B.rows) != K || (tb ? B.rows : B.cols) != N)
    return why_not(why, cap, "the operands' shapes do not agree");
  if (T < 32 || T % 32 != 0) return why_not(why, cap, "the block is not whole warps");
  int64_t gm = 0, gn = 0;
  if (tl__warp_partition((tl__warp_policy)policy, M, N, T / 32, false, &gm, &gn) != TL_OK) {
    if (why && cap) snprintf(why, cap, "no warp grid: %s", tl_last_error());
    return false;
  }
  if (M % (16 * gm) != 0 || N % (8 * gn) != 0 || K % 16 != 0)
    return why_not(why, cap, "the warps' tiles are not whole 16 x 8 tiles, or K is not a multiple of 16");
  if (wm) *wm = gm;
  if (wn) *wn = gn;
  return true;
}

static tl_ir_stmt *loop1(tl_ir_module *mod, tl_ir_for_kind kind, tl_ir_var *v, int64_t n, tl_ir_stmt *body) {
  return tl__gpu_loop1(mod, kind, v, tl_ir_i32(mod, n), body);
}

static tl_ir_var *new_var(tl_ir_module *mod, const char *name) { return tl_ir_var_new(mod, name, TL_DT_INT32); }

/* Element (row, col) of an operand's matrix (tl__gpu_matrix_index). */
static tl_ir_expr *matrix_load(tl_ir_module *mod, const mma_operand *o, tl_ir_expr *row, tl_ir_expr *col) {
  tl_ir_expr *idx[TL__GPU_MAX_RANK];
  tl__gpu_matrix_index(mod, o->e, row, col, idx);
  return tl_ir_load(mod, (tl_ir_buffer *)o->buf, o->nd, idx);
}

static tl_ir_expr *one_element(tl_ir_module *mod, tl_ir_buffer *b, tl_ir_expr *at) {
  tl_ir_expr *one = tl_ir_i32(mod, 1);
  return tl_ir_region(mod, b, &at, &one, TL_REGION_SLICE);
}

/* Whether rows of 8 consecutive elements of the operand's last dimension start
 * 16-byte aligned wherever the lowering points ldmatrix: the buffer compact with
 * a last extent of a multiple of 8 (or strides: unit last, rows a multiple of 8),
 * the region's start in that dimension a constant multiple of 8. */
static bool ldmatrix_rows(const mma_operand *o) {
  const tl_ir_buffer *b = o->buf;
  int64_t row = 0, unit = 1, start = 0;
  if (b->strides) {
    if (!tl__is_const_int(b->strides[b->ndim - 1], &unit) || !tl__is_const_int(b->strides[b->ndim - 2], &row)) return false;
  } else if (!tl__is_const_int(b->shape[b->ndim - 1], &row)) {
    return false;
  }
  return unit == 1 && row % 8 == 0 && tl__is_const_int(o->e->u.region.mins[o->nd - 1], &start) && start % 8 == 0;
}

/* T.ldmatrix_x4(dst[at], op[row, col], trans): this lane's row address. */
static tl_ir_stmt *ldmatrix(tl_ir_module *mod, tl_ir_buffer *dst, tl_ir_expr *at, const mma_operand *o, tl_ir_expr *row,
                            tl_ir_expr *col, bool trans) {
  tl_ir_expr *src = matrix_load(mod, o, row, col);
  if (!src) return NULL;
  tl_ir_expr *one[TL__GPU_MAX_RANK];
  for (uint32_t d = 0; d < o->nd; d++) one[d] = tl__int_like(mod, src->u.load.indices[d], 1);
  tl_ir_expr *args[3] = {one_element(mod, dst, at),
                         tl_ir_region(mod, (tl_ir_buffer *)o->buf, src->u.load.indices, one, TL_REGION_SLICE),
                         tl_ir_i32(mod, trans)};
  return tl_ir_eval(mod, tl_ir_call(mod, TL_OP_LDMATRIX_X4, TL_DT_HANDLE, 3, args));
}

bool tl__gpu_rs_operand_direct(const tl__gpu_layout *A, const tl__gpu_layout *C) {
  return C->mma && !C->proj && A->mma && !A->proj && A->WN == 1 && A->WM == C->WM && A->RR == C->RR && A->RC % 2 == 0;
}

/* A fragment operand whose layout is not the instruction's operand map, copied by
 * its owners into a shared tile (rows padded by 8 elements: ldmatrix rows free of
 * bank conflicts) that the gemm then reads as an SS operand: the statements
 * `alloc; stores; barrier` into staging[0..3), and *o pointed at the tile. */
static tl_status stage_operand(tl__gpu_ctx *c, const tl__gpu_frag *fa, mma_operand *o, tl_ir_stmt **staging) {
  tl_ir_module *mod = c->mod;
  const tl__gpu_layout *AL = &fa->layout;
  tl_ir_expr *shape[2] = {tl_ir_i32(mod, o->rows), tl_ir_i32(mod, o->cols)};
  tl_ir_expr *strides[2] = {tl_ir_i32(mod, o->cols + 8), tl_ir_i32(mod, 1)};
  char name[300];
  snprintf(name, sizeof name, "%s_stage", fa->buf->name);
  tl_ir_buffer *sh = tl_ir_buffer_new(mod, name, fa->buf->dtype, 2, shape, strides, TL_SCOPE_SHARED);
  TL__TRY(tl__built(mod, sh));
  tl__gpu_slots s;
  TL__TRY(tl__gpu_slots_make(mod, AL, c->tid, &s));
  tl_ir_expr *idx[TL__GPU_MAX_RANK];
  tl__gpu_slot_indices(mod, AL, &s, idx);
  staging[0] = tl_ir_alloc(mod, sh);
  staging[1] = tl__gpu_slots_loops(mod, AL, &s, tl_ir_store(mod, sh, 2, idx, tl_ir_load(mod, fa->local, 1, &s.slot)));
  staging[2] = tl_ir_barrier(mod);
  for (int i = 0; i < 3; i++) TL__TRY(tl__built(mod, staging[i]));
  tl_ir_expr *zero[2] = {tl_ir_i32(mod, 0), tl_ir_i32(mod, 0)};
  o->e = tl_ir_region(mod, sh, zero, shape, TL_REGION_SLICE);
  o->buf = sh;
  o->nd = 2;
  return tl__built(mod, o->e);
}

tl_status tl__gpu_lower_gemm_mma(tl__gpu_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  char why[160];
  if (!tl__gpu_gemm_mma_fits(call, c->T, c->p, why, sizeof why, NULL, NULL))
    return tl__pass_error(TL_EINTERNAL, call->span, "T.gemm: the accumulator has the mma layout but the gemm does not fit: %s",
                          why);
  mma_operand A, B, C;
  matrix_operand(call->u.call.args[0], &A);
  matrix_operand(call->u.call.args[1], &B);
  matrix_operand(call->u.call.args[2], &C);
  const tl__gpu_frag *f = tl__gpu_find_frag(c->info, C.buf);
  if (!f || !f->layout.mma || !f->local)
    return tl__pass_error(TL_EINTERNAL, call->span, "T.gemm: C is not a fragment of the mma layout");
  const tl__gpu_layout *L = &f->layout;
  /* RS: A is a distributed fragment; in registers as they are when its layout is
   * the operand map (tl__gpu_rs_operand_direct), else staged through shared memory */
  const tl__gpu_frag *fa = A.buf->scope == TL_SCOPE_LOCAL_FRAGMENT ? tl__gpu_find_frag(c->info, A.buf) : NULL;
  if (A.buf->scope == TL_SCOPE_LOCAL_FRAGMENT && (!fa || !fa->local || fa->layout.replicated || fa->layout.proj))
    return tl__pass_error(TL_EINTERNAL, call->span, "T.gemm: fragment A is not distributed");
  tl_ir_stmt *staging[3] = {NULL, NULL, NULL};
  if (fa && !tl__gpu_rs_operand_direct(&fa->layout, L)) {
    TL__TRY(stage_operand(c, fa, &A, staging));
    fa = NULL;
  }
  int64_t ta = 0, tb = 0, clear = 0;
  tl__is_const_int(call->u.call.args[3], &ta);
  tl__is_const_int(call->u.call.args[4], &tb);
  tl__is_const_int(call->u.call.args[5], &clear);
  int64_t K = ta ? A.rows : A.cols, RR = L->RR, RC = L->RC;

  /* warp w = wm + WM*wn owns rows rbase + [0, RR*16) and columns cbase + [0, RC*8) */
  tl_ir_expr *warp = tl__floordiv(mod, c->tid, tl_ir_i32(mod, 32)), *lane = tl__floormod(mod, c->tid, tl_ir_i32(mod, 32));
  tl_ir_expr *rbase = tl__mul(mod, tl__floormod(mod, warp, tl_ir_i32(mod, L->WM)), tl_ir_i32(mod, RR * 16));
  tl_ir_expr *cbase = tl__mul(mod, tl__floordiv(mod, warp, tl_ir_i32(mod, L->WM)), tl_ir_i32(mod, RC * 8));
  tl_ir_expr *g = tl__floordiv(mod, lane, tl_ir_i32(mod, 4)), *q = tl__floormod(mod, lane, tl_ir_i32(mod, 4));
  tl_ir_expr *na = tl_ir_i32(mod, RR * 8), *nb = tl_ir_i32(mod, RC * 4);
  tl_ir_buffer *af = tl_ir_buffer_new(mod, "a_frag", A.buf->dtype, 1, &na, NULL, TL_SCOPE_LOCAL);
  tl_ir_buffer *bf = tl_ir_buffer_new(mod, "b_frag", B.buf->dtype, 1, &nb, NULL, TL_SCOPE_LOCAL);
  tl_ir_var *kk = new_var(mod, "kk"), *rr = new_var(mod, "rr"), *rc = new_var(mod, "rc"), *i = new_var(mod, "i"),
            *j = new_var(mod, "j"), *rr2 = new_var(mod, "rr"), *rc2 = new_var(mod, "rc"), *z = new_var(mod, "z");
  TL__TRY(tl__built(mod, g));
  TL__TRY(tl__built(mod, rbase));
  TL__TRY(tl__built(mod, cbase));
  TL__TRY(tl__built(mod, af));
  TL__TRY(tl__built(mod, bf));
  TL__TRY(tl__built(mod, z));
  tl_ir_expr *vkk = tl_ir_var_ref(mod, kk), *vrr = tl_ir_var_ref(mod, rr), *vrc = tl_ir_var_ref(mod, rc),
             *vi = tl_ir_var_ref(mod, i), *vj = tl_ir_var_ref(mod, j);
  tl_ir_expr *k0 = tl__mul(mod, vkk, tl_ir_i32(mod, 16)), *q2 = tl__mul(mod, q, tl_ir_i32(mod, 2));

  /* a_frag[rr*8 + i] = op(A)[rbase + rr*16 + g + 8*((i/2)%2), kk*16 + 2q + i%2 + 8*(i/4)] */
  tl_ir_expr *arow = tl__add(mod, tl__add(mod, rbase, tl__mul(mod, vrr, tl_ir_i32(mod, 16))),
                             tl__add(mod, g, tl__mul(mod, tl__floormod(mod, tl__floordiv(mod, vi, tl_ir_i32(mod, 2)), tl_ir_i32(mod, 2)),
                                                     tl_ir_i32(mod, 8))));
  tl_ir_expr *acol = tl__add(mod, tl__add(mod, k0, q2),
                             tl__add(mod, tl__floormod(mod, vi, tl_ir_i32(mod, 2)),
                                     tl__mul(mod, tl__floordiv(mod, vi, tl_ir_i32(mod, 4)), tl_ir_i32(mod, 8))));
  tl_ir_expr *aslot = tl__add(mod, tl__mul(mod, vrr, tl_ir_i32(mod, 8)), vi);
  tl_ir_stmt *aload = NULL; /* an RS operand in its registers needs no load */
  if (!fa) {
    aload = tl_ir_store(mod, af, 1, &aslot, ta ? matrix_load(mod, &A, acol, arow) : matrix_load(mod, &A, arow, acol));
    aload = loop1(mod, TL_FOR_UNROLLED, rr, RR, loop1(mod, TL_FOR_UNROLLED, i, 8, aload));
  }
  tl_ir_expr *l8 = tl__floormod(mod, lane, tl_ir_i32(mod, 8)), *m = tl__floordiv(mod, lane, tl_ir_i32(mod, 8));
  if (!fa && !ta && ldmatrix_rows(&A)) {
    /* Lane l addresses row l%8 of matrix m = l/8: the tile's row l%8 + 8*(m%2),
     * k + 8*(m/2) (the matrices a0a1, a2a3, a4a5, a6a7 in order). */
    tl_ir_var *rl = new_var(mod, "rr");
    TL__TRY(tl__built(mod, rl));
    tl_ir_expr *vrl = tl_ir_var_ref(mod, rl);
    tl_ir_expr *row = tl__add(mod, tl__add(mod, rbase, tl__mul(mod, vrl, tl_ir_i32(mod, 16))),
                              tl__add(mod, l8, tl__mul(mod, tl__floormod(mod, m, tl_ir_i32(mod, 2)), tl_ir_i32(mod, 8))));
    tl_ir_expr *col = tl__add(mod, k0, tl__mul(mod, tl__floordiv(mod, m, tl_ir_i32(mod, 2)), tl_ir_i32(mod, 8)));
    aload = loop1(mod, TL_FOR_UNROLLED, rl, RR, ldmatrix(mod, af, tl__mul(mod, vrl, tl_ir_i32(mod, 8)), &A, row, col, false));
  }

  /* b_frag[rc*4 + j] = op(B)[kk*16 + 2q + j%2 + 8*(j/2), cbase + rc*8 + g] */
  tl_ir_expr *bk = tl__add(mod, tl__add(mod, k0, q2),
                           tl__add(mod, tl__floormod(mod, vj, tl_ir_i32(mod, 2)),
                                   tl__mul(mod, tl__floordiv(mod, vj, tl_ir_i32(mod, 2)), tl_ir_i32(mod, 8))));
  tl_ir_expr *bn = tl__add(mod, tl__add(mod, cbase, tl__mul(mod, vrc, tl_ir_i32(mod, 8))), g);
  tl_ir_expr *bslot = tl__add(mod, tl__mul(mod, vrc, tl_ir_i32(mod, 4)), vj);
  tl_ir_stmt *bload = tl_ir_store(mod, bf, 1, &bslot, tb ? matrix_load(mod, &B, bn, bk) : matrix_load(mod, &B, bk, bn));
  bload = loop1(mod, TL_FOR_UNROLLED, rc, RC, loop1(mod, TL_FOR_UNROLLED, j, 4, bload));
  if (RC % 2 == 0 && ldmatrix_rows(&B)) {
    /* Two 8-column tiles a load, rc = 2p and 2p + 1: lane l addresses row l%8 of
     * matrix m = l/8, k + l%8 + 8*(m%2) at column cbase + (2p + m/2)*8 of B[K, N]
     * (.trans), or row cbase + (2p + m/2)*8 + l%8, k + 8*(m%2) of B[N, K]. */
    tl_ir_var *p2 = new_var(mod, "rc");
    TL__TRY(tl__built(mod, p2));
    tl_ir_expr *vp = tl_ir_var_ref(mod, p2);
    tl_ir_expr *n0 = tl__add(mod, cbase, tl__mul(mod, tl__add(mod, tl__mul(mod, vp, tl_ir_i32(mod, 2)), tl__floordiv(mod, m, tl_ir_i32(mod, 2))),
                                                 tl_ir_i32(mod, 8)));
    tl_ir_expr *kh = tl__mul(mod, tl__floormod(mod, m, tl_ir_i32(mod, 2)), tl_ir_i32(mod, 8));
    tl_ir_stmt *ld = tb ? ldmatrix(mod, bf, tl__mul(mod, vp, tl_ir_i32(mod, 8)), &B, tl__add(mod, n0, l8), tl__add(mod, k0, kh), false)
                        : ldmatrix(mod, bf, tl__mul(mod, vp, tl_ir_i32(mod, 8)), &B, tl__add(mod, tl__add(mod, k0, l8), kh), n0, true);
    bload = loop1(mod, TL_FOR_UNROLLED, p2, RC / 2, ld);
  }

  /* one instruction per 16 x 8 tile */
  tl_ir_expr *vrr2 = tl_ir_var_ref(mod, rr2), *vrc2 = tl_ir_var_ref(mod, rc2);
  tl_ir_expr *dslot = tl__mul(mod, tl__add(mod, tl__mul(mod, vrr2, tl_ir_i32(mod, RC)), vrc2), tl_ir_i32(mod, 4));
  tl_ir_expr *args[3] = {one_element(mod, f->local, dslot),
                         one_element(mod, af, tl__mul(mod, vrr2, tl_ir_i32(mod, 8))),
                         one_element(mod, bf, tl__mul(mod, vrc2, tl_ir_i32(mod, 4)))};
  TL__TRY(tl__built(mod, args[0]));
  TL__TRY(tl__built(mod, args[1]));
  TL__TRY(tl__built(mod, args[2]));
  if (fa) {
    /* A's 16 x 16 tile of this k step: the accumulator-layout slots of its 8-column
     * tiles 2kk and 2kk + 1, in A's operand register order (a0a1 = c0c1 of tile
     * 2kk, a2a3 = its c2c3, a4..a7 the same of tile 2kk + 1) */
    tl_ir_expr *tile = tl__add(mod, tl__mul(mod, vrr2, tl_ir_i32(mod, fa->layout.RC)), tl__mul(mod, vkk, tl_ir_i32(mod, 2)));
    args[1] = one_element(mod, fa->local, tl__mul(mod, tile, tl_ir_i32(mod, 4)));
    TL__TRY(tl__built(mod, args[1]));
  }
  tl_ir_stmt *mma = tl_ir_eval(mod, tl_ir_call(mod, TL_OP_MMA_M16N8K16, TL_DT_HANDLE, 3, args));
  mma = loop1(mod, TL_FOR_UNROLLED, rr2, RR, loop1(mod, TL_FOR_UNROLLED, rc2, RC, mma));

  tl_ir_stmt *step[3];
  uint32_t nstep = 0;
  if (aload) step[nstep++] = aload;
  step[nstep++] = bload;
  step[nstep++] = mma;
  /* The k steps unrolled, so that the next step's ldmatrix can overlap this
   * step's mma: on the H200 +5% at 4096^3 with 128 x 128 x 32 tiles, +12% with
   * block_K = 64 (docs/BENCHMARKS.md). On the old row-stacked warp layout this
   * took NVRTC's 128 x 128 tile to 253 registers; on the square warp grid it is
   * 208 and no configuration of the resource golden spills in the GEMM. */
  tl_ir_stmt *body = loop1(mod, TL_FOR_UNROLLED, kk, K / 16, tl_ir_seq(mod, nstep, step));
  tl_ir_stmt *parts[8];
  uint32_t n = 0;
  for (int i = 0; i < 3 && staging[0]; i++) parts[n++] = staging[i];
  if (clear) {
    tl_ir_expr *vz = tl_ir_var_ref(mod, z);
    parts[n++] = loop1(mod, TL_FOR_UNROLLED, z, L->slots, tl_ir_store(mod, f->local, 1, &vz, tl__zero(mod, TL_DT_FLOAT32)));
  }
  if (!fa) parts[n++] = tl_ir_alloc(mod, af);
  parts[n++] = tl_ir_alloc(mod, bf);
  parts[n++] = body;
  /* a staged operand in a loop: the next round's stores wait until every warp has read */
  if (staging[0] && c->loop_depth) parts[n++] = tl_ir_barrier(mod);
  *out = tl_ir_seq(mod, n, parts);
  return tl__built(mod, *out);
}
