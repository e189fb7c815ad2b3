/* Tile ops by their definitions (ir.h lists the argument conventions):
 *  - T.copy: element-wise with conversion to the destination's dtype; where a
 *    region runs past the edge of a global buffer, reads give zero and writes are
 *    dropped (tiles need not divide the shape). Every other op, and T.copy on
 *    shared or fragment buffers, reports out-of-bounds elements.
 *  - Regions of two operands match when their extents agree after dropping
 *    extents of 1 (A[i, 0:64] copies into a 64-element buffer); elements pair up
 *    in row-major order.
 *  - T.gemm accumulates in C's dtype with k ascending, rounding the product and
 *    then the sum to C's dtype at every step.
 *  - Reductions and T.cumsum accumulate in the destination's dtype in index order. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "ir/interp/interp.h"
#include "ir/interp/simt.h"
#include "ir/op_table.h"

#define MAX_DIMS 16

typedef struct region {
  const tl_ir_buffer *buf;
  uint32_t ndim;
  int64_t mins[MAX_DIMS], ext[MAX_DIMS];
  int64_t count;          /* elements: the product of the extents */
  const int64_t *dims;    /* the buffer's shape */
  const int64_t *strides; /* and strides, in elements */
  tl__istore *st;         /* the memory behind it */
  bool global;            /* clipped by T.copy */
  tl_dtype dt;            /* the buffer's scalar dtype */
  size_t esz;
} region;

/* Evaluates a TL_EXPR_REGION operand. */
static tl_status eval_region(tl__iframe *fr, const tl_ir_expr *e, const char *op, const char *what, tl_ir_span span,
                             region *r) {
  if (!e || e->kind != TL_EXPR_REGION || !e->u.region.buffer)
    return tl__interp_error(TL_EINVAL, span, "%s: %s must be a buffer region", op, what);
  const tl_ir_buffer *buf = e->u.region.buffer;
  r->buf = buf;
  r->ndim = e->u.region.ndim;
  r->dt = tl_dtype_scalar(buf->dtype);
  if (r->ndim != buf->ndim)
    return tl__interp_error(TL_EINVAL, span, "%s: region of buffer '%s' has %u dimensions; the buffer has %u", op,
                            buf->name, r->ndim, buf->ndim);
  if (r->ndim > MAX_DIMS)
    return tl__interp_error(TL_EUNSUPPORTED, span, "%s: buffer '%s' has too many dimensions", op, buf->name);
  TL__TRY(tl__interp_storage(fr, buf, span, &r->st));
  r->global = r->st->global;
  r->esz = tl_dtype_bytes(r->dt);
  TL__TRY(tl__interp_layout(fr, buf, span, &r->dims, &r->strides));
  r->count = 1;
  for (uint32_t i = 0; i < r->ndim; i++) {
    if (e->u.region.mins && e->u.region.mins[i]) TL__TRY(tl__interp_eval_int(fr, e->u.region.mins[i], &r->mins[i]));
    else r->mins[i] = 0;
    if (e->u.region.extents && e->u.region.extents[i])
      TL__TRY(tl__interp_eval_int(fr, e->u.region.extents[i], &r->ext[i]));
    else r->ext[i] = r->dims[i] - r->mins[i];
    if (r->ext[i] < 0)
      return tl__interp_error(TL_ERUNTIME, span, "%s: region of buffer '%s' has a negative extent %" PRId64, op,
                              buf->name, r->ext[i]);
    r->count *= r->ext[i];
  }
  return TL_OK;
}

/* idx = mins + the row-major position f within extents ext. */
static void unravel(const int64_t *mins, const int64_t *ext, uint32_t n, int64_t f, int64_t *idx) {
  for (uint32_t i = n; i-- > 0;) {
    int64_t e = ext[i] > 0 ? ext[i] : 1;
    idx[i] = mins[i] + f % e;
    f /= e;
  }
}

static bool in_bounds(const region *r, const int64_t *idx) {
  for (uint32_t i = 0; i < r->ndim; i++)
    if (idx[i] < 0 || idx[i] >= r->dims[i]) return false;
  return true;
}

/* Address of element idx of the region's buffer: the checks of tl__interp_addr
 * with the storage and layout looked up once per region. */
static tl_status elem_addr(tl__iframe *fr, const region *r, const int64_t *idx, tl_ir_span span, char **out) {
  int64_t off = 0;
  for (uint32_t i = 0; i < r->ndim; i++) {
    if (idx[i] < 0 || idx[i] >= r->dims[i]) return tl__interp_oob(span, r->buf, idx, r->ndim, r->dims);
    off += idx[i] * r->strides[i];
  }
  if (off < 0 || ((uint64_t)off + 1) * r->esz > r->st->nbytes)
    return tl__interp_addr(fr, r->buf, idx, r->ndim, span, out); /* reports it */
  *out = r->st->data + (size_t)off * r->esz;
  return TL_OK;
}

static tl_status read_elem(tl__iframe *fr, const region *r, const int64_t *idx, tl_ir_span span, tl__ival *out) {
  char *p;
  TL__TRY(elem_addr(fr, r, idx, span, &p));
  if (fr->simt) return tl__simt_load(fr, r->buf, p, span, out);
  *out = tl__iv_load(r->dt, p);
  return TL_OK;
}

static tl_status write_elem(tl__iframe *fr, const region *r, const int64_t *idx, tl_ir_span span, tl__ival v) {
  char *p;
  TL__TRY(elem_addr(fr, r, idx, span, &p));
  if (fr->simt) return tl__simt_store(fr, r->buf, p, span, v);
  tl__iv_store(r->dt, p, v);
  return TL_OK;
}

static void append_extents(tl__sb *sb, const int64_t *ext, uint32_t n) {
  tl__sb_putc(sb, '[');
  for (uint32_t i = 0; i < n; i++) tl__sb_appendf(sb, "%s%" PRId64, i ? ", " : "", ext[i]);
  tl__sb_putc(sb, ']');
}

/* True if the extents agree once extents of 1 are dropped. */
static bool same_shape(const int64_t *a, uint32_t na, const int64_t *b, uint32_t nb) {
  uint32_t i = 0, j = 0;
  for (;;) {
    while (i < na && a[i] == 1) i++;
    while (j < nb && b[j] == 1) j++;
    if (i == na || j == nb) return i == na && j == nb;
    if (a[i++] != b[j++]) return false;
  }
}

static tl_status shape_mismatch(const char *op, const char *wa, const int64_t *a, uint32_t na, const char *wb,
                                const int64_t *b, uint32_t nb, tl_ir_span span) {
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "%s: %s region ", op, wa);
  append_extents(&sb, a, na);
  tl__sb_appendf(&sb, " and %s region ", wb);
  append_extents(&sb, b, nb);
  tl__sb_append(&sb, " have different shapes");
  if (tl__sb_status(&sb) != TL_OK) {
    tl__sb_free(&sb);
    return tl__oom();
  }
  tl_status s = tl__interp_error(TL_EINVAL, span, "%s", tl__sb_str(&sb));
  tl__sb_free(&sb);
  return s;
}

static tl__ival zero_of(tl_dtype t) {
  tl__ival v;
  if (tl_dtype_is_float(t)) v.f = 0.0;
  else v.i = 0;
  return v;
}

static tl_status int_arg(tl__iframe *fr, const tl_ir_expr *e, const char *op, const char *what, tl_ir_span span,
                         int64_t *out) {
  if (!e || (!tl_dtype_is_int(e->dtype) && !tl_dtype_is_bool(e->dtype)))
    return tl__interp_error(TL_EINVAL, span, "%s: %s must be an integer", op, what);
  return tl__interp_eval_int(fr, e, out);
}

/* ------------------------------------------------------------------ T.copy */

static tl_status op_copy(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  region src, dst;
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.copy", "the source", span, &src));
  TL__TRY(eval_region(fr, call->u.call.args[1], "T.copy", "the destination", span, &dst));
  if (!same_shape(src.ext, src.ndim, dst.ext, dst.ndim))
    return shape_mismatch("T.copy", "source", src.ext, src.ndim, "destination", dst.ext, dst.ndim, span);
  if (src.count == 0) return TL_OK;
  /* Read everything, then write: the copy has parallel semantics even when the
   * regions overlap. */
  tl__ival *vals = tl__malloc((size_t)src.count * sizeof *vals);
  if (!vals) return tl__oom();
  tl_status st = TL_OK;
  int64_t idx[MAX_DIMS];
  for (int64_t f = 0; f < src.count && st == TL_OK; f++) {
    unravel(src.mins, src.ext, src.ndim, f, idx);
    if (src.global && !in_bounds(&src, idx)) {
      vals[f] = zero_of(dst.dt);
      continue;
    }
    tl__ival v;
    st = read_elem(fr, &src, idx, span, &v);
    if (st == TL_OK) st = tl__iv_cast(dst.dt, src.dt, v, span, &vals[f]);
  }
  for (int64_t f = 0; f < dst.count && st == TL_OK; f++) {
    unravel(dst.mins, dst.ext, dst.ndim, f, idx);
    if (dst.global && !in_bounds(&dst, idx)) continue;
    st = write_elem(fr, &dst, idx, span, vals[f]);
  }
  tl__free(vals);
  return st;
}

/* ------------------------------------------------------- T.fill, T.clear */

static tl_status fill_region(tl__iframe *fr, const region *dst, tl__ival v, tl_ir_span span) {
  int64_t idx[MAX_DIMS];
  for (int64_t f = 0; f < dst->count; f++) {
    unravel(dst->mins, dst->ext, dst->ndim, f, idx);
    TL__TRY(write_elem(fr, dst, idx, span, v));
  }
  return TL_OK;
}

static tl_status op_fill(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  region dst;
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.fill", "the destination", span, &dst));
  const tl_ir_expr *ve = call->u.call.args[1];
  if (!ve || ve->kind == TL_EXPR_REGION || ve->dtype.lanes > 1)
    return tl__interp_error(TL_EINVAL, span, "T.fill: the value must be a scalar expression");
  tl__ival v, c;
  TL__TRY(tl__interp_eval(fr, ve, 0, &v));
  TL__TRY(tl__iv_cast(dst.dt, ve->dtype, v, span, &c));
  return fill_region(fr, &dst, c, span);
}

static tl_status op_clear(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  region dst;
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.clear", "the destination", span, &dst));
  return fill_region(fr, &dst, zero_of(dst.dt), span);
}

/* ------------------------------------------------------------------ T.gemm */

/* The last two dimensions of a region as a matrix; leading extents must be 1. */
static tl_status matrix_of(const region *r, const char *which, tl_ir_span span, int64_t *rows, int64_t *cols) {
  if (r->ndim < 2)
    return tl__interp_error(TL_EINVAL, span, "T.gemm: %s (buffer '%s') must have at least 2 dimensions", which,
                            r->buf->name);
  for (uint32_t i = 0; i + 2 < r->ndim; i++)
    if (r->ext[i] != 1)
      return tl__interp_error(TL_EINVAL, span, "T.gemm: %s (buffer '%s') must be a matrix: extent %" PRId64
                              " in dimension %u", which, r->buf->name, r->ext[i], i);
  *rows = r->ext[r->ndim - 2];
  *cols = r->ext[r->ndim - 1];
  return TL_OK;
}

/* Element (row, col) of a region's matrix. */
static void matrix_index(const region *r, int64_t row, int64_t col, int64_t *idx) {
  memcpy(idx, r->mins, r->ndim * sizeof *idx);
  idx[r->ndim - 2] += row;
  idx[r->ndim - 1] += col;
}

/* Reads a matrix operand, or its transpose, as [rows][cols] doubles (exact for every dtype
 * the interpreter holds, integers up to 2^53). */
static tl_status read_matrix(tl__iframe *fr, const region *r, bool trans, int64_t rows, int64_t cols,
                             tl_ir_span span, double *out) {
  int64_t idx[MAX_DIMS];
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      matrix_index(r, trans ? j : i, trans ? i : j, idx);
      tl__ival v;
      TL__TRY(read_elem(fr, r, idx, span, &v));
      out[i * cols + j] = tl__iv_as_f64(r->dt, v);
    }
  return TL_OK;
}

static tl_status op_gemm(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  region A, B, C;
  int64_t ta, tb, clear;
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.gemm", "A", span, &A));
  TL__TRY(eval_region(fr, call->u.call.args[1], "T.gemm", "B", span, &B));
  TL__TRY(eval_region(fr, call->u.call.args[2], "T.gemm", "C", span, &C));
  TL__TRY(int_arg(fr, call->u.call.args[3], "T.gemm", "transpose_A", span, &ta));
  TL__TRY(int_arg(fr, call->u.call.args[4], "T.gemm", "transpose_B", span, &tb));
  TL__TRY(int_arg(fr, call->u.call.args[5], "T.gemm", "clear_accum", span, &clear));
  int64_t ar, ac, br, bc, M, N;
  TL__TRY(matrix_of(&A, "A", span, &ar, &ac));
  TL__TRY(matrix_of(&B, "B", span, &br, &bc));
  TL__TRY(matrix_of(&C, "C", span, &M, &N));
  int64_t am = ta ? ac : ar, K = ta ? ar : ac, bk = tb ? bc : br, bn = tb ? br : bc;
  if (am != M || bk != K || bn != N)
    return tl__interp_error(TL_EINVAL, span,
                            "T.gemm: shapes do not match: op(A) is %" PRId64 "x%" PRId64 ", op(B) is %" PRId64
                            "x%" PRId64 ", C is %" PRId64 "x%" PRId64,
                            am, K, bk, bn, M, N);
  bool cint = tl_dtype_is_int(C.dt);
  if (!cint && !tl_dtype_is_float(C.dt))
    return tl__interp_error(TL_EINVAL, span, "T.gemm: C (buffer '%s') must be numeric", C.buf->name);
  if (cint && (!tl_dtype_is_int(A.dt) || !tl_dtype_is_int(B.dt) || A.dt.bits > 32 || B.dt.bits > 32))
    return tl__interp_error(TL_EINVAL, span, "T.gemm: an integer C needs integer A and B of at most 32 bits");
  if (M == 0 || N == 0) return TL_OK;
  size_t na = (size_t)(M * K), nb = (size_t)(K * N);
  double *a = tl__malloc((na + nb + 1) * sizeof *a);
  if (!a) return tl__oom();
  double *b = a + na; /* op(B) transposed (N x K), so the k loop reads both contiguously */
  tl_status st = read_matrix(fr, &A, ta != 0, M, K, span, a);
  if (st == TL_OK) st = read_matrix(fr, &B, tb == 0, N, K, span, b);
  bool fast32 = C.dt.code == TL_DTYPE_FLOAT && C.dt.bits == 32 && tl_dtype_is_float(A.dt) && A.dt.bits <= 32 &&
                tl_dtype_is_float(B.dt) && B.dt.bits <= 32;
  int64_t idx[MAX_DIMS];
  for (int64_t i = 0; i < M && st == TL_OK; i++)
    for (int64_t j = 0; j < N && st == TL_OK; j++) {
      matrix_index(&C, i, j, idx);
      tl__ival acc = zero_of(C.dt);
      if (!clear && (st = read_elem(fr, &C, idx, span, &acc)) != TL_OK) break;
      const double *ai = a + i * K, *bj = b + j * K;
      if (cint) {
        for (int64_t k = 0; k < K; k++) {
          int64_t prod = tl__iv_wrap(C.dt, (int64_t)((uint64_t)(int64_t)ai[k] * (uint64_t)(int64_t)bj[k]));
          acc.i = tl__iv_wrap(C.dt, (int64_t)((uint64_t)acc.i + (uint64_t)prod));
        }
      } else if (fast32) {
        /* float32 C with float operands of at most 32 bits (all exact in float):
         * IEEE float multiply and add round exactly as the definition asks. */
        float facc = (float)acc.f;
        for (int64_t k = 0; k < K; k++) {
          float prod = (float)ai[k] * (float)bj[k];
          facc = facc + prod;
        }
        acc.f = facc;
      } else {
        for (int64_t k = 0; k < K; k++) acc.f = tl__iv_round(C.dt, acc.f + tl__iv_round(C.dt, ai[k] * bj[k]));
      }
      st = write_elem(fr, &C, idx, span, acc);
    }
  tl__free(a);
  return st;
}

/* ---------------------------------------------------------- T.gemm_strided */

/* The address `off` elements (in the buffer's layout) past the region's first element. */
static tl_status strided_addr(const region *r, int64_t off, tl_ir_span span, char **out) {
  for (uint32_t i = 0; i < r->ndim; i++) off += r->mins[i] * r->strides[i];
  if (off < 0 || ((uint64_t)off + 1) * r->esz > r->st->nbytes)
    return tl__interp_error(TL_ERUNTIME, span, "T.gemm_strided: element %" PRId64 " of buffer '%s' is outside it", off,
                            r->buf->name);
  *out = r->st->data + (size_t)off * r->esz;
  return TL_OK;
}

/* The lowered form of T.gemm (include/tilelang/ir.h), with T.gemm's rounding for
 * the dtypes lower_gemm_cpu admits: float32 C, float A and B of at most 32 bits. */
static tl_status op_gemm_strided(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  static const char *const names[10] = {"m", "n", "k", "a_rs", "a_cs", "b_rs", "b_cs", "c_rs", "c_cs", "clear"};
  region A, B, C;
  int64_t v[10];
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.gemm_strided", "a", span, &A));
  TL__TRY(eval_region(fr, call->u.call.args[1], "T.gemm_strided", "b", span, &B));
  TL__TRY(eval_region(fr, call->u.call.args[2], "T.gemm_strided", "c", span, &C));
  for (int i = 0; i < 10; i++) TL__TRY(int_arg(fr, call->u.call.args[3 + i], "T.gemm_strided", names[i], span, &v[i]));
  if (!tl_dtype_eq(C.dt, TL_DT_FLOAT32) || !tl_dtype_is_float(A.dt) || A.dt.bits > 32 || !tl_dtype_is_float(B.dt) ||
      B.dt.bits > 32)
    return tl__interp_error(TL_EUNSUPPORTED, span, "T.gemm_strided: C must be float32 and A, B floats of at most 32 bits");
  int64_t M = v[0], N = v[1], K = v[2];
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      char *pc, *pa, *pb;
      TL__TRY(strided_addr(&C, i * v[7] + j * v[8], span, &pc));
      float acc = v[9] ? 0.0f : (float)tl__iv_load(C.dt, pc).f;
      for (int64_t k = 0; k < K; k++) {
        TL__TRY(strided_addr(&A, i * v[3] + k * v[4], span, &pa));
        TL__TRY(strided_addr(&B, k * v[5] + j * v[6], span, &pb));
        float prod = (float)tl__iv_load(A.dt, pa).f * (float)tl__iv_load(B.dt, pb).f;
        acc = acc + prod;
      }
      tl__ival out = zero_of(C.dt);
      out.f = acc;
      tl__iv_store(C.dt, pc, out);
    }
  return TL_OK;
}

/* ---------------------------------------------------------- T.mma_m16n8k16 */

/* The address of the region's first element, with `count` consecutive elements
 * inside its buffer. */
static tl_status run_addr(const region *r, int64_t count, const char *what, tl_ir_span span, char **out) {
  int64_t off = 0;
  for (uint32_t i = 0; i < r->ndim; i++) off += r->mins[i] * r->strides[i];
  if (off < 0 || (uint64_t)(off + count) * r->esz > r->st->nbytes)
    return tl__interp_error(TL_ERUNTIME, span,
                            "%s: elements %" PRId64 "..%" PRId64 " of buffer '%s' are outside it", what,
                            off, off + count - 1, r->buf->name);
  *out = r->st->data + (size_t)off * r->esz;
  return TL_OK;
}

/* One warp-collective tensor-core step (ir.h; the warp's exchange is simt_sync.c's). */
static tl_status op_mma(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  region D, A, B;
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.mma_m16n8k16", "d", span, &D));
  TL__TRY(eval_region(fr, call->u.call.args[1], "T.mma_m16n8k16", "a", span, &A));
  TL__TRY(eval_region(fr, call->u.call.args[2], "T.mma_m16n8k16", "b", span, &B));
  bool half = (tl_dtype_eq(A.dt, TL_DT_FLOAT16) || tl_dtype_eq(A.dt, TL_DT_BFLOAT16)) && tl_dtype_eq(A.dt, B.dt);
  if (!tl_dtype_eq(D.dt, TL_DT_FLOAT32) || !half)
    return tl__interp_error(TL_EUNSUPPORTED, span, "T.mma_m16n8k16: d must be float32 and a, b both float16 or bfloat16");
  char *pd, *pa, *pb;
  TL__TRY(run_addr(&D, 4, "d", span, &pd));
  TL__TRY(run_addr(&A, 8, "a", span, &pa));
  TL__TRY(run_addr(&B, 4, "b", span, &pb));
  return tl__simt_mma(fr, call, A.dt, pd, pa, pb);
}

/* The warp-collective 8 x 8 matrix load (ir.h): each lane reads the row it
 * addresses (shared memory, through the race detector), the warp's exchange
 * hands out the elements (simt_sync.c). */
static tl_status op_ldmatrix(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  region D, S;
  int64_t trans = 0;
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.ldmatrix_x4", "dst", span, &D));
  TL__TRY(eval_region(fr, call->u.call.args[1], "T.ldmatrix_x4", "src", span, &S));
  TL__TRY(int_arg(fr, call->u.call.args[2], "T.ldmatrix_x4", "trans", span, &trans));
  if (!tl_dtype_eq(D.dt, S.dt) || D.dt.bits != 16)
    return tl__interp_error(TL_EUNSUPPORTED, span, "T.ldmatrix_x4: dst and src must have one 16-bit dtype");
  char *pd, *ps;
  TL__TRY(run_addr(&D, 8, "dst", span, &pd));
  TL__TRY(run_addr(&S, 8, "src", span, &ps));
  if ((size_t)(ps - S.st->data) % 16 != 0)
    return tl__interp_error(TL_ERUNTIME, span, "T.ldmatrix_x4: the row address into buffer '%s' is not 16-byte aligned",
                            S.buf->name);
  if (!fr->simt) return tl__simt_ldmatrix(fr, call, D.dt, NULL, false, NULL); /* its error: not SIMT */
  tl__ival row[8];
  for (int i = 0; i < 8; i++) TL__TRY(tl__simt_load(fr, S.buf, ps + i * 2, span, &row[i]));
  return tl__simt_ldmatrix(fr, call, D.dt, row, trans != 0, pd);
}

/* ------------------------------------------------------------- cp.async */

/* An asynchronous copy (ir.h; its landing is simt_async.c's): the source is read
 * now (zeros when not valid), both ends checked as the hardware requires. */
static tl_status op_cp_async(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  region D, S;
  int64_t bytes = 0, valid = 0;
  TL__TRY(eval_region(fr, call->u.call.args[0], "T.cp_async", "dst", span, &D));
  TL__TRY(eval_region(fr, call->u.call.args[1], "T.cp_async", "src", span, &S));
  TL__TRY(int_arg(fr, call->u.call.args[2], "T.cp_async", "bytes", span, &bytes));
  TL__TRY(int_arg(fr, call->u.call.args[3], "T.cp_async", "valid", span, &valid));
  if ((bytes != 4 && bytes != 8 && bytes != 16) || !D.esz || bytes % (int64_t)D.esz || !tl_dtype_eq(D.dt, S.dt))
    return tl__interp_error(TL_EINVAL, span, "T.cp_async: %" PRId64 " bytes of '%s' into '%s'", bytes, S.buf->name,
                            D.buf->name);
  uint32_t count = (uint32_t)(bytes / (int64_t)D.esz);
  char *pd, *ps = NULL;
  TL__TRY(run_addr(&D, count, "T.cp_async: dst", span, &pd));
  /* Offsets from the buffer's start: code generators align shared buffers to 16
   * bytes, the host entry checks the alignment of tensors accessed with vectors. */
  if ((size_t)(pd - D.st->data) % (size_t)bytes)
    return tl__interp_error(TL_ERUNTIME, span, "T.cp_async: the destination in buffer '%s' is not %" PRId64 "-byte aligned",
                            D.buf->name, bytes);
  tl__ival vals[16];
  if (valid) {
    TL__TRY(run_addr(&S, count, "T.cp_async: src", span, &ps));
    if ((size_t)(ps - S.st->data) % (size_t)bytes)
      return tl__interp_error(TL_ERUNTIME, span, "T.cp_async: the source in buffer '%s' is not %" PRId64 "-byte aligned",
                              S.buf->name, bytes);
  }
  for (uint32_t i = 0; i < count; i++) {
    if (!valid) vals[i] = zero_of(D.dt);
    else if (fr->simt) TL__TRY(tl__simt_load(fr, S.buf, ps + i * S.esz, span, &vals[i]));
    else vals[i] = tl__iv_load(S.dt, ps + i * S.esz);
  }
  return tl__simt_cp_async(fr, D.buf, pd, vals, count, span);
}

/* At tile level (no SIMT thread) the copies of a pipeline stage are ordinary
 * stores: nothing is in flight, so commit and wait do nothing. */
static tl_status op_cp_async_commit(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  (void)call;
  (void)span;
  return tl__simt_cp_async_commit(fr);
}

static tl_status op_cp_async_wait(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  int64_t n = 0;
  TL__TRY(int_arg(fr, call->u.call.args[0], "T.cp_async_wait", "n", span, &n));
  return tl__simt_cp_async_wait(fr, n, span);
}

/* ------------------------------------------------------------ reductions */

/* Where the op table's fold of `op` starts, in dtype t. */
static tl__ival fold_identity(tl_ir_op op, tl_dtype t) {
  tl__ival v = zero_of(t);
  tl__identity_kind id = tl__tile_op(op)->fold.identity;
  if (id == TL__IDENTITY_ZERO) return v;
  if (id == TL__IDENTITY_ALL_ONES) {
    v.i = tl__iv_wrap(t, -1);
    return v;
  }
  bool lowest = id == TL__IDENTITY_LOWEST;
  if (tl_dtype_is_float(t)) {
    v.f = lowest ? -INFINITY : INFINITY;
  } else if (t.code == TL_DTYPE_UINT) {
    v.i = lowest ? 0 : tl__iv_wrap(t, -1);
  } else {
    int64_t hi = t.bits >= 64 ? INT64_MAX : (int64_t)((1ull << (t.bits - 1)) - 1);
    v.i = lowest ? -hi - 1 : hi;
  }
  return v;
}

static tl_status normalize_dim(int64_t *dim, uint32_t ndim, const char *op, tl_ir_span span) {
  int64_t d = *dim < 0 ? *dim + (int64_t)ndim : *dim;
  if (d < 0 || d >= (int64_t)ndim)
    return tl__interp_error(TL_EINVAL, span, "%s: dim %" PRId64 " is out of range for a %u-dimensional region", op,
                            *dim, ndim);
  *dim = d;
  return TL_OK;
}

/* The extents and mins of region r without dimension d. */
static void drop_dim(const region *r, uint32_t d, int64_t *mins, int64_t *ext) {
  for (uint32_t i = 0, j = 0; i < r->ndim; i++)
    if (i != d) {
      mins[j] = r->mins[i];
      ext[j++] = r->ext[i];
    }
}

static tl_status op_reduce(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  tl_ir_op op = call->u.call.op;
  const char *name = tl_ir_op_name(op);
  region src, dst;
  int64_t dim, clear;
  TL__TRY(eval_region(fr, call->u.call.args[0], name, "the source", span, &src));
  TL__TRY(eval_region(fr, call->u.call.args[1], name, "the destination", span, &dst));
  TL__TRY(int_arg(fr, call->u.call.args[2], name, "dim", span, &dim));
  TL__TRY(int_arg(fr, call->u.call.args[3], name, "clear", span, &clear));
  if (src.ndim == 0) return tl__interp_error(TL_EINVAL, span, "%s: the source has no dimension to reduce", name);
  TL__TRY(normalize_dim(&dim, src.ndim, name, span));
  uint32_t d = (uint32_t)dim;
  int64_t omins[MAX_DIMS], oext[MAX_DIMS];
  drop_dim(&src, d, omins, oext);
  if (!same_shape(oext, src.ndim - 1, dst.ext, dst.ndim))
    return shape_mismatch(name, "reduced source", oext, src.ndim - 1, "destination", dst.ext, dst.ndim, span);
  const tl__op_fold *fold = &tl__tile_op(op)->fold;
  bool is_abs = fold->abs;
  tl_ir_binop comb = fold->combine;
  int64_t outer = 1;
  for (uint32_t i = 0; i + 1 < src.ndim; i++) outer *= oext[i];
  int64_t oidx[MAX_DIMS], sidx[MAX_DIMS], didx[MAX_DIMS];
  for (int64_t o = 0; o < outer; o++) {
    unravel(omins, oext, src.ndim - 1, o, oidx);
    for (uint32_t i = 0, j = 0; i < src.ndim; i++) sidx[i] = i == d ? 0 : oidx[j++];
    tl__ival acc = fold_identity(op, dst.dt);
    for (int64_t k = 0; k < src.ext[d]; k++) {
      sidx[d] = src.mins[d] + k;
      tl__ival v, x;
      TL__TRY(read_elem(fr, &src, sidx, span, &v));
      TL__TRY(tl__iv_cast(dst.dt, src.dt, v, span, &x));
      if (is_abs) TL__TRY(tl__iv_math(TL_OP_ABS, dst.dt, &x, 1, span, &x));
      TL__TRY(tl__iv_binary(comb, dst.dt, acc, x, span, &acc));
    }
    unravel(dst.mins, dst.ext, dst.ndim, o, didx);
    if (!clear) {
      tl__ival old;
      TL__TRY(read_elem(fr, &dst, didx, span, &old));
      TL__TRY(tl__iv_binary(comb, dst.dt, old, acc, span, &acc));
    }
    TL__TRY(write_elem(fr, &dst, didx, span, acc));
  }
  return TL_OK;
}

/* ------------------------------------------------------- T.cumsum, T.cummax */

/* T.cumsum and T.cummax: an inclusive scan with the op table's fold. */
static tl_status op_cumsum(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  tl_ir_op op = call->u.call.op;
  const char *name = tl_ir_op_name(op);
  tl_ir_binop comb = tl__tile_op(op)->fold.combine;
  region src, dst;
  int64_t dim, reverse;
  TL__TRY(eval_region(fr, call->u.call.args[0], name, "the source", span, &src));
  TL__TRY(eval_region(fr, call->u.call.args[1], name, "the destination", span, &dst));
  TL__TRY(int_arg(fr, call->u.call.args[2], name, "dim", span, &dim));
  TL__TRY(int_arg(fr, call->u.call.args[3], name, "reverse", span, &reverse));
  if (!same_shape(src.ext, src.ndim, dst.ext, dst.ndim))
    return shape_mismatch(name, "source", src.ext, src.ndim, "destination", dst.ext, dst.ndim, span);
  if (src.ndim == 0 || src.count == 0) return TL_OK;
  TL__TRY(normalize_dim(&dim, src.ndim, name, span));
  uint32_t d = (uint32_t)dim;
  int64_t len = src.ext[d];
  /* A line is read whole before it is written, so src and dst may be one buffer. */
  tl__ival *line = tl__malloc((size_t)len * sizeof *line);
  if (!line) return tl__oom();
  int64_t omins[MAX_DIMS], oext[MAX_DIMS], oidx[MAX_DIMS], sidx[MAX_DIMS], didx[MAX_DIMS];
  drop_dim(&src, d, omins, oext);
  int64_t outer = src.count / len, stride = 1; /* stride of dim d in the row-major pairing */
  for (uint32_t i = d + 1; i < src.ndim; i++) stride *= src.ext[i];
  tl_status st = TL_OK;
  for (int64_t o = 0; o < outer && st == TL_OK; o++) {
    unravel(omins, oext, src.ndim - 1, o, oidx);
    for (uint32_t i = 0, j = 0; i < src.ndim; i++) sidx[i] = i == d ? 0 : oidx[j++];
    for (int64_t k = 0; k < len && st == TL_OK; k++) {
      sidx[d] = src.mins[d] + k;
      tl__ival v;
      st = read_elem(fr, &src, sidx, span, &v);
      if (st == TL_OK) st = tl__iv_cast(dst.dt, src.dt, v, span, &line[k]);
    }
    /* Row-major position of the line's first element in the source region. */
    int64_t base = 0;
    for (uint32_t i = 0; i < src.ndim; i++) base = base * src.ext[i] + (i == d ? 0 : sidx[i] - src.mins[i]);
    tl__ival acc = fold_identity(op, dst.dt);
    for (int64_t step = 0; step < len && st == TL_OK; step++) {
      int64_t k = reverse ? len - 1 - step : step;
      st = tl__iv_binary(comb, dst.dt, acc, line[k], span, &acc);
      if (st != TL_OK) break;
      unravel(dst.mins, dst.ext, dst.ndim, base + k * stride, didx);
      st = write_elem(fr, &dst, didx, span, acc);
    }
  }
  tl__free(line);
  return st;
}

/* ------------------------------------------------------------ T.atomic_add */

/* dst[idx] = dst[idx] <comb> v (v in dst's dtype; comb: the op's FOLD, + for
 * T.atomic_add, max, min); atomic with respect to the other threads of a SIMT
 * launch. */
static tl_status add_elem(tl__iframe *fr, const region *dst, const int64_t *idx, tl_ir_binop comb, tl__ival v,
                          tl_ir_span span) {
  char *p;
  TL__TRY(elem_addr(fr, dst, idx, span, &p));
  if (fr->simt) return tl__simt_atomic_update(fr, dst->buf, p, span, comb, v);
  tl__ival old = tl__iv_load(dst->dt, p);
  TL__TRY(tl__iv_binary(comb, dst->dt, old, v, span, &old));
  tl__iv_store(dst->dt, p, old);
  return TL_OK;
}

static tl_status op_atomic_add(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  const char *name = tl_ir_op_name(call->u.call.op);
  tl_ir_binop comb = tl__tile_op(call->u.call.op)->fold.combine;
  region dst;
  TL__TRY(eval_region(fr, call->u.call.args[0], name, "the destination", span, &dst));
  const tl_ir_expr *ve = call->u.call.args[1];
  if (!ve) return tl__interp_error(TL_EINVAL, span, "%s: missing value", name);
  int64_t idx[MAX_DIMS];
  if (ve->kind != TL_EXPR_REGION) {
    if (ve->dtype.lanes > 1) return tl__interp_error(TL_EINVAL, span, "%s: the value must be a scalar", name);
    if (tl__op_is_atomic_elem(call->u.call.op) && dst.count != 1)
      return tl__interp_error(TL_EINVAL, span, "%s: the destination must be one element", name);
    tl__ival v, c;
    TL__TRY(tl__interp_eval(fr, ve, 0, &v));
    TL__TRY(tl__iv_cast(dst.dt, ve->dtype, v, span, &c));
    for (int64_t f = 0; f < dst.count; f++) {
      unravel(dst.mins, dst.ext, dst.ndim, f, idx);
      TL__TRY(add_elem(fr, &dst, idx, comb, c, span));
    }
    return TL_OK;
  }
  region src;
  TL__TRY(eval_region(fr, ve, name, "the value", span, &src));
  if (!same_shape(src.ext, src.ndim, dst.ext, dst.ndim))
    return shape_mismatch(name, "value", src.ext, src.ndim, "destination", dst.ext, dst.ndim, span);
  if (src.count == 0) return TL_OK;
  tl__ival *vals = tl__malloc((size_t)src.count * sizeof *vals);
  if (!vals) return tl__oom();
  tl_status st = TL_OK;
  for (int64_t f = 0; f < src.count && st == TL_OK; f++) {
    unravel(src.mins, src.ext, src.ndim, f, idx);
    tl__ival v;
    st = read_elem(fr, &src, idx, span, &v);
    if (st == TL_OK) st = tl__iv_cast(dst.dt, src.dt, v, span, &vals[f]);
  }
  for (int64_t f = 0; f < dst.count && st == TL_OK; f++) {
    unravel(dst.mins, dst.ext, dst.ndim, f, idx);
    st = add_elem(fr, &dst, idx, comb, vals[f], span);
  }
  tl__free(vals);
  return st;
}

/* --------------------------------------------------------------- dispatch */

typedef tl_status (*interp_fn)(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span);
#define INTERP_ROW(op, name, front, sig, args, defaults, written, written_read, fold, verify, interp, ...) \
  [TL_OP_##op] = op_##interp,
static const interp_fn k_interp[TL_OP__COUNT] = {TL__TILE_OPS(INTERP_ROW)};
#undef INTERP_ROW

tl_status tl__interp_tile_op(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span) {
  tl_ir_op op = call->u.call.op;
  const tl__tile_op_info *t = tl__tile_op(op);
  if (!t) return tl__interp_error(TL_EINVAL, span, "%s is not a tile op", tl_ir_op_name(op));
  if ((t->nargs && !call->u.call.args) || call->u.call.nargs != t->nargs)
    return tl__interp_error(TL_EINVAL, span, "%s takes %u arguments but got %u", tl_ir_op_name(op), t->nargs,
                            call->u.call.nargs);
  return k_interp[op](fr, call, span);
}
