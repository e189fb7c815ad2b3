/* Expressions of the C-family printer, with the interpreter's meaning: integers of
 * fewer than 32 bits wrap to their width after every operation, 16-bit floats are
 * rounded to their precision after every operation, // and % follow Python's sign
 * rules (plain / and % where both operands are provably non-negative), and float
 * minimum and maximum propagate NaN. Parentheses only where C precedence needs them. */
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "codegen/c_printer.h"

static bool open_paren(tl__cgen *g, int mine, int ctx) {
  if (mine >= ctx) return false;
  tl__cgen_write(g, "(");
  return true;
}

static void close_paren(tl__cgen *g, bool open) {
  if (open) tl__cgen_write(g, ")");
}

static bool is_narrow_int(tl_dtype t) { return tl_dtype_is_int(t) && t.bits < 32; }
static bool is_signed_int(tl_dtype t) { return t.code == TL_DTYPE_INT; }

/* ------------------------------------------------------------ non-negativity */

bool tl__cgen_expr_nonneg(const tl__cgen *g, const tl_ir_expr *e) {
  if (!e) return false;
  if (e->dtype.code == TL_DTYPE_UINT || e->dtype.code == TL_DTYPE_BOOL) return true;
  if (!tl_dtype_is_int(e->dtype)) return false;
  switch (e->kind) {
  case TL_EXPR_INT: return e->u.int_value >= 0;
  case TL_EXPR_VAR: return tl__cgen_var_nonneg(g, e->u.var);
  case TL_EXPR_CAST: return tl__cgen_expr_nonneg(g, e->u.cast.value) && e->u.cast.value->dtype.bits <= e->dtype.bits;
  case TL_EXPR_SELECT: return tl__cgen_expr_nonneg(g, e->u.select.t) && tl__cgen_expr_nonneg(g, e->u.select.f);
  case TL_EXPR_RAMP: return tl__cgen_expr_nonneg(g, e->u.ramp.base) && e->u.ramp.stride >= 0;
  case TL_EXPR_BROADCAST: return tl__cgen_expr_nonneg(g, e->u.broadcast.value);
  case TL_EXPR_CALL:
    if (e->u.call.op == TL_OP_CEILDIV && e->u.call.nargs == 2)
      return tl__cgen_expr_nonneg(g, e->u.call.args[0]) && tl__cgen_expr_nonneg(g, e->u.call.args[1]);
    return false;
  case TL_EXPR_BINARY: {
    bool a = tl__cgen_expr_nonneg(g, e->u.binary.a), b = tl__cgen_expr_nonneg(g, e->u.binary.b);
    switch (e->u.binary.op) {
    case TL_BIN_ADD: case TL_BIN_MUL: case TL_BIN_DIV: case TL_BIN_FLOORDIV: case TL_BIN_FLOORMOD:
    case TL_BIN_MIN: case TL_BIN_BITOR: case TL_BIN_SHR:
      return a && b;
    case TL_BIN_MAX: return a || b;
    case TL_BIN_BITAND: return a || b;
    default: return false;
    }
  }
  default: return false;
  }
}

/* ---------------------------------------------------------------- literals */

void tl__cgen_int_literal(tl__cgen *g, tl_dtype t, int64_t v) {
  t = tl_dtype_scalar(t);
  switch (t.code) {
  case TL_DTYPE_BOOL: tl__cgen_write(g, "%s", v ? "true" : "false"); return;
  case TL_DTYPE_UINT:
    if (t.bits == 64) tl__cgen_write(g, "%" PRIu64 "%s", (uint64_t)v, g->d->uint64_suffix ? g->d->uint64_suffix : "ull");
    else if (t.bits == 32) tl__cgen_write(g, "%" PRIu64 "u", (uint64_t)v & 0xffffffffu);
    else tl__cgen_write(g, "(%s)%" PRIu64, tl__cgen_type(g, t), (uint64_t)v & (((uint64_t)1 << t.bits) - 1));
    return;
  case TL_DTYPE_INT:
    if (t.bits == 64) {
      const char *sfx = g->d->int64_suffix ? g->d->int64_suffix : "LL";
      if (v == INT64_MIN) tl__cgen_write(g, "(-9223372036854775807%s - 1)", sfx);
      else tl__cgen_write(g, "%" PRId64 "%s", v, sfx);
    } else if (t.bits == 32) {
      if (v == INT32_MIN) tl__cgen_write(g, "(-2147483647 - 1)");
      else tl__cgen_write(g, "%" PRId64, v);
    } else {
      tl__cgen_write(g, "(%s)%" PRId64, tl__cgen_type(g, t), v);
    }
    return;
  default: tl__cgen_write(g, "%" PRId64, v); return;
  }
}

/* The shortest decimal text that reads back as the same float (f32) or double. */
static void shortest(double v, bool f32, char *buf, size_t cap) {
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, cap, "%.*g", digits, v);
    if (f32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
  }
  if (!strpbrk(buf, ".eEn")) strncat(buf, ".0", cap - strlen(buf) - 1);
}

/* True if v is exactly a value of a binary format with `mbits` mantissa bits and
 * normal exponents emin..emax (subnormals included). */
static bool exact_in(double v, int mbits, int emin, int emax) {
  if (v == 0 || isinf(v)) return true;
  if (isnan(v)) return false;
  int e;
  double m = frexp(fabs(v), &e); /* v = m * 2^e, m in [0.5, 1) */
  int E = e - 1;
  if (E > emax) return false;
  int bits = E >= emin ? mbits + 1 : mbits + 1 - (emin - E);
  if (bits <= 0) return false;
  double scaled = ldexp(m, bits);
  return scaled == floor(scaled);
}

static void float_literal(tl__cgen *g, tl_dtype t, double v, int ctx) {
  t = tl_dtype_scalar(t);
  const tl__c_half_type *h = tl__cgen_half_type(g, t);
  if (isnan(v)) {
    tl__cgen_write(g, "NAN");
    return;
  }
  if (isinf(v)) {
    bool p = v < 0 && open_paren(g, TL__PREC_LOR - 1, ctx);
    tl__cgen_write(g, "%sINFINITY", v < 0 ? "-" : "");
    close_paren(g, p);
    return;
  }
  char buf[64];
  bool exact16 = h && (t.code == TL_DTYPE_BFLOAT ? exact_in(v, 7, -126, 127) : exact_in(v, 10, -14, 15));
  if (h && !exact16) {
    /* Rounded to the 16-bit type where it is used, as the interpreter does (through
     * the dialect's wide type: rounding twice through float is exact for 16 bits). */
    const char *sfx = g->d->wide_suffix ? g->d->wide_suffix : "";
    shortest(v, *sfx != '\0', buf, sizeof buf);
    tl__cgen_write(g, "%s(%s%s)", h->round, buf, sfx);
    return;
  }
  bool f32 = h || t.bits == 32;
  shortest(v, f32, buf, sizeof buf);
  bool p = signbit(v) && open_paren(g, TL__PREC_LOR - 1, ctx);
  tl__cgen_write(g, "%s%s", buf, f32 ? "f" : "");
  close_paren(g, p);
}

char *tl__cgen_expr_str(tl__cgen *g, const tl_ir_expr *e) {
  tl__sb sb = TL__SB_INIT;
  tl__sb *prev = tl__cgen_capture_begin(g, &sb);
  tl__cgen_expr(g, e, TL__PREC_TOP);
  tl__cgen_capture_end(g, prev);
  if (g->status != TL_OK) {
    tl__sb_free(&sb);
    return NULL;
  }
  char *s = tl__sb_finish(&sb);
  if (!s) tl__cgen_oom(g);
  return s;
}


/* --------------------------------------------------------------- elements */

/* How a data variable prints. */
static const char *data_text(tl__cgen *g, const tl_ir_buffer *buf) {
  const char *t = tl__cgen_var_text(g, buf->data);
  if (!t) tl__cgen_error(g, TL_EINVAL, "buffer '%s' is used but not defined in this function", buf->name);
  return t ? t : "tl_undefined";
}

void tl__cgen_element(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *idx) {
  const char *name = data_text(g, buf);
  tl_dtype t = tl_dtype_scalar(buf->dtype);
  tl_dtype declared;
  if (tl__cgen_var_elem(g, buf->data, &declared) && !tl_dtype_eq(declared, t))
    tl__cgen_write(g, "((%s *)%s)[", tl__cgen_storage_type(g, t), name);
  else
    tl__cgen_write(g, "%s[", name);
  if (n != buf->ndim) {
    tl__cgen_error(g, TL_EINVAL, "buffer '%s' of rank %u indexed with %u indices", buf->name, buf->ndim, n);
  } else if (n == 0) {
    tl__cgen_write(g, "0");
  } else if (buf->strides) {
    for (uint32_t k = 0; k < n; k++) {
      if (k) tl__cgen_write(g, " + ");
      tl__cgen_expr(g, idx[k], TL__PREC_MUL);
      tl__cgen_write(g, " * ");
      tl__cgen_expr(g, buf->strides[k], TL__PREC_MUL + 1);
    }
  } else if (n == 1) {
    tl__cgen_expr(g, idx[0], TL__PREC_TOP);
  } else {
    /* Row-major: ((i0 * s1 + i1) * s2 + i2) ... */
    for (uint32_t k = 0; k + 2 < n; k++) tl__cgen_write(g, "(");
    tl__cgen_expr(g, idx[0], TL__PREC_MUL);
    for (uint32_t k = 1; k < n; k++) {
      tl__cgen_write(g, " * ");
      tl__cgen_expr(g, buf->shape[k], TL__PREC_MUL + 1);
      tl__cgen_write(g, " + ");
      tl__cgen_expr(g, idx[k], TL__PREC_ADD + 1);
      if (k + 1 < n) tl__cgen_write(g, ")");
    }
  }
  tl__cgen_write(g, "]");
}


/* ------------------------------------------------------------ expressions */

static void expr(tl__cgen *g, const tl_ir_expr *e, int ctx) { tl__cgen_expr(g, e, ctx); }

/* (a, b) or (a) after a function name. */
static void call_args(tl__cgen *g, const tl_ir_expr *a, const tl_ir_expr *b) {
  tl__cgen_write(g, "(");
  expr(g, a, TL__PREC_TOP);
  if (b) {
    tl__cgen_write(g, ", ");
    expr(g, b, TL__PREC_TOP);
  }
  tl__cgen_write(g, ")");
}

/* A helper of a per-type section: tl_<base>_<suffix>(a, b), the suffix the section
 * is instantiated with ($S). */
static void helper_call(tl__cgen *g, const char *section, const char *base, tl_dtype t, const tl_ir_expr *a,
                        const tl_ir_expr *b) {
  tl__cgen_use_helper(g, section, t);
  tl__cgen_write(g, "tl_%s_%s", base, tl__cgen_helper_suffix(t));
  call_args(g, a, b);
}

static const char *binop_text(tl_ir_binop op, int *prec) {
  switch (op) {
  case TL_BIN_ADD: *prec = TL__PREC_ADD; return "+";
  case TL_BIN_SUB: *prec = TL__PREC_ADD; return "-";
  case TL_BIN_MUL: *prec = TL__PREC_MUL; return "*";
  case TL_BIN_DIV: *prec = TL__PREC_MUL; return "/";
  case TL_BIN_FLOORDIV: *prec = TL__PREC_MUL; return "/";
  case TL_BIN_FLOORMOD: *prec = TL__PREC_MUL; return "%";
  case TL_BIN_EQ: *prec = TL__PREC_EQ; return "==";
  case TL_BIN_NE: *prec = TL__PREC_EQ; return "!=";
  case TL_BIN_LT: *prec = TL__PREC_REL; return "<";
  case TL_BIN_LE: *prec = TL__PREC_REL; return "<=";
  case TL_BIN_GT: *prec = TL__PREC_REL; return ">";
  case TL_BIN_GE: *prec = TL__PREC_REL; return ">=";
  case TL_BIN_AND: *prec = TL__PREC_LAND; return "&&";
  case TL_BIN_OR: *prec = TL__PREC_LOR; return "||";
  case TL_BIN_BITAND: *prec = TL__PREC_BAND; return "&";
  case TL_BIN_BITOR: *prec = TL__PREC_BOR; return "|";
  case TL_BIN_BITXOR: *prec = TL__PREC_BXOR; return "^";
  case TL_BIN_SHL: *prec = TL__PREC_SHIFT; return "<<";
  case TL_BIN_SHR: *prec = TL__PREC_SHIFT; return ">>";
  default: *prec = TL__PREC_PRIMARY; return NULL;
  }
}

/* a op b with C's operator, left-associative. Operands of bitwise operators and
 * shifts that are themselves operations get parentheses, for the reader. */
static void infix(tl__cgen *g, const char *op, int prec, const tl_ir_expr *a, const tl_ir_expr *b, int ctx) {
  bool bitwise = prec == TL__PREC_BAND || prec == TL__PREC_BOR || prec == TL__PREC_BXOR || prec == TL__PREC_SHIFT;
  bool p = open_paren(g, prec, ctx);
  expr(g, a, bitwise ? TL__PREC_UNARY : prec);
  tl__cgen_write(g, " %s ", op);
  expr(g, b, bitwise ? TL__PREC_UNARY : prec + 1);
  close_paren(g, p);
}

/* Signed 32/64-bit arithmetic on data that the dialect computes through the
 * unsigned type (wrap_signed_data). */
static bool wrap_through_unsigned(const tl__cgen *g, const tl_ir_expr *e, tl_ir_binop op, tl_dtype t) {
  if (!g->d->wrap_signed_data || !is_signed_int(t) || t.bits < 32) return false;
  if (op != TL_BIN_ADD && op != TL_BIN_SUB && op != TL_BIN_MUL && op != TL_BIN_SHL) return false;
  return tl__cgen_expr_is_data(g, e);
}

static void print_binary(tl__cgen *g, const tl_ir_expr *e, int ctx, bool skip_round) {
  tl_ir_binop op = e->u.binary.op;
  const tl_ir_expr *a = e->u.binary.a, *b = e->u.binary.b;
  tl_dtype t = tl_dtype_scalar(a->dtype);
  int prec;
  const char *text = binop_text(op, &prec);
  if (!text && op != TL_BIN_MIN && op != TL_BIN_MAX) {
    tl__cgen_error(g, TL_EINVAL, "unknown binary operator %d", (int)op);
    return;
  }
  bool compare = op >= TL_BIN_EQ && op <= TL_BIN_GE;
  if (compare || op == TL_BIN_AND || op == TL_BIN_OR) {
    infix(g, text, prec, a, b, ctx);
    return;
  }
  if (tl_dtype_is_bool(t)) {
    /* bool arithmetic: min is and, max is or; &, |, ^ keep 0/1. */
    if (op == TL_BIN_MIN) infix(g, "&&", TL__PREC_LAND, a, b, ctx);
    else if (op == TL_BIN_MAX) infix(g, "||", TL__PREC_LOR, a, b, ctx);
    else if (op == TL_BIN_BITAND || op == TL_BIN_BITOR || op == TL_BIN_BITXOR) infix(g, text, prec, a, b, ctx);
    else tl__cgen_error(g, TL_EINVAL, "operator '%s' is not defined for bool", text);
    return;
  }
  if (tl_dtype_is_float(t)) {
    const tl__c_half_type *h = tl__cgen_half_type(g, t);
    bool round = h && op != TL_BIN_MIN && op != TL_BIN_MAX && !skip_round; /* min/max pick an operand: exact */
    if (op >= TL_BIN_BITAND) {
      tl__cgen_error(g, TL_EINVAL, "operator '%s' is not defined for floats", text);
      return;
    }
    if (round) {
      tl__cgen_type(g, t); /* the helper section */
      tl__cgen_write(g, "%s(", h->round);
      ctx = TL__PREC_TOP;
    }
    if (op == TL_BIN_MIN || op == TL_BIN_MAX) helper_call(g, "fminmax", op == TL_BIN_MIN ? "min" : "max", t, a, b);
    else if (op == TL_BIN_FLOORDIV) helper_call(g, "fdiv", "floordiv", t, a, b);
    else if (op == TL_BIN_FLOORMOD) helper_call(g, "fdiv", "floormod", t, a, b);
    else infix(g, text, prec, a, b, ctx);
    if (round) tl__cgen_write(g, ")");
    return;
  }
  if (!tl_dtype_is_int(t)) {
    tl__cgen_error(g, TL_EINVAL, "operator '%s' on a non-numeric operand", text ? text : "min/max");
    return;
  }
  /* Integers: narrower than int wrap to their width after the operation. */
  bool wrap = is_narrow_int(t) && op != TL_BIN_MIN && op != TL_BIN_MAX && op != TL_BIN_BITAND &&
              op != TL_BIN_BITOR && op != TL_BIN_BITXOR && op != TL_BIN_SHR;
  bool p = false;
  if (wrap) {
    p = open_paren(g, TL__PREC_UNARY, ctx);
    tl__cgen_write(g, "(%s)(", tl__cgen_type(g, t));
    ctx = TL__PREC_TOP;
  }
  bool nonneg = tl__cgen_expr_nonneg(g, a) && tl__cgen_expr_nonneg(g, b);
  tl_dtype wide = t.bits < 32 ? (tl_dtype)TL_DT_INT32 : t; /* where signed helpers compute */
  if (op == TL_BIN_MIN || op == TL_BIN_MAX) {
    helper_call(g, "minmax", op == TL_BIN_MIN ? "min" : "max", t, a, b);
  } else if ((op == TL_BIN_FLOORDIV || op == TL_BIN_FLOORMOD) && is_signed_int(t) && !nonneg) {
    helper_call(g, "intdiv", op == TL_BIN_FLOORDIV ? "floordiv" : "floormod", wide, a, b);
  } else if (wrap_through_unsigned(g, e, op, t)) {
    /* (int32_t)((uint32_t)a + (uint32_t)b): wraps without -fwrapv */
    const char *ut = t.bits == 64 ? g->d->t_u64 : g->d->t_u32;
    bool q = open_paren(g, TL__PREC_UNARY, ctx);
    tl__cgen_write(g, "(%s)((%s)", tl__cgen_type(g, t), ut);
    expr(g, a, TL__PREC_UNARY);
    tl__cgen_write(g, " %s ", text);
    if (op == TL_BIN_SHL) expr(g, b, TL__PREC_SHIFT + 1);
    else {
      tl__cgen_write(g, "(%s)", ut);
      expr(g, b, TL__PREC_UNARY);
    }
    tl__cgen_write(g, ")");
    close_paren(g, q);
  } else if (op == TL_BIN_MUL && t.code == TL_DTYPE_UINT && t.bits == 16) {
    /* uint16 * uint16 promotes to int and may overflow it: multiply unsigned. */
    tl__cgen_write(g, "(%s)", g->d->t_u32);
    infix(g, "*", TL__PREC_MUL, a, b, TL__PREC_UNARY);
  } else {
    infix(g, text, prec, a, b, ctx);
  }
  if (wrap) tl__cgen_write(g, ")");
  close_paren(g, p);
}

static void print_unary(tl__cgen *g, const tl_ir_expr *e, int ctx) {
  const tl_ir_expr *a = e->u.unary.a;
  tl_dtype t = tl_dtype_scalar(a->dtype);
  const char *op;
  switch (e->u.unary.op) {
  case TL_UN_NEG: op = "-"; break;
  case TL_UN_NOT: op = "!"; break;
  case TL_UN_BITNOT: op = tl_dtype_is_bool(t) ? "!" : "~"; break;
  default:
    tl__cgen_error(g, TL_EINVAL, "unknown unary operator %d", (int)e->u.unary.op);
    return;
  }
  if (e->u.unary.op == TL_UN_NEG && g->d->wrap_signed_data && is_signed_int(t) && t.bits >= 32 &&
      tl__cgen_expr_is_data(g, a)) {
    /* (int32_t)(0u - (uint32_t)a): negating INT_MIN wraps */
    bool q = open_paren(g, TL__PREC_UNARY, ctx);
    const char *ut = t.bits == 64 ? g->d->t_u64 : g->d->t_u32;
    tl__cgen_write(g, "(%s)((%s)0 - (%s)", tl__cgen_type(g, t), ut, ut);
    expr(g, a, TL__PREC_UNARY);
    tl__cgen_write(g, ")");
    close_paren(g, q);
    return;
  }
  bool p = open_paren(g, TL__PREC_UNARY, ctx);
  if (is_narrow_int(t) && e->u.unary.op != TL_UN_NOT) tl__cgen_write(g, "(%s)", tl__cgen_type(g, t));
  tl__cgen_write(g, "%s", op);
  /* "- -x" and "-(-1)" rather than "--x" */
  bool neg_child = a->kind == TL_EXPR_UNARY || (a->kind == TL_EXPR_INT && a->u.int_value < 0) ||
                   (a->kind == TL_EXPR_FLOAT && signbit(a->u.float_value));
  expr(g, a, neg_child ? TL__PREC_POSTFIX : TL__PREC_UNARY);
  close_paren(g, p);
}

static void print_cast(tl__cgen *g, const tl_ir_expr *e, int ctx, bool skip_round) {
  tl_dtype to = tl_dtype_scalar(e->dtype), from = tl_dtype_scalar(e->u.cast.value->dtype);
  const tl_ir_expr *v = e->u.cast.value;
  if (tl_dtype_eq(to, from) || (to.code == TL_DTYPE_HANDLE && from.code == TL_DTYPE_HANDLE)) {
    expr(g, v, ctx);
    return;
  }
  if (to.code == TL_DTYPE_HANDLE || from.code == TL_DTYPE_HANDLE) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "cannot convert between handles and values");
    return;
  }
  if (tl_dtype_is_bool(to)) {
    bool p = open_paren(g, TL__PREC_EQ, ctx);
    expr(g, v, TL__PREC_EQ);
    tl__cgen_write(g, " != 0");
    close_paren(g, p);
    return;
  }
  const tl__c_half_type *h = tl__cgen_half_type(g, to);
  if (h) {
    /* One rounding, straight from the exact value in double (left to the store
     * that narrows it when skip_round). */
    tl__cgen_type(g, to);
    if (!skip_round) tl__cgen_write(g, "%s(", h->round);
    if (tl_dtype_is_float(from)) {
      expr(g, v, skip_round ? ctx : TL__PREC_TOP);
    } else {
      bool p = skip_round && open_paren(g, TL__PREC_UNARY, ctx);
      tl__cgen_write(g, "(%s)", g->d->t_wide ? g->d->t_wide : g->d->t_f64);
      expr(g, v, TL__PREC_UNARY);
      close_paren(g, p);
    }
    if (!skip_round) tl__cgen_write(g, ")");
    return;
  }
  /* A 16-bit float already is a float: widening to float32 is the value itself. */
  if (tl__cgen_half_type(g, from) && to.code == TL_DTYPE_FLOAT && to.bits == 32) {
    expr(g, v, ctx);
    return;
  }
  bool p = open_paren(g, TL__PREC_UNARY, ctx);
  tl__cgen_write(g, "(%s)", tl__cgen_type(g, to));
  expr(g, v, TL__PREC_UNARY);
  close_paren(g, p);
}

static void print_load(tl__cgen *g, const tl_ir_expr *e, int ctx) {
  const tl_ir_buffer *buf = e->u.load.buffer;
  const tl__c_half_type *h = tl__cgen_half_type(g, buf->dtype);
  const char *hoisted = g->lane ? tl__cgen_hoisted_name(g, e) : NULL;
  if (h) {
    tl__cgen_type(g, buf->dtype);
    tl__cgen_write(g, "%s(", h->widen);
    if (hoisted) tl__cgen_write(g, "%s[%s]", hoisted, g->lane);
    else tl__cgen_element(g, buf, e->u.load.n, e->u.load.indices);
    tl__cgen_write(g, ")");
    return;
  }
  (void)ctx;
  if (hoisted) tl__cgen_write(g, "%s[%s]", hoisted, g->lane); /* read ahead as a vector */
  else tl__cgen_element(g, buf, e->u.load.n, e->u.load.indices);
}

/* Substitutes the arguments into a math template ("expf(%0)"). */
static void math_template(tl__cgen *g, const char *tmpl, const tl_ir_expr *e) {
  for (const char *p = tmpl; *p; p++) {
    if (p[0] == '%' && p[1] >= '0' && p[1] <= '2') {
      uint32_t i = (uint32_t)(p[1] - '0');
      if (i < e->u.call.nargs) expr(g, e->u.call.args[i], TL__PREC_TOP);
      else tl__cgen_error(g, TL_EINVAL, "%s takes more arguments", tl_ir_op_name(e->u.call.op));
      p++;
    } else {
      tl__sb_putc(g->out, *p);
    }
  }
}

static void print_int_math(tl__cgen *g, const tl_ir_expr *e, int ctx) {
  tl_ir_op op = e->u.call.op;
  tl_dtype t = tl_dtype_scalar(e->dtype);
  const tl_ir_expr *a = e->u.call.nargs > 0 ? e->u.call.args[0] : NULL;
  const tl_ir_expr *b = e->u.call.nargs > 1 ? e->u.call.args[1] : NULL;
  if (!a || ((op == TL_OP_CEILDIV) != (b != NULL))) {
    tl__cgen_error(g, TL_EINVAL, "%s has the wrong number of arguments", tl_ir_op_name(op));
    return;
  }
  switch (op) {
  case TL_OP_FLOOR: case TL_OP_CEIL: case TL_OP_ROUND: case TL_OP_TRUNC:
    expr(g, a, ctx); /* integers are already whole */
    return;
  case TL_OP_ABS:
    if (!is_signed_int(t) || tl__cgen_expr_nonneg(g, a)) expr(g, a, ctx);
    else helper_call(g, "abs", "abs", t, a, NULL);
    return;
  case TL_OP_CEILDIV:
    if (t.code == TL_DTYPE_UINT || (tl__cgen_expr_nonneg(g, a) && tl__cgen_expr_nonneg(g, b))) {
      /* a / b + (a % b != 0): never overflows, unlike (a + b - 1) / b */
      bool p = open_paren(g, TL__PREC_ADD, ctx);
      bool wrap = is_narrow_int(t);
      if (wrap) tl__cgen_write(g, "(%s)(", tl__cgen_type(g, t));
      expr(g, a, TL__PREC_MUL);
      tl__cgen_write(g, " / ");
      expr(g, b, TL__PREC_MUL + 1);
      tl__cgen_write(g, " + (");
      expr(g, a, TL__PREC_MUL);
      tl__cgen_write(g, " %% ");
      expr(g, b, TL__PREC_MUL + 1);
      tl__cgen_write(g, " != 0)");
      if (wrap) tl__cgen_write(g, ")");
      close_paren(g, p);
    } else {
      tl_dtype wide = t.bits < 32 ? (tl_dtype)TL_DT_INT32 : t;
      bool p = is_narrow_int(t) && open_paren(g, TL__PREC_UNARY, ctx);
      if (is_narrow_int(t)) tl__cgen_write(g, "(%s)", tl__cgen_type(g, t));
      helper_call(g, "intdiv", "ceildiv", wide, a, b);
      close_paren(g, p);
    }
    return;
  default:
    tl__cgen_error(g, TL_EUNSUPPORTED, "%s is not defined for integers", tl_ir_op_name(op));
    return;
  }
}

/* The IR's hardware builtins, printed through the dialect's builtin rows (never as
 * math), and what a dialect without a row lacks, for the message. */
static const struct {
  tl_ir_op op;
  const char *what;
} k_hardware_builtins[] = {
  {TL_OP_WARP_SHFL_XOR, "warp shuffles"},
};

static const char *hardware_builtin(tl_ir_op op) {
  for (size_t i = 0; i < sizeof k_hardware_builtins / sizeof k_hardware_builtins[0]; i++)
    if (k_hardware_builtins[i].op == op) return k_hardware_builtins[i].what;
  return NULL;
}

static void print_call(tl__cgen *g, const tl_ir_expr *e, int ctx, bool skip_round) {
  tl_ir_op op = e->u.call.op;
  if (g->ext_call && g->ext_call(g, e, ctx)) return;
  if ((unsigned)op >= TL_OP__COUNT) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect cannot print call op %d", g->d->name, (int)op);
    return;
  }
  if (tl_ir_op_is_tile(op)) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "%s must be lowered before %s code generation", tl_ir_op_name(op), g->d->name);
    return;
  }
  for (const tl__c_builtin *b = g->d->builtins; b && b->text; b++)
    if (b->op == op) {
      if (b->helper) tl__cgen_use_helper(g, b->helper, e->dtype);
      math_template(g, b->text, e); /* moves the value as held: exact, no rounding */
      return;
    }
  const char *what = hardware_builtin(op);
  if (what) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no %s (%s)", g->d->name, what, tl_ir_op_name(op));
    return;
  }
  tl_dtype t = tl_dtype_scalar(e->dtype);
  if (tl_dtype_is_int(t)) {
    print_int_math(g, e, ctx);
    return;
  }
  const tl__c_math *m = g->d->math;
  while (m && m->f32 && m->op != op) m++;
  if (!m || !m->f32 || !tl_dtype_is_float(t)) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no %s for %s", g->d->name, tl_ir_op_name(op),
                   tl_dtype_is_float(t) ? "this type" : "non-float operands");
    return;
  }
  if (m->helper) tl__cgen_use_helper(g, m->helper, t);
  const tl__c_half_type *h = skip_round ? NULL : tl__cgen_half_type(g, t);
  if (h) {
    tl__cgen_type(g, t);
    tl__cgen_write(g, "%s(", h->round);
  }
  math_template(g, t.bits == 64 ? m->f64 : m->f32, e);
  if (h) tl__cgen_write(g, ")");
}

static void print_var(tl__cgen *g, const tl_ir_var *v) {
  if (v->thread_tag && !tl__cgen_var_text(g, v)) {
    for (const tl__c_thread_tag *t = g->d->thread_tags; t && t->tag; t++)
      if (strcmp(t->tag, v->thread_tag) == 0) {
        tl__cgen_write(g, "%s", t->text);
        return;
      }
    tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no thread index '%s' (variable '%s')", g->d->name,
                   v->thread_tag, v->name);
    return;
  }
  const char *text = tl__cgen_var_text(g, v);
  if (!text) {
    tl__cgen_error(g, TL_EINVAL, "variable '%s' is used but not defined in this function", v->name);
    return;
  }
  if (tl__cgen_var_vector(g, v)) {
    if (!g->lane) {
      tl__cgen_error(g, TL_EINVAL, "vector variable '%s' used outside a vector statement", v->name);
      return;
    }
    tl__cgen_write(g, "%s[%s]", text, g->lane);
    return;
  }
  tl__cgen_write(g, "%s", text);
}

void tl__cgen_expr(tl__cgen *g, const tl_ir_expr *e, int ctx) {
  if (g->status != TL_OK) return;
  if (!e) {
    tl__cgen_error(g, TL_EINVAL, "missing expression");
    return;
  }
  if (e->dtype.lanes > 1 && !g->lane) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "vector expression outside a vector store or let");
    return;
  }
  bool skip_round = g->no_round; /* for this node only, not its operands */
  g->no_round = false;
  switch (e->kind) {
  case TL_EXPR_INT: {
    /* A negative literal inside an operation reads better in parentheses: a - (-3). */
    bool neg = e->u.int_value < 0 && e->dtype.code == TL_DTYPE_INT;
    bool p = neg && open_paren(g, TL__PREC_LOR - 1, ctx);
    if (tl_dtype_is_float(e->dtype)) float_literal(g, e->dtype, (double)e->u.int_value, ctx);
    else tl__cgen_int_literal(g, e->dtype, e->u.int_value);
    close_paren(g, p);
    return;
  }
  case TL_EXPR_FLOAT:
    if (!tl_dtype_is_float(e->dtype)) {
      tl__cgen_error(g, TL_EINVAL, "float constant of a non-float type");
      return;
    }
    float_literal(g, e->dtype, e->u.float_value, ctx);
    return;
  case TL_EXPR_STR:
    tl__cgen_error(g, TL_EUNSUPPORTED, "a string has no value in %s code", g->d->name);
    return;
  case TL_EXPR_VAR: print_var(g, e->u.var); return;
  case TL_EXPR_BINARY: print_binary(g, e, ctx, skip_round); return;
  case TL_EXPR_UNARY: print_unary(g, e, ctx); return;
  case TL_EXPR_SELECT: {
    bool p = open_paren(g, TL__PREC_TERNARY, ctx);
    expr(g, e->u.select.cond, TL__PREC_LOR);
    tl__cgen_write(g, " ? ");
    expr(g, e->u.select.t, TL__PREC_TERNARY + 1);
    tl__cgen_write(g, " : ");
    expr(g, e->u.select.f, TL__PREC_TERNARY);
    close_paren(g, p);
    return;
  }
  case TL_EXPR_CAST: print_cast(g, e, ctx, skip_round); return;
  case TL_EXPR_LOAD: print_load(g, e, ctx); return;
  case TL_EXPR_CALL: print_call(g, e, ctx, skip_round); return;
  case TL_EXPR_REGION:
    tl__cgen_error(g, TL_EINVAL, "a buffer region is only an argument of a tile op");
    return;
  case TL_EXPR_RAMP: {
    /* base + lane * stride at the current lane */
    bool p = open_paren(g, TL__PREC_ADD, ctx);
    expr(g, e->u.ramp.base, TL__PREC_ADD);
    if (e->u.ramp.stride == 1) tl__cgen_write(g, " + %s", g->lane);
    else tl__cgen_write(g, " + %s * %" PRId64, g->lane, e->u.ramp.stride);
    close_paren(g, p);
    return;
  }
  case TL_EXPR_BROADCAST: {
    const char *lane = g->lane;
    g->lane = NULL; /* the broadcast value is a scalar */
    expr(g, e->u.broadcast.value, ctx);
    g->lane = lane;
    return;
  }
  }
  tl__cgen_error(g, TL_EINVAL, "unknown expression kind %d", (int)e->kind);
}
