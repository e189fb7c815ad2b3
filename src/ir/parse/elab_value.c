/* Elaboration values: construction, bindings, Python constant folding (with
 * Python's semantics: floor division, sign of %, arbitrary-looking ints checked
 * for int64 overflow), conversion to IR and TVM's type promotion. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "elab.h"
#include "ir/module.h"

tl_status tl__elab_error(tl__elab *E, tl__pos at, const char *fmt, ...) {
  if (E->p->status != TL_OK) return E->p->status;
  va_list ap;
  va_start(ap, fmt);
  char *msg = tl__vformat(fmt, ap);
  va_end(ap);
  if (!msg) return tl__parse_oom(E->p);
  tl_status s = tl__parse_error(E->p, at.line, at.col, "%s", msg);
  tl__free(msg);
  return s;
}

void tl__elab_at(tl__elab *E, tl__pos at) { tl_ir_builder_set_loc(E->mod, (tl_ir_span){E->file, at.line, at.col}); }

tl_status tl__elab_builder_failed(tl__elab *E) {
  if (E->p->status == TL_OK) E->p->status = tl__ir_null_status(E->mod, "internal error: the IR builder failed");
  return E->p->status;
}

tl__val *tl__val_new(tl__elab *E, tl__val_kind kind) {
  tl__val *v = tl__parse_alloc(E->p, sizeof *v);
  if (v) v->kind = (uint8_t)kind;
  return v;
}

tl__val *tl__val_int(tl__elab *E, int64_t i) {
  tl__val *v = tl__val_new(E, V_INT);
  if (v) v->u.i = i;
  return v;
}

tl__val *tl__val_float(tl__elab *E, double f) {
  tl__val *v = tl__val_new(E, V_FLOAT);
  if (v) v->u.f = f;
  return v;
}

tl__val *tl__val_bool(tl__elab *E, bool b) {
  tl__val *v = tl__val_new(E, V_BOOL);
  if (v) v->u.b = b;
  return v;
}

tl__val *tl__val_expr(tl__elab *E, tl_ir_expr *e) {
  if (!e) {
    tl__elab_builder_failed(E);
    return NULL;
  }
  tl__val *v = tl__val_new(E, V_EXPR);
  if (v) v->u.e = e;
  return v;
}

bool tl__val_is_py(const tl__val *v) { return v->kind <= V_TUPLE; }

const char *tl__val_describe(tl__elab *E, const tl__val *v) {
  char buf[160];
  char dt[32];
  switch ((tl__val_kind)v->kind) {
    case V_NONE: return "None";
    case V_BOOL: return "a bool";
    case V_INT: return "an integer";
    case V_FLOAT: return "a float";
    case V_STR: return "a string";
    case V_TUPLE: return "a tuple";
    case V_DTYPE: snprintf(buf, sizeof buf, "dtype %s", tl_dtype_name(v->u.dt, dt, sizeof dt)); break;
    case V_EXPR: snprintf(buf, sizeof buf, "a %s expression", tl_dtype_name(v->u.e->dtype, dt, sizeof dt)); break;
    case V_VAR: snprintf(buf, sizeof buf, "variable '%s'", v->u.var->name); break;
    case V_BUFFER: snprintf(buf, sizeof buf, "buffer '%s'", v->u.buf->name); break;
    case V_VARSLOT: snprintf(buf, sizeof buf, "variable '%s'", v->u.buf->name); break;
    case V_MODULE: snprintf(buf, sizeof buf, "module '%s'", v->u.mod.name); break;
    case V_BUILTIN: snprintf(buf, sizeof buf, "%s", v->u.bi.name); break;
    case V_SYMBOLIC: snprintf(buf, sizeof buf, "symbolic dimension '%s'", v->u.sym.name); break;
    case V_PRIMFUNC: return "a T.prim_func";
    case V_LAMBDA: return "a lambda";
    case V_FUNC: snprintf(buf, sizeof buf, "%s '%s'", v->u.fn.macro ? "macro" : "helper function", v->u.fn.def->u.def.name); break;
    case V_OPAQUE: return v->u.opaque;
    default: return "a value";
  }
  char *s = tl__arena_strdup(&E->p->arena, buf);
  return s ? s : "a value";
}

/* ------------------------------------------------------------------ bindings */

bool tl__bind(tl__elab *E, const char *name, tl__val *v, tl__binding_kind kind, uint32_t line, uint32_t col) {
  if (!v) return false;
  tl__binding b = {name, v, (uint8_t)kind, (uint16_t)(E->fn ? E->fn->depth : 0), (uint16_t)(E->fn ? E->fn->loops : 0),
                   line, col};
  if (tl__vec_push(&E->env, &b) != TL_OK) return tl__parse_oom(E->p), false;
  return true;
}

tl__frame *tl__cur_frame(tl__elab *E) { return E->frame && E->frame->fn == E->fn ? E->frame : NULL; }

size_t tl__scope_start(tl__elab *E) {
  const tl__frame *f = tl__cur_frame(E);
  return f ? f->env_start : E->fn ? E->fn->env_start : 0;
}

tl__binding *tl__lookup(tl__elab *E, const char *name) {
  const tl__frame *f = tl__cur_frame(E);
  size_t lo = tl__scope_start(E);
  for (size_t i = E->env.len; i-- > lo;) {
    tl__binding *b = tl__vec_at(&E->env, i);
    if (strcmp(b->name, name) == 0) return b;
  }
  if (!E->fn && !f) return NULL;
  size_t outer = f ? f->outer_visible : E->fn->outer_visible;
  for (size_t i = outer; i-- > 0;) {
    tl__binding *b = tl__vec_at(&E->env, i);
    if (strcmp(b->name, name) == 0) return b;
  }
  return NULL;
}

/* ------------------------------------------------------------------ Python values */

bool tl__py_truth(const tl__val *v) {
  switch ((tl__val_kind)v->kind) {
    case V_NONE: return false;
    case V_BOOL: return v->u.b;
    case V_INT: return v->u.i != 0;
    case V_FLOAT: return v->u.f != 0.0;
    case V_STR: return v->u.str.n != 0;
    case V_TUPLE: return v->u.tup.n != 0;
    default: return true;
  }
}

static bool is_num(const tl__val *v) { return v->kind == V_BOOL || v->kind == V_INT || v->kind == V_FLOAT; }
static int64_t ival(const tl__val *v) { return v->kind == V_BOOL ? (int64_t)v->u.b : v->u.i; }
static double fval(const tl__val *v) { return v->kind == V_FLOAT ? v->u.f : (double)ival(v); }

bool tl__py_equal(const tl__val *a, const tl__val *b) {
  if (is_num(a) && is_num(b)) {
    if (a->kind == V_FLOAT || b->kind == V_FLOAT) return fval(a) == fval(b);
    return ival(a) == ival(b);
  }
  if (a->kind == V_DTYPE && b->kind == V_DTYPE) return tl_dtype_eq(a->u.dt, b->u.dt);
  if (a->kind == V_DTYPE && b->kind == V_STR) {
    tl_dtype d;
    return tl__dtype_from_name(b->u.str.s, &d) && tl_dtype_eq(d, a->u.dt) && strlen(b->u.str.s) == b->u.str.n;
  }
  if (a->kind == V_STR && b->kind == V_DTYPE) return tl__py_equal(b, a);
  if (a->kind != b->kind) return false;
  switch ((tl__val_kind)a->kind) {
    case V_NONE: return true;
    case V_STR: return a->u.str.n == b->u.str.n && memcmp(a->u.str.s, b->u.str.s, a->u.str.n) == 0;
    case V_TUPLE:
      if (a->u.tup.n != b->u.tup.n) return false;
      for (uint32_t i = 0; i < a->u.tup.n; i++)
        if (!tl__py_equal(a->u.tup.items[i], b->u.tup.items[i])) return false;
      return true;
    default: return a == b;
  }
}

static const char *py_type(const tl__val *v) {
  switch ((tl__val_kind)v->kind) {
    case V_NONE: return "NoneType";
    case V_BOOL: return "bool";
    case V_INT: return "int";
    case V_FLOAT: return "float";
    case V_STR: return "str";
    case V_DTYPE: return "dtype";
    case V_TUPLE: return "tuple";
    default: return "value";
  }
}

static tl__val *bad_operands(tl__elab *E, tl__pos at, tl__ast_op op, const tl__val *a, const tl__val *b) {
  if (b)
    tl__elab_error(E, at, "unsupported operand types for %s: %s and %s", tl__ast_op_str(op), py_type(a), py_type(b));
  else
    tl__elab_error(E, at, "bad operand type for unary %s: %s", tl__ast_op_str(op), py_type(a));
  return NULL;
}

static tl__val *int_overflow(tl__elab *E, tl__pos at) {
  tl__elab_error(E, at, "integer overflow in a constant expression (values are limited to 64 bits)");
  return NULL;
}

/* Python's int arithmetic on int64, with overflow reported. */
static tl__val *int_binop(tl__elab *E, tl__pos at, tl__ast_op op, int64_t a, int64_t b) {
  int64_t r;
  switch (op) {
    case AOP_ADD: if (__builtin_add_overflow(a, b, &r)) return int_overflow(E, at); break;
    case AOP_SUB: if (__builtin_sub_overflow(a, b, &r)) return int_overflow(E, at); break;
    case AOP_MUL: if (__builtin_mul_overflow(a, b, &r)) return int_overflow(E, at); break;
    case AOP_DIV:
      if (b == 0) return tl__elab_error(E, at, "division by zero"), NULL;
      return tl__val_float(E, (double)a / (double)b);
    case AOP_FLOORDIV: case AOP_MOD: {
      if (b == 0) return tl__elab_error(E, at, "integer division or modulo by zero"), NULL;
      if (a == INT64_MIN && b == -1) {
        if (op == AOP_MOD) return tl__val_int(E, 0);
        return int_overflow(E, at);
      }
      int64_t q = a / b, m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) {
        q -= 1;
        m += b;
      }
      r = op == AOP_FLOORDIV ? q : m;
      break;
    }
    case AOP_POW: {
      if (b < 0) {
        if (a == 0) return tl__elab_error(E, at, "0 cannot be raised to a negative power"), NULL;
        return tl__val_float(E, pow((double)a, (double)b));
      }
      r = 1;
      int64_t base = a;
      while (b > 0) {
        if (b & 1 && __builtin_mul_overflow(r, base, &r)) return int_overflow(E, at);
        b >>= 1;
        if (b > 0 && __builtin_mul_overflow(base, base, &base)) return int_overflow(E, at);
      }
      break;
    }
    case AOP_LSHIFT:
      if (b < 0) return tl__elab_error(E, at, "negative shift count"), NULL;
      if (a == 0) { r = 0; break; }
      if (b >= 63) return int_overflow(E, at);
      r = (int64_t)((uint64_t)a << b);
      if ((r >> b) != a) return int_overflow(E, at);
      break;
    case AOP_RSHIFT:
      if (b < 0) return tl__elab_error(E, at, "negative shift count"), NULL;
      if (b >= 63) r = a < 0 ? -1 : 0;
      else r = a >= 0 ? a >> b : ~((~a) >> b);
      break;
    case AOP_BITAND: r = a & b; break;
    case AOP_BITOR: r = a | b; break;
    case AOP_BITXOR: r = a ^ b; break;
    case AOP_EQ: return tl__val_bool(E, a == b);
    case AOP_NE: return tl__val_bool(E, a != b);
    case AOP_LT: return tl__val_bool(E, a < b);
    case AOP_LE: return tl__val_bool(E, a <= b);
    case AOP_GT: return tl__val_bool(E, a > b);
    case AOP_GE: return tl__val_bool(E, a >= b);
    default: return NULL;
  }
  return tl__val_int(E, r);
}

static tl__val *float_binop(tl__elab *E, tl__pos at, tl__ast_op op, double a, double b) {
  switch (op) {
    case AOP_ADD: return tl__val_float(E, a + b);
    case AOP_SUB: return tl__val_float(E, a - b);
    case AOP_MUL: return tl__val_float(E, a * b);
    case AOP_DIV:
      if (b == 0) return tl__elab_error(E, at, "float division by zero"), NULL;
      return tl__val_float(E, a / b);
    case AOP_FLOORDIV: case AOP_MOD: {
      if (b == 0) return tl__elab_error(E, at, "float division or modulo by zero"), NULL;
      /* Python's float_divmod. */
      double mod = fmod(a, b), div = (a - mod) / b, fdiv;
      if (mod != 0) {
        if ((b < 0) != (mod < 0)) {
          mod += b;
          div -= 1.0;
        }
      } else {
        mod = copysign(0.0, b);
      }
      if (div != 0) {
        fdiv = floor(div);
        if (div - fdiv > 0.5) fdiv += 1.0;
      } else {
        fdiv = copysign(0.0, a / b);
      }
      return tl__val_float(E, op == AOP_MOD ? mod : fdiv);
    }
    case AOP_POW:
      if (a == 0 && b < 0) return tl__elab_error(E, at, "0.0 cannot be raised to a negative power"), NULL;
      return tl__val_float(E, pow(a, b));
    case AOP_EQ: return tl__val_bool(E, a == b);
    case AOP_NE: return tl__val_bool(E, a != b);
    case AOP_LT: return tl__val_bool(E, a < b);
    case AOP_LE: return tl__val_bool(E, a <= b);
    case AOP_GT: return tl__val_bool(E, a > b);
    case AOP_GE: return tl__val_bool(E, a >= b);
    default: return NULL;
  }
}

static int str_cmp(const tl__val *a, const tl__val *b) {
  size_t n = a->u.str.n < b->u.str.n ? a->u.str.n : b->u.str.n;
  int c = memcmp(a->u.str.s, b->u.str.s, n);
  if (c) return c;
  return a->u.str.n < b->u.str.n ? -1 : a->u.str.n > b->u.str.n;
}

tl__val *tl__py_binop(tl__elab *E, tl__pos at, tl__ast_op op, const tl__val *a, const tl__val *b) {
  if (op == AOP_EQ || op == AOP_NE) {
    if (!(is_num(a) && is_num(b))) {
      bool eq = tl__py_equal(a, b);
      return tl__val_bool(E, op == AOP_EQ ? eq : !eq);
    }
  }
  if (op == AOP_IS || op == AOP_ISNOT) {
    if (a->kind != V_NONE && b->kind != V_NONE && a->kind != V_BOOL && b->kind != V_BOOL) {
      tl__elab_error(E, at, "'%s' is only supported against None, True or False", tl__ast_op_str(op));
      return NULL;
    }
    bool same = a->kind == b->kind && tl__py_equal(a, b);
    return tl__val_bool(E, op == AOP_IS ? same : !same);
  }
  if (op == AOP_IN || op == AOP_NOTIN) {
    bool found = false;
    if (b->kind == V_TUPLE) {
      for (uint32_t i = 0; i < b->u.tup.n && !found; i++) found = tl__py_equal(a, b->u.tup.items[i]);
    } else if (b->kind == V_STR && a->kind == V_STR) {
      found = a->u.str.n == 0 || (a->u.str.n <= b->u.str.n && memmem(b->u.str.s, b->u.str.n, a->u.str.s, a->u.str.n));
    } else {
      return bad_operands(E, at, op, a, b);
    }
    return tl__val_bool(E, op == AOP_IN ? found : !found);
  }
  if (is_num(a) && is_num(b)) {
    if (a->kind == V_FLOAT || b->kind == V_FLOAT) {
      if (op >= AOP_LSHIFT && op <= AOP_BITXOR) return bad_operands(E, at, op, a, b);
      return float_binop(E, at, op, fval(a), fval(b));
    }
    tl__val *r = int_binop(E, at, op, ival(a), ival(b));
    /* bool & bool stays a bool in Python. */
    if (r && a->kind == V_BOOL && b->kind == V_BOOL && (op == AOP_BITAND || op == AOP_BITOR || op == AOP_BITXOR))
      return tl__val_bool(E, r->u.i != 0);
    return r;
  }
  if (a->kind == V_STR && b->kind == V_STR) {
    int c;
    switch (op) {
      case AOP_ADD: {
        tl__val *v = tl__val_new(E, V_STR);
        char *s = v ? tl__parse_alloc(E->p, a->u.str.n + b->u.str.n + 1) : NULL;
        if (!s) return NULL;
        memcpy(s, a->u.str.s, a->u.str.n);
        memcpy(s + a->u.str.n, b->u.str.s, b->u.str.n);
        v->u.str.s = s;
        v->u.str.n = a->u.str.n + b->u.str.n;
        return v;
      }
      case AOP_LT: c = str_cmp(a, b); return tl__val_bool(E, c < 0);
      case AOP_LE: c = str_cmp(a, b); return tl__val_bool(E, c <= 0);
      case AOP_GT: c = str_cmp(a, b); return tl__val_bool(E, c > 0);
      case AOP_GE: c = str_cmp(a, b); return tl__val_bool(E, c >= 0);
      default: break;
    }
  }
  if (a->kind == V_TUPLE && b->kind == V_TUPLE && op == AOP_ADD) {
    tl__val *v = tl__val_new(E, V_TUPLE);
    uint32_t n = a->u.tup.n + b->u.tup.n;
    tl__val **items = v && n ? tl__parse_alloc(E->p, sizeof *items * n) : NULL;
    if (!v || (n && !items)) return NULL;
    if (a->u.tup.n) memcpy(items, a->u.tup.items, sizeof *items * a->u.tup.n);
    if (b->u.tup.n) memcpy(items + a->u.tup.n, b->u.tup.items, sizeof *items * b->u.tup.n);
    v->u.tup.n = n;
    v->u.tup.items = items;
    return v;
  }
  return bad_operands(E, at, op, a, b);
}

tl__val *tl__py_unop(tl__elab *E, tl__pos at, tl__ast_op op, const tl__val *a) {
  if (op == AOP_NOT) return tl__val_bool(E, !tl__py_truth(a));
  if (!is_num(a)) return bad_operands(E, at, op, a, NULL);
  switch (op) {
    case AOP_POS: return a->kind == V_FLOAT ? tl__val_float(E, a->u.f) : tl__val_int(E, ival(a));
    case AOP_NEG:
      if (a->kind == V_FLOAT) return tl__val_float(E, -a->u.f);
      if (ival(a) == INT64_MIN) return int_overflow(E, at);
      return tl__val_int(E, -ival(a));
    case AOP_INVERT:
      if (a->kind == V_FLOAT) return bad_operands(E, at, op, a, NULL);
      return tl__val_int(E, ~ival(a));
    default: return NULL;
  }
}

/* ------------------------------------------------------------------ conversions */

bool tl__as_dtype(tl__elab *E, const tl__val *v, tl__pos at, tl_dtype *out) {
  if (v->kind == V_DTYPE) {
    *out = v->u.dt;
    return true;
  }
  if (v->kind == V_STR) {
    if (strlen(v->u.str.s) == v->u.str.n && tl__dtype_from_name(v->u.str.s, out)) return true;
    tl__elab_error(E, at, "unknown dtype '%s'", v->u.str.s);
    return false;
  }
  tl__elab_error(E, at, "expected a dtype (such as \"float16\" or T.float16), got %s", tl__val_describe(E, v));
  return false;
}

bool tl__as_int(tl__elab *E, const tl__val *v, tl__pos at, const char *what, int64_t *out) {
  if (v->kind == V_INT || v->kind == V_BOOL) {
    *out = ival(v);
    return true;
  }
  if (v->kind == V_EXPR && v->u.e->kind == TL_EXPR_INT && tl_dtype_is_int(v->u.e->dtype)) {
    *out = v->u.e->u.int_value;
    return true;
  }
  tl__elab_error(E, at, "%s must be a compile-time integer, got %s", what, tl__val_describe(E, v));
  return false;
}

bool tl__as_bool(tl__elab *E, const tl__val *v, tl__pos at, const char *what, bool *out) {
  if (v->kind == V_BOOL || v->kind == V_INT) {
    *out = ival(v) != 0;
    return true;
  }
  tl__elab_error(E, at, "%s must be True or False, got %s", what, tl__val_describe(E, v));
  return false;
}

/* Range of an integer dtype. */
static bool int_fits(tl_dtype t, int64_t v) {
  if (t.code == TL_DTYPE_BOOL) return v == 0 || v == 1;
  if (t.bits >= 64) return t.code == TL_DTYPE_INT || v >= 0;
  if (t.code == TL_DTYPE_UINT) return v >= 0 && v < ((int64_t)1 << t.bits);
  int64_t lim = (int64_t)1 << (t.bits - 1);
  return v >= -lim && v < lim;
}

tl_ir_expr *tl__to_ir(tl__elab *E, const tl__val *v, tl__pos at, const tl_dtype *want) {
  tl_ir_expr *e = NULL;
  tl__elab_at(E, at);
  switch ((tl__val_kind)v->kind) {
    case V_BOOL:
      if (want && want->lanes == 1 && tl_dtype_is_float(*want)) e = tl_ir_float(E->mod, *want, v->u.b);
      else if (want && want->lanes == 1 && tl_dtype_is_int(*want)) e = tl_ir_int(E->mod, *want, v->u.b);
      else e = tl_ir_bool(E->mod, v->u.b);
      break;
    case V_INT:
      if (want && want->lanes == 1 && tl_dtype_is_float(*want)) {
        e = tl_ir_float(E->mod, *want, (double)v->u.i);
      } else if (want && want->lanes == 1 && tl_dtype_is_int(*want)) {
        if (!int_fits(*want, v->u.i)) {
          char dt[32];
          tl__elab_error(E, at, "constant %lld does not fit in %s", (long long)v->u.i, tl_dtype_name(*want, dt, sizeof dt));
          return NULL;
        }
        e = tl_ir_int(E->mod, *want, v->u.i);
      } else {
        e = int_fits(TL_DT_INT32, v->u.i) ? tl_ir_i32(E->mod, v->u.i) : tl_ir_int(E->mod, TL_DT_INT64, v->u.i);
      }
      break;
    case V_FLOAT:
      /* One NaN (Python arithmetic can make others, e.g. -nan): it prints and reads back the same. */
      e = tl_ir_float(E->mod, want && want->lanes == 1 && tl_dtype_is_float(*want) ? *want : TL_DT_FLOAT32,
                      isnan(v->u.f) ? NAN : v->u.f);
      break;
    case V_EXPR: return v->u.e;
    case V_VAR:
      if (E->fn && E->fn->in_params) {
        /* A T.const or local T.symbolic dimension mentioned by a parameter's shape. */
        for (size_t i = 0; i < E->fn->syms.len; i++) {
          tl__symvar *s = tl__vec_at(&E->fn->syms, i);
          if (s->var == v->u.var) s->in_shape = true;
        }
      }
      tl__elab_at(E, at);
      e = tl_ir_var_ref(E->mod, v->u.var);
      break;
    case V_VARSLOT: e = tl_ir_load(E->mod, v->u.buf, 0, NULL); break;
    case V_SYMBOLIC: {
      tl_ir_var *var = tl__sym_var(E, v, at);
      if (!var) return NULL;
      tl__elab_at(E, at);
      e = tl_ir_var_ref(E->mod, var);
      break;
    }
    case V_DTYPE: {
      char dt[32];
      const char *n = tl_dtype_name(v->u.dt, dt, sizeof dt);
      tl__elab_error(E, at, "dtype %s is not a value (a constant of it is written T.%s(x))", n, n);
      return NULL;
    }
    case V_BUFFER:
      tl__elab_error(E, at, "buffer '%s' is not a scalar value; index it (%s[i])", v->u.buf->name, v->u.buf->name);
      return NULL;
    case V_OPAQUE:
      tl__elab_error(E, at, "%s cannot be used in a kernel", v->u.opaque);
      return NULL;
    default:
      tl__elab_error(E, at, "%s cannot be used as a value here", tl__val_describe(E, v));
      return NULL;
  }
  if (!e) tl__elab_builder_failed(E);
  return e;
}

tl_ir_expr *tl__to_index(tl__elab *E, const tl__val *v, tl__pos at, const char *what) {
  const tl_dtype i32 = TL_DT_INT32;
  tl_ir_expr *e = tl__to_ir(E, v, at, &i32);
  if (!e) return NULL;
  if (e->dtype.lanes != 1 || !(tl_dtype_is_int(e->dtype) || tl_dtype_is_bool(e->dtype))) {
    char dt[32];
    tl__elab_error(E, at, "%s must be an integer, got %s", what, tl_dtype_name(e->dtype, dt, sizeof dt));
    return NULL;
  }
  if (tl_dtype_eq(e->dtype, i32)) return e;
  tl__elab_at(E, at);
  e = tl_ir_cast(E->mod, i32, e);
  if (!e) tl__elab_builder_failed(E);
  return e;
}

tl_ir_expr *tl__to_dtype(tl__elab *E, const tl__val *v, tl__pos at, tl_dtype dt) {
  tl_ir_expr *e = tl__to_ir(E, v, at, &dt);
  if (!e || tl_dtype_eq(e->dtype, dt)) return e;
  tl__elab_at(E, at);
  e = tl_ir_cast(E->mod, dt, e);
  if (!e) tl__elab_builder_failed(E);
  return e;
}

tl_ir_expr *tl__to_cond(tl__elab *E, const tl__val *v, tl__pos at) {
  tl_ir_expr *e = tl__to_ir(E, v, at, NULL);
  if (!e) return NULL;
  if (tl_dtype_is_bool(e->dtype)) return e;
  if (e->dtype.lanes != 1 || !(tl_dtype_is_int(e->dtype) || tl_dtype_is_float(e->dtype))) {
    char dt[32];
    tl__elab_error(E, at, "a condition must be a boolean, got %s", tl_dtype_name(e->dtype, dt, sizeof dt));
    return NULL;
  }
  tl__elab_at(E, at);
  tl_ir_expr *zero = tl_dtype_is_float(e->dtype) ? tl_ir_float(E->mod, e->dtype, 0) : tl_ir_int(E->mod, e->dtype, 0);
  e = tl_ir_binary(E->mod, TL_BIN_NE, e, zero);
  if (!e) tl__elab_builder_failed(E);
  return e;
}

static tl_ir_expr *cast_to(tl__elab *E, tl__pos at, tl_ir_expr *e, tl_dtype t) {
  if (tl_dtype_eq(e->dtype, t)) return e;
  tl__elab_at(E, at);
  tl_ir_expr *c = tl_ir_cast(E->mod, t, e);
  if (!c) tl__elab_builder_failed(E);
  return c;
}

bool tl__promote(tl__elab *E, tl__pos at, tl_ir_expr **a, tl_ir_expr **b) {
  tl_dtype ta = (*a)->dtype, tb = (*b)->dtype;
  if (tl_dtype_eq(ta, tb)) return true;
  char na[32], nb[32];
  if (ta.lanes != tb.lanes || ta.code == TL_DTYPE_HANDLE || tb.code == TL_DTYPE_HANDLE) {
    tl__elab_error(E, at, "cannot combine %s and %s", tl_dtype_name(ta, na, sizeof na), tl_dtype_name(tb, nb, sizeof nb));
    return false;
  }
  tl_dtype t;
  if (tl_dtype_is_bool(ta)) t = tb;
  else if (tl_dtype_is_bool(tb)) t = ta;
  else if (tl_dtype_is_float(ta) && !tl_dtype_is_float(tb)) t = ta;
  else if (tl_dtype_is_float(tb) && !tl_dtype_is_float(ta)) t = tb;
  else if (tl_dtype_is_float(ta)) {
    /* float16 with bfloat16 meets in float32; otherwise the wider one. */
    if (ta.bits == tb.bits) t = tl_dtype_with_lanes(TL_DT_FLOAT32, ta.lanes);
    else t = ta.bits > tb.bits ? ta : tb;
  } else {
    if (ta.bits == tb.bits) {
      tl__elab_error(E, at, "cannot combine %s and %s (cast one side with T.Cast)", tl_dtype_name(ta, na, sizeof na),
               tl_dtype_name(tb, nb, sizeof nb));
      return false;
    }
    t = ta.bits > tb.bits ? ta : tb;
  }
  *a = cast_to(E, at, *a, t);
  *b = cast_to(E, at, *b, t);
  return *a && *b;
}

/* The IR operator of a Python operator. */
static bool ir_binop(tl__ast_op op, tl_ir_binop *out) {
  static const struct { tl__ast_op a; tl_ir_binop b; } map[] = {
    {AOP_ADD, TL_BIN_ADD}, {AOP_SUB, TL_BIN_SUB}, {AOP_MUL, TL_BIN_MUL}, {AOP_DIV, TL_BIN_DIV},
    {AOP_FLOORDIV, TL_BIN_FLOORDIV}, {AOP_MOD, TL_BIN_FLOORMOD}, {AOP_EQ, TL_BIN_EQ}, {AOP_NE, TL_BIN_NE},
    {AOP_LT, TL_BIN_LT}, {AOP_LE, TL_BIN_LE}, {AOP_GT, TL_BIN_GT}, {AOP_GE, TL_BIN_GE},
    {AOP_AND, TL_BIN_AND}, {AOP_OR, TL_BIN_OR}, {AOP_BITAND, TL_BIN_BITAND}, {AOP_BITOR, TL_BIN_BITOR},
    {AOP_BITXOR, TL_BIN_BITXOR}, {AOP_LSHIFT, TL_BIN_SHL}, {AOP_RSHIFT, TL_BIN_SHR},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (map[i].a == op) {
      *out = map[i].b;
      return true;
    }
  return false;
}

/* The type a Python number takes next to an IR operand of type t. */
static tl_dtype adopt_type(const tl__val *py, tl_dtype t) {
  if (py->kind == V_FLOAT && !tl_dtype_is_float(t)) return TL_DT_FLOAT32;
  if (py->kind == V_BOOL) return TL_DT_BOOL;
  return t;
}

tl__val *tl__binop(tl__elab *E, const tl__ast_expr *at_e, tl__ast_op op, tl__val *a, tl__val *b) {
  tl__pos at = POS(at_e);
  if (tl__val_is_py(a) && tl__val_is_py(b)) return tl__py_binop(E, at, op, a, b);
  if (op == AOP_IN || op == AOP_NOTIN || op == AOP_IS || op == AOP_ISNOT) {
    tl__elab_error(E, at, "'%s' is not supported on run-time values", tl__ast_op_str(op));
    return NULL;
  }
  if ((tl__val_is_py(a) && !(a->kind == V_INT || a->kind == V_FLOAT || a->kind == V_BOOL)) ||
      (tl__val_is_py(b) && !(b->kind == V_INT || b->kind == V_FLOAT || b->kind == V_BOOL))) {
    const tl__val *bad = tl__val_is_py(a) ? a : b;
    tl__elab_error(E, at, "unsupported operand for %s: %s", tl__ast_op_str(op), tl__val_describe(E, bad));
    return NULL;
  }
  tl_ir_expr *ea, *eb;
  if (tl__val_is_py(a)) {
    eb = tl__to_ir(E, b, at, NULL);
    if (!eb) return NULL;
    tl_dtype t = adopt_type(a, eb->dtype);
    ea = tl__to_ir(E, a, at, &t);
  } else {
    ea = tl__to_ir(E, a, at, NULL);
    if (!ea) return NULL;
    tl_dtype t = tl__val_is_py(b) ? adopt_type(b, ea->dtype) : ea->dtype;
    eb = tl__to_ir(E, b, at, tl__val_is_py(b) ? &t : NULL);
  }
  if (!ea || !eb) return NULL;
  if (!tl__promote(E, at, &ea, &eb)) return NULL;
  tl_dtype t = ea->dtype;
  char dt[32];
  bool is_int = tl_dtype_is_int(t), is_float = tl_dtype_is_float(t), is_bool = tl_dtype_is_bool(t);
  tl__elab_at(E, at);
  switch (op) {
    case AOP_POW:
      if (!is_float) {
        tl__elab_error(E, at, "'**' on %s expressions is not supported (T.pow works on floats)", tl_dtype_name(t, dt, sizeof dt));
        return NULL;
      } else {
        tl_ir_expr *args[2] = {ea, eb};
        return tl__val_expr(E, tl_ir_call(E->mod, TL_OP_POW, t, 2, args));
      }
    case AOP_DIV:
      if (!is_float) {
        tl__elab_error(E, at, "'/' on integer expressions is ambiguous: use '//' (floor division) or T.truncdiv");
        return NULL;
      }
      break;
    case AOP_LSHIFT: case AOP_RSHIFT:
      if (!is_int) {
        tl__elab_error(E, at, "'%s' needs integer operands, got %s", tl__ast_op_str(op), tl_dtype_name(t, dt, sizeof dt));
        return NULL;
      }
      break;
    case AOP_BITAND: case AOP_BITOR: case AOP_BITXOR:
      if (!is_int && !is_bool) {
        tl__elab_error(E, at, "'%s' needs integer or boolean operands, got %s", tl__ast_op_str(op), tl_dtype_name(t, dt, sizeof dt));
        return NULL;
      }
      break;
    case AOP_ADD: case AOP_SUB: case AOP_MUL: case AOP_FLOORDIV: case AOP_MOD:
      if (is_bool) {
        tl__elab_error(E, at, "arithmetic on booleans is not supported (cast with T.Cast first)");
        return NULL;
      }
      break;
    default: break;
  }
  tl_ir_binop bop;
  if (!ir_binop(op, &bop)) {
    tl__elab_error(E, at, "operator '%s' is not supported here", tl__ast_op_str(op));
    return NULL;
  }
  /* On booleans (mask = (i < n) & (j >= 0)), &, | and ^ are the logical
   * operations, as TVM makes them: the IR's bitwise ones take integers. */
  if (is_bool && op == AOP_BITAND) bop = TL_BIN_AND;
  if (is_bool && op == AOP_BITOR) bop = TL_BIN_OR;
  if (is_bool && op == AOP_BITXOR) bop = TL_BIN_NE;
  return tl__val_expr(E, tl_ir_binary(E->mod, bop, ea, eb));
}

bool tl__shape(tl__elab *E, const tl__val *v, tl__pos at, uint32_t *ndim, tl_ir_expr ***shape) {
  uint32_t n = v->kind == V_TUPLE ? v->u.tup.n : 1;
  if (n == 0) {
    tl__elab_error(E, at, "a shape needs at least one dimension");
    return false;
  }
  if (v->kind != V_TUPLE && !(v->kind == V_INT || v->kind == V_EXPR || v->kind == V_VAR || v->kind == V_SYMBOLIC)) {
    tl__elab_error(E, at, "expected a shape (a tuple of dimensions), got %s", tl__val_describe(E, v));
    return false;
  }
  tl_ir_expr **sh = tl__parse_alloc(E->p, sizeof *sh * n);
  if (!sh) return false;
  for (uint32_t i = 0; i < n; i++) {
    const tl__val *d = v->kind == V_TUPLE ? v->u.tup.items[i] : v;
    if (d->kind == V_INT && d->u.i < 0) {
      tl__elab_error(E, at, "dimension %u of the shape is negative (%lld)", i, (long long)d->u.i);
      return false;
    }
    sh[i] = tl__to_index(E, d, at, "a dimension");
    if (!sh[i]) return false;
  }
  *ndim = n;
  *shape = sh;
  return true;
}
