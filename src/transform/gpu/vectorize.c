/* gpu_vectorize: T.vectorized loops of device kernels become vector accesses.
 *
 * The GPU passes put the V contiguous elements a thread owns in a row of a layout
 * in one `for v in T.vectorized(V)` loop (layout.c). Such a loop (start 0,
 * constant extent 2..16) is replaced by its body at vector width V when every
 * statement in it is
 *   - a store whose flat index is base + v (stride 1 in v), of a value built
 *     from loads at base' + v, values that do not depend on v (broadcast),
 *     arithmetic, comparisons, casts and selects whose condition does not depend
 *     on v, or
 *   - an `if` whose condition does not depend on v, or holds for all V lanes
 *     alike: a conjunction whose terms depending on v read `x + v < y` or
 *     `x + v >= y` with x and y multiples of V (the edge guards of a copy whose
 *     tile and tensor extents are multiples of V), or
 *   - a sequence of those;
 * every load of a buffer the loop stores to is at the index of those stores (so
 * no lane reads what another lane writes); and every vector access is aligned to its V elements: its base is provably a
 * multiple of V (divisibility through sums, products, constants and lets), and
 * the buffer's start is aligned: shared and local buffers are (code generators
 * align them to 16 bytes), global ones through the host entry's check. For each
 * buffer parameter accessed with vectors the kernel records the alignment it
 * needs as the int attribute `tl.data_alignment.<param>` (bytes); make_packed_api
 * turns it into an argument check of the host entry. A loop that does not fit
 * stays scalar, as T.unroll. Vector widths are at most the target's
 * vector_bytes (16). */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct let_div {
  const tl_ir_var *var;
  int64_t div;
} let_div;

typedef struct vctx {
  tl_ir_module *mod;
  tl_ir_func *f;
  const tl__gpu_params *p;
  tl__vec lets;  /* let_div: divisibility of the lets in scope */
  tl_status st;
} vctx;

/* One vectorization attempt: the loop variable and width. */
typedef struct vec1 {
  vctx *c;
  const tl_ir_var *v;
  int64_t V;
  tl_ir_expr *zero; /* v := 0 */
  tl__vec aligns;   /* tl_ir_buffer *: global buffers accessed with vectors */
  bool ok;
} vec1;

/* ------------------------------------------------------------- analysis */

static int64_t gcd(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

#define DIV_ANY ((int64_t)1 << 40) /* divisor of 0: anything */

/* A number known to divide e (1 if nothing is known). */
static int64_t divisor(const vctx *c, const tl_ir_expr *e) {
  switch (e->kind) {
  case TL_EXPR_INT: return e->u.int_value == 0 ? DIV_ANY : (e->u.int_value < 0 ? -e->u.int_value : e->u.int_value);
  case TL_EXPR_VAR:
    for (size_t i = c->lets.len; i-- > 0;)
      if (TL__VEC_AT(&c->lets, let_div, i).var == e->u.var) return TL__VEC_AT(&c->lets, let_div, i).div;
    return 1;
  case TL_EXPR_CAST:
    if (tl_dtype_is_int(e->dtype) && tl_dtype_is_int(e->u.cast.value->dtype) && e->dtype.bits >= e->u.cast.value->dtype.bits)
      return divisor(c, e->u.cast.value);
    return 1;
  case TL_EXPR_BINARY: {
    int64_t a = divisor(c, e->u.binary.a), b = divisor(c, e->u.binary.b);
    switch (e->u.binary.op) {
    case TL_BIN_ADD:
    case TL_BIN_SUB: return a == DIV_ANY ? b : b == DIV_ANY ? a : gcd(a, b);
    case TL_BIN_MUL: {
      if (a == DIV_ANY || b == DIV_ANY) return DIV_ANY;
      int64_t m;
      return __builtin_mul_overflow(a, b, &m) || m > DIV_ANY ? DIV_ANY : m;
    }
    default: return 1;
    }
  }
  default: return 1;
  }
}

typedef struct uses {
  const tl_ir_var *v;
  bool found;
} uses;

static bool find_var(tl_ir_visitor *vis, const tl_ir_expr *e) {
  uses *u = vis->ctx;
  if (e->kind == TL_EXPR_VAR && e->u.var == u->v) u->found = true;
  return !u->found;
}

static bool mentions(const tl_ir_expr *e, const tl_ir_var *v) {
  uses u = {v, false};
  tl_ir_visitor vis = {find_var, NULL, &u};
  tl_ir_visit_expr(&vis, e);
  return u.found;
}

/* The coefficient of v in integer expression e when e is affine in v with a
 * constant coefficient; false otherwise. */
static bool coef(const tl_ir_expr *e, const tl_ir_var *v, int64_t *k) {
  if (!mentions(e, v)) {
    *k = 0;
    return true;
  }
  switch (e->kind) {
  case TL_EXPR_VAR: *k = 1; return true;
  case TL_EXPR_CAST:
    if (!tl_dtype_is_int(e->dtype) || !tl_dtype_is_int(e->u.cast.value->dtype) || e->dtype.bits < e->u.cast.value->dtype.bits)
      return false;
    return coef(e->u.cast.value, v, k);
  case TL_EXPR_BINARY: {
    int64_t a, b, x;
    if (!coef(e->u.binary.a, v, &a) || !coef(e->u.binary.b, v, &b)) return false;
    switch (e->u.binary.op) {
    case TL_BIN_ADD: *k = a + b; return true;
    case TL_BIN_SUB: *k = a - b; return true;
    case TL_BIN_MUL:
      if (a == 0 && tl__is_const_int(e->u.binary.a, &x)) *k = x * b;
      else if (b == 0 && tl__is_const_int(e->u.binary.b, &x)) *k = x * a;
      else return false;
      return true;
    default: return false;
    }
  }
  default: return false;
  }
}

static tl_ir_expr *at_zero(vec1 *x, tl_ir_expr *e) {
  tl_ir_var *v = (tl_ir_var *)x->v;
  return tl_ir_substitute_expr(x->c->mod, e, 1, &v, &x->zero);
}

/* ----------------------------------------------------------- rewriting */

static void need_align(vec1 *x, const tl_ir_buffer *b) {
  if (b->scope != TL_SCOPE_GLOBAL) return;
  if (!tl__vec_has_ptr(&x->aligns, b) && x->c->st == TL_OK) x->c->st = tl__vec_push(&x->aligns, &b);
}

/* The vector index of a one-dimensional access: ramp(base, 1, V), aligned. */
static tl_ir_expr *vec_index(vec1 *x, const tl_ir_buffer *b, tl_ir_expr *const *idx, uint32_t n) {
  int64_t k;
  if (n != 1 || !coef(idx[0], x->v, &k) || k != 1) return NULL;
  if (x->V * (int64_t)tl_dtype_bytes(b->dtype) > x->c->p->vector_bytes) return NULL;
  tl_ir_expr *base = at_zero(x, idx[0]);
  if (!base || divisor(x->c, base) % x->V != 0) return NULL;
  need_align(x, b);
  return tl_ir_ramp(x->c->mod, base, 1, (uint16_t)x->V);
}

static tl_ir_expr *uniform_cond(vec1 *x, tl_ir_expr *cond);

static tl_ir_expr *vec_expr(vec1 *x, tl_ir_expr *e) {
  tl_ir_module *mod = x->c->mod;
  if (!x->ok || !e) return NULL;
  uint16_t V = (uint16_t)x->V;
  if (e->dtype.lanes != 1) return NULL;
  if (!mentions(e, x->v)) return tl_ir_broadcast(mod, e, V); /* evaluated once */
  switch (e->kind) {
  case TL_EXPR_VAR: return tl_ir_ramp(mod, e, 1, V);
  case TL_EXPR_LOAD: {
    tl_ir_expr *ramp = vec_index(x, e->u.load.buffer, e->u.load.indices, e->u.load.n);
    return ramp ? tl_ir_load(mod, e->u.load.buffer, 1, &ramp) : NULL;
  }
  case TL_EXPR_BINARY: {
    if (e->u.binary.op == TL_BIN_AND || e->u.binary.op == TL_BIN_OR) return NULL; /* short-circuit */
    tl_ir_expr *a = vec_expr(x, e->u.binary.a), *b = vec_expr(x, e->u.binary.b);
    return a && b ? tl_ir_binary(mod, e->u.binary.op, a, b) : NULL;
  }
  case TL_EXPR_UNARY: {
    tl_ir_expr *a = vec_expr(x, e->u.unary.a);
    return a ? tl_ir_unary(mod, e->u.unary.op, a) : NULL;
  }
  case TL_EXPR_CAST: {
    tl_ir_expr *a = vec_expr(x, e->u.cast.value);
    return a ? tl_ir_cast(mod, tl_dtype_with_lanes(e->dtype, V), a) : NULL;
  }
  case TL_EXPR_SELECT: {
    /* Only the chosen side is evaluated: the condition must be one for all lanes. */
    tl_ir_expr *cond = uniform_cond(x, e->u.select.cond);
    tl_ir_expr *t = cond ? vec_expr(x, e->u.select.t) : NULL, *f = t ? vec_expr(x, e->u.select.f) : NULL;
    return t && f ? tl_ir_select(mod, cond, t, f) : NULL;
  }
  default: return NULL;
  }
}

/* cond (a conjunction) with its terms that depend on v replaced by their lane-0
 * value, when they hold alike for every lane; NULL otherwise. */
static tl_ir_expr *uniform_cond(vec1 *x, tl_ir_expr *cond) {
  if (!mentions(cond, x->v)) return cond;
  if (cond->kind != TL_EXPR_BINARY) return NULL;
  tl_ir_binop op = cond->u.binary.op;
  if (op == TL_BIN_AND) {
    tl_ir_expr *a = uniform_cond(x, cond->u.binary.a), *b = uniform_cond(x, cond->u.binary.b);
    return a && b ? tl_ir_binary(x->c->mod, TL_BIN_AND, a, b) : NULL;
  }
  /* x + v < y, x + v >= y (also written y > x + v, y <= x + v) */
  tl_ir_expr *lhs = cond->u.binary.a, *rhs = cond->u.binary.b;
  if (op == TL_BIN_GT || op == TL_BIN_LE) {
    lhs = cond->u.binary.b;
    rhs = cond->u.binary.a;
    op = op == TL_BIN_GT ? TL_BIN_LT : TL_BIN_GE;
  }
  int64_t kl, kr;
  if ((op != TL_BIN_LT && op != TL_BIN_GE) || !coef(lhs, x->v, &kl) || !coef(rhs, x->v, &kr) || kl != 1 || kr != 0)
    return NULL;
  tl_ir_expr *l0 = at_zero(x, lhs);
  if (!l0 || divisor(x->c, l0) % x->V != 0 || divisor(x->c, rhs) % x->V != 0) return NULL;
  return tl_ir_binary(x->c->mod, op, l0, rhs);
}

static tl_ir_stmt *vec_stmt(vec1 *x, tl_ir_stmt *s) {
  tl_ir_module *mod = x->c->mod;
  if (!x->ok || !s) return NULL;
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *r = NULL;
  switch (s->kind) {
  case TL_STMT_STORE: {
    tl_ir_expr *ramp = vec_index(x, s->u.store.buffer, s->u.store.indices, s->u.store.n);
    tl_ir_expr *val = ramp ? vec_expr(x, s->u.store.value) : NULL;
    if (val) r = tl_ir_store(mod, s->u.store.buffer, 1, &ramp, val);
    break;
  }
  case TL_STMT_IF: {
    tl_ir_expr *cond = uniform_cond(x, s->u.if_.cond);
    tl_ir_stmt *t = cond ? vec_stmt(x, s->u.if_.then_) : NULL;
    tl_ir_stmt *e = t && s->u.if_.else_ ? vec_stmt(x, s->u.if_.else_) : NULL;
    if (t && (!s->u.if_.else_ || e)) r = tl_ir_if(mod, cond, t, e);
    break;
  }
  case TL_STMT_SEQ: {
    tl__vec items = TL__VEC_INIT(tl_ir_stmt *);
    bool good = true;
    for (uint32_t i = 0; i < s->u.seq.n && good; i++) {
      tl_ir_stmt *y = s->u.seq.stmts[i]->kind == TL_STMT_ALLOC ? NULL : vec_stmt(x, s->u.seq.stmts[i]);
      good = y && tl__vec_push(&items, &y) == TL_OK;
    }
    if (good) r = tl_ir_seq(mod, (uint32_t)items.len, (tl_ir_stmt *const *)items.data);
    tl__vec_free(&items);
    break;
  }
  default: break;
  }
  tl_ir_builder_set_loc(mod, old);
  if (!r) x->ok = false;
  return r;
}

/* Running the lanes of every statement together must not change what a lane
 * reads: every load of a buffer the body stores to is at exactly the index of
 * those stores (each lane then reads only what it wrote itself, in both
 * orders). */
typedef struct dep {
  tl__vec stores; /* const tl_ir_stmt * */
  bool ok;
} dep;

static bool dep_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  dep *d = v->ctx;
  if (s->kind == TL_STMT_STORE && tl__vec_push(&d->stores, &s) != TL_OK) d->ok = false;
  return d->ok;
}

static bool dep_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  dep *d = v->ctx;
  if (e->kind != TL_EXPR_LOAD) return d->ok;
  for (size_t i = 0; i < d->stores.len && d->ok; i++) {
    const tl_ir_stmt *st = TL__VEC_AT(&d->stores, const tl_ir_stmt *, i);
    if (st->u.store.buffer != e->u.load.buffer) continue;
    if (st->u.store.n != e->u.load.n) d->ok = false;
    for (uint32_t k = 0; k < st->u.store.n && d->ok; k++)
      if (!tl__expr_same(st->u.store.indices[k], e->u.load.indices[k])) d->ok = false;
  }
  return d->ok;
}

static bool lanes_independent(const tl_ir_stmt *body) {
  dep d = {TL__VEC_INIT(const tl_ir_stmt *), true};
  tl_ir_visitor collect = {NULL, dep_stmt, &d};
  tl_ir_visit_stmt(&collect, body);
  tl_ir_visitor check = {dep_expr, NULL, &d};
  if (d.ok) tl_ir_visit_stmt(&check, body);
  tl__vec_free(&d.stores);
  return d.ok;
}

/* The alignment requirements of a vectorized loop, recorded on the kernel. */
static tl_status record_alignment(vec1 *x) {
  vctx *c = x->c;
  for (size_t i = 0; i < x->aligns.len; i++) {
    const tl_ir_buffer *b = TL__VEC_AT(&x->aligns, const tl_ir_buffer *, i);
    const tl_ir_param *prm = NULL;
    for (uint32_t k = 0; k < c->f->nparams; k++)
      if (c->f->params[k].kind == TL_PARAM_BUFFER && c->f->params[k].buffer == b) prm = &c->f->params[k];
    if (!prm) return tl__error(TL_EINTERNAL, "gpu_vectorize: global buffer '%s' is not a parameter", b->name);
    char key[300];
    snprintf(key, sizeof key, "tl.data_alignment.%s", prm->name);
    int64_t bytes = x->V * (int64_t)tl_dtype_bytes(b->dtype);
    const tl_ir_attr *a = tl_ir_func_attr(c->f, key);
    if (a && a->kind == TL_ATTR_INT && a->i >= bytes) continue;
    TL__TRY(tl_ir_func_set_attr_int(c->mod, c->f, key, bytes));
  }
  return TL_OK;
}

static tl_ir_stmt *try_loop(tl_ir_mutator *mu, tl_ir_stmt *s) {
  vctx *c = mu->ctx;
  tl_ir_module *mod = mu->mod;
  int64_t V;
  tl_ir_stmt *body = s->u.loop.body;
  bool shape_ok = s->u.loop.n == 1 && tl__is_int(s->u.loop.mins[0], 0) && tl__is_const_int(s->u.loop.extents[0], &V) &&
                  V >= 2 && V <= 16 && lanes_independent(body);
  if (shape_ok) {
    vec1 x = {c, s->u.loop.vars[0], V, tl__int_like(mod, tl_ir_var_ref(mod, s->u.loop.vars[0]), 0),
              TL__VEC_INIT(const tl_ir_buffer *), true};
    tl_ir_stmt *r = x.zero ? vec_stmt(&x, body) : NULL;
    if (r && x.ok && c->st == TL_OK) {
      tl_status st = record_alignment(&x);
      tl__vec_free(&x.aligns);
      if (st != TL_OK) {
        tl_ir_mutator_fail(mu, st);
        return NULL;
      }
      return r;
    }
    tl__vec_free(&x.aligns);
  }
  /* scalar, as an unrolled loop */
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *r = tl_ir_for(mod, TL_FOR_UNROLLED, s->u.loop.n, s->u.loop.vars, s->u.loop.mins, s->u.loop.extents, body);
  tl_ir_builder_set_loc(mod, old);
  return r;
}

static tl_ir_stmt *vstmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  vctx *c = mu->ctx;
  if (s->kind == TL_STMT_LET) {
    let_div d = {s->u.let.var, tl_dtype_is_int(s->u.let.var->dtype) ? divisor(c, s->u.let.value) : 1};
    tl_status st = tl__vec_push(&c->lets, &d);
    if (st != TL_OK) {
      tl_ir_mutator_fail(mu, st);
      return NULL;
    }
    tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
    c->lets.len--;
    return r;
  }
  if (s->kind == TL_STMT_FOR && s->u.loop.kind == TL_FOR_VECTORIZED) {
    tl_ir_stmt *inner = tl_ir_mutate_stmt_children(mu, s); /* nested loops first */
    return inner ? try_loop(mu, inner) : NULL;
  }
  return tl_ir_mutate_stmt_children(mu, s);
}

tl_status tl__pass_gpu_vectorize(tl_ir_module *mod, const tl_target *target) {
  tl__gpu_params p;
  tl__gpu_params_get(target, &p);
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL || !f->body) continue;
    vctx c = {mod, f, &p, TL__VEC_INIT(let_div), TL_OK};
    tl_ir_mutator mu = {mod, NULL, vstmt, &c, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    tl__vec_free(&c.lets);
    if (!body) return mu.status != TL_OK ? mu.status : TL_EINTERNAL;
    if (c.st != TL_OK) return c.st;
    f->body = body;
  }
  return TL_OK;
}
