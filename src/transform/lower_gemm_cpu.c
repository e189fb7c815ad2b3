/* lower_gemm_cpu: T.gemm on on-chip tiles becomes one T.gemm_strided for the C
 * code generator's register-blocked kernel (docs/codegen.md), instead of the
 * i-k-j loop nest lower_tile_ops would make.
 *
 * A T.gemm qualifies when its three operands are allocated tiles (shared,
 * fragment or local, never a global tensor), C is float32 and not the buffer of A
 * or B, A and B are both float32, both float16 or both bfloat16, and every extent
 * and every stride of the operands' buffers is a constant. The op then names
 * element (0, 0) of op(A), op(B) and C as one-element regions and carries the
 * sizes and the element strides of each matrix with the transposes folded in,
 * so it survives flattening unchanged. Every other T.gemm is left for
 * lower_tile_ops.
 *
 * Meaning: each C element still accumulates its k terms in ascending order. A
 * float16 or bfloat16 product is exact in float32, so those results are the
 * interpreter's bit for bit; a float32 product may be fused with the addition
 * (one rounding instead of two) where the compiler targets FMA. */
#include "base/error.h"
#include "transform/pass.h"
#include "transform/util.h"

#define MAX_DIMS 16

/* One operand: the buffer, its matrix extents and element strides. */
typedef struct operand {
  const tl_ir_expr *region;
  int64_t rows, cols;       /* the region's last two extents */
  int64_t row_step, col_step; /* element strides of those dimensions */
} operand;

static bool is_half_or_f32(tl_dtype t) {
  return t.lanes == 1 && (t.code == TL_DTYPE_BFLOAT ? t.bits == 16 : t.code == TL_DTYPE_FLOAT && (t.bits == 16 || t.bits == 32));
}

/* The element stride of each dimension of an allocated buffer, when constant. */
static bool buffer_strides(const tl_ir_buffer *b, int64_t *strides) {
  int64_t step = 1;
  for (uint32_t d = b->ndim; d-- > 0;) {
    int64_t extent;
    if (!tl__is_const_int(b->shape[d], &extent) || extent < 0) return false;
    if (b->strides) {
      if (!tl__is_const_int(b->strides[d], &strides[d]) || strides[d] < 0) return false;
      continue;
    }
    strides[d] = step;
    if (__builtin_mul_overflow(step, extent, &step)) return false;
  }
  return true;
}

static bool get_operand(const tl_ir_expr *e, operand *o) {
  if (!e || e->kind != TL_EXPR_REGION) return false;
  const tl_ir_buffer *b = e->u.region.buffer;
  uint32_t n = e->u.region.ndim;
  if (b->scope == TL_SCOPE_GLOBAL || n < 2 || n > MAX_DIMS || n != b->ndim) return false;
  for (uint32_t d = 0; d + 2 < n; d++)
    if (!tl__is_int(e->u.region.extents[d], 1)) return false;
  int64_t strides[MAX_DIMS];
  if (!buffer_strides(b, strides)) return false;
  if (!tl__is_const_int(e->u.region.extents[n - 2], &o->rows) || !tl__is_const_int(e->u.region.extents[n - 1], &o->cols))
    return false;
  o->region = e;
  o->row_step = strides[n - 2];
  o->col_step = strides[n - 1];
  return o->rows > 0 && o->cols > 0;
}

/* The one-element region at the operand's first element. */
static tl_ir_expr *first_element(tl_ir_module *mod, const operand *o) {
  const tl_ir_expr *r = o->region;
  tl_ir_expr *ones[MAX_DIMS];
  for (uint32_t d = 0; d < r->u.region.ndim; d++) {
    ones[d] = tl__int_like(mod, r->u.region.mins[d], 1);
    if (!ones[d]) return NULL;
  }
  return tl_ir_region(mod, r->u.region.buffer, r->u.region.mins, ones, TL_REGION_SLICE);
}

/* The T.gemm_strided for a qualifying T.gemm call; NULL with *st == TL_OK when it
 * does not qualify. */
static tl_ir_stmt *strided_gemm(tl_ir_module *mod, const tl_ir_expr *call, tl_status *st) {
  *st = TL_OK;
  if (call->u.call.nargs != 7) return NULL;
  operand A, B, C;
  int64_t ta, tb, clear;
  if (!get_operand(call->u.call.args[0], &A) || !get_operand(call->u.call.args[1], &B) ||
      !get_operand(call->u.call.args[2], &C) || !tl__is_const_int(call->u.call.args[3], &ta) ||
      !tl__is_const_int(call->u.call.args[4], &tb) || !tl__is_const_int(call->u.call.args[5], &clear))
    return NULL;
  const tl_ir_buffer *ab = A.region->u.region.buffer, *bb = B.region->u.region.buffer, *cb = C.region->u.region.buffer;
  if (!tl_dtype_eq(cb->dtype, TL_DT_FLOAT32) || !is_half_or_f32(ab->dtype) || !tl_dtype_eq(ab->dtype, bb->dtype) ||
      cb == ab || cb == bb)
    return NULL;
  int64_t m = C.rows, n = C.cols, k = ta ? A.rows : A.cols;
  if ((ta ? A.cols : A.rows) != m || (tb ? B.cols : B.rows) != k || (tb ? B.rows : B.cols) != n) return NULL;
  int64_t v[10] = {m, n, k,
                   ta ? A.col_step : A.row_step, ta ? A.row_step : A.col_step, /* op(A)[i, k] */
                   tb ? B.col_step : B.row_step, tb ? B.row_step : B.col_step, /* op(B)[k, j] */
                   C.row_step, C.col_step, clear != 0};
  tl_ir_expr *args[13] = {first_element(mod, &A), first_element(mod, &B), first_element(mod, &C)};
  for (int i = 0; i < 10; i++) args[3 + i] = tl_ir_int(mod, i == 9 ? TL_DT_INT32 : TL_DT_INT64, v[i]);
  for (int i = 0; i < 13; i++)
    if (!args[i]) {
      *st = tl__built(mod, NULL);
      return NULL;
    }
  tl_ir_stmt *s = tl_ir_eval(mod, tl_ir_call(mod, TL_OP_GEMM_STRIDED, TL_DT_HANDLE, 13, args));
  if (!s) *st = tl__built(mod, NULL);
  return s;
}

static tl_ir_stmt *lower_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (s->kind != TL_STMT_EVAL) return tl_ir_mutate_stmt_children(mu, s);
  const tl_ir_expr *e = s->u.eval.expr;
  if (!e || e->kind != TL_EXPR_CALL || e->u.call.op != TL_OP_GEMM) return s;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_status st;
  tl_ir_stmt *r = strided_gemm(mu->mod, e, &st);
  tl_ir_builder_set_loc(mu->mod, old);
  if (st != TL_OK) {
    tl_ir_mutator_fail(mu, st);
    return NULL;
  }
  return r ? r : s;
}

tl_status tl__pass_lower_gemm_cpu(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (!f->body) continue;
    tl_ir_mutator mu = {mod, NULL, lower_stmt, NULL, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    if (!body) return mu.status;
    f->body = body;
  }
  return TL_OK;
}
