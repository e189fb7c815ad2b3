/* The verifier's checks of calls: math intrinsics as values, tile ops as
 * statements (argument counts and kinds as documented in ir.h, region ranks, and
 * shapes that must agree whenever they are constants). */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "op_table.h"
#include "verify.h"

/* ------------------------------------------------------------ value calls */

static tl_status nargs_error(const tl__verify_ctx *c, const tl_ir_expr *e, uint32_t want) {
  return tl__verify_error(c, e->span, "%s takes %u argument%s, got %u", tl_ir_op_name(e->u.call.op), (unsigned)want,
                  want == 1 ? "" : "s", (unsigned)e->u.call.nargs);
}

static bool is_numeric(tl_dtype t) { return tl_dtype_is_int(t) || tl_dtype_is_float(t); }

/* The host entry's argument builtins: (), (I i) or (I i, I d) with non-negative int32
 * constants; a fixed result type; only in TL_CALLCONV_PACKED functions. */
static bool is_arg_op(tl_ir_op op) { return op >= TL_OP_ARG_NUM && op <= TL_OP_ARG_DATA_ALIGNED; }

static tl_status verify_arg_op(const tl__verify_ctx *c, const tl_ir_expr *e) {
  tl_ir_op op = e->u.call.op;
  const char *name = tl_ir_op_name(op);
  uint32_t want = (uint32_t)tl__value_op_arity(op);
  tl_dtype type;
  switch (op) {
  case TL_OP_ARG_SHAPE:
  case TL_OP_ARG_STRIDE:
  case TL_OP_ARG_INT: type = TL_DT_INT64; break;
  case TL_OP_ARG_FLOAT: type = TL_DT_FLOAT64; break;
  case TL_OP_ARG_STRIDES_COMPACT:
  case TL_OP_ARG_DATA_IS_NULL:
  case TL_OP_ARG_DATA_ALIGNED: type = TL_DT_BOOL; break;
  default: type = TL_DT_INT32; break;
  }
  if (c->f && c->f->callconv != TL_CALLCONV_PACKED)
    return tl__verify_error(c, e->span, "%s reads host-entry arguments; it is only valid in a packed host function", name);
  if (e->u.call.nargs != want) return nargs_error(c, e, want);
  for (uint32_t i = 0; i < want; i++) {
    const tl_ir_expr *x = e->u.call.args[i];
    if (x->kind != TL_EXPR_INT || !tl_dtype_eq(x->dtype, TL_DT_INT32) || x->u.int_value < 0)
      return tl__verify_error(c, x->span, "%s: argument %u must be a non-negative int32 constant", name, (unsigned)i);
  }
  if (!tl_dtype_eq(e->dtype, type))
    return tl__verify_error(c, e->span, "%s yields %s, but the node says %s", name, tl__dtype_str(type).s, tl__dtype_str(e->dtype).s);
  if (op == TL_OP_ARG_DATA_ALIGNED) {
    int64_t b = e->u.call.args[1]->u.int_value;
    if (b < 1 || (b & (b - 1)) != 0)
      return tl__verify_error(c, e->u.call.args[1]->span, "%s: the alignment must be a power of two, not %lld", name, (long long)b);
  }
  return TL_OK;
}

tl_status tl__verify_value_call(const tl__verify_ctx *c, const tl_ir_expr *e) {
  tl_ir_op op = e->u.call.op;
  const char *name = tl_ir_op_name(op);
  tl_ir_expr *const *a = e->u.call.args;
  uint32_t want;
  if (is_arg_op(op)) return verify_arg_op(c, e);
  int arity = tl__value_op_arity(op);
  if (arity < 0) return tl__verify_error(c, e->span, "%s is not a value op", name);
  want = (uint32_t)arity;
  if (e->u.call.nargs != want) return nargs_error(c, e, want);
  tl_dtype t = a[0]->dtype;
  switch (op) {
  case TL_OP_ABS:
    if (!is_numeric(t)) return tl__verify_error(c, e->span, "%s needs a number, not %s", name, tl__dtype_str(t).s);
    break;
  case TL_OP_CEILDIV:
    if (!tl_dtype_is_int(t) || !tl_dtype_eq(t, a[1]->dtype))
      return tl__verify_error(c, e->span, "%s needs two integers of one type, not %s and %s", name, tl__dtype_str(t).s,
                      tl__dtype_str(a[1]->dtype).s);
    break;
  case TL_OP_ASSUME:
    if (!tl_dtype_is_bool(t)) return tl__verify_error(c, e->span, "%s needs a bool condition, not %s", name, tl__dtype_str(t).s);
    break;
  case TL_OP_WARP_SHFL_XOR:
    if (!is_numeric(t)) return tl__verify_error(c, e->span, "%s needs a number, not %s", name, tl__dtype_str(t).s);
    if (!tl_dtype_is_int(a[1]->dtype))
      return tl__verify_error(c, e->span, "%s: the lane mask must be an integer, not %s", name, tl__dtype_str(a[1]->dtype).s);
    if (a[2]->kind != TL_EXPR_INT || a[2]->u.int_value < 1 || a[2]->u.int_value > 64 ||
        (a[2]->u.int_value & (a[2]->u.int_value - 1)) != 0)
      return tl__verify_error(c, e->span, "%s: the width must be a power of two from 1 to 64 (a warp or wavefront)", name);
    break;
  default: /* floating-point intrinsics: every argument has the result's type */
    if (!tl_dtype_is_float(t)) return tl__verify_error(c, e->span, "%s needs a float argument, not %s", name, tl__dtype_str(t).s);
    for (uint32_t i = 1; i < want; i++)
      if (!tl_dtype_eq(a[i]->dtype, t))
        return tl__verify_error(c, e->span, "arguments of %s differ in type: %s and %s", name, tl__dtype_str(t).s,
                        tl__dtype_str(a[i]->dtype).s);
    break;
  }
  if (!tl_dtype_eq(e->dtype, t))
    return tl__verify_error(c, e->span, "%s of %s yields %s, but the node says %s", name, tl__dtype_str(t).s, tl__dtype_str(t).s,
                    tl__dtype_str(e->dtype).s);
  return TL_OK;
}

/* --------------------------------------------------------------- tile ops */

static bool const_int(const tl_ir_expr *e, int64_t *v) {
  if (!e || e->kind != TL_EXPR_INT) return false;
  *v = e->u.int_value;
  return true;
}

/* "[64, 32]" with "?" for extents that are not constants. */
static const char *shape_text(const tl_ir_expr *r, char *buf, size_t cap) {
  size_t len = (size_t)snprintf(buf, cap, "[");
  for (uint32_t i = 0; i < r->u.region.ndim && len < cap; i++) {
    int64_t v;
    const char *sep = i ? ", " : "";
    if (const_int(r->u.region.extents[i], &v))
      len += (size_t)snprintf(buf + len, cap - len, "%s%lld", sep, (long long)v);
    else
      len += (size_t)snprintf(buf + len, cap - len, "%s?", sep);
  }
  if (len < cap) snprintf(buf + len, cap - len, "]");
  return buf;
}

/* Two regions that must cover the same elements: equal extents once dimensions
 * of constant extent 1 are dropped (T.copy(A[i, 0:64], S) copies 64 elements into
 * a 64-element S), compared where both are constants. */
static bool is_unit(const tl_ir_expr *e) {
  int64_t v;
  return const_int(e, &v) && v == 1;
}

/* The first dimension at or after i whose extent is not the constant 1. */
static uint32_t next_nonunit(const tl_ir_expr *r, uint32_t i) {
  while (i < r->u.region.ndim && is_unit(r->u.region.extents[i])) i++;
  return i;
}

static tl_status check_same_shape(const tl__verify_ctx *c, const tl_ir_expr *e, const tl_ir_expr *x, const tl_ir_expr *y) {
  uint32_t nx = 0, ny = 0;
  bool all_const = true;
  for (uint32_t i = 0; i < x->u.region.ndim; i++) {
    int64_t v;
    all_const &= const_int(x->u.region.extents[i], &v);
    nx += !is_unit(x->u.region.extents[i]);
  }
  for (uint32_t i = 0; i < y->u.region.ndim; i++) {
    int64_t v;
    all_const &= const_int(y->u.region.extents[i], &v);
    ny += !is_unit(y->u.region.extents[i]);
  }
  bool bad = false;
  if (nx == ny) {
    for (uint32_t i = next_nonunit(x, 0), j = next_nonunit(y, 0); i < x->u.region.ndim;
         i = next_nonunit(x, i + 1), j = next_nonunit(y, j + 1)) {
      int64_t a, b;
      if (const_int(x->u.region.extents[i], &a) && const_int(y->u.region.extents[j], &b) && a != b) bad = true;
    }
  } else {
    bad = all_const; /* a symbolic extent might be 1 */
  }
  if (!bad) return TL_OK;
  char sx[128], sy[128];
  return tl__verify_error(c, e->span, "%s: region of buffer '%s' has shape %s but region of buffer '%s' has shape %s",
                  tl_ir_op_name(e->u.call.op), x->u.region.buffer->name, shape_text(x, sx, sizeof sx),
                  y->u.region.buffer->name, shape_text(y, sy, sizeof sy));
}

/* The two trailing extents of a gemm operand, (rows, cols) after its transpose. */
static tl_status gemm_dims(const tl__verify_ctx *c, const tl_ir_expr *e, const tl_ir_expr *r, const char *which,
                           bool transpose, const tl_ir_expr **rows, const tl_ir_expr **cols) {
  uint32_t n = r->u.region.ndim;
  if (n < 2)
    return tl__verify_error(c, e->span, "T.gemm: %s (buffer '%s') has %u dimension%s; gemm needs 2", which,
                    r->u.region.buffer->name, (unsigned)n, n == 1 ? "" : "s");
  *rows = r->u.region.extents[transpose ? n - 1 : n - 2];
  *cols = r->u.region.extents[transpose ? n - 2 : n - 1];
  return TL_OK;
}

static tl_status gemm_agree(const tl__verify_ctx *c, const tl_ir_expr *e, const char *dim, const char *p, const tl_ir_expr *rp,
                            const tl_ir_expr *x, const char *q, const tl_ir_expr *rq, const tl_ir_expr *y) {
  int64_t a, b;
  if (const_int(x, &a) && const_int(y, &b) && a != b)
    return tl__verify_error(c, e->span, "T.gemm: %s of %s (buffer '%s') is %lld but %s of %s (buffer '%s') is %lld", dim, p,
                    rp->u.region.buffer->name, (long long)a, dim, q, rq->u.region.buffer->name, (long long)b);
  return TL_OK;
}

static tl_status check_gemm(const tl__verify_ctx *c, const tl_ir_expr *e) {
  tl_ir_expr *const *a = e->u.call.args;
  const tl_ir_expr *am = NULL, *ak = NULL, *bk = NULL, *bn = NULL, *cm = NULL, *cn = NULL;
  TL__TRY(gemm_dims(c, e, a[0], "A", a[3]->u.int_value != 0, &am, &ak));
  TL__TRY(gemm_dims(c, e, a[1], "B", a[4]->u.int_value != 0, &bk, &bn));
  TL__TRY(gemm_dims(c, e, a[2], "C", false, &cm, &cn));
  TL__TRY(gemm_agree(c, e, "K", "A", a[0], ak, "B", a[1], bk));
  TL__TRY(gemm_agree(c, e, "M", "A", a[0], am, "C", a[2], cm));
  return gemm_agree(c, e, "N", "B", a[1], bn, "C", a[2], cn);
}

/* A dimension argument: 0 <= dim < the source region's rank. */
static tl_status check_dim(const tl__verify_ctx *c, const tl_ir_expr *e, const tl_ir_expr *src, int64_t dim) {
  if (dim < 0 || dim >= (int64_t)src->u.region.ndim)
    return tl__verify_error(c, e->span, "%s: dim %lld is out of range for the %u-dimensional region of buffer '%s'",
                    tl_ir_op_name(e->u.call.op), (long long)dim, (unsigned)src->u.region.ndim,
                    src->u.region.buffer->name);
  return TL_OK;
}

/* dst is src without dimension `dim`, or src with that dimension of extent 1. */
static tl_status check_reduce(const tl__verify_ctx *c, const tl_ir_expr *e) {
  const tl_ir_expr *src = e->u.call.args[0], *dst = e->u.call.args[1];
  int64_t dim = e->u.call.args[2]->u.int_value;
  TL__TRY(check_dim(c, e, src, dim));
  uint32_t ns = src->u.region.ndim, nd = dst->u.region.ndim;
  const char *name = tl_ir_op_name(e->u.call.op);
  char ss[128], sd[128];
  if (nd != ns && nd + 1 != ns)
    return tl__verify_error(c, e->span, "%s: region of buffer '%s' has shape %s, which cannot hold the reduction of %s over dim %lld",
                    name, dst->u.region.buffer->name, shape_text(dst, sd, sizeof sd), shape_text(src, ss, sizeof ss),
                    (long long)dim);
  for (uint32_t i = 0, j = 0; i < ns; i++) {
    int64_t a, b;
    if ((int64_t)i == dim) {
      if (nd == ns) {
        if (const_int(dst->u.region.extents[j], &b) && b != 1) goto mismatch;
        j++;
      }
      continue;
    }
    if (const_int(src->u.region.extents[i], &a) && const_int(dst->u.region.extents[j], &b) && a != b) goto mismatch;
    j++;
  }
  return TL_OK;
mismatch:
  return tl__verify_error(c, e->span, "%s: region of buffer '%s' has shape %s, which cannot hold the reduction of %s over dim %lld",
                  name, dst->u.region.buffer->name, shape_text(dst, sd, sizeof sd), shape_text(src, ss, sizeof ss),
                  (long long)dim);
}

static tl_status check_value(const tl__verify_ctx *c, const tl_ir_expr *e, const tl_ir_expr *v, const char *arg) {
  if (v->dtype.lanes != 1 || !(is_numeric(v->dtype) || tl_dtype_is_bool(v->dtype)))
    return tl__verify_error(c, v->span, "%s: %s must be a scalar number, not %s", tl_ir_op_name(e->u.call.op), arg,
                    tl__dtype_str(v->dtype).s);
  return TL_OK;
}

/* The VERIFY column of the op table: rules beyond the signature, on calls whose
 * arguments have the signature's kinds. */
static tl_status verify_copy(const tl__verify_ctx *c, const tl_ir_expr *e) {
  return check_same_shape(c, e, e->u.call.args[0], e->u.call.args[1]);
}

static tl_status verify_gemm(const tl__verify_ctx *c, const tl_ir_expr *e) { return check_gemm(c, e); }

static tl_status verify_reduce(const tl__verify_ctx *c, const tl_ir_expr *e) { return check_reduce(c, e); }

/* Bitwise folds: a reduction of integers. */
static tl_status verify_reduce_bitwise(const tl__verify_ctx *c, const tl_ir_expr *e) {
  for (uint32_t i = 0; i < 2; i++) {
    const tl_ir_buffer *b = e->u.call.args[i]->u.region.buffer;
    if (!tl_dtype_is_int(b->dtype))
      return tl__verify_error(c, e->span, "%s: buffer '%s' holds %s; a bitwise reduction needs integers",
                              tl_ir_op_name(e->u.call.op), b->name, tl__dtype_str(b->dtype).s);
  }
  return check_reduce(c, e);
}

static tl_status verify_cumsum(const tl__verify_ctx *c, const tl_ir_expr *e) {
  tl_ir_expr *const *a = e->u.call.args;
  TL__TRY(check_dim(c, e, a[0], a[2]->u.int_value));
  return check_same_shape(c, e, a[0], a[1]);
}

static tl_status verify_atomic_add(const tl__verify_ctx *c, const tl_ir_expr *e) {
  tl_ir_expr *const *a = e->u.call.args;
  return a[1]->kind == TL_EXPR_REGION ? check_same_shape(c, e, a[1], a[0]) : TL_OK;
}

static tl_status verify_atomic_add_elem(const tl__verify_ctx *c, const tl_ir_expr *e) {
  tl_ir_expr *const *a = e->u.call.args;
  for (uint32_t i = 0; i < a[0]->u.region.ndim; i++) {
    int64_t v;
    if (!const_int(a[0]->u.region.extents[i], &v) || v != 1) {
      char s[128];
      return tl__verify_error(c, e->span, "%s: region of buffer '%s' has shape %s; it must be one element",
                              tl_ir_op_name(e->u.call.op), a[0]->u.region.buffer->name, shape_text(a[0], s, sizeof s));
    }
  }
  return TL_OK;
}

/* The first n region arguments name one element each. */
static tl_status verify_gemm_strided_regions(const tl__verify_ctx *c, const tl_ir_expr *e, uint32_t n) {
  tl_ir_expr *const *a = e->u.call.args;
  for (uint32_t r = 0; r < n; r++)
    for (uint32_t i = 0; i < a[r]->u.region.ndim; i++) {
      int64_t v;
      if (!const_int(a[r]->u.region.extents[i], &v) || v != 1) {
        char s[128];
        return tl__verify_error(c, e->span, "%s: region of buffer '%s' has shape %s; it must be one element",
                                tl_ir_op_name(e->u.call.op), a[r]->u.region.buffer->name, shape_text(a[r], s, sizeof s));
      }
    }
  return TL_OK;
}

/* T.gemm_strided: a, b and c name one element each. */
static tl_status verify_gemm_strided(const tl__verify_ctx *c, const tl_ir_expr *e) {
  return verify_gemm_strided_regions(c, e, 3);
}

/* T.mma_m16n8k16: d, a and b name one element each of local buffers: float32
 * accumulators, and float16 (or bfloat16) operands of one dtype. */
static tl_status verify_mma(const tl__verify_ctx *c, const tl_ir_expr *e) {
  TL__TRY(verify_gemm_strided_regions(c, e, 3));
  tl_ir_expr *const *a = e->u.call.args;
  for (uint32_t r = 0; r < 3; r++) {
    const tl_ir_buffer *b = a[r]->u.region.buffer;
    if (b->scope != TL_SCOPE_LOCAL)
      return tl__verify_error(c, e->span, "%s: buffer '%s' must be local (the lane's registers)", tl_ir_op_name(e->u.call.op),
                              b->name);
  }
  tl_dtype dt = a[0]->u.region.buffer->dtype, at = a[1]->u.region.buffer->dtype, bt = a[2]->u.region.buffer->dtype;
  bool half = (tl_dtype_eq(at, TL_DT_FLOAT16) || tl_dtype_eq(at, TL_DT_BFLOAT16)) && tl_dtype_eq(at, bt);
  if (!tl_dtype_eq(dt, TL_DT_FLOAT32) || !half)
    return tl__verify_error(c, e->span, "%s: d must be float32 and a, b both float16 or both bfloat16 (buffers '%s', '%s', '%s')",
                            tl_ir_op_name(e->u.call.op), a[0]->u.region.buffer->name, a[1]->u.region.buffer->name,
                            a[2]->u.region.buffer->name);
  return TL_OK;
}

/* T.ldmatrix_x4: dst one element of a local buffer, src one of a shared buffer,
 * both of one 16-bit dtype. */
static tl_status verify_ldmatrix(const tl__verify_ctx *c, const tl_ir_expr *e) {
  TL__TRY(verify_gemm_strided_regions(c, e, 2));
  const tl_ir_buffer *d = e->u.call.args[0]->u.region.buffer, *s = e->u.call.args[1]->u.region.buffer;
  if (d->scope != TL_SCOPE_LOCAL || (s->scope != TL_SCOPE_SHARED && s->scope != TL_SCOPE_SHARED_DYN))
    return tl__verify_error(c, e->span, "%s: dst ('%s') must be local and src ('%s') shared", tl_ir_op_name(e->u.call.op),
                            d->name, s->name);
  if (!tl_dtype_eq(d->dtype, s->dtype) || d->dtype.bits != 16 || d->dtype.lanes != 1)
    return tl__verify_error(c, e->span, "%s: dst ('%s') and src ('%s') must have one 16-bit dtype",
                            tl_ir_op_name(e->u.call.op), d->name, s->name);
  return TL_OK;
}

typedef tl_status (*verify_fn)(const tl__verify_ctx *c, const tl_ir_expr *e);
/* T.cp_async: dst one element of a shared buffer, src one of a global buffer of
 * the same dtype (the bytes are copied, not converted), 4, 8 or 16 bytes of
 * whole elements. */
static tl_status verify_cp_async(const tl__verify_ctx *c, const tl_ir_expr *e) {
  TL__TRY(verify_gemm_strided_regions(c, e, 2));
  const tl_ir_buffer *d = e->u.call.args[0]->u.region.buffer, *s = e->u.call.args[1]->u.region.buffer;
  if ((d->scope != TL_SCOPE_SHARED && d->scope != TL_SCOPE_SHARED_DYN) || s->scope != TL_SCOPE_GLOBAL)
    return tl__verify_error(c, e->span, "%s: dst ('%s') must be shared and src ('%s') global", tl_ir_op_name(e->u.call.op),
                            d->name, s->name);
  int64_t n = 0;
  const_int(e->u.call.args[2], &n);
  size_t db = tl_dtype_bytes(d->dtype);
  if (!tl_dtype_eq(d->dtype, s->dtype))
    return tl__verify_error(c, e->span, "%s: dst ('%s') and src ('%s') must have one dtype", tl_ir_op_name(e->u.call.op),
                            d->name, s->name);
  if ((n != 4 && n != 8 && n != 16) || !db || n % (int64_t)db)
    return tl__verify_error(c, e->span, "%s: %lld bytes is not 4, 8 or 16 bytes of whole elements of '%s'",
                            tl_ir_op_name(e->u.call.op), (long long)n, d->name);
  return TL_OK;
}

#define verify_none NULL
#define VERIFY_ROW(op, name, front, sig, args, defaults, written, written_read, fold, verify, ...) \
  [TL_OP_##op] = verify_##verify,
static const verify_fn k_verify[TL_OP__COUNT] = {TL__TILE_OPS(VERIFY_ROW)};
#undef VERIFY_ROW
#undef verify_none

tl_status tl__verify_tile_op(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  tl_ir_op op = e->u.call.op;
  const char *name = tl_ir_op_name(op);
  const tl__tile_op_info *sig = tl__tile_op(op);
  if (!sig) return tl__verify_error(c, e->span, "%s is not a tile op", name);
  if (e->dtype.code != TL_DTYPE_HANDLE) return tl__verify_error(c, e->span, "%s must have dtype handle, not %s", name, tl__dtype_str(e->dtype).s);
  uint32_t want = sig->nargs;
  if (e->u.call.nargs != want) return nargs_error(c, e, want);
  if (want && !e->u.call.args) return tl__verify_error(c, e->span, "%s lacks its arguments", name);
  tl_ir_expr *const *a = e->u.call.args;
  for (uint32_t i = 0; i < want; i++) {
    const tl_ir_expr *x = a[i];
    const char *arg = sig->arg_names[i];
    if (!x) return tl__verify_error(c, e->span, "%s: argument '%s' is missing", name, arg);
    switch (sig->sig[i]) {
    case 'R':
      if (x->kind != TL_EXPR_REGION) return tl__verify_error(c, x->span, "%s: argument '%s' must be a buffer region", name, arg);
      TL__TRY(tl__verify_region(c, b, x));
      break;
    case 'X':
      if (x->kind == TL_EXPR_REGION) {
        TL__TRY(tl__verify_region(c, b, x));
        break;
      }
      /* fall through */
    case 'E':
      if (x->kind == TL_EXPR_REGION)
        return tl__verify_error(c, x->span, "%s: argument '%s' must be a value, not a region", name, arg);
      TL__TRY(tl__verify_expr(c, b, x));
      TL__TRY(check_value(c, e, x, arg));
      break;
    case 'I':
      if (x->kind != TL_EXPR_INT || !tl_dtype_is_int(x->dtype))
        return tl__verify_error(c, x->span, "%s: argument '%s' must be an integer constant", name, arg);
      if (strcmp(arg, "policy") == 0) {
        if (x->u.int_value < 0 || x->u.int_value >= TL__GEMM_POLICY_COUNT)
          return tl__verify_error(c, x->span, "%s: argument 'policy' must be 0 (Square), 1 (FullRow) or 2 (FullCol), not %lld",
                                  name, (long long)x->u.int_value);
      } else if (strcmp(arg, "dim") != 0 && x->u.int_value != 0 && x->u.int_value != 1)
        return tl__verify_error(c, x->span, "%s: argument '%s' must be 0 or 1, not %lld", name, arg, (long long)x->u.int_value);
      break;
    case 'N':
      if (x->kind != TL_EXPR_INT || !tl_dtype_is_int(x->dtype) || x->u.int_value < 0)
        return tl__verify_error(c, x->span, "%s: argument '%s' must be a non-negative integer constant", name, arg);
      break;
    }
  }
  return k_verify[op] ? k_verify[op](c, e) : TL_OK;
}
