/* simplify: constant folding, algebraic identities and bound-aware decisions.
 *
 * Expressions are rewritten bottom-up:
 *   - constants fold in every dtype with the interpreter's arithmetic: integers
 *     wrap to their width, floats are computed in double from operands rounded to
 *     their type and rounded once to it (float16/bfloat16 to nearest even, as
 *     fp16.h), casts follow C; folds that would trap at run time (division by
 *     zero, an out-of-range float-to-int conversion) or produce a NaN are left;
 *   - integer identities: x+0, x-0, x*1, x*0, x//1, x%1, x-x, min/max(x, x),
 *     constant chains ((x+1)+2, (x*2)*4), floordiv/floormod whose dividend the
 *     bounds keep within one period of the divisor, (x*c + y)//c and %c;
 *   - float identities that are exact for every input, NaN and -0.0 included:
 *     x*1, x/1, x-0.0; never x+0.0 (-0.0 + 0.0 is +0.0) or x*0;
 *   - comparisons, selects and conditions decided by the interval analysis
 *     (bounds.h) over loop variables, lets, block indices and symbolic dims.
 * Statements: ifs with decided conditions, loops that never run, unit-extent
 * serial loops (their variable replaced by the start), lets of constants and
 * variables (inlined), asserts that always hold, empty statements and nested
 * sequences without allocations are removed. The block loop of a CPU kernel (the
 * only parallel loop) is kept even when its extent is 1. */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/fp16.h"
#include "transform/bounds.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct simp {
  tl__bounds b;
} simp;

/* ------------------------------------------------------------- constants */

static double round_to(tl_dtype t, double x) {
  if (t.code == TL_DTYPE_BFLOAT) return tl__round_bf16(x);
  if (t.bits == 16) return tl__round_f16(x);
  if (t.bits == 32) return (double)(float)x;
  return x;
}

static bool is_float_const(const tl_ir_expr *e, double *v) {
  if (!e || e->kind != TL_EXPR_FLOAT) return false;
  *v = round_to(e->dtype, e->u.float_value);
  return true;
}

static bool is_float_value(const tl_ir_expr *e, double v) {
  double x;
  return is_float_const(e, &x) && x == v && signbit(x) == signbit(v);
}

static bool is_bool_const(const tl_ir_expr *e, bool *v) {
  if (!e || e->kind != TL_EXPR_INT || !tl_dtype_is_bool(e->dtype)) return false;
  *v = e->u.int_value != 0;
  return true;
}

static double fmax_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : (a > b ? a : b); }
static double fmin_nan(double a, double b) { return isnan(a) || isnan(b) ? NAN : (a < b ? a : b); }

/* Floating-point a op b folded in dtype t (false: leave it). */
static tl_ir_expr *fold_float(tl_ir_module *mod, tl_ir_binop op, tl_dtype t, double a, double b) {
  double r;
  switch (op) {
  case TL_BIN_ADD: r = a + b; break;
  case TL_BIN_SUB: r = a - b; break;
  case TL_BIN_MUL: r = a * b; break;
  case TL_BIN_DIV: r = a / b; break;
  case TL_BIN_MIN: r = fmin_nan(a, b); break;
  case TL_BIN_MAX: r = fmax_nan(a, b); break;
  case TL_BIN_EQ: return tl_ir_bool(mod, a == b);
  case TL_BIN_NE: return tl_ir_bool(mod, a != b);
  case TL_BIN_LT: return tl_ir_bool(mod, a < b);
  case TL_BIN_LE: return tl_ir_bool(mod, a <= b);
  case TL_BIN_GT: return tl_ir_bool(mod, a > b);
  case TL_BIN_GE: return tl_ir_bool(mod, a >= b);
  default: return NULL;
  }
  r = round_to(t, r);
  if (isnan(r)) return NULL;
  return tl_ir_float(mod, t, r);
}

/* Integer a op b folded in dtype t; *ok false when it must stay (traps, or an
 * unsigned 64-bit comparison or division the signed storage cannot express). */
static int64_t fold_int(tl_ir_binop op, tl_dtype t, int64_t a, int64_t b, bool *ok) {
  bool u64 = t.code == TL_DTYPE_UINT && t.bits >= 64;
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  *ok = true;
  switch (op) {
  case TL_BIN_ADD: return tl__wrap_int(t, (int64_t)(ua + ub));
  case TL_BIN_SUB: return tl__wrap_int(t, (int64_t)(ua - ub));
  case TL_BIN_MUL: return tl__wrap_int(t, (int64_t)(ua * ub));
  case TL_BIN_BITAND: return tl__wrap_int(t, a & b);
  case TL_BIN_BITOR: return tl__wrap_int(t, a | b);
  case TL_BIN_BITXOR: return tl__wrap_int(t, a ^ b);
  case TL_BIN_AND: return a && b;
  case TL_BIN_OR: return a || b;
  default: break;
  }
  if (u64) {
    *ok = false;
    return 0;
  }
  switch (op) {
  case TL_BIN_DIV:
  case TL_BIN_FLOORDIV:
  case TL_BIN_FLOORMOD: {
    if (b == 0 || (a == INT64_MIN && b == -1)) break;
    int64_t q = a / b, r = a % b;
    if (op != TL_BIN_DIV && r != 0 && ((r < 0) != (b < 0))) {
      q -= 1;
      r += b;
    }
    return tl__wrap_int(t, op == TL_BIN_FLOORMOD ? r : q);
  }
  case TL_BIN_MIN: return a < b ? a : b;
  case TL_BIN_MAX: return a > b ? a : b;
  case TL_BIN_EQ: return a == b;
  case TL_BIN_NE: return a != b;
  case TL_BIN_LT: return a < b;
  case TL_BIN_LE: return a <= b;
  case TL_BIN_GT: return a > b;
  case TL_BIN_GE: return a >= b;
  case TL_BIN_SHL:
    if (b < 0 || b >= t.bits) break;
    return tl__wrap_int(t, (int64_t)(ua << b));
  case TL_BIN_SHR:
    if (b < 0 || b >= t.bits || a < 0) break;
    return a >> b;
  default: break;
  }
  *ok = false;
  return 0;
}

static bool is_comparison(tl_ir_binop op) { return op >= TL_BIN_EQ && op <= TL_BIN_GE; }

/* --------------------------------------------------------- integer rules */

/* floordiv/floormod(x, c) with x known to lie in [k*c, (k+1)*c - 1]: k / x - k*c. */
static tl_ir_expr *div_in_period(simp *s, tl_ir_module *mod, tl_ir_expr *e, tl_ir_expr *x, int64_t c) {
  tl__interval iv = tl__bounds_of(&s->b, x);
  if (c <= 0 || iv.lo == INT64_MIN || iv.hi == INT64_MAX) return NULL;
  int64_t k = iv.lo / c - (iv.lo % c != 0 && iv.lo < 0);
  int64_t k2 = iv.hi / c - (iv.hi % c != 0 && iv.hi < 0);
  if (k != k2) return NULL;
  if (e->u.binary.op == TL_BIN_FLOORDIV || e->u.binary.op == TL_BIN_DIV) {
    if (e->u.binary.op == TL_BIN_DIV && iv.lo < 0) return NULL;
    return tl__int_like(mod, e, k);
  }
  return k == 0 ? x : tl__sub(mod, x, tl__int_like(mod, e, k * c));
}

/* (x*c + y) // c -> x + y // c and (x*c + y) % c -> y % c, when y in [0, c) and
 * nothing wraps; also x*c // c -> x and x*c % c -> 0. */
static tl_ir_expr *div_of_scaled(simp *s, tl_ir_module *mod, tl_ir_expr *e, tl_ir_expr *x, int64_t c) {
  tl_ir_binop op = e->u.binary.op;
  if (c <= 0 || (op != TL_BIN_FLOORDIV && op != TL_BIN_FLOORMOD)) return NULL;
  tl_ir_expr *scaled = NULL, *rest = NULL;
  int64_t k;
  if (x->kind == TL_EXPR_BINARY && x->u.binary.op == TL_BIN_MUL && tl__is_const_int(x->u.binary.b, &k) && k == c) {
    scaled = x->u.binary.a;
  } else if (x->kind == TL_EXPR_BINARY && x->u.binary.op == TL_BIN_ADD) {
    tl_ir_expr *p = x->u.binary.a;
    if (p->kind == TL_EXPR_BINARY && p->u.binary.op == TL_BIN_MUL && tl__is_const_int(p->u.binary.b, &k) && k == c) {
      scaled = p->u.binary.a;
      rest = x->u.binary.b;
    }
  }
  if (!scaled) return NULL;
  /* Exact only when x itself cannot wrap: its interval must be its true value. */
  int64_t lo, hi;
  tl__dtype_range(x->dtype, &lo, &hi);
  tl__interval ix = tl__bounds_of(&s->b, x);
  if (ix.lo == lo || ix.hi == hi) return NULL;
  if (rest) {
    tl__interval ir = tl__bounds_of(&s->b, rest);
    if (ir.lo < 0 || ir.hi >= c) return NULL;
    return op == TL_BIN_FLOORDIV ? scaled : rest;
  }
  return op == TL_BIN_FLOORDIV ? scaled : tl__int_like(mod, e, 0);
}

/* r, unless it is e rebuilt unchanged (so an unchanged tree keeps its nodes). */
static tl_ir_expr *unless_same(tl_ir_expr *e, tl_ir_expr *r) {
  if (r && r->kind == TL_EXPR_BINARY && r->u.binary.op == e->u.binary.op && r->u.binary.a == e->u.binary.a &&
      r->u.binary.b == e->u.binary.b)
    return e;
  return r;
}

static tl_ir_expr *simplify_int_binary(simp *s, tl_ir_module *mod, tl_ir_expr *e) {
  tl_ir_expr *x = e->u.binary.a, *y = e->u.binary.b;
  int64_t c;
  bool yc = tl__is_const_int(y, &c);
  switch (e->u.binary.op) {
  case TL_BIN_ADD: return unless_same(e, tl__add(mod, x, y));
  case TL_BIN_SUB: return unless_same(e, tl__sub(mod, x, y));
  case TL_BIN_MUL: return unless_same(e, tl__mul(mod, x, y));
  case TL_BIN_DIV:
  case TL_BIN_FLOORDIV:
  case TL_BIN_FLOORMOD: {
    if (yc && c == 1) return e->u.binary.op == TL_BIN_FLOORMOD ? tl__int_like(mod, e, 0) : x;
    if (!yc || tl_dtype_is_bool(e->dtype)) return e;
    tl_ir_expr *r = div_in_period(s, mod, e, x, c);
    if (!r) r = div_of_scaled(s, mod, e, x, c);
    return r ? r : e;
  }
  case TL_BIN_MIN:
  case TL_BIN_MAX: {
    if (tl__expr_same(x, y)) return x;
    bool is_min = e->u.binary.op == TL_BIN_MIN;
    if (tl__bounds_prove_le(&s->b, x, y)) return is_min ? x : y;
    if (tl__bounds_prove_le(&s->b, y, x)) return is_min ? y : x;
    return e;
  }
  default: return e;
  }
}

/* ------------------------------------------------------------ expressions */

static tl_ir_expr *simplify_binary(simp *s, tl_ir_module *mod, tl_ir_expr *e) {
  tl_ir_binop op = e->u.binary.op;
  tl_ir_expr *x = e->u.binary.a, *y = e->u.binary.b;
  tl_dtype t = x->dtype;
  if (t.lanes != 1) return e;
  int64_t a, b;
  double fa, fb;
  bool ba, bb;
  if (tl__is_const_int(x, &a) && tl__is_const_int(y, &b)) {
    bool ok;
    int64_t r = fold_int(op, t, a, b, &ok);
    if (ok) return is_comparison(op) ? tl_ir_bool(mod, r != 0) : tl_ir_int(mod, e->dtype, r);
  }
  if (is_float_const(x, &fa) && is_float_const(y, &fb)) {
    tl_ir_expr *r = fold_float(mod, op, t, fa, fb);
    if (r) return r;
  }
  if (op == TL_BIN_AND || op == TL_BIN_OR) {
    bool is_and = op == TL_BIN_AND;
    /* `x and true` is x; `false and x` is false; x has no side effects. */
    if (is_bool_const(x, &ba)) return ba == is_and ? y : x;
    if (is_bool_const(y, &bb)) return bb == is_and ? x : y;
    if (tl__expr_same(x, y)) return x;
  }
  if (is_comparison(op) && (tl_dtype_is_int(t) || tl_dtype_is_bool(t))) {
    bool v;
    if (tl__expr_same(x, y)) return tl_ir_bool(mod, op == TL_BIN_EQ || op == TL_BIN_LE || op == TL_BIN_GE);
    if (tl__bounds_decide(&s->b, e, &v)) return tl_ir_bool(mod, v);
    return e;
  }
  if (op == TL_BIN_AND || op == TL_BIN_OR) {
    bool v;
    if (tl__bounds_decide(&s->b, e, &v)) return tl_ir_bool(mod, v);
    return e;
  }
  if (tl_dtype_is_int(t)) return simplify_int_binary(s, mod, e);
  if (tl_dtype_is_float(t)) {
    if ((op == TL_BIN_MUL || op == TL_BIN_DIV) && is_float_value(y, 1.0)) return x;
    if (op == TL_BIN_MUL && is_float_value(x, 1.0)) return y;
    if (op == TL_BIN_SUB && is_float_value(y, 0.0)) return x;
  }
  return e;
}

static tl_ir_expr *simplify_unary(tl_ir_module *mod, tl_ir_expr *e) {
  tl_ir_expr *x = e->u.unary.a;
  int64_t a;
  double f;
  if (x->dtype.lanes != 1) return e;
  if (x->kind == TL_EXPR_UNARY && x->u.unary.op == e->u.unary.op) return x->u.unary.a; /* --x, not not x, ~~x */
  switch (e->u.unary.op) {
  case TL_UN_NEG:
    if (tl__is_const_int(x, &a) && !(x->dtype.code == TL_DTYPE_UINT && x->dtype.bits >= 64))
      return tl_ir_int(mod, x->dtype, tl__wrap_int(x->dtype, (int64_t)(0 - (uint64_t)a)));
    if (is_float_const(x, &f)) return tl_ir_float(mod, x->dtype, -f);
    return e;
  case TL_UN_NOT:
    if (tl__is_const_int(x, &a)) return tl_ir_bool(mod, a == 0);
    return e;
  case TL_UN_BITNOT:
    if (tl__is_const_int(x, &a)) return tl_ir_int(mod, x->dtype, tl__wrap_int(x->dtype, ~a));
    return e;
  }
  return e;
}

static tl_ir_expr *simplify_cast(tl_ir_module *mod, tl_ir_expr *e) {
  tl_ir_expr *x = e->u.cast.value;
  tl_dtype to = e->dtype, from = x->dtype;
  if (tl_dtype_eq(to, from)) return x;
  if (to.lanes != 1) return e;
  int64_t a;
  double f;
  if (tl__is_const_int(x, &a)) {
    if (from.code == TL_DTYPE_UINT && from.bits >= 64 && a < 0) return e; /* above INT64_MAX */
    if (tl_dtype_is_int(to) || tl_dtype_is_bool(to)) return tl_ir_int(mod, to, tl__wrap_int(to, a));
    if (tl_dtype_is_float(to)) return tl_ir_float(mod, to, round_to(to, (double)a));
    return e;
  }
  if (is_float_const(x, &f)) {
    if (tl_dtype_is_bool(to)) return isnan(f) ? e : tl_ir_bool(mod, f != 0.0);
    if (tl_dtype_is_float(to)) {
      double r = round_to(to, f);
      return isnan(r) ? e : tl_ir_float(mod, to, r);
    }
    if (tl_dtype_is_int(to) && !isnan(f)) {
      double tr = trunc(f);
      int64_t lo, hi;
      tl__dtype_range(to, &lo, &hi);
      /* Only values certainly in range: C leaves the others undefined. */
      if (tr >= -9.2e18 && tr <= 9.2e18 && (int64_t)tr >= lo && (int64_t)tr <= hi) return tl_ir_int(mod, to, (int64_t)tr);
    }
  }
  return e;
}

static tl_ir_expr *simplify_call(tl_ir_module *mod, tl_ir_expr *e) {
  tl_ir_op op = e->u.call.op;
  tl_ir_expr *const *args = e->u.call.args;
  int64_t a, b;
  double f;
  if (e->dtype.lanes != 1) return e;
  switch (op) {
  case TL_OP_CEILDIV:
    if (e->u.call.nargs != 2) return e;
    if (tl__is_int(args[1], 1)) return args[0];
    if (tl__is_const_int(args[0], &a) && tl__is_const_int(args[1], &b) && b != 0 &&
        e->dtype.code == TL_DTYPE_INT && !(a == INT64_MIN && b == -1)) {
      int64_t q = a / b, r = a % b;
      if (r != 0 && ((r > 0) == (b > 0))) q += 1;
      return tl_ir_int(mod, e->dtype, tl__wrap_int(e->dtype, q));
    }
    return e;
  case TL_OP_ABS:
    if (e->u.call.nargs != 1) return e;
    if (tl__is_const_int(args[0], &a) && e->dtype.code == TL_DTYPE_INT)
      return tl_ir_int(mod, e->dtype, tl__wrap_int(e->dtype, a < 0 ? (int64_t)(0 - (uint64_t)a) : a));
    if (is_float_const(args[0], &f)) return tl_ir_float(mod, e->dtype, fabs(f));
    return e;
  case TL_OP_FLOOR:
  case TL_OP_CEIL:
  case TL_OP_TRUNC:
  case TL_OP_ROUND:
    if (e->u.call.nargs != 1 || !is_float_const(args[0], &f) || isnan(f)) return e;
    f = op == TL_OP_FLOOR ? floor(f) : op == TL_OP_CEIL ? ceil(f) : op == TL_OP_TRUNC ? trunc(f) : round(f);
    return tl_ir_float(mod, e->dtype, round_to(e->dtype, f));
  default: return e;
  }
}

static tl_ir_expr *simplify_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  simp *s = mu->ctx;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  tl_ir_span old = tl__loc_push(mu->mod, e->span);
  tl_ir_expr *r = e;
  switch (e->kind) {
  case TL_EXPR_BINARY: r = simplify_binary(s, mu->mod, e); break;
  case TL_EXPR_UNARY: r = simplify_unary(mu->mod, e); break;
  case TL_EXPR_CAST: r = simplify_cast(mu->mod, e); break;
  case TL_EXPR_CALL: r = simplify_call(mu->mod, e); break;
  case TL_EXPR_SELECT: {
    bool c;
    if (tl__bounds_decide(&s->b, e->u.select.cond, &c)) r = c ? e->u.select.t : e->u.select.f;
    else if (tl__expr_same(e->u.select.t, e->u.select.f)) r = e->u.select.t;
    break;
  }
  default: break;
  }
  tl_ir_builder_set_loc(mu->mod, old);
  return r;
}

/* ------------------------------------------------------------- statements */

typedef struct shape_use {
  const tl_ir_var *const *vars;
  uint32_t n;
  bool found;
} shape_use;

static bool shape_use_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  shape_use *u = v->ctx;
  for (uint32_t i = 0; e->kind == TL_EXPR_VAR && i < u->n; i++)
    if (e->u.var == u->vars[i]) u->found = true;
  return !u->found;
}

static bool shape_use_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  shape_use *u = v->ctx;
  if (s->kind == TL_STMT_ALLOC && s->u.alloc.buffer) {
    const tl_ir_buffer *b = s->u.alloc.buffer;
    tl_ir_visitor sv = {shape_use_expr, NULL, u};
    for (uint32_t d = 0; d < b->ndim && !u->found; d++) {
      tl_ir_visit_expr(&sv, b->shape[d]);
      if (b->strides) tl_ir_visit_expr(&sv, b->strides[d]);
    }
  }
  return !u->found;
}

/* True if a buffer allocated in s has one of the variables in its shape:
 * substitution leaves shapes alone, so such a variable must keep its definition. */
static bool used_in_alloc_shapes(const tl_ir_stmt *s, const tl_ir_var *const *vars, uint32_t n) {
  shape_use u = {vars, n, false};
  tl_ir_visitor v = {NULL, shape_use_stmt, &u};
  tl_ir_visit_stmt(&v, s);
  return u.found;
}

static bool is_empty(const tl_ir_stmt *s) { return s->kind == TL_STMT_SEQ && s->u.seq.n == 0; }

static tl_ir_stmt *empty(tl_ir_mutator *mu, const tl_ir_stmt *at) {
  tl_ir_span old = tl__loc_push(mu->mod, at->span);
  tl_ir_stmt *r = tl_ir_seq(mu->mod, 0, NULL);
  tl_ir_builder_set_loc(mu->mod, old);
  return r;
}

static bool seq_has_alloc(const tl_ir_stmt *s) {
  for (uint32_t i = 0; i < s->u.seq.n; i++)
    if (s->u.seq.stmts[i]->kind == TL_STMT_ALLOC) return true;
  return false;
}

/* Sequences: empty members dropped, nested sequences without allocations (whose
 * scope is not theirs to end) spliced in, a single non-allocating member unwrapped. */
static tl_ir_stmt *simplify_seq(tl_ir_mutator *mu, tl_ir_stmt *s) {
  tl_ir_stmt *in = tl_ir_mutate_stmt_children(mu, s);
  if (!in) return NULL;
  uint32_t n = 0;
  bool changed = in != s;
  for (uint32_t i = 0; i < in->u.seq.n; i++) {
    const tl_ir_stmt *x = in->u.seq.stmts[i];
    if (x->kind == TL_STMT_SEQ && !seq_has_alloc(x)) {
      n += x->u.seq.n;
      changed = true;
    } else {
      n++;
    }
  }
  if (n == 1 && in->u.seq.n == 1 && in->u.seq.stmts[0]->kind != TL_STMT_ALLOC &&
      !(in->u.seq.stmts[0]->kind == TL_STMT_SEQ && seq_has_alloc(in->u.seq.stmts[0])))
    return in->u.seq.stmts[0];
  if (!changed) return in;
  tl_ir_stmt **items = tl__malloc(sizeof *items * (n ? n : 1));
  if (!items) {
    tl_ir_mutator_fail(mu, tl__oom());
    return NULL;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < in->u.seq.n; i++) {
    tl_ir_stmt *x = in->u.seq.stmts[i];
    if (x->kind == TL_STMT_SEQ && !seq_has_alloc(x))
      for (uint32_t j = 0; j < x->u.seq.n; j++) items[k++] = x->u.seq.stmts[j];
    else
      items[k++] = x;
  }
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_stmt *r = k == 1 && items[0]->kind != TL_STMT_ALLOC ? items[0] : tl_ir_seq(mu->mod, k, items);
  tl_ir_builder_set_loc(mu->mod, old);
  tl__free(items);
  return r;
}

static tl_ir_stmt *simplify_if(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simp *sp = mu->ctx;
  tl_ir_expr *cond = tl_ir_mutate_expr(mu, s->u.if_.cond);
  if (!cond) return NULL;
  bool v;
  if (tl__bounds_decide(&sp->b, cond, &v)) {
    if (v) return tl_ir_mutate_stmt(mu, s->u.if_.then_);
    return s->u.if_.else_ ? tl_ir_mutate_stmt(mu, s->u.if_.else_) : empty(mu, s);
  }
  tl_ir_stmt *t = tl_ir_mutate_stmt(mu, s->u.if_.then_);
  tl_ir_stmt *e = s->u.if_.else_ ? tl_ir_mutate_stmt(mu, s->u.if_.else_) : NULL;
  if (!t || (s->u.if_.else_ && !e)) return NULL;
  if (e && is_empty(e)) e = NULL;
  if (is_empty(t) && !e) return empty(mu, s);
  if (cond == s->u.if_.cond && t == s->u.if_.then_ && e == s->u.if_.else_) return s;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_stmt *r = is_empty(t) ? tl_ir_if(mu->mod, tl_ir_unary(mu->mod, TL_UN_NOT, cond), e, NULL)
                              : tl_ir_if(mu->mod, cond, t, e);
  tl_ir_builder_set_loc(mu->mod, old);
  return r;
}

static tl_ir_stmt *simplify_for(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simp *sp = mu->ctx;
  tl_ir_module *mod = mu->mod;
  uint32_t n = s->u.loop.n;
  tl_ir_var *vars[16];
  tl_ir_expr *mins[16], *exts[16];
  if (n > 16) return tl_ir_mutate_stmt_children(mu, s);
  bool changed = false;
  for (uint32_t i = 0; i < n; i++) {
    vars[i] = s->u.loop.vars[i];
    if (!(mins[i] = tl_ir_mutate_expr(mu, s->u.loop.mins[i]))) return NULL;
    if (!(exts[i] = tl_ir_mutate_expr(mu, s->u.loop.extents[i]))) return NULL;
    changed |= mins[i] != s->u.loop.mins[i] || exts[i] != s->u.loop.extents[i];
    int64_t c;
    if (tl__is_const_int(exts[i], &c) && c <= 0) return empty(mu, s);
  }
  /* Serial-like loops drop their variables of extent 1 (replaced by the start). */
  tl_ir_stmt *body = s->u.loop.body;
  if (s->u.loop.kind != TL_FOR_PARALLEL && s->u.loop.kind != TL_FOR_THREAD &&
      !used_in_alloc_shapes(body, (const tl_ir_var *const *)vars, n)) {
    tl_ir_var *gone[16];
    tl_ir_expr *vals[16];
    uint32_t ngone = 0, k = 0;
    for (uint32_t i = 0; i < n; i++) {
      if (tl__is_int(exts[i], 1)) {
        gone[ngone] = vars[i];
        vals[ngone++] = mins[i];
      } else {
        vars[k] = vars[i];
        mins[k] = mins[i];
        exts[k++] = exts[i];
      }
    }
    if (ngone) {
      if (!(body = tl_ir_substitute_stmt(mod, body, ngone, gone, vals))) return NULL;
      n = k;
      changed = true;
    }
  }
  size_t mark = tl__bounds_mark(&sp->b);
  for (uint32_t i = 0; i < n; i++) {
    tl_status st = tl__bounds_push_loop(&sp->b, vars[i], mins[i], exts[i]);
    if (st != TL_OK) {
      tl_ir_mutator_fail(mu, st);
      return NULL;
    }
  }
  tl_ir_stmt *nb = tl_ir_mutate_stmt(mu, body);
  tl__bounds_pop_to(&sp->b, mark);
  if (!nb) return NULL;
  if (n == 0 || is_empty(nb)) return n == 0 ? nb : empty(mu, s);
  if (!changed && nb == s->u.loop.body) return s;
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *r = tl_ir_for(mod, s->u.loop.kind, n, vars, mins, exts, nb);
  if (r) {
    r->u.loop.num_stages = s->u.loop.num_stages;
    r->u.loop.thread_tag = s->u.loop.thread_tag;
  }
  tl_ir_builder_set_loc(mod, old);
  return r;
}

static tl_ir_stmt *simplify_let(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simp *sp = mu->ctx;
  tl_ir_expr *v = tl_ir_mutate_expr(mu, s->u.let.value);
  if (!v) return NULL;
  if ((v->kind == TL_EXPR_INT || v->kind == TL_EXPR_FLOAT || v->kind == TL_EXPR_VAR) &&
      !used_in_alloc_shapes(s->u.let.body, (const tl_ir_var *const *)&s->u.let.var, 1)) {
    tl_ir_stmt *body = tl_ir_substitute_stmt(mu->mod, s->u.let.body, 1, &s->u.let.var, &v);
    return body ? tl_ir_mutate_stmt(mu, body) : NULL;
  }
  size_t mark = tl__bounds_mark(&sp->b);
  if (tl_dtype_is_int(v->dtype) && v->dtype.lanes == 1) {
    tl_status st = tl__bounds_push(&sp->b, s->u.let.var, tl__bounds_of(&sp->b, v));
    if (st != TL_OK) {
      tl_ir_mutator_fail(mu, st);
      return NULL;
    }
  }
  tl_ir_stmt *body = tl_ir_mutate_stmt(mu, s->u.let.body);
  tl__bounds_pop_to(&sp->b, mark);
  if (!body) return NULL;
  if (v == s->u.let.value && body == s->u.let.body) return s;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_stmt *r = tl_ir_let(mu->mod, s->u.let.var, v, body);
  tl_ir_builder_set_loc(mu->mod, old);
  return r;
}

static tl_ir_stmt *simplify_kernel(tl_ir_mutator *mu, tl_ir_stmt *s) {
  simp *sp = mu->ctx;
  size_t mark = tl__bounds_mark(&sp->b);
  tl_status st = TL_OK;
  for (int i = 0; i < 3 && st == TL_OK; i++) {
    if (s->u.kernel.block_vars[i] && s->u.kernel.grid[i])
      st = tl__bounds_push_loop(&sp->b, s->u.kernel.block_vars[i], NULL, s->u.kernel.grid[i]);
    if (st == TL_OK && s->u.kernel.thread_vars[i] && s->u.kernel.threads[i])
      st = tl__bounds_push_loop(&sp->b, s->u.kernel.thread_vars[i], NULL, s->u.kernel.threads[i]);
  }
  if (st != TL_OK) {
    tl__bounds_pop_to(&sp->b, mark);
    tl_ir_mutator_fail(mu, st);
    return NULL;
  }
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  tl__bounds_pop_to(&sp->b, mark);
  return r;
}

static tl_ir_stmt *simplify_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  switch (s->kind) {
  case TL_STMT_SEQ: return simplify_seq(mu, s);
  case TL_STMT_IF: return simplify_if(mu, s);
  case TL_STMT_FOR: return simplify_for(mu, s);
  case TL_STMT_LET: return simplify_let(mu, s);
  case TL_STMT_KERNEL: return simplify_kernel(mu, s);
  case TL_STMT_ASSERT: {
    simp *sp = mu->ctx;
    tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
    bool v;
    if (r && tl__bounds_decide(&sp->b, r->u.assert_.cond, &v) && v) return empty(mu, s);
    return r;
  }
  default: return tl_ir_mutate_stmt_children(mu, s);
  }
}

static tl_status simplify_func(tl_ir_module *mod, tl_ir_func *f) {
  simp s;
  tl__bounds_init(&s.b);
  tl_status st = tl__bounds_push_shape_vars(&s.b, f);
  if (st == TL_OK && f->body) {
    tl_ir_mutator mu = {mod, simplify_expr, simplify_stmt, &s, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    if (body) f->body = body;
    else st = mu.status;
  }
  tl__bounds_free(&s.b);
  return st;
}

tl_status tl__pass_simplify(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) TL__TRY(simplify_func(mod, tl_ir_module_func(mod, i)));
  return TL_OK;
}
