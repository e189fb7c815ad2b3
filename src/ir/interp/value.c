/* Scalar values and arithmetic per dtype: every operation computed in double or
 * 64-bit integers and rounded (floats, float16/bfloat16 to nearest even) or wrapped
 * (integers, two's complement) to its dtype at once. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/fp16.h"
#include "base/str.h"
#include "ir/interp/interp.h"
#include "ir/op_table.h"

tl_status tl__interp_error(tl_status s, tl_ir_span span, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = tl__vformat(fmt, ap);
  va_end(ap);
  if (!msg) return tl__oom();
  if (span.line > 0)
    tl__error(s, "%s:%u:%u: %s", span.file ? span.file : "<input>", span.line, span.col, msg);
  else
    tl__error(s, "%s", msg);
  tl__free(msg);
  return s;
}

const char *tl__interp_dtype_name(tl_dtype t, char buf[32]) {
  const char *n = tl_dtype_name(t, buf, 32);
  return n ? n : "unknown";
}

bool tl__iv_dtype_supported(tl_dtype t) {
  switch (t.code) {
  case TL_DTYPE_FLOAT: return t.bits == 16 || t.bits == 32 || t.bits == 64;
  case TL_DTYPE_BFLOAT: return t.bits == 16;
  case TL_DTYPE_INT:
  case TL_DTYPE_UINT: return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  case TL_DTYPE_BOOL: return t.bits == 8;
  default: return false;
  }
}

static bool is_signed(tl_dtype t) { return t.code == TL_DTYPE_INT; }

int64_t tl__iv_wrap(tl_dtype t, int64_t x) {
  if (t.code == TL_DTYPE_BOOL) return x != 0;
  if (t.bits >= 64) return x;
  uint64_t mask = (1ull << t.bits) - 1;
  uint64_t u = (uint64_t)x & mask;
  if (is_signed(t) && ((u >> (t.bits - 1)) & 1)) u |= ~mask;
  return (int64_t)u;
}

double tl__iv_round(tl_dtype t, double x) {
  if (t.bits == 32) return (double)(float)x;
  if (t.bits == 16) return t.code == TL_DTYPE_BFLOAT ? tl__round_bf16(x) : tl__round_f16(x);
  return x;
}

double tl__iv_as_f64(tl_dtype t, tl__ival v) {
  if (tl_dtype_is_float(t)) return v.f;
  if (t.code == TL_DTYPE_UINT) return (double)(uint64_t)v.i;
  return (double)v.i;
}

tl__ival tl__iv_from_i64(tl_dtype t, int64_t x) {
  tl__ival v;
  if (tl_dtype_is_float(t)) v.f = t.bits == 32 ? (double)(float)x : tl__iv_round(t, (double)x);
  else v.i = tl__iv_wrap(t, x);
  return v;
}

tl__ival tl__iv_load(tl_dtype t, const void *p) {
  tl__ival v;
  v.i = 0;
  switch (t.code) {
  case TL_DTYPE_FLOAT:
  case TL_DTYPE_BFLOAT:
    if (t.bits == 16) {
      uint16_t h;
      memcpy(&h, p, 2);
      v.f = t.code == TL_DTYPE_BFLOAT ? tl__bf16_to_f64(h) : tl__f16_to_f64(h);
    } else if (t.bits == 32) {
      float f;
      memcpy(&f, p, 4);
      v.f = f;
    } else {
      memcpy(&v.f, p, 8);
    }
    return v;
  case TL_DTYPE_BOOL:
    v.i = *(const uint8_t *)p != 0;
    return v;
  case TL_DTYPE_HANDLE:
    memcpy(&v.p, p, sizeof v.p);
    return v;
  default: {
    uint64_t u = 0;
    switch (t.bits) {
    case 8: u = *(const uint8_t *)p; break;
    case 16: { uint16_t x; memcpy(&x, p, 2); u = x; break; }
    case 32: { uint32_t x; memcpy(&x, p, 4); u = x; break; }
    default: memcpy(&u, p, 8); break;
    }
    v.i = tl__iv_wrap(t, (int64_t)u);
    return v;
  }
  }
}

void tl__iv_store(tl_dtype t, void *p, tl__ival v) {
  switch (t.code) {
  case TL_DTYPE_FLOAT:
  case TL_DTYPE_BFLOAT:
    if (t.bits == 16) {
      uint16_t h = t.code == TL_DTYPE_BFLOAT ? tl__f64_to_bf16(v.f) : tl__f64_to_f16(v.f);
      memcpy(p, &h, 2);
    } else if (t.bits == 32) {
      float f = (float)v.f;
      memcpy(p, &f, 4);
    } else {
      memcpy(p, &v.f, 8);
    }
    return;
  case TL_DTYPE_BOOL:
    *(uint8_t *)p = v.i != 0;
    return;
  case TL_DTYPE_HANDLE:
    memcpy(p, &v.p, sizeof v.p);
    return;
  default: {
    uint64_t u = (uint64_t)v.i;
    switch (t.bits) {
    case 8: *(uint8_t *)p = (uint8_t)u; break;
    case 16: { uint16_t x = (uint16_t)u; memcpy(p, &x, 2); break; }
    case 32: { uint32_t x = (uint32_t)u; memcpy(p, &x, 4); break; }
    default: memcpy(p, &u, 8); break;
    }
    return;
  }
  }
}

void tl__iv_poison(tl_dtype t, void *p, size_t n) {
  t = tl_dtype_scalar(t);
  if (!tl_dtype_is_float(t)) {
    memset(p, 0xA5, n * tl_dtype_bytes(t));
    return;
  }
  tl__ival nan;
  nan.f = NAN;
  size_t sz = tl_dtype_bytes(t);
  for (size_t i = 0; i < n; i++) tl__iv_store(t, (char *)p + i * sz, nan);
}

/* Float to integer: truncation toward zero; NaN and values whose truncation does
 * not fit the type are errors (C leaves them undefined and hardware disagrees). */
static tl_status float_to_int(tl_dtype to, double x, tl_ir_span span, tl__ival *out) {
  char nb[32];
  double tx = trunc(x);
  bool ok;
  if (isnan(x)) ok = false;
  else if (to.code == TL_DTYPE_UINT) ok = tx >= 0 && tx < ldexp(1.0, to.bits);
  else ok = tx >= -ldexp(1.0, to.bits - 1) && tx < ldexp(1.0, to.bits - 1);
  if (!ok)
    return tl__interp_error(TL_ERUNTIME, span, "cannot convert %.9g to %s: out of range", x,
                            tl__interp_dtype_name(to, nb));
  if (to.code == TL_DTYPE_UINT) out->i = tl__iv_wrap(to, (int64_t)(uint64_t)tx);
  else out->i = (int64_t)tx;
  return TL_OK;
}

tl_status tl__iv_cast(tl_dtype to, tl_dtype from, tl__ival v, tl_ir_span span, tl__ival *out) {
  char na[32], nb[32];
  to = tl_dtype_scalar(to);
  from = tl_dtype_scalar(from);
  if (to.code == TL_DTYPE_HANDLE || from.code == TL_DTYPE_HANDLE) {
    if (to.code == from.code) {
      *out = v;
      return TL_OK;
    }
    return tl__interp_error(TL_EUNSUPPORTED, span, "cannot convert %s to %s", tl__interp_dtype_name(from, na),
                            tl__interp_dtype_name(to, nb));
  }
  if (to.code == TL_DTYPE_BOOL) {
    out->i = tl_dtype_is_float(from) ? v.f != 0 : v.i != 0;
    return TL_OK;
  }
  if (tl_dtype_is_float(to)) {
    if (tl_dtype_is_float(from)) out->f = tl__iv_round(to, v.f);
    else if (from.code == TL_DTYPE_UINT) {
      uint64_t u = (uint64_t)v.i;
      out->f = to.bits == 32 ? (double)(float)u : tl__iv_round(to, (double)u);
    } else out->f = tl__iv_from_i64(to, v.i).f;
    return TL_OK;
  }
  if (tl_dtype_is_float(from)) return float_to_int(to, v.f, span, out);
  out->i = tl__iv_wrap(to, v.i);
  return TL_OK;
}

static const char *binop_name(tl_ir_binop op) {
  static const char *const names[] = {"+", "-", "*", "/", "//", "%", "T.min", "T.max", "==", "!=", "<",
                                      "<=", ">", ">=", "and", "or", "&", "|", "^", "<<", ">>"};
  return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

static tl_status undefined_op(const char *op, tl_dtype t, tl_ir_span span) {
  char nb[32];
  return tl__interp_error(TL_EINVAL, span, "operator '%s' is not defined for %s", op, tl__interp_dtype_name(t, nb));
}

/* Maximum and minimum propagate NaN, so uninitialised (poisoned) memory that flows
 * through a max-reduction still shows up. */
static double fmax_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : (a > b ? a : b); }
static double fmin_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : (a < b ? a : b); }

static tl_status float_binary(tl_ir_binop op, tl_dtype t, double x, double y, tl_ir_span span, tl__ival *out) {
  double r;
  switch (op) {
  case TL_BIN_ADD: r = x + y; break;
  case TL_BIN_SUB: r = x - y; break;
  case TL_BIN_MUL: r = x * y; break;
  case TL_BIN_DIV: r = x / y; break;
  case TL_BIN_FLOORDIV: r = floor(x / y); break;
  case TL_BIN_FLOORMOD: r = x - floor(x / y) * y; break;
  case TL_BIN_MIN: r = fmin_nan(x, y); break;
  case TL_BIN_MAX: r = fmax_nan(x, y); break;
  case TL_BIN_EQ: out->i = x == y; return TL_OK;
  case TL_BIN_NE: out->i = x != y; return TL_OK;
  case TL_BIN_LT: out->i = x < y; return TL_OK;
  case TL_BIN_LE: out->i = x <= y; return TL_OK;
  case TL_BIN_GT: out->i = x > y; return TL_OK;
  case TL_BIN_GE: out->i = x >= y; return TL_OK;
  default: return undefined_op(binop_name(op), t, span);
  }
  out->f = tl__iv_round(t, r);
  return TL_OK;
}

static tl_status div_by_zero(tl_ir_binop op, tl_ir_span span) {
  return tl__interp_error(TL_ERUNTIME, span, "integer division by zero (operator '%s')", binop_name(op));
}

/* Signed division and remainder that are defined for INT64_MIN / -1 (the quotient
 * wraps, the remainder is 0). */
static int64_t sdiv(int64_t a, int64_t b) { return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b; }
static int64_t smod(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

static tl_status int_binary(tl_ir_binop op, tl_dtype t, int64_t a, int64_t b, tl_ir_span span, tl__ival *out) {
  bool sgn = is_signed(t);
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  int64_t r;
  switch (op) {
  case TL_BIN_ADD: r = (int64_t)(ua + ub); break;
  case TL_BIN_SUB: r = (int64_t)(ua - ub); break;
  case TL_BIN_MUL: r = (int64_t)(ua * ub); break;
  case TL_BIN_DIV:
    if (b == 0) return div_by_zero(op, span);
    r = sgn ? sdiv(a, b) : (int64_t)(ua / ub);
    break;
  case TL_BIN_FLOORDIV:
    if (b == 0) return div_by_zero(op, span);
    if (sgn) {
      r = sdiv(a, b);
      if (smod(a, b) != 0 && ((a < 0) != (b < 0))) r--;
    } else {
      r = (int64_t)(ua / ub);
    }
    break;
  case TL_BIN_FLOORMOD:
    if (b == 0) return div_by_zero(op, span);
    if (sgn) {
      r = smod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
    } else {
      r = (int64_t)(ua % ub);
    }
    break;
  case TL_BIN_MIN: r = (sgn ? a < b : ua < ub) ? a : b; break;
  case TL_BIN_MAX: r = (sgn ? a > b : ua > ub) ? a : b; break;
  case TL_BIN_EQ: out->i = a == b; return TL_OK;
  case TL_BIN_NE: out->i = a != b; return TL_OK;
  case TL_BIN_LT: out->i = sgn ? a < b : ua < ub; return TL_OK;
  case TL_BIN_LE: out->i = sgn ? a <= b : ua <= ub; return TL_OK;
  case TL_BIN_GT: out->i = sgn ? a > b : ua > ub; return TL_OK;
  case TL_BIN_GE: out->i = sgn ? a >= b : ua >= ub; return TL_OK;
  case TL_BIN_BITAND: r = a & b; break;
  case TL_BIN_BITOR: r = a | b; break;
  case TL_BIN_BITXOR: r = a ^ b; break;
  case TL_BIN_SHL:
  case TL_BIN_SHR:
    if ((sgn && b < 0) || ub >= t.bits)
      return tl__interp_error(TL_ERUNTIME, span, "shift by %" PRId64 " is out of range for a %u-bit integer",
                              b, (unsigned)t.bits);
    if (op == TL_BIN_SHL) r = (int64_t)(ua << ub);
    else if (sgn) r = a < 0 ? ~(int64_t)(~ua >> ub) : (int64_t)(ua >> ub);
    else r = (int64_t)(ua >> ub);
    break;
  default: return undefined_op(binop_name(op), t, span);
  }
  out->i = tl__iv_wrap(t, r);
  return TL_OK;
}

static tl_status bool_binary(tl_ir_binop op, tl_dtype t, int64_t a, int64_t b, tl_ir_span span, tl__ival *out) {
  switch (op) {
  case TL_BIN_EQ: out->i = a == b; return TL_OK;
  case TL_BIN_NE: out->i = a != b; return TL_OK;
  case TL_BIN_LT: out->i = a < b; return TL_OK;
  case TL_BIN_LE: out->i = a <= b; return TL_OK;
  case TL_BIN_GT: out->i = a > b; return TL_OK;
  case TL_BIN_GE: out->i = a >= b; return TL_OK;
  case TL_BIN_AND: case TL_BIN_BITAND: case TL_BIN_MIN: out->i = a && b; return TL_OK;
  case TL_BIN_OR: case TL_BIN_BITOR: case TL_BIN_MAX: out->i = a || b; return TL_OK;
  case TL_BIN_BITXOR: out->i = (a != 0) != (b != 0); return TL_OK;
  default: return undefined_op(binop_name(op), t, span);
  }
}

tl_status tl__iv_binary(tl_ir_binop op, tl_dtype t, tl__ival a, tl__ival b, tl_ir_span span, tl__ival *out) {
  t = tl_dtype_scalar(t);
  if (tl_dtype_is_float(t)) return float_binary(op, t, a.f, b.f, span, out);
  if (tl_dtype_is_int(t)) return int_binary(op, t, a.i, b.i, span, out);
  if (tl_dtype_is_bool(t)) return bool_binary(op, t, a.i, b.i, span, out);
  if (t.code == TL_DTYPE_HANDLE && (op == TL_BIN_EQ || op == TL_BIN_NE)) {
    out->i = (a.p == b.p) == (op == TL_BIN_EQ);
    return TL_OK;
  }
  return undefined_op(binop_name(op), t, span);
}

tl_status tl__iv_unary(tl_ir_unop op, tl_dtype t, tl__ival a, tl_ir_span span, tl__ival *out) {
  t = tl_dtype_scalar(t);
  switch (op) {
  case TL_UN_NEG:
    if (tl_dtype_is_float(t)) out->f = -a.f;
    else if (tl_dtype_is_int(t)) out->i = tl__iv_wrap(t, (int64_t)(0 - (uint64_t)a.i));
    else return undefined_op("-", t, span);
    return TL_OK;
  case TL_UN_NOT:
    if (!tl_dtype_is_bool(t)) return undefined_op("not", t, span);
    out->i = !a.i;
    return TL_OK;
  case TL_UN_BITNOT:
    if (tl_dtype_is_int(t)) out->i = tl__iv_wrap(t, ~a.i);
    else if (tl_dtype_is_bool(t)) out->i = !a.i;
    else return undefined_op("~", t, span);
    return TL_OK;
  }
  return undefined_op("?", t, span);
}

static tl_status int_math(tl_ir_op op, tl_dtype t, const tl__ival *args, tl_ir_span span, tl__ival *out) {
  char nb[32];
  int64_t a = args[0].i;
  switch (op) {
  case TL_OP_ABS:
    out->i = is_signed(t) && a < 0 ? tl__iv_wrap(t, (int64_t)(0 - (uint64_t)a)) : a;
    return TL_OK;
  case TL_OP_FLOOR: case TL_OP_CEIL: case TL_OP_ROUND: case TL_OP_TRUNC:
    out->i = a;
    return TL_OK;
  case TL_OP_CEILDIV: {
    int64_t b = args[1].i;
    if (b == 0) return tl__interp_error(TL_ERUNTIME, span, "integer division by zero (T.ceildiv)");
    if (!is_signed(t)) {
      uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
      out->i = tl__iv_wrap(t, (int64_t)(ua / ub + (ua % ub != 0)));
      return TL_OK;
    }
    int64_t q = sdiv(a, b);
    if (smod(a, b) != 0 && ((a < 0) == (b < 0))) q++;
    out->i = tl__iv_wrap(t, q);
    return TL_OK;
  }
  default:
    return tl__interp_error(TL_EINVAL, span, "%s is not defined for %s", tl_ir_op_name(op),
                            tl__interp_dtype_name(t, nb));
  }
}

tl_status tl__iv_math(tl_ir_op op, tl_dtype t, const tl__ival *args, uint32_t nargs, tl_ir_span span,
                      tl__ival *out) {
  char nb[32];
  t = tl_dtype_scalar(t);
  int arity = tl__value_op_arity(op);
  if (arity < 0) return tl__interp_error(TL_EINVAL, span, "%s is not a math intrinsic", tl_ir_op_name(op));
  if (nargs != (uint32_t)arity)
    return tl__interp_error(TL_EINVAL, span, "%s takes %d argument%s but got %u", tl_ir_op_name(op), arity,
                            arity == 1 ? "" : "s", nargs);
  if (tl_dtype_is_int(t)) return int_math(op, t, args, span, out);
  if (!tl_dtype_is_float(t))
    return tl__interp_error(TL_EINVAL, span, "%s is not defined for %s", tl_ir_op_name(op),
                            tl__interp_dtype_name(t, nb));
  double x = args[0].f, r;
  switch (op) {
  case TL_OP_EXP: r = exp(x); break;
  case TL_OP_EXP2: r = exp2(x); break;
  case TL_OP_LOG: r = log(x); break;
  case TL_OP_LOG2: r = log2(x); break;
  case TL_OP_SQRT: r = sqrt(x); break;
  case TL_OP_RSQRT: r = 1.0 / sqrt(x); break;
  case TL_OP_TANH: r = tanh(x); break;
  case TL_OP_SIGMOID: r = 1.0 / (1.0 + exp(-x)); break;
  case TL_OP_POW: r = pow(x, args[1].f); break;
  case TL_OP_FMA: r = fma(x, args[1].f, args[2].f); break;
  case TL_OP_FLOOR: r = floor(x); break;
  case TL_OP_CEIL: r = ceil(x); break;
  case TL_OP_ROUND: r = round(x); break; /* half away from zero, as CUDA's round() */
  case TL_OP_TRUNC: r = trunc(x); break;
  case TL_OP_SIN: r = sin(x); break;
  case TL_OP_COS: r = cos(x); break;
  case TL_OP_ABS: r = fabs(x); break;
  case TL_OP_ERF: r = erf(x); break;
  case TL_OP_LOG10: r = log10(x); break;
  case TL_OP_LOG1P: r = log1p(x); break;
  case TL_OP_EXPM1: r = expm1(x); break;
  case TL_OP_TAN: r = tan(x); break;
  case TL_OP_FMOD: r = fmod(x, args[1].f); break;
  default:
    return tl__interp_error(TL_EINVAL, span, "%s is not defined for %s", tl_ir_op_name(op),
                            tl__interp_dtype_name(t, nb));
  }
  out->f = tl__iv_round(t, r);
  return TL_OK;
}
