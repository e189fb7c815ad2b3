/* Shared helpers of the layout tests (test_layout_*.c): an evaluator for the
 * integer expressions the layout code builds, and the bijection check every
 * fragment layout must pass. */
#ifndef TL_LAYOUT_TEST_H
#define TL_LAYOUT_TEST_H

#include "layout/frag.h"
#include "tl_test.h"

/* A variable binding for lt_eval. */
typedef struct lt_env {
  const tl_ir_var *vars[8];
  int64_t vals[8];
  int n;
} lt_env;

static inline int64_t lt_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The value of an integer expression of constants, bound variables and the
 * operators the layout code uses; fails the test on anything else. */
static inline int64_t lt_eval(const tl_ir_expr *e, const lt_env *env) {
  if (!e) fail_msg("lt_eval: NULL expression");
  switch (e->kind) {
  case TL_EXPR_INT: return e->u.int_value;
  case TL_EXPR_VAR:
    for (int i = 0; i < env->n; i++)
      if (env->vars[i] == e->u.var) return env->vals[i];
    fail_msg("lt_eval: unbound variable %s", e->u.var->name);
    return 0;
  case TL_EXPR_CAST: return lt_eval(e->u.cast.value, env);
  case TL_EXPR_SELECT:
    return lt_eval(e->u.select.cond, env) ? lt_eval(e->u.select.t, env) : lt_eval(e->u.select.f, env);
  case TL_EXPR_BINARY: {
    int64_t a = lt_eval(e->u.binary.a, env), b = lt_eval(e->u.binary.b, env);
    switch (e->u.binary.op) {
    case TL_BIN_ADD: return a + b;
    case TL_BIN_SUB: return a - b;
    case TL_BIN_MUL: return a * b;
    case TL_BIN_FLOORDIV: return lt_floordiv(a, b);
    case TL_BIN_FLOORMOD: return a - lt_floordiv(a, b) * b;
    case TL_BIN_DIV: return a / b;
    case TL_BIN_MIN: return a < b ? a : b;
    case TL_BIN_MAX: return a > b ? a : b;
    case TL_BIN_EQ: return a == b;
    case TL_BIN_NE: return a != b;
    case TL_BIN_LT: return a < b;
    case TL_BIN_LE: return a <= b;
    case TL_BIN_GT: return a > b;
    case TL_BIN_GE: return a >= b;
    case TL_BIN_AND: return a && b;
    case TL_BIN_OR: return a || b;
    case TL_BIN_BITAND: return a & b;
    case TL_BIN_BITOR: return a | b;
    case TL_BIN_BITXOR: return a ^ b;
    case TL_BIN_SHL: return a << b;
    case TL_BIN_SHR: return a >> b;
    }
    break;
  }
  default: break;
  }
  fail_msg("lt_eval: unexpected expression kind %d", (int)e->kind);
  return 0;
}

/* Both directions of L agree everywhere: every (thread, slot) that holds an
 * element is one of that element's owners, and every element's owners, replica by
 * replica, hold it at distinct pairs (each element exactly replicas times). */
static inline void lt_check_bijection(const tl__frag *L, const char *label) {
  TL_ASSERT_OK(tl__frag_check(L));
  int64_t n = tl__frag_elements(L), reps = tl__frag_replicas(L), held = 0;
  int64_t idx[TL__FRAG_MAX_DIMS], back[TL__FRAG_MAX_DIMS];
  for (int64_t t = 0; t < L->threads; t++)
    for (int64_t s = 0; s < L->slots; s++) {
      if (!tl__frag_element(L, t, s, idx)) continue;
      held++;
      if (!tl__frag_holds(L, t, idx))
        fail_msg("%s: thread %lld holds slot %lld but not its element", label, (long long)t, (long long)s);
      bool found = false;
      for (int64_t r = 0; r < reps && !found; r++) {
        int64_t ot, os;
        tl__frag_owner(L, idx, r, &ot, &os);
        found = ot == t && os == s;
      }
      if (!found)
        fail_msg("%s: (thread %lld, slot %lld) is no owner of its element", label, (long long)t, (long long)s);
    }
  if (held != n * reps)
    fail_msg("%s: %lld pairs hold elements, expected %lld elements x %lld copies", label, (long long)held, (long long)n,
             (long long)reps);
  for (int64_t f = 0; f < n; f++) {
    int64_t rem = f;
    for (uint32_t d = L->ndim; d-- > 0;) {
      idx[d] = rem % L->shape[d];
      rem /= L->shape[d];
    }
    for (int64_t r = 0; r < reps; r++) {
      int64_t t, s;
      tl__frag_owner(L, idx, r, &t, &s);
      if (!tl__frag_element(L, t, s, back)) fail_msg("%s: element %lld's owner holds nothing", label, (long long)f);
      for (uint32_t d = 0; d < L->ndim; d++)
        if (back[d] != idx[d]) fail_msg("%s: element %lld's owner holds another element", label, (long long)f);
    }
  }
}

#endif
