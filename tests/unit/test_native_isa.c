/* The native backend's instruction-set flags from a target (src/runtime/native_isa.c). */
#include "runtime/native_isa.h"

#include "base/alloc.h"
#include "tl_test.h"

static char **flags_of(const char *spec) {
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse(spec, &t));
  char **f = NULL;
  TL_ASSERT_OK(tl__native_isa_flags(t, &f));
  tl_target_release(t);
  return f;
}

static void test_flags(void **state) {
  (void)state;
  char **f = flags_of("c");
  assert_string_equal(f[0], "-march=native");
  assert_null(f[1]);
  tl__native_isa_flags_free(f);
  f = flags_of("{\"kind\": \"c\", \"mcpu\": \"x86-64-v2\"}");
  assert_string_equal(f[0], "-march=x86-64-v2");
  assert_null(f[1]);
  tl__native_isa_flags_free(f);
  f = flags_of("{\"kind\": \"c\", \"mcpu\": \"znver3\", \"march\": \"haswell\"}"); /* march wins */
  assert_string_equal(f[0], "-march=haswell");
  tl__native_isa_flags_free(f);
  f = flags_of("{\"kind\": \"llvm\", \"mcpu\": \"znver3\", \"mattr\": [\"+avx2\", \"-avx512f\"]}");
  assert_string_equal(f[0], "-march=znver3");
  assert_string_equal(f[1], "-mavx2");
  assert_string_equal(f[2], "-mno-avx512f");
  assert_null(f[3]);
  tl__native_isa_flags_free(f);
  TL_ASSERT_OK(tl__native_isa_flags(NULL, &f)); /* no target: the host */
  assert_string_equal(f[0], "-march=native");
  tl__native_isa_flags_free(f);
}

static void expect_refused(const char *spec, const char *msg) {
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse(spec, &t));
  char **f = (char **)1;
  assert_int_equal(tl__native_isa_flags(t, &f), TL_EINVAL);
  assert_null(f);
  TL_ASSERT_MSG(msg);
  tl_target_release(t);
}

static void test_refusals(void **state) {
  (void)state;
  /* words only: these reach the compiler's command line */
  expect_refused("{\"kind\": \"c\", \"mcpu\": \"x86 -o /tmp/x\"}", "target: mcpu 'x86 -o /tmp/x' is not a CPU name");
  expect_refused("{\"kind\": \"llvm\", \"mattr\": [\"avx2\"]}", "target: mattr entry 'avx2' must be +feature or -feature");
  expect_refused("{\"kind\": \"llvm\", \"mattr\": [\"+-x\"]}", "target: mattr entry '+-x' must be +feature or -feature");
}

static tl_status flags_op(void *ctx) {
  char **f = NULL;
  tl_status s = tl__native_isa_flags(ctx, &f);
  tl__native_isa_flags_free(f);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  tl_target *t = NULL;
  TL_ASSERT_OK(tl_target_parse("{\"kind\": \"llvm\", \"mcpu\": \"znver3\", \"mattr\": [\"+avx2\", \"-fma\"]}", &t));
  assert_true(tl_oom_sweep(flags_op, NULL, t) >= 3);
  tl_target_release(t);
  char *cpu = tl__native_host_cpu();
  assert_non_null(cpu);
  assert_true(strlen(cpu) > 0);
  tl__free(cpu);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_flags),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
