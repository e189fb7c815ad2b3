/* T.reshape / T.view: views share their source's storage on the interpreter (a
 * plain C reference), through lower_views (the lowered module computes the same
 * bytes), in structural equality (which storage a view shares matters), in the
 * printer's round trip, and under allocation failure. */
#include <string.h>

#include "frontend_test.h"
#include "interp_util.h"
#include "pass_test.h"

/* out = 2-d view of A, written through a 1-d view of shared memory; R reads a
 * fragment through a 3-d view (row sums of the last axis). */
static const char *const k_src =
    "import tilelang.language as T\n"
    "\n"
    "@T.prim_func\n"
    "def v(A: T.Tensor((24,), \"float32\"), B: T.Tensor((4, 6), \"float32\"), R: T.Tensor((2, 3), \"float32\")):\n"
    "    with T.Kernel(1, threads=32) as _:\n"
    "        A2 = T.reshape(A, (4, 6))\n"
    "        S = T.alloc_shared((4, 6), \"float32\")\n"
    "        T.copy(A2, S)\n"
    "        S1 = T.view(S, (24,))\n"
    "        for i in T.Parallel(24):\n"
    "            S1[i] = S1[i] * 2.0 + i\n"
    "        T.copy(S, B)\n"
    "        F = T.alloc_fragment((6, 4), \"float32\")\n"
    "        T.copy(B, T.reshape_placeholder)\n";

static char *source(const char *tail) {
  const char *cut = strstr(k_src, "        T.copy(B, T.reshape_placeholder)\n");
  size_t n = (size_t)(cut - k_src), m = strlen(tail);
  char *s = malloc(n + m + 1);
  memcpy(s, k_src, n);
  memcpy(s + n, tail, m + 1);
  return s;
}

static const char *const k_tail =
    "        for i, j in T.Parallel(6, 4):\n"
    "            F[i, j] = B[(i * 4 + j) // 6, (i * 4 + j) % 6]\n"
    "        F3 = T.reshape(F, (2, 3, 4))\n"
    "        T.reduce_sum(F3, R, dim=2)\n";

static void reference(const float *a, float *b, float *r) {
  for (int i = 0; i < 24; i++) b[i] = a[i] * 2.0f + (float)i; /* row-major: B[i // 6][i % 6] */
  for (int p = 0; p < 2; p++)
    for (int q = 0; q < 3; q++) {
      float s = 0;
      for (int k = 0; k < 4; k++) s += b[(p * 3 + q) * 4 + k]; /* F's storage is B's order */
      r[p * 3 + q] = s;
    }
}

static void run(const tl_ir_module *m, const float *a, float *b, float *r) {
  host_tensor ha, hb, hr;
  float acopy[24];
  memcpy(acopy, a, sizeof acopy);
  tl_value args[3] = {ht_wrap(&ha, TL_DT_FLOAT32, acopy, 1, 24, 0), ht_wrap(&hb, TL_DT_FLOAT32, b, 2, 4, 6),
                      ht_wrap(&hr, TL_DT_FLOAT32, r, 2, 2, 3)};
  TL_ASSERT_OK(tl_ir_interpret(m, tl_ir_module_func(m, 0)->name, args, 3));
}

static void test_interpreter_and_lowered(void **state) {
  (void)state;
  char *src = source(k_tail);
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(ft_parse(src, NULL, &m));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  float a[24], b[24], r[6], wb[24], wr[6];
  uint64_t seed = 7;
  for (int i = 0; i < 24; i++) a[i] = (float)test_uniform(&seed);
  reference(a, wb, wr);
  run(m, a, b, r);
  for (int i = 0; i < 24; i++) assert_float_equal(b[i], wb[i], 0);
  for (int i = 0; i < 6; i++) assert_float_equal(r[i], wr[i], 1e-6);
  /* The c pipeline up to host/device splitting: no view is left, same results. */
  tl_ir_module *low = NULL;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  pt_run(low, tl__pass_lower_tile_ops);
  pt_run(low, tl__pass_lower_views);
  char *text = tl_ir_print_module(low);
  assert_non_null(text);
  assert_null(strstr(text, "T.reshape"));
  tl_free(text);
  memset(b, 0, sizeof b);
  memset(r, 0, sizeof r);
  run(low, a, b, r);
  for (int i = 0; i < 24; i++) assert_float_equal(b[i], wb[i], 0);
  for (int i = 0; i < 6; i++) assert_float_equal(r[i], wr[i], 1e-6);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
  free(src);
}

/* A view of A and the same view of B are different programs; reparsing the
 * printed text gives an equal module with the same hash. */
static void test_equal_and_roundtrip(void **state) {
  (void)state;
  char sa[1024], sb[1024];
#define VIEW_OF(src)                                                                                             \
  "import tilelang.language as T\n"                                                                              \
  "\n"                                                                                                           \
  "@T.prim_func\n"                                                                                               \
  "def w(A: T.Tensor((8,), \"float32\"), B: T.Tensor((8,), \"float32\"), C: T.Tensor((2, 4), \"float32\")):\n"    \
  "    with T.Kernel(1) as _:\n"                                                                                 \
  "        V = T.reshape(" src ", (2, 4))\n"                                                                     \
  "        T.copy(V, C)\n"
  snprintf(sa, sizeof sa, "%s", VIEW_OF("A"));
  snprintf(sb, sizeof sb, "%s", VIEW_OF("B"));
#undef VIEW_OF
  tl_ir_module *ma = NULL, *mb = NULL, *mr = NULL;
  TL_ASSERT_OK(ft_parse(sa, NULL, &ma));
  TL_ASSERT_OK(ft_parse(sb, NULL, &mb));
  assert_false(tl_ir_module_equal(ma, mb));
  assert_true(tl_ir_module_hash(ma) != tl_ir_module_hash(mb));
  char *printed = tl_ir_print_module(ma);
  assert_non_null(printed);
  assert_non_null(strstr(printed, "V = T.reshape(A, (2, 4))"));
  TL_ASSERT_OK(ft_parse(printed, NULL, &mr));
  assert_true(tl_ir_module_equal(ma, mr));
  assert_int_equal(tl_ir_module_hash(ma), tl_ir_module_hash(mr));
  tl_free(printed);
  tl_ir_module_free(ma);
  tl_ir_module_free(mb);
  tl_ir_module_free(mr);
}

/* Out of scope: a view's storage must be bound where it is declared. */
static void test_verify_view_out_of_scope(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_expr *n = tl_ir_i32(m, 8);
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, &n, NULL, TL_SCOPE_SHARED);
  tl_ir_buffer *v = tl_ir_buffer_new(m, "V", TL_DT_FLOAT32, 1, &n, NULL, TL_SCOPE_SHARED);
  assert_non_null(a);
  assert_non_null(v);
  v->data = a->data;
  v->view = true;
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_stmt *body = kernel2(m, tl_ir_i32(m, 1), NULL, bx, NULL, tl_ir_alloc(m, v));
  make_func(m, "f", NULL, 0, body);
  assert_int_equal(tl_ir_verify_module(m), TL_EINVAL);
  assert_non_null(strstr(tl_last_error(), "view 'V' of storage that is not in scope"));
  tl_ir_module_free(m);
}

static tl_status parse_op(void *ctx) {
  tl_ir_module *m = NULL;
  tl_status s = ft_parse(ctx, NULL, &m);
  tl_ir_module_free(m);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  char *src = source(k_tail);
  assert_true(tl_oom_sweep(parse_op, NULL, src) > 0);
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_interpreter_and_lowered),
      cmocka_unit_test(test_equal_and_roundtrip),
      cmocka_unit_test(test_verify_view_out_of_scope),
      cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
