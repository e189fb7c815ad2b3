/* simplify on hand-built IR: constant folding in every dtype (with the
 * interpreter's rounding and wrapping), identities, what must not be rewritten
 * for floats, bound-aware decisions over loops, lets and kernels, and statement
 * cleanup. Expressions are checked as nodes; statements by their printed form. */
#include <math.h>

#include "ir_fixtures.h"
#include "pass_test.h"

/* A function f(OUT: T.Tensor((1,), t), n: T.int32) whose body stores `value`
 * (built by the callback) into OUT[0] inside T.Kernel(1); returns the value after
 * simplify. The callback may use `n` and wrap the store in loops. */
typedef struct sx {
  tl_ir_module *m;
  tl_ir_func *f;
  tl_ir_buffer *out;
  tl_ir_var *n;
} sx;

static sx sx_new(tl_dtype t) {
  sx s;
  TL_ASSERT_OK(tl_ir_module_create(&s.m));
  tl_ir_builder_set_loc(s.m, fx_loc(1, 1));
  tl_ir_expr *one = tl_ir_i32(s.m, 1);
  s.out = tl_ir_buffer_new(s.m, "OUT", t, 1, &one, NULL, TL_SCOPE_GLOBAL);
  s.n = tl_ir_var_new(s.m, "n", TL_DT_INT32);
  TL_ASSERT_OK(tl_ir_func_new(s.m, "f", &s.f));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(s.m, s.f, s.out, false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(s.m, s.f, s.n));
  return s;
}

static tl_ir_stmt *sx_kernel(sx *s, tl_ir_stmt *body) {
  tl_ir_expr *g[1] = {tl_ir_i32(s->m, 1)}, *th[1] = {tl_ir_i32(s->m, 1)};
  tl_ir_var *bx = tl_ir_var_new(s->m, "bx", TL_DT_INT32);
  return tl_ir_kernel(s->m, 1, g, 1, th, &bx, body);
}

static tl_ir_stmt *sx_store(sx *s, tl_ir_expr *v) {
  tl_ir_expr *z = tl_ir_i32(s->m, 0);
  return tl_ir_store(s->m, s->out, 1, &z, v);
}

/* Simplifies a store of e and returns the stored value. */
static tl_ir_expr *simp_value(sx *s, tl_ir_expr *e) {
  s->f->body = sx_kernel(s, sx_store(s, e));
  assert_non_null(s->f->body);
  pt_run(s->m, tl__pass_simplify);
  const tl_ir_stmt *k = s->f->body;
  assert_int_equal(k->kind, TL_STMT_KERNEL);
  assert_int_equal(k->u.kernel.body->kind, TL_STMT_STORE);
  return k->u.kernel.body->u.store.value;
}

static void expect_int(tl_ir_expr *e, tl_dtype t, int64_t v) {
  if (e->kind != TL_EXPR_INT) fail_msg("not folded to an integer constant (kind %d)", (int)e->kind);
  assert_true(tl_dtype_eq(e->dtype, t));
  assert_int_equal(e->u.int_value, v);
}

static void expect_float(tl_ir_expr *e, tl_dtype t, double v) {
  if (e->kind != TL_EXPR_FLOAT) fail_msg("not folded to a float constant (kind %d)", (int)e->kind);
  assert_true(tl_dtype_eq(e->dtype, t));
  if (!(e->u.float_value == v && signbit(e->u.float_value) == signbit(v)))
    fail_msg("folded to %.17g, expected %.17g", e->u.float_value, v);
}

#define BIN(op, a, b) tl_ir_binary(s.m, op, a, b)
#define I(v) tl_ir_i32(s.m, v)
#define IT(t, v) tl_ir_int(s.m, t, v)
#define F(t, v) tl_ir_float(s.m, t, v)
#define N tl_ir_var_ref(s.m, s.n)

static void test_fold_integers(void **state) {
  (void)state;
  struct {
    tl_dtype t;
    tl_ir_binop op;
    int64_t a, b, want;
  } cases[] = {
      {TL_DT_INT32, TL_BIN_ADD, 3, 4, 7},
      {TL_DT_INT32, TL_BIN_MUL, -6, 7, -42},
      {TL_DT_INT32, TL_BIN_ADD, INT32_MAX, 1, INT32_MIN}, /* wraps */
      {TL_DT_INT8, TL_BIN_ADD, 100, 100, -56},
      {TL_DT_UINT8, TL_BIN_ADD, 200, 100, 44},
      {TL_DT_UINT8, TL_BIN_SUB, 1, 2, 255},
      {TL_DT_INT16, TL_BIN_MUL, 300, 300, 24464},
      {TL_DT_INT32, TL_BIN_FLOORDIV, -7, 2, -4},
      {TL_DT_INT32, TL_BIN_FLOORMOD, -7, 2, 1},
      {TL_DT_INT32, TL_BIN_FLOORMOD, 7, -2, -1},
      {TL_DT_INT32, TL_BIN_DIV, -7, 2, -3}, /* truncates */
      {TL_DT_INT32, TL_BIN_MIN, -3, 5, -3},
      {TL_DT_INT64, TL_BIN_MAX, -3, 5, 5},
      {TL_DT_INT32, TL_BIN_BITXOR, 12, 10, 6},
      {TL_DT_INT32, TL_BIN_SHL, 1, 31, INT32_MIN},
      {TL_DT_UINT32, TL_BIN_SHR, 0x80000000LL, 4, 0x08000000LL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sx s = sx_new(cases[i].t);
    tl_ir_expr *e = simp_value(&s, BIN(cases[i].op, IT(cases[i].t, cases[i].a), IT(cases[i].t, cases[i].b)));
    expect_int(e, cases[i].t, cases[i].want);
    tl_ir_module_free(s.m);
  }
  /* Comparisons fold to bool; what would trap stays for run time. */
  sx s = sx_new(TL_DT_BOOL);
  expect_int(simp_value(&s, BIN(TL_BIN_LT, I(3), I(4))), TL_DT_BOOL, 1);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_INT32);
  tl_ir_expr *e = simp_value(&s, BIN(TL_BIN_FLOORDIV, I(7), I(0)));
  assert_int_equal(e->kind, TL_EXPR_BINARY);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_INT32);
  e = simp_value(&s, BIN(TL_BIN_SHL, I(1), I(32)));
  assert_int_equal(e->kind, TL_EXPR_BINARY);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_INT32);
  tl_ir_expr *cd[2] = {I(-7), I(2)};
  expect_int(simp_value(&s, tl_ir_call(s.m, TL_OP_CEILDIV, TL_DT_INT32, 2, cd)), TL_DT_INT32, -3);
  tl_ir_module_free(s.m);
}

static void test_fold_floats(void **state) {
  (void)state;
  /* float32 rounds once to float. */
  sx s = sx_new(TL_DT_FLOAT32);
  expect_float(simp_value(&s, BIN(TL_BIN_ADD, F(TL_DT_FLOAT32, 0.1), F(TL_DT_FLOAT32, 0.2))), TL_DT_FLOAT32,
               (double)(float)((double)0.1f + (double)0.2f));
  tl_ir_module_free(s.m);
  /* float16: 2048 + 1 is not representable and rounds to even (2048). */
  s = sx_new(TL_DT_FLOAT16);
  expect_float(simp_value(&s, BIN(TL_BIN_ADD, F(TL_DT_FLOAT16, 2048), F(TL_DT_FLOAT16, 1))), TL_DT_FLOAT16, 2048);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_FLOAT16);
  expect_float(simp_value(&s, BIN(TL_BIN_SUB, BIN(TL_BIN_ADD, F(TL_DT_FLOAT16, 1), F(TL_DT_FLOAT16, 2048)),
                                  F(TL_DT_FLOAT16, 2048))),
               TL_DT_FLOAT16, 0);
  tl_ir_module_free(s.m);
  /* Overflow to infinity in float16; bfloat16 keeps 8 significand bits. */
  s = sx_new(TL_DT_FLOAT16);
  expect_float(simp_value(&s, BIN(TL_BIN_MUL, F(TL_DT_FLOAT16, 300), F(TL_DT_FLOAT16, 300))), TL_DT_FLOAT16, INFINITY);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_BFLOAT16);
  expect_float(simp_value(&s, BIN(TL_BIN_ADD, F(TL_DT_BFLOAT16, 256), F(TL_DT_BFLOAT16, 1))), TL_DT_BFLOAT16, 256);
  tl_ir_module_free(s.m);
  /* Operands are taken at their dtype's precision first (0.1 in float16 is 0.0999755859375). */
  s = sx_new(TL_DT_FLOAT16);
  expect_float(simp_value(&s, BIN(TL_BIN_MUL, F(TL_DT_FLOAT16, 0.1), F(TL_DT_FLOAT16, 1))), TL_DT_FLOAT16,
               0.0999755859375);
  tl_ir_module_free(s.m);
  /* NaN-producing folds are left for run time. */
  s = sx_new(TL_DT_FLOAT32);
  tl_ir_expr *e = simp_value(&s, BIN(TL_BIN_DIV, F(TL_DT_FLOAT32, 0), F(TL_DT_FLOAT32, 0)));
  assert_int_equal(e->kind, TL_EXPR_BINARY);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_FLOAT32);
  expect_float(simp_value(&s, BIN(TL_BIN_MAX, F(TL_DT_FLOAT32, -INFINITY), F(TL_DT_FLOAT32, -3))), TL_DT_FLOAT32, -3);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_BOOL);
  expect_int(simp_value(&s, BIN(TL_BIN_GE, F(TL_DT_FLOAT64, 1.5), F(TL_DT_FLOAT64, 2.5))), TL_DT_BOOL, 0);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_FLOAT32);
  tl_ir_expr *a = F(TL_DT_FLOAT32, -2.5);
  expect_float(simp_value(&s, tl_ir_call(s.m, TL_OP_ROUND, TL_DT_FLOAT32, 1, &a)), TL_DT_FLOAT32, -3); /* away from 0 */
  tl_ir_module_free(s.m);
}

static void test_fold_casts(void **state) {
  (void)state;
  sx s = sx_new(TL_DT_INT8);
  expect_int(simp_value(&s, tl_ir_cast(s.m, TL_DT_INT8, I(300))), TL_DT_INT8, 44);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_INT32);
  expect_int(simp_value(&s, tl_ir_cast(s.m, TL_DT_INT32, F(TL_DT_FLOAT32, -3.7))), TL_DT_INT32, -3);
  tl_ir_module_free(s.m);
  /* Out of range: undefined in C, an error in the interpreter: left alone. */
  s = sx_new(TL_DT_INT8);
  tl_ir_expr *e = simp_value(&s, tl_ir_cast(s.m, TL_DT_INT8, F(TL_DT_FLOAT32, 1e10)));
  assert_int_equal(e->kind, TL_EXPR_CAST);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_FLOAT16);
  expect_float(simp_value(&s, tl_ir_cast(s.m, TL_DT_FLOAT16, F(TL_DT_FLOAT32, 65520))), TL_DT_FLOAT16, INFINITY);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_FLOAT32);
  expect_float(simp_value(&s, tl_ir_cast(s.m, TL_DT_FLOAT32, I(16777217))), TL_DT_FLOAT32, 16777216);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_BOOL);
  expect_int(simp_value(&s, tl_ir_cast(s.m, TL_DT_BOOL, F(TL_DT_FLOAT32, -0.5))), TL_DT_BOOL, 1);
  tl_ir_module_free(s.m);
  /* A cast to the value's own type disappears. */
  s = sx_new(TL_DT_INT32);
  e = simp_value(&s, tl_ir_cast(s.m, TL_DT_INT32, N));
  assert_int_equal(e->kind, TL_EXPR_VAR);
  tl_ir_module_free(s.m);
}

static void test_identities(void **state) {
  (void)state;
  /* Integers: each of these is n. */
  tl_ir_binop ops[] = {TL_BIN_ADD, TL_BIN_SUB, TL_BIN_MUL, TL_BIN_FLOORDIV, TL_BIN_MIN, TL_BIN_MAX};
  int64_t ks[] = {0, 0, 1, 1, -1, -1};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    sx s = sx_new(TL_DT_INT32);
    tl_ir_expr *rhs = ks[i] < 0 ? N : I(ks[i]);
    tl_ir_expr *e = simp_value(&s, BIN(ops[i], N, rhs));
    if (e->kind != TL_EXPR_VAR || e->u.var != s.n) fail_msg("identity %zu not applied", i);
    tl_ir_module_free(s.m);
  }
  sx s = sx_new(TL_DT_INT32);
  expect_int(simp_value(&s, BIN(TL_BIN_MUL, N, I(0))), TL_DT_INT32, 0);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_INT32);
  expect_int(simp_value(&s, BIN(TL_BIN_SUB, N, N)), TL_DT_INT32, 0);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_INT32);
  expect_int(simp_value(&s, BIN(TL_BIN_FLOORMOD, N, I(1))), TL_DT_INT32, 0);
  tl_ir_module_free(s.m);
  /* Constant chains: (n + 3) + 4 -> n + 7; (n * 2) * 4 -> n * 8. */
  s = sx_new(TL_DT_INT32);
  tl_ir_expr *e = simp_value(&s, BIN(TL_BIN_ADD, BIN(TL_BIN_ADD, N, I(3)), I(4)));
  assert_int_equal(e->kind, TL_EXPR_BINARY);
  assert_int_equal(e->u.binary.op, TL_BIN_ADD);
  assert_ptr_equal(e->u.binary.a->u.var, s.n);
  expect_int(e->u.binary.b, TL_DT_INT32, 7);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_INT32);
  e = simp_value(&s, BIN(TL_BIN_MUL, I(2), BIN(TL_BIN_MUL, N, I(4))));
  assert_int_equal(e->u.binary.op, TL_BIN_MUL);
  expect_int(e->u.binary.b, TL_DT_INT32, 8);
  tl_ir_module_free(s.m);
  /* Floats: x*1, x/1, x-0.0 are exact for every x; x+0.0 (-0.0 + 0.0 = +0.0), x*0
   * (NaN, infinities, -0.0) and x-x (NaN) are not. */
  struct {
    tl_ir_binop op;
    double k;
    bool folds;
  } fc[] = {{TL_BIN_MUL, 1.0, true}, {TL_BIN_DIV, 1.0, true}, {TL_BIN_SUB, 0.0, true},
            {TL_BIN_ADD, 0.0, false}, {TL_BIN_MUL, 0.0, false}, {TL_BIN_SUB, -0.0, false}};
  for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++) {
    s = sx_new(TL_DT_FLOAT32);
    tl_ir_expr *x = tl_ir_cast(s.m, TL_DT_FLOAT32, N);
    e = simp_value(&s, BIN(fc[i].op, x, F(TL_DT_FLOAT32, fc[i].k)));
    if ((e->kind == TL_EXPR_CAST) != fc[i].folds) fail_msg("float case %zu: folded=%d", i, e->kind == TL_EXPR_CAST);
    tl_ir_module_free(s.m);
  }
  s = sx_new(TL_DT_FLOAT32);
  tl_ir_expr *x = tl_ir_cast(s.m, TL_DT_FLOAT32, N);
  e = simp_value(&s, BIN(TL_BIN_SUB, x, x));
  assert_int_equal(e->kind, TL_EXPR_BINARY);
  tl_ir_module_free(s.m);
  /* Logic: `n < 0 and true` -> n < 0; `false and x` -> false; not not b -> b. */
  s = sx_new(TL_DT_BOOL);
  e = simp_value(&s, BIN(TL_BIN_AND, BIN(TL_BIN_LT, N, I(0)), tl_ir_bool(s.m, true)));
  assert_int_equal(e->u.binary.op, TL_BIN_LT);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_BOOL);
  expect_int(simp_value(&s, BIN(TL_BIN_AND, tl_ir_bool(s.m, false), BIN(TL_BIN_LT, N, I(0)))), TL_DT_BOOL, 0);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_BOOL);
  e = simp_value(&s, tl_ir_unary(s.m, TL_UN_NOT, tl_ir_unary(s.m, TL_UN_NOT, BIN(TL_BIN_LT, N, I(0)))));
  assert_int_equal(e->u.binary.op, TL_BIN_LT);
  tl_ir_module_free(s.m);
}

/* for i in range(16): for j in range(32): OUT[0] = <body(i, j)>: the stored value
 * after simplify. */
static tl_ir_expr *in_loops(sx *s, tl_ir_expr *(*body)(sx *, tl_ir_expr *, tl_ir_expr *)) {
  tl_ir_var *i = tl_ir_var_new(s->m, "i", TL_DT_INT32), *j = tl_ir_var_new(s->m, "j", TL_DT_INT32);
  tl_ir_expr *ei = tl_ir_i32(s->m, 16), *ej = tl_ir_i32(s->m, 32);
  tl_ir_stmt *st = sx_store(s, body(s, tl_ir_var_ref(s->m, i), tl_ir_var_ref(s->m, j)));
  st = tl_ir_for(s->m, TL_FOR_SERIAL, 1, &i, NULL, &ei, tl_ir_for(s->m, TL_FOR_SERIAL, 1, &j, NULL, &ej, st));
  s->f->body = sx_kernel(s, st);
  pt_run(s->m, tl__pass_simplify);
  const tl_ir_stmt *l = s->f->body->u.kernel.body->u.loop.body;
  return l->u.loop.body->u.store.value;
}

static tl_ir_expr *b_div(sx *s, tl_ir_expr *i, tl_ir_expr *j) {
  /* (i * 32 + j) // 32 + (i * 32 + j) % 32 * 100 + j // 32 + i % 16 */
  tl_ir_module *m = s->m;
  tl_ir_expr *flat = tl_ir_binary(m, TL_BIN_ADD, tl_ir_binary(m, TL_BIN_MUL, i, tl_ir_i32(m, 32)), j);
  tl_ir_expr *a = tl_ir_binary(m, TL_BIN_FLOORDIV, flat, tl_ir_i32(m, 32));
  tl_ir_expr *b = tl_ir_binary(m, TL_BIN_MUL, tl_ir_binary(m, TL_BIN_FLOORMOD, flat, tl_ir_i32(m, 32)), tl_ir_i32(m, 100));
  tl_ir_expr *c = tl_ir_binary(m, TL_BIN_FLOORDIV, j, tl_ir_i32(m, 32));
  tl_ir_expr *d = tl_ir_binary(m, TL_BIN_FLOORMOD, i, tl_ir_i32(m, 16));
  return tl_ir_binary(m, TL_BIN_ADD, tl_ir_binary(m, TL_BIN_ADD, tl_ir_binary(m, TL_BIN_ADD, a, b), c), d);
}

static tl_ir_expr *b_cmp(sx *s, tl_ir_expr *i, tl_ir_expr *j) {
  /* select(i < 16 and j + 1 <= 32 and i + j >= 0, i * 32 + j < 512, j < 31) */
  tl_ir_module *m = s->m;
  tl_ir_expr *c = tl_ir_binary(m, TL_BIN_AND,
                               tl_ir_binary(m, TL_BIN_AND, tl_ir_binary(m, TL_BIN_LT, i, tl_ir_i32(m, 16)),
                                            tl_ir_binary(m, TL_BIN_LE, tl_ir_binary(m, TL_BIN_ADD, j, tl_ir_i32(m, 1)),
                                                         tl_ir_i32(m, 32))),
                               tl_ir_binary(m, TL_BIN_GE, tl_ir_binary(m, TL_BIN_ADD, i, j), tl_ir_i32(m, 0)));
  tl_ir_expr *t = tl_ir_binary(m, TL_BIN_LT,
                               tl_ir_binary(m, TL_BIN_ADD, tl_ir_binary(m, TL_BIN_MUL, i, tl_ir_i32(m, 32)), j),
                               tl_ir_i32(m, 512));
  return tl_ir_select(m, c, t, tl_ir_binary(m, TL_BIN_LT, j, tl_ir_i32(m, 31)));
}

static void test_bounds(void **state) {
  (void)state;
  sx s = sx_new(TL_DT_INT32);
  char *txt = tl_ir_print_expr(in_loops(&s, b_div));
  assert_string_equal(txt, "i + j * 100 + i");
  tl_free(txt);
  tl_ir_module_free(s.m);
  s = sx_new(TL_DT_BOOL);
  expect_int(in_loops(&s, b_cmp), TL_DT_BOOL, 1);
  tl_ir_module_free(s.m);
}

/* Statements: ifs decided by loop bounds (kept when not provable), unit loops,
 * lets of constants, empty loops. */
static void test_statements(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "N = T.symbolic(\"N\")\n"
                             "@T.prim_func\n"
                             "def f(A: T.Tensor((N,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
                             "    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:\n"
                             "        for i in T.Parallel(64):\n"
                             "            if i < 64:\n"
                             "                B[i] = 1.0\n"
                             "            if i >= 64:\n"
                             "                B[i] = 2.0\n"
                             "            else:\n"
                             "                B[i] = 3.0\n"
                             "            if bx * 64 + i < N:\n"
                             "                A[bx * 64 + i] = B[i]\n"
                             "            if bx >= 0 and N >= 0:\n"
                             "                B[i] = B[i] + 1.0\n"
                             "        for j in T.serial(1):\n"
                             "            k = j + 2\n"
                             "            B[k] = 0.0\n"
                             "        for j in T.serial(0):\n"
                             "            B[j] = 5.0\n");
  pt_run(m, tl__pass_simplify);
  PT_ASSERT_PRINTS(m, "f",
                   "N = T.symbolic(\"N\")\n"
                   "\n\n"
                   "@T.prim_func\n"
                   "def f(A: T.Tensor((N,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
                   "    with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:\n"
                   "        for i in T.Parallel(64):\n"
                   "            B[i] = 1.0\n"
                   "            B[i] = 3.0\n"
                   "            if bx * 64 + i < N:\n"
                   "                A[bx * 64 + i] = B[i]\n"
                   "            B[i] = B[i] + 1.0\n"
                   "        B[2] = 0.0\n");
  /* A second run changes nothing: the same nodes come back. */
  const tl_ir_stmt *before = tl_ir_module_find_func(m, "f")->body;
  pt_run(m, tl__pass_simplify);
  assert_ptr_equal(tl_ir_module_find_func(m, "f")->body, before);
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_integers), cmocka_unit_test(test_fold_floats), cmocka_unit_test(test_fold_casts),
      cmocka_unit_test(test_identities),    cmocka_unit_test(test_bounds),      cmocka_unit_test(test_statements),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
