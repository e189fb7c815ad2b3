/* The printer, expressions: Python precedence with minimal parentheses, and
 * constants written so that the front end reads them back as the same IR (a
 * literal only where it adopts the right dtype; T.int64(5) and friends where a
 * literal would fold or take another type). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "print.h"

/* Python precedence levels (higher binds tighter). */
enum {
  PREC_OR = 1, PREC_AND = 2, PREC_NOT = 3, PREC_CMP = 4, PREC_BITOR = 5, PREC_BITXOR = 6, PREC_BITAND = 7,
  PREC_SHIFT = 8, PREC_ADD = 9, PREC_MUL = 10, PREC_UNARY = 11, PREC_ATOM = 13
};

bool tl__print_is_const(const tl_ir_expr *e) { return e->kind == TL_EXPR_INT || e->kind == TL_EXPR_FLOAT; }

static bool is_i32_const(const tl_ir_expr *e) { return e->kind == TL_EXPR_INT && tl_dtype_eq(e->dtype, TL_DT_INT32); }

bool tl__print_const_end(tl__printer *P, const tl_ir_expr *min, const tl_ir_expr *extent) {
  if (!is_i32_const(min) || !is_i32_const(extent)) return false;
  int64_t end;
  if (__builtin_add_overflow(min->u.int_value, extent->u.int_value, &end) || end > INT32_MAX || end < INT32_MIN)
    return false;
  tl__sb_appendf(&P->sb, "%lld", (long long)end);
  return true;
}

void tl__print_dtype_str(tl__printer *P, tl_dtype t) {
  char buf[32];
  tl__sb_appendf(&P->sb, "\"%s\"", tl_dtype_name(t, buf, sizeof buf));
}

void tl__print_str_literal(tl__printer *P, const char *s) {
  tl__sb_putc(&P->sb, '"');
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
      case '\\': tl__sb_append(&P->sb, "\\\\"); break;
      case '"': tl__sb_append(&P->sb, "\\\""); break;
      case '\n': tl__sb_append(&P->sb, "\\n"); break;
      case '\t': tl__sb_append(&P->sb, "\\t"); break;
      case '\r': tl__sb_append(&P->sb, "\\r"); break;
      default:
        if (*c < 0x20 || *c == 0x7F) tl__sb_appendf(&P->sb, "\\x%02x", *c);
        else tl__sb_putc(&P->sb, (char)*c);
    }
  }
  tl__sb_putc(&P->sb, '"');
}

/* The shortest decimal that reads back as the same double, always with a '.' or
 * an exponent so Python reads a float. */
static void print_double(tl__printer *P, double v) {
  char buf[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  tl__sb_append(&P->sb, buf);
  if (!strpbrk(buf, ".e")) tl__sb_append(&P->sb, ".0");
}

static void print_int(tl__printer *P, int64_t v) {
  if (v == INT64_MIN) tl__sb_append(&P->sb, "(-9223372036854775807 - 1)");
  else tl__sb_appendf(&P->sb, "%lld", (long long)v);
}

/* True if the constant prints as a bare literal here: its dtype is the one the
 * context gives literals (or the default for its kind when there is none). */
static bool plain_const(const tl_ir_expr *e, const tl_dtype *want) {
  if (e->dtype.lanes != 1) return false;
  if (e->kind == TL_EXPR_FLOAT) {
    if (!isfinite(e->u.float_value)) return false;
    return want ? tl_dtype_eq(*want, e->dtype) && tl_dtype_is_float(*want) : tl_dtype_eq(e->dtype, TL_DT_FLOAT32);
  }
  if (tl_dtype_is_bool(e->dtype)) return !want || tl_dtype_is_bool(*want);
  if (!tl_dtype_is_int(e->dtype)) return false;
  return want ? tl_dtype_eq(*want, e->dtype) : tl_dtype_eq(e->dtype, TL_DT_INT32);
}

static void print_literal(tl__printer *P, const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_FLOAT) print_double(P, e->u.float_value);
  else if (tl_dtype_is_bool(e->dtype)) tl__sb_append(&P->sb, e->u.int_value ? "True" : "False");
  else print_int(P, e->u.int_value);
}

void tl__print_const_ctor(tl__printer *P, const tl_ir_expr *e) {
  char buf[32];
  const char *dt = tl_dtype_name(e->dtype, buf, sizeof buf);
  if (e->kind == TL_EXPR_FLOAT && isinf(e->u.float_value)) {
    tl__sb_appendf(&P->sb, "%sT.infinity(\"%s\")", e->u.float_value < 0 ? "-" : "", dt);
    return;
  }
  if (e->kind == TL_EXPR_FLOAT && isnan(e->u.float_value)) {
    tl__sb_appendf(&P->sb, "T.%s(float(\"nan\"))", dt);
    return;
  }
  tl__sb_appendf(&P->sb, "T.%s(", dt);
  print_literal(P, e);
  tl__sb_putc(&P->sb, ')');
}

static void print_const(tl__printer *P, const tl_ir_expr *e, int min_prec, const tl_dtype *want) {
  if (!plain_const(e, want)) {
    /* -T.infinity(...) is a unary minus: parenthesize where that binds too loosely. */
    bool neg = e->kind == TL_EXPR_FLOAT && isinf(e->u.float_value) && e->u.float_value < 0;
    if (neg && min_prec > PREC_UNARY) tl__sb_putc(&P->sb, '(');
    tl__print_const_ctor(P, e);
    if (neg && min_prec > PREC_UNARY) tl__sb_putc(&P->sb, ')');
    return;
  }
  bool neg = (e->kind == TL_EXPR_FLOAT && signbit(e->u.float_value)) ||
             (e->kind == TL_EXPR_INT && !tl_dtype_is_bool(e->dtype) && e->u.int_value < 0);
  if (neg && min_prec > PREC_UNARY) {
    tl__sb_putc(&P->sb, '(');
    print_literal(P, e);
    tl__sb_putc(&P->sb, ')');
  } else {
    print_literal(P, e);
  }
}

void tl__print_shape(tl__printer *P, uint32_t n, tl_ir_expr *const *dims) {
  const tl_dtype i32 = TL_DT_INT32;
  tl__sb_putc(&P->sb, '(');
  for (uint32_t i = 0; i < n; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    tl__print_expr(P, dims[i], 0, &i32);
  }
  tl__sb_append(&P->sb, n == 1 ? ",)" : ")");
}

/* Operands of a binary-like node: a constant takes its sibling's dtype as its
 * literal type; when both are constants the first is written in constructor form,
 * since the front end would fold two literals. */
static void print_pair(tl__printer *P, const tl_ir_expr *a, const tl_ir_expr *b, int pa, int pb, const char *sep) {
  bool ca = tl__print_is_const(a), cb = tl__print_is_const(b);
  if (ca && cb) {
    tl__print_const_ctor(P, a);
    tl__sb_append(&P->sb, sep);
    tl__print_expr(P, b, pb, &a->dtype);
    return;
  }
  tl__print_expr(P, a, pa, ca ? &b->dtype : NULL);
  tl__sb_append(&P->sb, sep);
  tl__print_expr(P, b, pb, cb ? &a->dtype : NULL);
}

static const struct { tl_ir_binop op; const char *s; int prec; } BINOPS[] = {
  {TL_BIN_ADD, " + ", PREC_ADD}, {TL_BIN_SUB, " - ", PREC_ADD}, {TL_BIN_MUL, " * ", PREC_MUL},
  {TL_BIN_DIV, " / ", PREC_MUL}, {TL_BIN_FLOORDIV, " // ", PREC_MUL}, {TL_BIN_FLOORMOD, " % ", PREC_MUL},
  {TL_BIN_EQ, " == ", PREC_CMP}, {TL_BIN_NE, " != ", PREC_CMP}, {TL_BIN_LT, " < ", PREC_CMP},
  {TL_BIN_LE, " <= ", PREC_CMP}, {TL_BIN_GT, " > ", PREC_CMP}, {TL_BIN_GE, " >= ", PREC_CMP},
  {TL_BIN_AND, " and ", PREC_AND}, {TL_BIN_OR, " or ", PREC_OR}, {TL_BIN_BITAND, " & ", PREC_BITAND},
  {TL_BIN_BITOR, " | ", PREC_BITOR}, {TL_BIN_BITXOR, " ^ ", PREC_BITXOR}, {TL_BIN_SHL, " << ", PREC_SHIFT},
  {TL_BIN_SHR, " >> ", PREC_SHIFT},
};

static void print_call_args(tl__printer *P, uint32_t n, tl_ir_expr *const *args) {
  /* Constants take the dtype of the first non-constant argument. */
  const tl_dtype *sib = NULL;
  for (uint32_t i = 0; i < n && !sib; i++)
    if (!tl__print_is_const(args[i]) && args[i]->kind != TL_EXPR_REGION) sib = &args[i]->dtype;
  for (uint32_t i = 0; i < n; i++) {
    if (i) tl__sb_append(&P->sb, ", ");
    tl__print_expr(P, args[i], 0, sib);
  }
}

static void print_binary(tl__printer *P, const tl_ir_expr *e, int min_prec) {
  const tl_ir_expr *a = e->u.binary.a, *b = e->u.binary.b;
  if (e->u.binary.op == TL_BIN_MIN || e->u.binary.op == TL_BIN_MAX) {
    tl__sb_append(&P->sb, e->u.binary.op == TL_BIN_MIN ? "T.min(" : "T.max(");
    if (tl__print_is_const(a) && tl__print_is_const(b)) {
      tl__print_expr(P, a, 0, NULL);
      tl__sb_append(&P->sb, ", ");
      tl__print_expr(P, b, 0, &a->dtype);
    } else {
      print_pair(P, a, b, 0, 0, ", ");
    }
    tl__sb_putc(&P->sb, ')');
    return;
  }
  if (e->u.binary.op == TL_BIN_DIV && !tl_dtype_is_float(a->dtype)) {
    tl__sb_append(&P->sb, "T.truncdiv(");
    print_pair(P, a, b, 0, 0, ", ");
    tl__sb_putc(&P->sb, ')');
    return;
  }
  for (size_t i = 0; i < sizeof BINOPS / sizeof BINOPS[0]; i++) {
    if (BINOPS[i].op != e->u.binary.op) continue;
    int p = BINOPS[i].prec;
    bool paren = p < min_prec;
    if (paren) tl__sb_putc(&P->sb, '(');
    /* Comparisons do not chain: both sides bind tighter. */
    print_pair(P, a, b, p == PREC_CMP ? p + 1 : p, p + 1, BINOPS[i].s);
    if (paren) tl__sb_putc(&P->sb, ')');
    return;
  }
  tl__sb_appendf(&P->sb, "<binop %d>", (int)e->u.binary.op);
}

static void print_unary(tl__printer *P, const tl_ir_expr *e, int min_prec) {
  const tl_ir_expr *a = e->u.unary.a;
  int p = e->u.unary.op == TL_UN_NOT ? PREC_NOT : PREC_UNARY;
  bool paren = p < min_prec;
  if (paren) tl__sb_putc(&P->sb, '(');
  tl__sb_append(&P->sb, e->u.unary.op == TL_UN_NEG ? "-" : e->u.unary.op == TL_UN_NOT ? "not " : "~");
  if (tl__print_is_const(a)) tl__print_const_ctor(P, a); /* a literal would fold */
  else tl__print_expr(P, a, p, NULL);
  if (paren) tl__sb_putc(&P->sb, ')');
}

static void print_region(tl__printer *P, const tl_ir_expr *e) {
  const tl_ir_buffer *b = e->u.region.buffer;
  const tl_dtype i32 = TL_DT_INT32;
  tl__sb_append(&P->sb, tl__print_name_of(P, b, b->name));
  if (e->u.region.form == TL_REGION_FULL) return;
  uint32_t n = e->u.region.ndim;
  tl__sb_putc(&P->sb, '[');
  /* A slice region needs at least one range, or it would read back as a point. */
  bool any_range = false;
  for (uint32_t d = 0; d < n; d++) {
    const tl_ir_expr *x = e->u.region.extents[d];
    if (!(x->kind == TL_EXPR_INT && x->u.int_value == 1 && tl_dtype_eq(x->dtype, i32))) any_range = true;
  }
  for (uint32_t d = 0; d < n; d++) {
    if (d) tl__sb_append(&P->sb, ", ");
    const tl_ir_expr *m = e->u.region.mins[d], *x = e->u.region.extents[d];
    bool unit = x->kind == TL_EXPR_INT && x->u.int_value == 1 && tl_dtype_eq(x->dtype, i32);
    if (e->u.region.form == TL_REGION_POINT || (unit && (any_range || d + 1 < n))) {
      tl__print_expr(P, m, 0, &i32); /* a plain index */
      continue;
    }
    bool zero = m->kind == TL_EXPR_INT && m->u.int_value == 0 && tl_dtype_eq(m->dtype, i32);
    if (!zero) {
      tl__print_expr(P, m, 0, &i32);
      tl__sb_putc(&P->sb, ':');
      if (tl__print_const_end(P, m, x)) continue;
      /* start:start + extent, which the front end reads back as that extent */
      tl__print_expr(P, m, PREC_ADD, &i32);
      tl__sb_append(&P->sb, " + ");
      tl__print_expr(P, x, PREC_ADD + 1, &i32);
      continue;
    }
    /* ":" for the whole dimension, else ":extent". */
    tl__sb_putc(&P->sb, ':');
    size_t at = P->sb.len;
    tl__print_expr(P, x, 0, &i32);
    if (P->sb.failed || d >= b->ndim) continue;
    size_t ext_len = P->sb.len - at;
    char *ext = tl__strndup(P->sb.buf + at, ext_len);
    if (!ext) {
      P->failed = true;
      continue;
    }
    tl__sb_truncate(&P->sb, at);
    tl__print_expr(P, b->shape[d], 0, &i32);
    bool whole = !P->sb.failed && P->sb.len - at == ext_len && memcmp(P->sb.buf + at, ext, ext_len) == 0;
    tl__sb_truncate(&P->sb, at);
    if (!whole) tl__sb_append(&P->sb, ext);
    tl__free(ext);
  }
  tl__sb_putc(&P->sb, ']');
}

void tl__print_expr(tl__printer *P, const tl_ir_expr *e, int min_prec, const tl_dtype *want) {
  if (!e) {
    tl__sb_append(&P->sb, "<null>");
    return;
  }
  char buf[32];
  switch (e->kind) {
    case TL_EXPR_INT: case TL_EXPR_FLOAT: print_const(P, e, min_prec, want); return;
    case TL_EXPR_STR: tl__print_str_literal(P, e->u.str); return;
    case TL_EXPR_VAR: tl__sb_append(&P->sb, tl__print_name_of(P, e->u.var, e->u.var->name)); return;
    case TL_EXPR_BINARY: print_binary(P, e, min_prec); return;
    case TL_EXPR_UNARY: print_unary(P, e, min_prec); return;
    case TL_EXPR_SELECT:
      tl__sb_append(&P->sb, "T.if_then_else(");
      tl__print_expr(P, e->u.select.cond, 0, NULL);
      tl__sb_append(&P->sb, ", ");
      if (tl__print_is_const(e->u.select.t) && tl__print_is_const(e->u.select.f)) {
        tl__print_expr(P, e->u.select.t, 0, NULL);
        tl__sb_append(&P->sb, ", ");
        tl__print_expr(P, e->u.select.f, 0, &e->u.select.t->dtype);
      } else {
        print_pair(P, e->u.select.t, e->u.select.f, 0, 0, ", ");
      }
      tl__sb_putc(&P->sb, ')');
      return;
    case TL_EXPR_CAST:
      tl__sb_append(&P->sb, "T.Cast(");
      tl__print_dtype_str(P, e->dtype);
      tl__sb_append(&P->sb, ", ");
      tl__print_expr(P, e->u.cast.value, 0, NULL);
      tl__sb_putc(&P->sb, ')');
      return;
    case TL_EXPR_LOAD: {
      const tl_ir_buffer *b = e->u.load.buffer;
      tl__sb_append(&P->sb, tl__print_name_of(P, b, b->name));
      if (e->u.load.n == 0 && b->scope == TL_SCOPE_LOCAL_VAR) return;
      const tl_dtype i32 = TL_DT_INT32;
      tl__sb_putc(&P->sb, '[');
      if (e->u.load.n == 0) tl__sb_append(&P->sb, "()");
      for (uint32_t i = 0; i < e->u.load.n; i++) {
        if (i) tl__sb_append(&P->sb, ", ");
        tl__print_expr(P, e->u.load.indices[i], 0, &i32);
      }
      tl__sb_putc(&P->sb, ']');
      return;
    }
    case TL_EXPR_CALL: {
      tl_ir_op op = e->u.call.op;
      if (op == TL_OP_CEILDIV && e->u.call.nargs == 2 && tl__print_is_const(e->u.call.args[0]) &&
          tl__print_is_const(e->u.call.args[1])) {
        tl__sb_append(&P->sb, "T.ceildiv(");
        tl__print_const_ctor(P, e->u.call.args[0]);
        tl__sb_append(&P->sb, ", ");
        tl__print_expr(P, e->u.call.args[1], 0, &e->u.call.args[0]->dtype);
        tl__sb_putc(&P->sb, ')');
        return;
      }
      tl__sb_append(&P->sb, tl_ir_op_name(op));
      tl__sb_putc(&P->sb, '(');
      print_call_args(P, e->u.call.nargs, e->u.call.args);
      tl__sb_putc(&P->sb, ')');
      return;
    }
    case TL_EXPR_REGION: print_region(P, e); return;
    case TL_EXPR_RAMP:
      tl__sb_append(&P->sb, "T.Ramp(");
      tl__print_expr(P, e->u.ramp.base, 0, NULL);
      tl__sb_appendf(&P->sb, ", %lld, %u)", (long long)e->u.ramp.stride, (unsigned)e->dtype.lanes);
      return;
    case TL_EXPR_BROADCAST:
      tl__sb_append(&P->sb, "T.Broadcast(");
      tl__print_expr(P, e->u.broadcast.value, 0, NULL);
      tl__sb_appendf(&P->sb, ", %u)", (unsigned)e->dtype.lanes);
      return;
  }
  tl__sb_appendf(&P->sb, "<expr kind %d: %s>", (int)e->kind, tl_dtype_name(e->dtype, buf, sizeof buf));
}
