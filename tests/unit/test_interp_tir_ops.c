/* tvm.tir's operators by name (T.floordiv, T.floormod, T.truncdiv, T.truncmod,
 * T.shift_left/right, T.bitwise_*, variadic T.max/T.min, T.clamp, T.Select,
 * T.min_value) and the math intrinsics T.erf, T.log10, T.log1p, T.expm1, T.tan,
 * T.fmod: the interpreter running a kernel in upstream's style against a plain C
 * reference, on deterministic pseudo-random inputs, at sizes 1, 31 and 70 (the
 * last block partly past the end). */
#include <float.h>
#include <stdlib.h>

#include "base/fp16.h"
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

/* T.any_of / T.all_of and T.atomic_addx2 / x4 (ANYALL_ADDX_SRC) against plain C:
 * rows of every kind (all set, none set, some), integer-valued floats so that the
 * sums of the racing blocks are exact in any order. */
static void test_any_all_addx(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(ANYALL_ADDX_SRC, "aax.py", NULL, &m));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  uint64_t seed = 7;
  int32_t I[8 * 5], O[8 * 4];
  bool M[8 * 4];
  float A[8 * 12], B[4 * 12], Bw[4 * 12];
  uint16_t H[8 * 4], HB[2 * 4];
  for (int i = 0; i < 8 * 5; i++) I[i] = (int32_t)(test_uniform(&seed) * 7.0);
  for (int k = 0; k < 5; k++) I[0 * 5 + k] = 1, I[1 * 5 + k] = 3 * k; /* row 0 all set, row 1 none */
  for (int i = 0; i < 8 * 4; i++) M[i] = i / 4 == 2 || (i / 4 > 3 && test_uniform(&seed) > 0.5);
  for (int i = 0; i < 8 * 12; i++) A[i] = (float)(int)(test_uniform(&seed) * 20.0 - 10.0);
  for (int i = 0; i < 4 * 12; i++) B[i] = Bw[i] = (float)i;
  for (int i = 0; i < 8 * 4; i++) H[i] = tl__f32_to_f16((float)(i % 5));
  for (int i = 0; i < 2 * 4; i++) HB[i] = tl__f32_to_f16(1.0f);
  host_tensor h[7];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_INT32, I, 2, 8, 5),    ht_wrap(&h[1], TL_DT_BOOL, M, 2, 8, 4),
                     ht_wrap(&h[2], TL_DT_INT32, O, 2, 8, 4),    ht_wrap(&h[3], TL_DT_FLOAT32, A, 2, 8, 12),
                     ht_wrap(&h[4], TL_DT_FLOAT32, B, 2, 4, 12), ht_wrap(&h[5], TL_DT_FLOAT16, H, 2, 8, 4),
                     ht_wrap(&h[6], TL_DT_FLOAT16, HB, 2, 2, 4)};
  TL_ASSERT_OK(tl_ir_interpret(m, "aax", args, 7));
  float hbw[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  for (int b = 0; b < 8; b++) {
    bool any = false, all = true, sall = true, s12 = false;
    for (int k = 0; k < 4; k++) any |= M[b * 4 + k], all &= M[b * 4 + k];
    for (int k = 0; k < 5; k++) {
      bool sk = I[b * 5 + k] % 3 != 0;
      sall &= sk;
      if (k == 1 || k == 2) s12 |= sk;
    }
    int32_t want[4] = {any, all, sall, s12 ? 7 : -7};
    for (int c = 0; c < 4; c++)
      if (O[b * 4 + c] != want[c]) fail_msg("O[%d, %d]: got %d, want %d", b, c, O[b * 4 + c], want[c]);
    for (int j = 0; j < 6; j++) Bw[(b % 4) * 12 + j] += A[b * 12 + j];
    for (int j = 0; j < 2; j++)
      for (int l = 0; l < 4; l++) Bw[((b + j) % 4) * 12 + 6 + j * 2 + l] += A[b * 12 + 6 + j * 2 + l];
    for (int l = 0; l < 2; l++) hbw[(b % 2) * 4 + 1 + l] += tl__f16_to_f32(H[b * 4 + 2 + l]);
  }
  assert_true(O[0 * 4 + 2] == 1 && O[1 * 4 + 2] == 0); /* both kinds of row were there */
  for (int i = 0; i < 4 * 12; i++)
    if (B[i] != Bw[i]) fail_msg("B[%d]: got %g, want %g", i, B[i], Bw[i]);
  for (int i = 0; i < 8; i++)
    if (tl__f16_to_f32(HB[i]) != hbw[i]) fail_msg("HB[%d]: got %g, want %g", i, tl__f16_to_f32(HB[i]), hbw[i]);
  tl_ir_module_free(m);
  /* A slice of another size than the op's lanes, a value that is not a buffer,
   * and T.any_of's value used as a statement are errors at the call. */
  static const struct { const char *stmt, *needle; } bad[] = {
    {"T.atomic_addx4(X[0:3], X[0:3])", "bad.py:5:24: T.atomic_addx4 adds 4 consecutive elements: give one element of 'X'"},
    {"T.atomic_addx2(X[0], 1.0)", "bad.py:5:30: T.atomic_addx2 expects a buffer or a buffer region"},
    {"I[0] = T.atomic_max(I[1], 1, return_prev=True)", "bad.py:5:16: T.atomic_max is a statement here: its previous value"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char src[1024];
    snprintf(src, sizeof src,
             "import tilelang.language as T\n"
             "@T.prim_func\n"
             "def f(I: T.Tensor((4,), \"int32\"), X: T.Tensor((4,), \"float32\")):\n"
             "    with T.Kernel(1, threads=32) as bx:\n"
             "        %s\n",
             bad[k].stmt);
    tl_ir_module *mb = NULL;
    assert_int_equal(tl_ir_parse(src, "bad.py", NULL, &mb), TL_EINVAL);
    assert_null(mb);
    if (!strstr(tl_last_error(), bad[k].needle)) fail_msg("%s: message\n%s\nlacks \"%s\"", bad[k].stmt, tl_last_error(), bad[k].needle);
  }
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
    {"T.any_of(X[0:I[0]])", "T.any_of needs a region of 'X' whose extents are constants"},
    {"T.all_of(bx)", "T.all_of expects a buffer or a buffer region"},
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
    cmocka_unit_test(test_any_all_addx),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
