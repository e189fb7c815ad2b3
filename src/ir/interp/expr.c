/* Expression evaluation. A vector expression (dtype.lanes > 1) is evaluated one
 * lane at a time: a ramp's lane is base + lane * stride, a broadcast's is its value,
 * and every other node applies its scalar meaning to its operands' same lane. */
#include <inttypes.h>

#include "base/error.h"
#include "ir/interp/interp.h"
#include "ir/interp/simt.h"

#define MAX_DIMS 16

void tl__interp_bind(tl__iframe *fr, const tl_ir_var *v, tl__ival val) {
  fr->vals[v->id] = val;
  fr->bound[v->id] = TL__BOUND_VALUE;
}

void tl__interp_bind_storage(tl__iframe *fr, const tl_ir_var *v, tl__istore *st) {
  fr->vals[v->id].p = st;
  fr->bound[v->id] = TL__BOUND_STORAGE;
}

tl_status tl__interp_check_var(tl__iframe *fr, const tl_ir_var *v, tl_ir_span span) {
  if (v->id >= fr->in->nvars)
    return tl__interp_error(TL_EINVAL, span, "variable '%s' does not belong to the module", v->name);
  if (!fr->bound[v->id]) return tl__interp_error(TL_EINVAL, span, "variable '%s' is used before it is defined", v->name);
  return TL_OK;
}

static tl_status type_mismatch(const char *what, tl_dtype a, tl_dtype b, tl_ir_span span) {
  char na[32], nb[32];
  return tl__interp_error(TL_EINVAL, span, "%s: operand types differ (%s and %s)", what, tl__interp_dtype_name(a, na),
                          tl__interp_dtype_name(b, nb));
}

static tl_status eval_load(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, tl__ival *out) {
  const tl_ir_buffer *buf = e->u.load.buffer;
  uint32_t n = e->u.load.n;
  if (n > MAX_DIMS) return tl__interp_error(TL_EUNSUPPORTED, e->span, "buffer '%s' has too many dimensions", buf->name);
  if (n && !e->u.load.indices) return tl__interp_error(TL_EINVAL, e->span, "load without indices");
  if (!tl_dtype_eq(tl_dtype_scalar(e->dtype), tl_dtype_scalar(buf->dtype)))
    return type_mismatch("load", e->dtype, buf->dtype, e->span);
  int64_t idx[MAX_DIMS];
  for (uint32_t i = 0; i < n; i++) {
    tl__ival v;
    TL__TRY(tl__interp_eval(fr, e->u.load.indices[i], lane, &v));
    if (!tl_dtype_is_int(e->u.load.indices[i]->dtype))
      return tl__interp_error(TL_EINVAL, e->span, "buffer '%s': index %u is not an integer", buf->name, i);
    idx[i] = v.i;
  }
  char *p;
  TL__TRY(tl__interp_addr(fr, buf, idx, n, e->span, &p));
  if (fr->simt) return tl__simt_load(fr, buf, p, e->span, out);
  *out = tl__iv_load(buf->dtype, p);
  return TL_OK;
}

static tl_status eval_call(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, tl__ival *out) {
  tl_ir_op op = e->u.call.op;
  if ((unsigned)op >= TL_OP__COUNT) return tl__interp_error(TL_EINVAL, e->span, "unknown call op %d", (int)op);
  if (op == TL_OP_WARP_SHFL_XOR) return tl__simt_shfl_xor(fr, e, lane, out);
  if (tl_ir_op_is_tile(op))
    return tl__interp_error(TL_EINVAL, e->span, "%s is a statement, not a value", tl_ir_op_name(op));
  if (op >= TL_OP_ARG_NUM && op <= TL_OP_ARG_DATA_ALIGNED) return tl__interp_arg_op(fr, e, out);
  tl__ival args[3];
  uint32_t n = e->u.call.nargs;
  if (n > 3) return tl__interp_error(TL_EINVAL, e->span, "%s takes at most 3 arguments", tl_ir_op_name(op));
  if (n && !e->u.call.args) return tl__interp_error(TL_EINVAL, e->span, "call without arguments");
  for (uint32_t i = 0; i < n; i++) {
    const tl_ir_expr *a = e->u.call.args[i];
    if (!tl_dtype_eq(tl_dtype_scalar(a->dtype), tl_dtype_scalar(e->dtype)))
      return type_mismatch(tl_ir_op_name(op), a->dtype, e->dtype, e->span);
    TL__TRY(tl__interp_eval(fr, a, lane, &args[i]));
  }
  return tl__iv_math(op, e->dtype, args, n, e->span, out);
}

static tl_status eval_binary(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, tl__ival *out) {
  const tl_ir_expr *a = e->u.binary.a, *b = e->u.binary.b;
  tl_ir_binop op = e->u.binary.op;
  tl_dtype t = tl_dtype_scalar(a->dtype);
  if (!tl_dtype_eq(t, tl_dtype_scalar(b->dtype))) return type_mismatch("binary operator", a->dtype, b->dtype, e->span);
  tl__ival x, y;
  TL__TRY(tl__interp_eval(fr, a, lane, &x));
  if (op == TL_BIN_AND || op == TL_BIN_OR) {
    /* Logical operators short-circuit, as the C and CUDA code generated for them,
     * so `i < n and A[i] > 0` never reads A[n]. */
    if (!tl_dtype_is_bool(t)) {
      char nb[32];
      return tl__interp_error(TL_EINVAL, e->span, "operator '%s' needs bool operands, not %s",
                              op == TL_BIN_AND ? "and" : "or", tl__interp_dtype_name(t, nb));
    }
    if ((op == TL_BIN_AND) != (x.i != 0)) {
      out->i = x.i != 0;
      return TL_OK;
    }
    TL__TRY(tl__interp_eval(fr, b, lane, &y));
    out->i = y.i != 0;
    return TL_OK;
  }
  TL__TRY(tl__interp_eval(fr, b, lane, &y));
  return tl__iv_binary(op, t, x, y, e->span, out);
}

tl_status tl__interp_eval(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, tl__ival *out) {
  if (!e) return tl__error(TL_EINVAL, "missing expression");
  tl_dtype t = tl_dtype_scalar(e->dtype);
  if (e->dtype.lanes <= 1) lane = 0;
  switch (e->kind) {
  case TL_EXPR_INT:
    *out = tl__iv_from_i64(t, e->u.int_value);
    return TL_OK;
  case TL_EXPR_FLOAT:
    if (!tl_dtype_is_float(t)) return tl__interp_error(TL_EINVAL, e->span, "float constant of a non-float type");
    out->f = tl__iv_round(t, e->u.float_value);
    return TL_OK;
  case TL_EXPR_STR:
    return tl__interp_error(TL_EINVAL, e->span, "a string has no value here");
  case TL_EXPR_VAR: {
    const tl_ir_var *v = e->u.var;
    TL__TRY(tl__interp_check_var(fr, v, e->span));
    *out = fr->vals[v->id];
    return TL_OK;
  }
  case TL_EXPR_BINARY:
    return eval_binary(fr, e, lane, out);
  case TL_EXPR_UNARY: {
    tl__ival x;
    TL__TRY(tl__interp_eval(fr, e->u.unary.a, lane, &x));
    return tl__iv_unary(e->u.unary.op, e->u.unary.a->dtype, x, e->span, out);
  }
  case TL_EXPR_SELECT: {
    tl__ival c;
    TL__TRY(tl__interp_eval(fr, e->u.select.cond, lane, &c));
    return tl__interp_eval(fr, c.i ? e->u.select.t : e->u.select.f, lane, out);
  }
  case TL_EXPR_CAST: {
    tl__ival x;
    TL__TRY(tl__interp_eval(fr, e->u.cast.value, lane, &x));
    return tl__iv_cast(t, e->u.cast.value->dtype, x, e->span, out);
  }
  case TL_EXPR_LOAD:
    return eval_load(fr, e, lane, out);
  case TL_EXPR_CALL:
    return eval_call(fr, e, lane, out);
  case TL_EXPR_REGION:
    return tl__interp_error(TL_EINVAL, e->span, "a buffer region is only an argument of a tile op");
  case TL_EXPR_RAMP: {
    tl__ival base;
    TL__TRY(tl__interp_eval(fr, e->u.ramp.base, 0, &base));
    out->i = tl__iv_wrap(t, (int64_t)((uint64_t)base.i + (uint64_t)e->u.ramp.stride * lane));
    return TL_OK;
  }
  case TL_EXPR_BROADCAST:
    return tl__interp_eval(fr, e->u.broadcast.value, 0, out);
  }
  return tl__interp_error(TL_EINVAL, e->span, "unknown expression kind %d", (int)e->kind);
}

tl_status tl__interp_eval_int(tl__iframe *fr, const tl_ir_expr *e, int64_t *out) {
  if (!e) return tl__error(TL_EINVAL, "missing expression");
  if (!tl_dtype_is_int(e->dtype) && !tl_dtype_is_bool(e->dtype))
    return tl__interp_error(TL_EINVAL, e->span, "expected an integer expression");
  tl__ival v;
  TL__TRY(tl__interp_eval(fr, e, 0, &v));
  *out = v.i;
  return TL_OK;
}
