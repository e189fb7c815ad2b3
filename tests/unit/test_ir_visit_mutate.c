/* The visitor (pre-order, every child), the copy-on-write mutator (sharing,
 * rebuilt dtypes, failure unwinding, OOM) and substitution. */
#include "base/error.h"
#include "ir/module.h"
#include "ir_fixtures.h"
#include "tl_test.h"

/* ---------------------------------------------------------------- visitor */

typedef struct trace {
  int64_t ints[64];
  int nints;
  int kinds[64]; /* statement kinds in visit order */
  int nkinds;
  int skip_kind; /* expression kind whose children are skipped, or -1 */
  int nexprs;
} trace;

static bool trace_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  trace *t = v->ctx;
  t->nexprs++;
  if (e->kind == TL_EXPR_INT && t->nints < 64) t->ints[t->nints++] = e->u.int_value;
  return (int)e->kind != t->skip_kind;
}

static bool trace_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  trace *t = v->ctx;
  if (t->nkinds < 64) t->kinds[t->nkinds++] = (int)s->kind;
  return true;
}

/* Every statement kind and every expression child, each integer constant
 * numbered in the order a pre-order walk must meet it. */
static tl_ir_stmt *build_all_kinds(tl_ir_module *m) {
#define I(v) tl_ir_i32(m, v)
  tl_ir_expr *sh[1] = {I(100)}; /* buffer shapes are not visited */
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_INT32, 1, sh, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *x = tl_ir_var_new(m, "x", TL_DT_INT32);
  tl_ir_expr *mn[1] = {I(1)}, *ex[1] = {I(2)}, *idx[1] = {I(3)};
  tl_ir_stmt *loop = tl_ir_for(m, TL_FOR_SERIAL, 1, &i, mn, ex, tl_ir_store(m, a, 1, idx, I(4)));
  tl_ir_expr *rmin[1] = {I(7)}, *rext[1] = {I(8)};
  tl_ir_expr *cargs[2] = {tl_ir_region(m, a, rmin, rext, TL_REGION_SLICE), I(9)};
  tl_ir_stmt *iff = tl_ir_if(m, tl_ir_binary(m, TL_BIN_LT, I(5), I(6)),
                             tl_ir_eval(m, tl_ir_call(m, TL_OP_FILL, TL_DT_HANDLE, 2, cargs)), tl_ir_barrier(m));
  tl_ir_expr *sh2[1] = {I(101)};
  tl_ir_buffer *s = tl_ir_buffer_new(m, "S", TL_DT_INT32, 1, sh2, NULL, TL_SCOPE_SHARED);
  tl_ir_stmt *let = tl_ir_let(m, x, I(10), tl_ir_alloc(m, s));
  tl_ir_expr *grid[2] = {I(11), I(12)}, *thr[1] = {I(13)};
  tl_ir_stmt *kern = tl_ir_kernel(m, 2, grid, 1, thr, NULL, tl_ir_assert(m, tl_ir_binary(m, TL_BIN_EQ, I(14), I(15)), "m"));
  tl_ir_expr *largs[1] = {I(16)}, *lg[3] = {I(17), I(18), I(19)}, *lb[3] = {I(20), I(21), I(22)};
  tl_ir_stmt *launch = tl_ir_launch(m, "k", 1, largs, lg, lb, I(23));
  /* Expressions: select(cond, cast(unary(24)), load(A, ramp(25)) + broadcast(26)) */
  tl_ir_expr *ri[1] = {tl_ir_ramp(m, I(27), 1, 4)};
  tl_ir_expr *val = tl_ir_select(
      m, tl_ir_binary(m, TL_BIN_NE, I(24), I(25)), tl_ir_cast(m, TL_DT_INT32, tl_ir_unary(m, TL_UN_NEG, I(26))),
      tl_ir_binary(m, TL_BIN_ADD, tl_ir_load(m, a, 1, ri), tl_ir_broadcast(m, I(28), 4)));
  tl_ir_expr *sidx[1] = {I(0)};
  tl_ir_stmt *st = tl_ir_store(m, a, 1, sidx, val);
  tl_ir_stmt *all[6] = {loop, iff, let, kern, launch, st};
  return tl_ir_seq(m, 6, all);
#undef I
}

static void test_visit_order(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_stmt *s = build_all_kinds(m);
  assert_non_null(s);
  trace t = {.skip_kind = -1};
  tl_ir_visitor v = {trace_expr, trace_stmt, &t};
  tl_ir_visit_stmt(&v, s);
  assert_int_equal(t.nints, 29);
  static const int64_t order[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                  23, 0, 24, 25, 26, 27, 28};
  for (int k = 0; k < 29; k++) assert_int_equal(t.ints[k], order[k]);
  static const int kinds[] = {TL_STMT_SEQ,  TL_STMT_FOR,    TL_STMT_STORE,  TL_STMT_IF,     TL_STMT_EVAL,
                              TL_STMT_BARRIER, TL_STMT_LET, TL_STMT_ALLOC,  TL_STMT_KERNEL, TL_STMT_ASSERT,
                              TL_STMT_LAUNCH, TL_STMT_STORE};
  assert_int_equal(t.nkinds, 12);
  for (int k = 0; k < 12; k++) assert_int_equal(t.kinds[k], kinds[k]);

  /* Returning false skips the children: no constant under a binary is seen. */
  trace u = {.skip_kind = TL_EXPR_BINARY};
  v.ctx = &u;
  tl_ir_visit_stmt(&v, s);
  static const int64_t skipped[] = {1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 16, 17, 18, 19, 20, 21, 22, 23, 0, 26};
  assert_int_equal(u.nints, 21);
  for (int k = 0; k < 21; k++) assert_int_equal(u.ints[k], skipped[k]);
  /* A statement callback that refuses descends nowhere; a NULL callback is fine. */
  trace w = {.skip_kind = -1};
  tl_ir_visitor only_exprs = {trace_expr, NULL, &w};
  tl_ir_visit_stmt(&only_exprs, s);
  assert_int_equal(w.nints, 29);
  tl_ir_visitor none = {NULL, NULL, NULL};
  tl_ir_visit_stmt(&none, s);
  tl_ir_visit_expr(&none, NULL);
  tl_ir_module_free(m);
}

static bool refuse(tl_ir_visitor *v, const tl_ir_stmt *s) {
  (void)s;
  ((trace *)v->ctx)->nkinds++;
  return false;
}

static void test_visit_refuse_stmt(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *f = fx_matmul(m, "mm");
  trace t = {.skip_kind = -1};
  tl_ir_visitor v = {trace_expr, refuse, &t};
  tl_ir_visit_stmt(&v, f->body);
  assert_int_equal(t.nkinds, 1);
  assert_int_equal(t.nexprs, 0);
  tl_ir_module_free(m);
}

/* ---------------------------------------------------------------- mutator */

static void test_identity_shares_everything(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *f = fx_matmul(m, "mm");
  tl_ir_mutator mu = {m, NULL, NULL, NULL, TL_OK};
  assert_ptr_equal(tl_ir_mutate_stmt(&mu, f->body), f->body);
  tl_ir_stmt *all = build_all_kinds(m);
  assert_ptr_equal(tl_ir_mutate_stmt(&mu, all), all);
  assert_int_equal(mu.status, TL_OK);
  assert_null(tl_ir_mutate_stmt(&mu, NULL));
  assert_int_equal(mu.status, TL_OK);
  tl_ir_module_free(m);
}

/* Replaces the integer constant ctx[0] by ctx[1]. */
static tl_ir_expr *replace_int(tl_ir_mutator *mu, tl_ir_expr *e) {
  const int64_t *r = mu->ctx;
  if (e->kind == TL_EXPR_INT && e->u.int_value == r[0]) return tl_ir_int(mu->mod, e->dtype, r[1]);
  return tl_ir_mutate_expr_children(mu, e);
}

static void test_copy_on_write(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_builder_set_loc(m, fx_loc(7, 3));
  tl_ir_stmt *s = build_all_kinds(m);
  tl_ir_builder_set_loc(m, fx_loc(99, 1));
  int64_t r[2] = {4, 40};
  tl_ir_mutator mu = {m, replace_int, NULL, r, TL_OK};
  tl_ir_stmt *n = tl_ir_mutate_stmt(&mu, s);
  assert_int_equal(mu.status, TL_OK);
  assert_ptr_not_equal(n, s);
  /* The path to the constant is new; everything else is shared. */
  assert_ptr_not_equal(n->u.seq.stmts[0], s->u.seq.stmts[0]);
  for (int k = 1; k < 6; k++) assert_ptr_equal(n->u.seq.stmts[k], s->u.seq.stmts[k]);
  tl_ir_stmt *loop = n->u.seq.stmts[0], *old = s->u.seq.stmts[0];
  assert_int_equal(loop->u.loop.body->u.store.value->u.int_value, 40);
  assert_ptr_equal(loop->u.loop.vars, old->u.loop.vars);
  assert_ptr_equal(loop->u.loop.mins, old->u.loop.mins); /* unchanged arrays are shared too */
  assert_ptr_equal(loop->u.loop.body->u.store.indices, old->u.loop.body->u.store.indices);
  /* Rebuilt nodes keep their spans. */
  assert_int_equal(loop->span.line, 7);
  assert_int_equal(loop->u.loop.body->span.line, 7);
  assert_int_equal(n->span.line, 7);
  assert_int_equal(old->u.loop.body->u.store.value->u.int_value, 4); /* the original is untouched */

  /* Every kind of child is reached: replace each numbered constant in turn. */
  for (int64_t k = 1; k <= 28; k++) {
    int64_t rr[2] = {k, 1000 + k};
    tl_ir_mutator mk = {m, replace_int, NULL, rr, TL_OK};
    tl_ir_stmt *x = tl_ir_mutate_stmt(&mk, s);
    assert_ptr_not_equal(x, s);
    trace t = {.skip_kind = -1};
    tl_ir_visitor v = {trace_expr, NULL, &t};
    tl_ir_visit_stmt(&v, x);
    bool seen = false;
    for (int q = 0; q < t.nints; q++) {
      assert_int_not_equal(t.ints[q], k);
      seen |= t.ints[q] == 1000 + k;
    }
    assert_true(seen);
  }
  tl_ir_module_free(m);
}

static tl_ir_expr *i_to_ramp(tl_ir_mutator *mu, tl_ir_expr *e) {
  if (e->kind == TL_EXPR_VAR && e->u.var == mu->ctx) return tl_ir_ramp(mu->mod, e, 1, 4);
  return tl_ir_mutate_expr_children(mu, e);
}

static void test_rebuilt_dtypes(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_expr *sh[1] = {tl_ir_i32(m, 16)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, sh, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_expr *idx[1] = {tl_ir_var_ref(m, i)};
  tl_ir_expr *ld = tl_ir_load(m, a, 1, idx);
  tl_ir_expr *cmp = tl_ir_binary(m, TL_BIN_LT, tl_ir_var_ref(m, i), tl_ir_i32(m, 3));
  tl_ir_mutator mu = {m, i_to_ramp, NULL, i, TL_OK};
  tl_ir_expr *vl = tl_ir_mutate_expr(&mu, ld);
  assert_true(tl_dtype_eq(vl->dtype, tl_dtype_with_lanes(TL_DT_FLOAT32, 4)));
  tl_ir_expr *vc = tl_ir_mutate_expr(&mu, cmp);
  assert_true(tl_dtype_eq(vc->dtype, tl_dtype_with_lanes(TL_DT_BOOL, 4)));
  tl_ir_expr *neg = tl_ir_mutate_expr(&mu, tl_ir_unary(m, TL_UN_NEG, tl_ir_var_ref(m, i)));
  assert_true(tl_dtype_eq(neg->dtype, tl_dtype_with_lanes(TL_DT_INT32, 4)));
  /* Casts and calls keep their own dtype. */
  tl_ir_expr *cast = tl_ir_mutate_expr(&mu, tl_ir_cast(m, TL_DT_INT64, tl_ir_var_ref(m, i)));
  assert_true(tl_dtype_eq(cast->dtype, TL_DT_INT64));
  tl_ir_module_free(m);
}

static tl_ir_stmt *fail_at_barrier(tl_ir_mutator *mu, tl_ir_stmt *s) {
  int *calls = mu->ctx;
  (*calls)++;
  if (s->kind == TL_STMT_BARRIER) {
    tl_ir_mutator_fail(mu, tl__error(TL_EINVAL, "no barriers here"));
    return NULL;
  }
  return tl_ir_mutate_stmt_children(mu, s);
}

static tl_ir_stmt *forget_fail(tl_ir_mutator *mu, tl_ir_stmt *s) {
  return s->kind == TL_STMT_BARRIER ? NULL : tl_ir_mutate_stmt_children(mu, s);
}

static tl_ir_stmt *bad_builder(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (s->kind != TL_STMT_BARRIER) return tl_ir_mutate_stmt_children(mu, s);
  tl_ir_expr *g[1] = {tl_ir_i32(mu->mod, 1)};
  return tl_ir_kernel(mu->mod, 0, g, 1, g, NULL, s); /* grid_ndim 0: the builder refuses */
}

static tl_ir_stmt *double_barrier(tl_ir_mutator *mu, tl_ir_stmt *s) {
  if (s->kind != TL_STMT_BARRIER) return tl_ir_mutate_stmt_children(mu, s);
  tl_ir_stmt *two[2] = {s, tl_ir_barrier(mu->mod)};
  return tl_ir_seq(mu->mod, 2, two);
}

static void test_failure_unwinds(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_stmt *s = build_all_kinds(m);
  int calls = 0;
  tl_ir_mutator mu = {m, NULL, fail_at_barrier, &calls, TL_OK};
  assert_null(tl_ir_mutate_stmt(&mu, s));
  assert_int_equal(mu.status, TL_EINVAL);
  TL_ASSERT_MSG("no barriers here");
  /* The walk stopped at the barrier (the 6th statement met). */
  assert_int_equal(calls, 6);
  /* Later calls return at once. */
  assert_null(tl_ir_mutate_stmt(&mu, s));
  assert_null(tl_ir_mutate_expr(&mu, s->u.seq.stmts[0]->u.loop.extents[0]));
  assert_int_equal(calls, 6);
  assert_int_equal(tl_ir_mutator_fail(&mu, TL_ENOMEM), TL_ENOMEM);
  assert_int_equal(mu.status, TL_EINVAL); /* the first failure stays */

  tl_ir_mutator mf = {m, NULL, forget_fail, NULL, TL_OK};
  assert_null(tl_ir_mutate_stmt(&mf, s));
  assert_int_equal(mf.status, TL_EINTERNAL);
  TL_ASSERT_MSG("mutator: a callback returned NULL without calling tl_ir_mutator_fail, or a node is missing");

  tl_ir_mutator mb = {m, NULL, bad_builder, NULL, TL_OK};
  assert_null(tl_ir_mutate_stmt(&mb, s));
  assert_int_equal(mb.status, TL_EINVAL);
  TL_ASSERT_MSG("tl_ir_kernel: grid_ndim must be 1, 2 or 3");

  tl_ir_mutator md = {m, NULL, double_barrier, NULL, TL_OK};
  tl_ir_stmt *d = tl_ir_mutate_stmt(&md, s);
  assert_int_equal(md.status, TL_OK);
  tl_ir_stmt *iff = d->u.seq.stmts[1];
  assert_int_equal(iff->u.if_.else_->kind, TL_STMT_SEQ);
  assert_int_equal(iff->u.if_.else_->u.seq.n, 2);
  assert_ptr_equal(iff->u.if_.then_, s->u.seq.stmts[1]->u.if_.then_);
  tl_ir_module_free(m);
}

/* The OOM sweep: build a kernel, then rewrite every constant (so every node is
 * rebuilt), with nearly every arena allocation a malloc. */
static tl_ir_expr *bump_ints(tl_ir_mutator *mu, tl_ir_expr *e) {
  if (e->kind == TL_EXPR_INT) return tl_ir_int(mu->mod, e->dtype, e->u.int_value + 1);
  return tl_ir_mutate_expr_children(mu, e);
}

static tl_status oom_mutate(void *ctx) {
  (void)ctx;
  tl_ir_module *m;
  TL__TRY(tl_ir_module_create(&m));
  m->arena.chunk_size = 1;
  tl_status st = TL_OK;
  tl_ir_func *f = fx_matmul(m, "mm");
  tl_ir_stmt *all = f ? build_all_kinds(m) : NULL;
  if (!all) {
    st = tl__ir_null_status(m, "fixture");
  } else {
    tl_ir_mutator mu = {m, bump_ints, NULL, NULL, TL_OK};
    tl_ir_stmt *a = tl_ir_mutate_stmt(&mu, f->body);
    tl_ir_stmt *b = a ? tl_ir_mutate_stmt(&mu, all) : NULL;
    st = mu.status;
    if (st == TL_OK && (!a || !b || a == f->body || b == all)) st = TL_EINTERNAL;
  }
  tl_ir_module_free(m);
  return st;
}

static void test_mutate_oom(void **state) {
  (void)state;
  assert_true(tl_oom_sweep(oom_mutate, NULL, NULL) > 100);
}

/* ----------------------------------------------------------- substitution */

typedef struct uses {
  const tl_ir_var *v;
  int n;
} uses;

static bool count_uses(tl_ir_visitor *v, const tl_ir_expr *e) {
  uses *u = v->ctx;
  if (e->kind == TL_EXPR_VAR && e->u.var == u->v) u->n++;
  return true;
}

static int nuses_stmt(const tl_ir_stmt *s, const tl_ir_var *var) {
  uses u = {var, 0};
  tl_ir_visitor v = {count_uses, NULL, &u};
  tl_ir_visit_stmt(&v, s);
  return u.n;
}

static void test_substitute(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *f = fx_vadd(m, "vadd");
  tl_ir_var *bx = f->body->u.kernel.block_vars[0];
  tl_ir_var *n = f->params[0].buffer->shape[0]->u.var;
  tl_ir_stmt *body = f->body->u.kernel.body;
  assert_int_equal(nuses_stmt(body, bx), 4); /* one shared index expression, met 4 times */
  int uses_n = nuses_stmt(body, n);
  tl_ir_expr *seven = tl_ir_i32(m, 7);
  tl_ir_stmt *s = tl_ir_substitute_stmt(m, body, 1, &bx, &seven);
  assert_non_null(s);
  assert_ptr_not_equal(s, body);
  assert_int_equal(nuses_stmt(s, bx), 0);
  assert_int_equal(nuses_stmt(s, n), uses_n);
  assert_int_equal(nuses_stmt(body, bx), 4);
  /* Two at once; a variable with no use gives the same node back. */
  tl_ir_var *vars[2] = {bx, n};
  tl_ir_expr *vals[2] = {seven, tl_ir_i32(m, 1024)};
  s = tl_ir_substitute_stmt(m, body, 2, vars, vals);
  assert_int_equal(nuses_stmt(s, bx) + nuses_stmt(s, n), 0);
  tl_ir_var *unused = tl_ir_var_new(m, "u", TL_DT_INT32);
  assert_ptr_equal(tl_ir_substitute_stmt(m, body, 1, &unused, &seven), body);
  assert_ptr_equal(tl_ir_substitute_stmt(m, body, 0, NULL, NULL), body);
  /* Expressions. */
  tl_ir_expr *e = tl_ir_binary(m, TL_BIN_ADD, tl_ir_var_ref(m, bx), tl_ir_var_ref(m, bx));
  tl_ir_expr *r = tl_ir_substitute_expr(m, e, 1, &bx, &seven);
  assert_ptr_equal(r->u.binary.a, seven);
  assert_ptr_equal(r->u.binary.b, seven);
  tl_ir_expr *ref = tl_ir_var_ref(m, bx);
  assert_ptr_equal(tl_ir_substitute_expr(m, ref, 1, &bx, &seven), seven);
  assert_null(tl_ir_substitute_expr(m, NULL, 1, &bx, &seven));
  /* Bad arguments. */
  tl_ir_expr *none = NULL;
  assert_null(tl_ir_substitute_expr(m, e, 1, &bx, NULL));
  assert_string_equal(tl_last_error(), "tl_ir_substitute: vars and values must not be NULL");
  assert_null(tl_ir_substitute_stmt(m, body, 1, &bx, &none));
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_visit_order),         cmocka_unit_test(test_visit_refuse_stmt),
      cmocka_unit_test(test_identity_shares_everything), cmocka_unit_test(test_copy_on_write),
      cmocka_unit_test(test_rebuilt_dtypes),      cmocka_unit_test(test_failure_unwinds),
      cmocka_unit_test(test_mutate_oom),          cmocka_unit_test(test_substitute),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
