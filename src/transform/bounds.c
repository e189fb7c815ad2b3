/* Interval analysis of integer expressions (bounds.h). */
#include <string.h>

#include "base/error.h"
#include "transform/bounds.h"
#include "transform/util.h"

#define NEG INT64_MIN /* -infinity */
#define POS INT64_MAX /* +infinity */

typedef struct entry {
  const tl_ir_var *v;
  tl__interval iv;
} entry;

/* An interval with a flag: the value may have wrapped somewhere below (so the
 * expression's value is not its mathematical value). */
typedef struct ival {
  int64_t lo, hi;
  bool wrapped;
} ival;

void tl__bounds_init(tl__bounds *b) { tl__vec_init(&b->entries, sizeof(entry)); }
void tl__bounds_free(tl__bounds *b) { tl__vec_free(&b->entries); }
size_t tl__bounds_mark(const tl__bounds *b) { return b->entries.len; }

void tl__bounds_pop_to(tl__bounds *b, size_t mark) {
  if (mark < b->entries.len) b->entries.len = mark;
}

tl_status tl__bounds_push(tl__bounds *b, const tl_ir_var *v, tl__interval iv) {
  entry e = {v, iv};
  return tl__vec_push(&b->entries, &e);
}

/* ----------------------------------------------------- saturating arithmetic */

static int64_t sadd(int64_t a, int64_t b) {
  if (a == NEG || b == NEG) return NEG;
  if (a == POS || b == POS) return POS;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return a > 0 ? POS : NEG;
  return r;
}

static int64_t sneg(int64_t a) { return a == NEG ? POS : a == POS ? NEG : -a; }

static int64_t smul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  bool neg = (a < 0) != (b < 0);
  if (a == NEG || a == POS || b == NEG || b == POS) return neg ? NEG : POS;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return neg ? NEG : POS;
  return r;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* floor(a / c) for c > 0, infinities kept. */
static int64_t sfloordiv(int64_t a, int64_t c) {
  if (a == NEG || a == POS) return a;
  int64_t q = a / c;
  if (a % c != 0 && a < 0) q--;
  return q;
}

static int64_t sceildiv(int64_t a, int64_t c) {
  if (a == NEG || a == POS) return a;
  int64_t q = a / c;
  if (a % c != 0 && a > 0) q++;
  return q;
}

/* ------------------------------------------------------------- evaluation */

static ival full(tl_dtype t) {
  ival r = {NEG, POS, false};
  if (tl_dtype_is_int(t) || tl_dtype_is_bool(t)) tl__dtype_range(t, &r.lo, &r.hi);
  return r;
}

/* The result of an operation in dtype t: the whole type if it may leave it. */
static ival fit(tl_dtype t, int64_t lo, int64_t hi, bool wrapped) {
  int64_t tlo, thi;
  tl__dtype_range(t, &tlo, &thi);
  bool wide = t.bits >= 64 && t.code != TL_DTYPE_BOOL;
  if (lo < tlo || hi > thi || (wide && (lo == NEG || hi == POS))) {
    ival r = full(t);
    r.wrapped = true;
    return r;
  }
  return (ival){lo, hi, wrapped};
}

static ival eval(const tl__bounds *b, const tl_ir_expr *e);

static ival lookup(const tl__bounds *b, const tl_ir_var *v) {
  for (size_t i = b->entries.len; i-- > 0;) {
    const entry *en = &TL__VEC_AT(&b->entries, entry, i);
    if (en->v == v) return (ival){en->iv.lo, en->iv.hi, false};
  }
  return full(v->dtype);
}

static ival eval_binary(const tl__bounds *b, const tl_ir_expr *e) {
  tl_dtype t = e->dtype;
  ival x = eval(b, e->u.binary.a), y = eval(b, e->u.binary.b);
  bool w = x.wrapped || y.wrapped;
  switch (e->u.binary.op) {
  case TL_BIN_ADD: return fit(t, sadd(x.lo, y.lo), sadd(x.hi, y.hi), w);
  case TL_BIN_SUB: return fit(t, sadd(x.lo, sneg(y.hi)), sadd(x.hi, sneg(y.lo)), w);
  case TL_BIN_MUL: {
    int64_t p[4] = {smul(x.lo, y.lo), smul(x.lo, y.hi), smul(x.hi, y.lo), smul(x.hi, y.hi)};
    int64_t lo = p[0], hi = p[0];
    for (int i = 1; i < 4; i++) {
      lo = min64(lo, p[i]);
      hi = max64(hi, p[i]);
    }
    return fit(t, lo, hi, w);
  }
  case TL_BIN_DIV:
    /* Truncation equals flooring for non-negative dividends. */
    if (x.lo < 0) return full(t);
    /* fall through */
  case TL_BIN_FLOORDIV:
    if (y.lo == y.hi && y.lo > 0) return fit(t, sfloordiv(x.lo, y.lo), sfloordiv(x.hi, y.lo), w);
    if (y.lo > 0 && x.lo >= 0) return fit(t, y.hi == POS ? 0 : sfloordiv(x.lo, y.hi), sfloordiv(x.hi, y.lo), w);
    return full(t);
  case TL_BIN_FLOORMOD:
    if (y.lo == y.hi && y.lo > 0 && x.lo >= 0 && x.hi < y.lo) return x;
    if (y.lo > 0) {
      int64_t top = y.hi == POS ? POS : y.hi - 1;
      return fit(t, 0, x.lo >= 0 ? min64(x.hi, top) : top, w);
    }
    return full(t);
  case TL_BIN_MIN: return fit(t, min64(x.lo, y.lo), min64(x.hi, y.hi), w);
  case TL_BIN_MAX: return fit(t, max64(x.lo, y.lo), max64(x.hi, y.hi), w);
  case TL_BIN_EQ:
  case TL_BIN_NE:
  case TL_BIN_LT:
  case TL_BIN_LE:
  case TL_BIN_GT:
  case TL_BIN_GE:
  case TL_BIN_AND:
  case TL_BIN_OR: {
    bool v;
    if (tl__bounds_decide(b, e, &v)) return (ival){v, v, false};
    return (ival){0, 1, false};
  }
  default: return full(t);
  }
}

static ival eval_call(const tl__bounds *b, const tl_ir_expr *e) {
  tl_dtype t = e->dtype;
  if (e->u.call.op == TL_OP_CEILDIV && e->u.call.nargs == 2) {
    ival x = eval(b, e->u.call.args[0]), y = eval(b, e->u.call.args[1]);
    bool w = x.wrapped || y.wrapped;
    if (y.lo == y.hi && y.lo > 0) return fit(t, sceildiv(x.lo, y.lo), sceildiv(x.hi, y.lo), w);
    if (y.lo > 0 && x.lo >= 0) return fit(t, y.hi == POS ? 0 : sceildiv(x.lo, y.hi), sceildiv(x.hi, y.lo), w);
    return full(t);
  }
  if (e->u.call.op == TL_OP_ABS && e->u.call.nargs == 1 && tl_dtype_is_int(t)) {
    ival x = eval(b, e->u.call.args[0]);
    if (x.lo >= 0) return x;
    if (x.hi <= 0) return fit(t, sneg(x.hi), sneg(x.lo), x.wrapped);
    return fit(t, 0, max64(sneg(x.lo), x.hi), x.wrapped);
  }
  return full(t);
}

static ival eval(const tl__bounds *b, const tl_ir_expr *e) {
  tl_dtype t = e->dtype;
  if (t.lanes != 1 || !(tl_dtype_is_int(t) || tl_dtype_is_bool(t))) return full(t);
  switch (e->kind) {
  case TL_EXPR_INT: return (ival){e->u.int_value, e->u.int_value, false};
  case TL_EXPR_VAR: return lookup(b, e->u.var);
  case TL_EXPR_BINARY: return eval_binary(b, e);
  case TL_EXPR_UNARY:
    if (e->u.unary.op == TL_UN_NEG) {
      ival x = eval(b, e->u.unary.a);
      return fit(t, sneg(x.hi), sneg(x.lo), x.wrapped);
    }
    if (e->u.unary.op == TL_UN_NOT) {
      bool v;
      if (tl__bounds_decide(b, e, &v)) return (ival){v, v, false};
      return (ival){0, 1, false};
    }
    return full(t);
  case TL_EXPR_SELECT: {
    bool c;
    if (tl__bounds_decide(b, e->u.select.cond, &c)) return eval(b, c ? e->u.select.t : e->u.select.f);
    ival x = eval(b, e->u.select.t), y = eval(b, e->u.select.f);
    return (ival){min64(x.lo, y.lo), max64(x.hi, y.hi), x.wrapped || y.wrapped};
  }
  case TL_EXPR_CAST: {
    const tl_ir_expr *v = e->u.cast.value;
    if (!(tl_dtype_is_int(v->dtype) || tl_dtype_is_bool(v->dtype))) return full(t);
    ival x = eval(b, v);
    if (tl_dtype_is_bool(t)) return x.lo > 0 || x.hi < 0 ? (ival){1, 1, false} : x.lo == 0 && x.hi == 0 ? x : (ival){0, 1, false};
    return fit(t, x.lo, x.hi, x.wrapped);
  }
  case TL_EXPR_CALL: return eval_call(b, e);
  default: return full(t);
  }
}

tl__interval tl__bounds_of(const tl__bounds *b, const tl_ir_expr *e) {
  ival r = eval(b, e);
  return (tl__interval){r.lo, r.hi};
}

/* ------------------------------------------------------- linear differences */

#define MAX_TERMS 16

typedef struct lterm {
  const tl_ir_expr *atom;
  int64_t coef;
} lterm;

typedef struct lform {
  int64_t c;
  uint32_t n;
  lterm t[MAX_TERMS];
  bool ok;
} lform;

static bool widening_int_cast(const tl_ir_expr *e) {
  tl_dtype to = e->dtype, from = e->u.cast.value->dtype;
  if (!tl_dtype_is_int(to) || !tl_dtype_is_int(from)) return false;
  if (from.code == to.code) return from.bits <= to.bits;
  return from.code == TL_DTYPE_UINT && from.bits < to.bits; /* uintN fits in a wider intM */
}

/* Adds scale * e to f. */
static void linearize(lform *f, const tl_ir_expr *e, int64_t scale) {
  if (!f->ok) return;
  int64_t v, p;
  switch (e->kind) {
  case TL_EXPR_INT:
    if (__builtin_mul_overflow(scale, e->u.int_value, &p) || __builtin_add_overflow(f->c, p, &f->c)) f->ok = false;
    return;
  case TL_EXPR_BINARY:
    switch (e->u.binary.op) {
    case TL_BIN_ADD: linearize(f, e->u.binary.a, scale); linearize(f, e->u.binary.b, scale); return;
    case TL_BIN_SUB:
      if (scale == NEG) { f->ok = false; return; }
      linearize(f, e->u.binary.a, scale);
      linearize(f, e->u.binary.b, -scale);
      return;
    case TL_BIN_MUL:
      if (tl__is_const_int(e->u.binary.b, &v) || tl__is_const_int(e->u.binary.a, &v)) {
        const tl_ir_expr *other = tl__is_const_int(e->u.binary.b, NULL) ? e->u.binary.a : e->u.binary.b;
        if (__builtin_mul_overflow(scale, v, &p)) { f->ok = false; return; }
        linearize(f, other, p);
        return;
      }
      break;
    default: break;
    }
    break;
  case TL_EXPR_UNARY:
    if (e->u.unary.op == TL_UN_NEG && scale != NEG) { linearize(f, e->u.unary.a, -scale); return; }
    break;
  case TL_EXPR_CAST:
    if (widening_int_cast(e)) { linearize(f, e->u.cast.value, scale); return; }
    break;
  default: break;
  }
  for (uint32_t i = 0; i < f->n; i++)
    if (tl__expr_same(f->t[i].atom, e)) {
      if (__builtin_add_overflow(f->t[i].coef, scale, &f->t[i].coef)) f->ok = false;
      return;
    }
  if (f->n == MAX_TERMS) { f->ok = false; return; }
  f->t[f->n++] = (lterm){e, scale};
}

/* The interval of x - y from their linear forms; false when not computable. */
static bool diff_interval(const tl__bounds *b, const tl_ir_expr *x, const tl_ir_expr *y, ival *out) {
  lform f;
  memset(&f, 0, sizeof f);
  f.ok = true;
  linearize(&f, x, 1);
  linearize(&f, y, -1);
  if (!f.ok) return false;
  int64_t lo = f.c, hi = f.c;
  for (uint32_t i = 0; i < f.n; i++) {
    if (f.t[i].coef == 0) continue;
    ival a = eval(b, f.t[i].atom);
    if (a.wrapped) return false;
    int64_t p1 = smul(a.lo, f.t[i].coef), p2 = smul(a.hi, f.t[i].coef);
    lo = sadd(lo, min64(p1, p2));
    hi = sadd(hi, max64(p1, p2));
  }
  *out = (ival){lo, hi, false};
  return true;
}

static bool is_int_expr(const tl_ir_expr *e) {
  return e->dtype.lanes == 1 && (tl_dtype_is_int(e->dtype) || tl_dtype_is_bool(e->dtype));
}

/* x - y is provably < `bound` (strict: below 0 means x < y). */
static bool prove_diff_below(const tl__bounds *b, const tl_ir_expr *x, const tl_ir_expr *y, int64_t bound) {
  if (!is_int_expr(x) || !is_int_expr(y)) return false;
  ival a = eval(b, x), c = eval(b, y);
  /* x.hi - y.lo < bound, without overflow: both are finite or infinities that fail. */
  if (a.hi != POS && c.lo != NEG && sadd(a.hi, sneg(c.lo)) < bound) return true;
  if (a.wrapped || c.wrapped) return false;
  ival d;
  return diff_interval(b, x, y, &d) && d.hi != POS && d.hi < bound;
}

bool tl__bounds_prove_lt(const tl__bounds *b, const tl_ir_expr *x, const tl_ir_expr *y) {
  return prove_diff_below(b, x, y, 0);
}

bool tl__bounds_prove_le(const tl__bounds *b, const tl_ir_expr *x, const tl_ir_expr *y) {
  return prove_diff_below(b, x, y, 1);
}

bool tl__bounds_decide(const tl__bounds *b, const tl_ir_expr *cond, bool *value) {
  if (!cond || cond->dtype.lanes != 1) return false;
  int64_t v;
  if (tl__is_const_int(cond, &v) && tl_dtype_is_bool(cond->dtype)) {
    *value = v != 0;
    return true;
  }
  if (cond->kind == TL_EXPR_UNARY && cond->u.unary.op == TL_UN_NOT) {
    bool x;
    if (!tl__bounds_decide(b, cond->u.unary.a, &x)) return false;
    *value = !x;
    return true;
  }
  if (cond->kind != TL_EXPR_BINARY) return false;
  const tl_ir_expr *x = cond->u.binary.a, *y = cond->u.binary.b;
  bool p, q;
  switch (cond->u.binary.op) {
  case TL_BIN_AND:
  case TL_BIN_OR: {
    bool is_and = cond->u.binary.op == TL_BIN_AND;
    bool dx = tl__bounds_decide(b, x, &p), dy = tl__bounds_decide(b, y, &q);
    if ((dx && p != is_and) || (dy && q != is_and)) { *value = !is_and; return true; }
    if (dx && dy) { *value = is_and; return true; }
    return false;
  }
  case TL_BIN_LT:
  case TL_BIN_GE:
    if (tl__bounds_prove_lt(b, x, y)) p = true;
    else if (tl__bounds_prove_le(b, y, x)) p = false;
    else return false;
    *value = cond->u.binary.op == TL_BIN_LT ? p : !p;
    return true;
  case TL_BIN_LE:
  case TL_BIN_GT:
    if (tl__bounds_prove_le(b, x, y)) p = true;
    else if (tl__bounds_prove_lt(b, y, x)) p = false;
    else return false;
    *value = cond->u.binary.op == TL_BIN_LE ? p : !p;
    return true;
  case TL_BIN_EQ:
  case TL_BIN_NE:
    if (tl__bounds_prove_lt(b, x, y) || tl__bounds_prove_lt(b, y, x)) p = false;
    else if (tl__bounds_prove_le(b, x, y) && tl__bounds_prove_le(b, y, x)) p = true;
    else return false;
    *value = cond->u.binary.op == TL_BIN_EQ ? p : !p;
    return true;
  default: return false;
  }
}

/* ------------------------------------------------------------ environments */

tl_status tl__bounds_push_loop(tl__bounds *b, const tl_ir_var *v, const tl_ir_expr *min, const tl_ir_expr *extent) {
  ival m = min ? eval(b, min) : (ival){0, 0, false}, n = eval(b, extent);
  int64_t lo = m.lo, hi = sadd(m.hi, sadd(n.hi, -1));
  int64_t tlo, thi;
  tl__dtype_range(v->dtype, &tlo, &thi);
  lo = max64(lo, tlo);
  hi = min64(hi, thi);
  if (hi < lo) hi = lo; /* the body never runs: any claim about it is vacuous */
  return tl__bounds_push(b, v, (tl__interval){lo, hi});
}

tl_status tl__bounds_enter(tl__bounds *b, const tl_ir_stmt *s) {
  switch (s->kind) {
  case TL_STMT_FOR:
    for (uint32_t i = 0; i < s->u.loop.n; i++)
      TL__TRY(tl__bounds_push_loop(b, s->u.loop.vars[i], s->u.loop.mins ? s->u.loop.mins[i] : NULL,
                                   s->u.loop.extents[i]));
    return TL_OK;
  case TL_STMT_LET:
    if (!tl_dtype_is_int(s->u.let.var->dtype) && !tl_dtype_is_bool(s->u.let.var->dtype)) return TL_OK;
    return tl__bounds_push(b, s->u.let.var, tl__bounds_of(b, s->u.let.value));
  case TL_STMT_KERNEL:
    for (int i = 0; i < 3; i++) {
      if (s->u.kernel.block_vars[i] && s->u.kernel.grid[i])
        TL__TRY(tl__bounds_push_loop(b, s->u.kernel.block_vars[i], NULL, s->u.kernel.grid[i]));
      if (s->u.kernel.thread_vars[i] && s->u.kernel.threads[i])
        TL__TRY(tl__bounds_push_loop(b, s->u.kernel.thread_vars[i], NULL, s->u.kernel.threads[i]));
    }
    return TL_OK;
  default:
    return TL_OK;
  }
}

typedef struct shape_ctx {
  tl__bounds *b;
  tl_status st;
} shape_ctx;

static bool shape_var(tl_ir_visitor *vis, const tl_ir_expr *e) {
  shape_ctx *c = vis->ctx;
  if (c->st == TL_OK && e->kind == TL_EXPR_VAR && tl_dtype_is_int(e->u.var->dtype)) {
    int64_t lo, hi;
    tl__dtype_range(e->u.var->dtype, &lo, &hi);
    c->st = tl__bounds_push(c->b, e->u.var, (tl__interval){0, min64(hi, INT32_MAX)});
  }
  return c->st == TL_OK;
}

tl_status tl__bounds_push_shape_vars(tl__bounds *b, const tl_ir_func *f) {
  shape_ctx c = {b, TL_OK};
  tl_ir_visitor vis = {shape_var, NULL, &c};
  for (uint32_t i = 0; i < f->nparams && c.st == TL_OK; i++) {
    const tl_ir_buffer *buf = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !buf) continue;
    /* Only a dimension that is exactly a variable bounds that variable. */
    for (uint32_t d = 0; d < buf->ndim && c.st == TL_OK; d++)
      if (buf->shape[d] && buf->shape[d]->kind == TL_EXPR_VAR) tl_ir_visit_expr(&vis, buf->shape[d]);
  }
  return c.st;
}
