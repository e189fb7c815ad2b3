/* tvm.tir's operators by name (T.floordiv, T.floormod, T.truncdiv, T.truncmod,
 * T.shift_left/right, T.bitwise_*, variadic T.max/T.min, T.clamp, T.Select,
 * T.min_value) and the math intrinsics T.erf, T.log10, T.log1p, T.expm1, T.tan,
 * T.fmod: the interpreter running a kernel in upstream's style against a plain C
 * reference, on deterministic pseudo-random inputs, at sizes 1, 31 and 70 (the
 * last block partly past the end). */
#include <float.h>
#include <stdlib.h>

#include "interp_util.h"
#include "more_ops_src.h"

static int32_t floordiv_ref(int32_t a, int32_t b) {
  int32_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int32_t floormod_ref(int32_t a, int32_t b) { return a - floordiv_ref(a, b) * b; }

static int32_t max3(int32_t a, int32_t b, int32_t c) {
  int32_t m = a > b ? a : b;
  return m > c ? m : c;
}

static int32_t min3(int32_t a, int32_t b, int32_t c) {
  int32_t m = a < b ? a : b;
  return m < c ? m : c;
}

static float fclamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }

static void check_close(double got, double want, const char *what, int64_t i) {
  double tol = 2e-6 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
  if (!(fabs(got - want) <= tol)) fail_msg("%s at row %lld: got %.9g, want %.9g", what, (long long)i, got, want);
}

static void run_size(tl_ir_module *m, int64_t n, uint64_t seed) {
  int32_t *I = calloc((size_t)n, 4), *J = calloc((size_t)n, 4), *O = calloc((size_t)n * TIR_OPS_INT_COLS, 4);
  float *X = calloc((size_t)n, 4), *Y = calloc((size_t)n, 4), *F = calloc((size_t)n * TIR_OPS_FLOAT_COLS, 4);
  assert_true(I && J && O && X && Y && F);
  for (int64_t i = 0; i < n; i++) {
    I[i] = (int32_t)(test_uniform(&seed) * 2000.0);
    J[i] = (int32_t)(test_uniform(&seed) * 100.0);
    X[i] = (float)(test_uniform(&seed) * 5.0);
    Y[i] = (float)(test_uniform(&seed) * 3.0);
  }
  if (n > 1) I[1] = -I[1] - 1; /* both signs of the dividend */
  host_tensor h[6];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_INT32, I, 1, n, 0), ht_wrap(&h[1], TL_DT_INT32, J, 1, n, 0),
                     ht_wrap(&h[2], TL_DT_FLOAT32, X, 1, n, 0), ht_wrap(&h[3], TL_DT_FLOAT32, Y, 1, n, 0),
                     ht_wrap(&h[4], TL_DT_INT32, O, 2, n, TIR_OPS_INT_COLS),
                     ht_wrap(&h[5], TL_DT_FLOAT32, F, 2, n, TIR_OPS_FLOAT_COLS)};
  TL_ASSERT_OK(tl_ir_interpret(m, "ops", args, 6));
  for (int64_t i = 0; i < n; i++) {
    int32_t a = I[i], b = J[i], d = -((b & 15) | 1);
    int32_t want[TIR_OPS_INT_COLS] = {floordiv_ref(a, d), floormod_ref(a, d), a / d, a % d,
                                      (a & 0xffff) << (b & 7), a >> (b & 7), a | b, a ^ b, ~a,
                                      max3(a, b, -7), min3(a, b, 7), a < -50 ? -50 : a > 50 ? 50 : a};
    for (int c = 0; c < TIR_OPS_INT_COLS; c++)
      if (O[i * TIR_OPS_INT_COLS + c] != want[c])
        fail_msg("int column %d at row %lld (a=%d, b=%d): got %d, want %d", c, (long long)i, a, b,
                 O[i * TIR_OPS_INT_COLS + c], want[c]);
    double x = X[i], y = Y[i];
    double fwant[TIR_OPS_FLOAT_COLS] = {erf(x), log10(fabs(x) + 1.0), log1p(fabs(y)), expm1(fclamp((float)x, -4, 4)),
                                        tan(fclamp((float)x, -1, 1)), fmod(x, fabs(y) + 0.5),
                                        x > y ? x : (double)(float)(y * 2.0), fminf((float)x, 0.25f),
                                        fmaxf(fmaxf((float)x, (float)y), -FLT_MAX)};
    for (int c = 0; c < TIR_OPS_FLOAT_COLS; c++) check_close(F[i * TIR_OPS_FLOAT_COLS + c], fwant[c], "float column", i);
  }
  free(I), free(J), free(O), free(X), free(Y), free(F);
}

static void test_against_c(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(TIR_OPS_SRC, "ops.py", NULL, &m));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  static const int64_t sizes[] = {1, 31, 70};
  for (size_t k = 0; k < 3; k++) run_size(m, sizes[k], 100 + k);
  tl_ir_module_free(m);
}

/* The interpreter's own rules for the new math: fmod takes the dividend's sign,
 * and the intrinsics refuse integers at the front end. */
static void test_errors(void **state) {
  (void)state;
  static const struct { const char *expr, *needle; } bad[] = {
    {"T.fmod(X[0])", "T.fmod takes 2 arguments"},
    {"T.erf(I[0])", "T.erf needs a floating-point argument, got int32"},
    {"T.bitwise_not(X[0])", "T.bitwise_not needs an integer argument, got float32"},
    {"T.truncmod(X[0], 2.0)", "T.truncmod needs integer arguments"},
    {"T.max_value(\"bool\")", "T.max_value needs a numeric dtype, got bool"},
    {"T.clamp()", "T.clamp is missing its required argument 'dst'"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char src[1024];
    snprintf(src, sizeof src,
             "import tilelang.language as T\n"
             "@T.prim_func\n"
             "def f(I: T.Tensor((4,), \"int32\"), X: T.Tensor((4,), \"float32\")):\n"
             "    with T.Kernel(1, threads=32) as bx:\n"
             "        X[1] = %s\n",
             bad[k].expr);
    tl_ir_module *m = NULL;
    assert_int_equal(tl_ir_parse(src, "bad.py", NULL, &m), TL_EINVAL);
    assert_null(m);
    if (!strstr(tl_last_error(), bad[k].needle))
      fail_msg("%s: message\n%s\nlacks \"%s\"", bad[k].expr, tl_last_error(), bad[k].needle);
    assert_non_null(strstr(tl_last_error(), "bad.py:5:"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_against_c),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
