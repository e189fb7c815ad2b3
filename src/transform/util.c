/* Helpers shared by the passes (util.h). */
#include <string.h>

#include "base/error.h"
#include "ir/module.h"
#include "ir/op_table.h"
#include "transform/util.h"

tl_ir_span tl__loc_push(tl_ir_module *mod, tl_ir_span span) {
  tl_ir_span old = tl_ir_builder_loc(mod);
  tl_ir_builder_set_loc(mod, span);
  return old;
}

tl_status tl__built(tl_ir_module *mod, const void *node) {
  return node ? TL_OK : tl__ir_null_status(mod, "internal error: a lowered node is missing");
}

bool tl__is_const_int(const tl_ir_expr *e, int64_t *v) {
  if (!e || e->kind != TL_EXPR_INT) return false;
  if (v) *v = e->u.int_value;
  return true;
}

bool tl__is_int(const tl_ir_expr *e, int64_t v) {
  int64_t x;
  return tl__is_const_int(e, &x) && x == v;
}

void tl__dtype_range(tl_dtype t, int64_t *lo, int64_t *hi) {
  if (t.code == TL_DTYPE_BOOL) {
    *lo = 0;
    *hi = 1;
  } else if (t.bits >= 64) {
    *lo = t.code == TL_DTYPE_UINT ? 0 : INT64_MIN;
    *hi = INT64_MAX;
  } else if (t.code == TL_DTYPE_UINT) {
    *lo = 0;
    *hi = (int64_t)((1ull << t.bits) - 1);
  } else {
    *hi = (int64_t)((1ull << (t.bits - 1)) - 1);
    *lo = -*hi - 1;
  }
}

int64_t tl__wrap_int(tl_dtype t, int64_t x) {
  if (t.code == TL_DTYPE_BOOL) return x != 0;
  if (t.bits >= 64) return x;
  uint64_t mask = (1ull << t.bits) - 1, u = (uint64_t)x & mask;
  if (t.code == TL_DTYPE_INT && (u >> (t.bits - 1))) u |= ~mask;
  return (int64_t)u;
}

tl_ir_expr *tl__int_like(tl_ir_module *mod, const tl_ir_expr *e, int64_t v) {
  return tl_ir_int(mod, e->dtype, tl__wrap_int(e->dtype, v));
}

/* a op b on constants with wrapping; false if the op cannot be folded. */
static bool fold_ints(tl_ir_binop op, tl_dtype t, int64_t a, int64_t b, int64_t *out) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  switch (op) {
  case TL_BIN_ADD: *out = tl__wrap_int(t, (int64_t)(ua + ub)); return true;
  case TL_BIN_SUB: *out = tl__wrap_int(t, (int64_t)(ua - ub)); return true;
  case TL_BIN_MUL: *out = tl__wrap_int(t, (int64_t)(ua * ub)); return true;
  case TL_BIN_FLOORDIV:
  case TL_BIN_FLOORMOD: {
    if (b == 0 || t.code == TL_DTYPE_UINT || (a == INT64_MIN && b == -1)) return false;
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) {
      q -= 1;
      r += b;
    }
    *out = tl__wrap_int(t, op == TL_BIN_FLOORDIV ? q : r);
    return true;
  }
  default: return false;
  }
}

static tl_ir_expr *build_bin(tl_ir_module *mod, tl_ir_binop op, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  int64_t x, y, r;
  if (tl__is_const_int(a, &x) && tl__is_const_int(b, &y) && fold_ints(op, a->dtype, x, y, &r))
    return tl_ir_int(mod, a->dtype, r);
  return tl_ir_binary(mod, op, a, b);
}

tl_ir_expr *tl__add(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  if (tl__is_int(b, 0)) return a;
  if (tl__is_int(a, 0)) return b;
  int64_t c1, c2;
  /* (x + c1) + c2 -> x + (c1 + c2); constants go right. */
  if (tl__is_const_int(a, &c1) && !tl__is_const_int(b, NULL)) return tl__add(mod, b, a);
  if (tl__is_const_int(b, &c2) && a->kind == TL_EXPR_BINARY && a->u.binary.op == TL_BIN_ADD &&
      tl__is_const_int(a->u.binary.b, &c1))
    return tl__add(mod, a->u.binary.a, tl__int_like(mod, a, (int64_t)((uint64_t)c1 + (uint64_t)c2)));
  return build_bin(mod, TL_BIN_ADD, a, b);
}

tl_ir_expr *tl__sub(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  if (tl__is_int(b, 0)) return a;
  if (tl__expr_same(a, b)) return tl__int_like(mod, a, 0);
  int64_t c;
  if (tl__is_const_int(b, &c) && !tl__is_const_int(a, NULL)) return tl__add(mod, a, tl__int_like(mod, a, (int64_t)(0 - (uint64_t)c)));
  return build_bin(mod, TL_BIN_SUB, a, b);
}

tl_ir_expr *tl__mul(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  if (tl__is_int(b, 1)) return a;
  if (tl__is_int(a, 1)) return b;
  if (tl__is_int(a, 0) || tl__is_int(b, 0)) return tl__int_like(mod, a, 0);
  int64_t c1, c2;
  if (tl__is_const_int(a, &c1) && !tl__is_const_int(b, NULL)) return tl__mul(mod, b, a);
  if (tl__is_const_int(b, &c2) && a->kind == TL_EXPR_BINARY && a->u.binary.op == TL_BIN_MUL &&
      tl__is_const_int(a->u.binary.b, &c1))
    return tl__mul(mod, a->u.binary.a, tl__int_like(mod, a, (int64_t)((uint64_t)c1 * (uint64_t)c2)));
  return build_bin(mod, TL_BIN_MUL, a, b);
}

tl_ir_expr *tl__floordiv(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  if (tl__is_int(b, 1)) return a;
  return build_bin(mod, TL_BIN_FLOORDIV, a, b);
}

tl_ir_expr *tl__floormod(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  if (tl__is_int(b, 1)) return tl__int_like(mod, a, 0);
  return build_bin(mod, TL_BIN_FLOORMOD, a, b);
}

tl_ir_expr *tl__and(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  if (tl__is_int(a, 1)) return b;
  if (tl__is_int(b, 1)) return a;
  if (tl__is_int(a, 0)) return a;
  return tl_ir_binary(mod, TL_BIN_AND, a, b);
}

tl_ir_expr *tl__cast_int(tl_ir_module *mod, tl_dtype t, tl_ir_expr *e) {
  if (!e) return NULL;
  if (tl_dtype_eq(e->dtype, t)) return e;
  int64_t v;
  if (tl__is_const_int(e, &v)) return tl_ir_int(mod, t, tl__wrap_int(t, v));
  return tl_ir_cast(mod, t, e);
}

tl_ir_expr *tl__zero(tl_ir_module *mod, tl_dtype t) {
  if (tl_dtype_is_float(t)) return tl_ir_float(mod, t, 0.0);
  return tl_ir_int(mod, t, 0);
}

tl_ir_expr *tl__fold_identity(tl_ir_module *mod, tl_ir_op op, tl_dtype t) {
  tl__identity_kind id = tl__tile_op(op)->fold.identity;
  if (id == TL__IDENTITY_ZERO) return tl__zero(mod, t);
  if (id == TL__IDENTITY_ALL_ONES) /* every bit set: -1, or an unsigned dtype's highest value */
    return tl_ir_int(mod, t, t.code == TL_DTYPE_UINT && t.bits < 64 ? (int64_t)((1ull << t.bits) - 1) : -1);
  bool lowest = id == TL__IDENTITY_LOWEST;
  if (tl_dtype_is_float(t)) return tl_ir_float(mod, t, lowest ? -__builtin_inf() : __builtin_inf());
  int64_t lo, hi;
  tl__dtype_range(t, &lo, &hi);
  if (t.code == TL_DTYPE_UINT && t.bits >= 64) hi = -1; /* all ones */
  return tl_ir_int(mod, t, lowest ? lo : hi);
}

tl_ir_expr *tl__fold_input(tl_ir_module *mod, tl_ir_op op, tl_ir_expr *x) {
  if (!x || !tl__tile_op(op)->fold.abs) return x;
  return tl_ir_call(mod, TL_OP_ABS, x->dtype, 1, &x);
}

tl_ir_expr *tl__fold_combine(tl_ir_module *mod, tl_ir_op op, tl_ir_expr *acc, tl_ir_expr *x) {
  return tl_ir_binary(mod, tl__tile_op(op)->fold.combine, acc, x);
}

tl_ir_expr *tl__convert(tl_ir_module *mod, tl_dtype t, tl_ir_expr *value) {
  if (!value) return NULL;
  if (tl_dtype_eq(value->dtype, t)) return value;
  return tl_ir_cast(mod, t, value);
}

static bool same_list(tl_ir_expr *const *a, tl_ir_expr *const *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!tl__expr_same(a[i], b[i])) return false;
  return true;
}

bool tl__expr_same(const tl_ir_expr *a, const tl_ir_expr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !tl_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case TL_EXPR_INT: return a->u.int_value == b->u.int_value;
  case TL_EXPR_FLOAT: return memcmp(&a->u.float_value, &b->u.float_value, sizeof(double)) == 0;
  case TL_EXPR_STR: return strcmp(a->u.str, b->u.str) == 0;
  case TL_EXPR_VAR: return a->u.var == b->u.var;
  case TL_EXPR_BINARY:
    return a->u.binary.op == b->u.binary.op && tl__expr_same(a->u.binary.a, b->u.binary.a) &&
           tl__expr_same(a->u.binary.b, b->u.binary.b);
  case TL_EXPR_UNARY: return a->u.unary.op == b->u.unary.op && tl__expr_same(a->u.unary.a, b->u.unary.a);
  case TL_EXPR_SELECT:
    return tl__expr_same(a->u.select.cond, b->u.select.cond) && tl__expr_same(a->u.select.t, b->u.select.t) &&
           tl__expr_same(a->u.select.f, b->u.select.f);
  case TL_EXPR_CAST: return tl__expr_same(a->u.cast.value, b->u.cast.value);
  case TL_EXPR_LOAD:
    return a->u.load.buffer == b->u.load.buffer && a->u.load.n == b->u.load.n &&
           same_list(a->u.load.indices, b->u.load.indices, a->u.load.n);
  case TL_EXPR_CALL:
    return a->u.call.op == b->u.call.op && a->u.call.nargs == b->u.call.nargs &&
           same_list(a->u.call.args, b->u.call.args, a->u.call.nargs);
  case TL_EXPR_REGION:
    return a->u.region.buffer == b->u.region.buffer && a->u.region.ndim == b->u.region.ndim &&
           same_list(a->u.region.mins, b->u.region.mins, a->u.region.ndim) &&
           same_list(a->u.region.extents, b->u.region.extents, a->u.region.ndim);
  case TL_EXPR_RAMP: return a->u.ramp.stride == b->u.ramp.stride && tl__expr_same(a->u.ramp.base, b->u.ramp.base);
  case TL_EXPR_BROADCAST: return tl__expr_same(a->u.broadcast.value, b->u.broadcast.value);
  }
  return false;
}

bool tl__vec_has_ptr(const tl__vec *v, const void *p) {
  for (size_t i = 0; i < v->len; i++)
    if (TL__VEC_AT(v, const void *, i) == p) return true;
  return false;
}

typedef struct collect_ctx {
  tl__vec *vars, *bufs;
  tl_status status;
} collect_ctx;

static void add_ptr(collect_ctx *c, tl__vec *v, const void *p) {
  if (!v || !p || c->status != TL_OK || tl__vec_has_ptr(v, p)) return;
  c->status = tl__vec_push(v, &p);
}

static bool collect_e(tl_ir_visitor *vis, const tl_ir_expr *e) {
  collect_ctx *c = vis->ctx;
  if (e->kind == TL_EXPR_VAR) add_ptr(c, c->vars, e->u.var);
  if (e->kind == TL_EXPR_LOAD) add_ptr(c, c->bufs, e->u.load.buffer);
  if (e->kind == TL_EXPR_REGION) add_ptr(c, c->bufs, e->u.region.buffer);
  return c->status == TL_OK;
}

static bool collect_s(tl_ir_visitor *vis, const tl_ir_stmt *s) {
  collect_ctx *c = vis->ctx;
  if (s->kind == TL_STMT_STORE) add_ptr(c, c->bufs, s->u.store.buffer);
  return c->status == TL_OK;
}

tl_status tl__collect_expr(const tl_ir_expr *e, tl__vec *vars, tl__vec *bufs) {
  collect_ctx c = {vars, bufs, TL_OK};
  tl_ir_visitor v = {collect_e, collect_s, &c};
  tl_ir_visit_expr(&v, e);
  return c.status;
}

tl_status tl__collect_stmt(const tl_ir_stmt *s, tl__vec *vars, tl__vec *bufs) {
  collect_ctx c = {vars, bufs, TL_OK};
  tl_ir_visitor v = {collect_e, collect_s, &c};
  tl_ir_visit_stmt(&v, s);
  return c.status;
}
