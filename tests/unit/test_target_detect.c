/* Detection and normalization: the built-in registries, the real cuda detector on
 * this machine (a machine without a GPU or driver must say "not found" cleanly),
 * determine_target with TILELANG_DEFAULT_TARGET, registration rules, and a fake
 * detector list (last: it overrides the built-ins for the rest of this program). */
#include <stdlib.h>

#include "backends/cuda/target.h"
#include "backends/rocm/target.h"
#include "base/error.h"
#include "runtime/cuda_driver.h"
#include "target_test.h"

static tl_target *determine_ok(const char *spec) {
  tl_target *t = NULL;
  tl_status s = tl_determine_target(spec, &t);
  if (s != TL_OK) fail_msg("tl_determine_target(%s): %s: %s", spec ? spec : "NULL", tl_status_name(s), tl_last_error());
  return t;
}

#define EXPECT_DETERMINE_ERR(spec, status, msg)                       \
  do {                                                                \
    tl_target *ed_t = (tl_target *)(uintptr_t)1;                      \
    TL_ASSERT_ERR(tl_determine_target(spec, &ed_t), status, "");      \
    TL_ASSERT_MSG(msg);                                               \
    assert_null(ed_t);                                                \
  } while (0)

static void test_builtin_registries(void **state) {
  (void)state;
  const char *names[8];
  assert_int_equal(tl_list_target_detectors(names, 8), 2);
  assert_string_equal(names[0], "cuda");
  assert_string_equal(names[1], "cpu");
  assert_int_equal(tl_list_target_normalizers(names, 8), 2);
  assert_string_equal(names[0], "cuda");
  assert_string_equal(names[1], "hip");
  /* cap smaller than the count: the full count, only cap written. */
  names[1] = NULL;
  assert_int_equal(tl_list_target_detectors(names, 1), 2);
  assert_null(names[1]);
}

static void test_arch_names(void **state) {
  (void)state;
  /* TileLang's get_target_arch: the "a" suffix from compute capability 9 on. */
  const struct {
    int major, minor;
    const char *arch;
  } cases[] = {{7, 5, "sm_75"}, {8, 0, "sm_80"}, {8, 6, "sm_86"}, {8, 9, "sm_89"},
               {9, 0, "sm_90a"}, {10, 0, "sm_100a"}, {10, 3, "sm_103a"}, {12, 0, "sm_120a"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char arch[16];
    tl__cuda_arch_name(cases[i].major, cases[i].minor, arch, sizeof arch);
    assert_string_equal(arch, cases[i].arch);
  }
  assert_int_equal(tl__rocm_warp_size("gfx90a"), 64);
  assert_int_equal(tl__rocm_warp_size("gfx942"), 64);
  assert_int_equal(tl__rocm_warp_size("gfx1030"), 32);
  assert_int_equal(tl__rocm_warp_size("gfx1100"), 32);
  assert_int_equal(tl__rocm_warp_size("gfx1201"), 32);
  assert_int_equal(tl__rocm_warp_size("gfx803"), 0);
}

static void test_real_cuda_detector(void **state) {
  (void)state;
  char arch[32] = "";
  bool found = true;
  TL_ASSERT_OK(tl__cuda_detect_arch(arch, sizeof arch, &found));
  tl_target *auto_t = NULL;
  TL_ASSERT_OK(tl_auto_detect_target(&auto_t));
  tl_target *bare = determine_ok("cuda");
  if (found) {
    /* A GPU machine: cuda wins, with the detected arch, also for a bare "cuda". */
    assert_true(strncmp(arch, "sm_", 3) == 0);
    assert_string_equal(tl_target_kind(auto_t), "cuda");
    const char *a;
    assert_true(tl_target_attr_str(auto_t, "arch", &a));
    assert_string_equal(a, arch);
    assert_true(tl_target_attr_str(bare, "arch", &a));
    assert_string_equal(a, arch);
  } else {
    /* No GPU or no driver: not found, with the reason, and never a failure. */
    assert_true(strstr(tl_last_error(), "libcuda.so.1") || strstr(tl_last_error(), "CUDA device"));
    assert_string_equal(tl_target_str(auto_t), "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"]}");
    /* A bare "cuda" stays bare: no guessed arch. */
    assert_false(tl_target_has_attr(bare, "arch"));
    tl_target *p = parse_ok("cuda");
    assert_true(tl_target_equal(bare, p));
    tl_target_release(p);
  }
  tl_target_release(bare);
  tl_target_release(auto_t);
}

static void test_determine_auto_and_env(void **state) {
  (void)state;
  unsetenv("TILELANG_DEFAULT_TARGET");
  tl_target *detected = NULL;
  TL_ASSERT_OK(tl_auto_detect_target(&detected));
  tl_target *a = determine_ok("auto"), *b = determine_ok(NULL);
  assert_true(tl_target_equal(a, detected));
  assert_true(tl_target_equal(b, detected));
  tl_target_release(a);
  tl_target_release(b);
  setenv("TILELANG_DEFAULT_TARGET", "auto", 1);
  a = determine_ok(NULL);
  assert_true(tl_target_equal(a, detected));
  tl_target_release(a);
  tl_target_release(detected);
  /* A target string or a JSON object. */
  setenv("TILELANG_DEFAULT_TARGET", "nvidia/nvidia-h100", 1);
  a = determine_ok("auto");
  tl_target *h = parse_ok("nvidia/nvidia-h100");
  assert_true(tl_target_equal(a, h));
  tl_target_release(a);
  tl_target_release(h);
  setenv("TILELANG_DEFAULT_TARGET", "  {\"kind\": \"cuda\", \"arch\": \"sm_100\"}", 1);
  a = determine_ok(NULL);
  assert_string_equal(tl_target_str(a), "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"],\"arch\":\"sm_100\","
                                        "\"thread_warp_size\":32,\"max_num_threads\":1024}");
  tl_target_release(a);
  /* Broken JSON says "Use JSON syntax". */
  setenv("TILELANG_DEFAULT_TARGET", "{\"kind\": \"cuda\", arch: sm_90}", 1);
  EXPECT_DETERMINE_ERR(NULL, TL_EINVAL,
                       "TILELANG_DEFAULT_TARGET looks like a dict but could not be parsed. Use JSON syntax like "
                       "{\"kind\": \"cuda\", \"arch\": \"sm_100\"}. (string or '}' expected near 'arch' at line 1, "
                       "column 21)");
  /* "{}" is an empty (falsy) dict upstream, so the raw string is used. */
  setenv("TILELANG_DEFAULT_TARGET", "{}", 1);
  EXPECT_DETERMINE_ERR("auto", TL_EINVAL,
                       "Target {} is not supported. Pass target options as a dict when the target needs attributes. "
                       "Cause: Field \"kind\" is not found. Target creation from string failed: {}");
  /* Set but empty is not unset. */
  setenv("TILELANG_DEFAULT_TARGET", "", 1);
  EXPECT_DETERMINE_ERR(NULL, TL_EINVAL, "Target  is not supported");
  setenv("TILELANG_DEFAULT_TARGET", "{\"kind\":\"cuda\",\"arch\":\"compute_90\"}", 1);
  EXPECT_DETERMINE_ERR(NULL, TL_EINVAL,
                       "Target {\"kind\":\"cuda\",\"arch\":\"compute_90\"} is not supported. Pass a valid target config "
                       "dict. Cause: CUDA target gets an invalid CUDA arch: -arch=compute_90. Target creation from "
                       "string failed: {\"kind\":\"cuda\",\"arch\":\"compute_90\"}");
  /* Only "auto" and NULL read the variable. */
  setenv("TILELANG_DEFAULT_TARGET", "metal", 1);
  a = determine_ok("c");
  assert_string_equal(tl_target_kind(a), "c");
  tl_target_release(a);
  unsetenv("TILELANG_DEFAULT_TARGET");
}

static void test_determine_manual(void **state) {
  (void)state;
  /* Strings are stripped; JSON objects are the C spelling of a config dict. */
  tl_target *t = determine_ok("  c\n");
  assert_string_equal(tl_target_kind(t), "c");
  tl_target_release(t);
  EXPECT_DETERMINE_ERR("   ", TL_EINVAL, "Target     is not supported");
  EXPECT_DETERMINE_ERR("cuda -arch=sm_90", TL_EINVAL,
                       "Target cuda -arch=sm_90 is not supported. Pass target options as a dict when the target needs "
                       "attributes. Cause: Cannot parse target string \"cuda -arch=sm_90\". CLI target string form "
                       "(e.g. \"llvm -mcpu=xxx\") is no longer supported. Please use JSON dict form (e.g. {\"kind\": "
                       "\"llvm\", \"mcpu\": \"xxx\"}) instead. Equivalent JSON: {\"kind\":\"cuda\",\"arch\":\"sm_90\"}. "
                       "Target creation from string failed: cuda -arch=sm_90");
  EXPECT_DETERMINE_ERR("{\"kind\":\"c\",\"x\":1}", TL_EINVAL,
                       "Target {\"kind\":\"c\",\"x\":1} is not supported. Pass a valid target config dict. Cause: "
                       "Unknown config option 'x'. Known options: 'kind', 'keys', 'tag', 'device', 'model', 'libs', "
                       "'host', 'from_device', 'target_device_type', 'mcpu', 'march', 'workspace-byte-alignment', "
                       "'constants-byte-alignment'. Target creation from string failed: {\"kind\":\"c\",\"x\":1}");
  TL_ASSERT_ERR(tl_determine_target("c", NULL), TL_EINVAL, "out is NULL");
}

static void test_hip_normalizer(void **state) {
  (void)state;
  int64_t w;
  tl_target *t = determine_ok("{\"kind\":\"hip\",\"mcpu\":\"gfx1100\"}");
  assert_true(tl_target_attr_int(t, "thread_warp_size", &w));
  assert_int_equal(w, 32);
  tl_target_release(t);
  t = determine_ok("{\"kind\":\"hip\",\"mcpu\":\"gfx90a:sramecc+:xnack-\",\"thread_warp_size\":32}");
  assert_true(tl_target_attr_int(t, "thread_warp_size", &w));
  assert_int_equal(w, 64);
  tl_target_release(t);
  /* No mcpu: TVM's canonicalizer gives gfx900, so 64. */
  t = determine_ok("{\"kind\":\"hip\"}");
  assert_string_equal(tl_target_str(t), "{\"kind\":\"hip\",\"tag\":\"\",\"keys\":[\"hip\",\"gpu\"],\"mcpu\":\"gfx900\","
                                        "\"mtriple\":\"amdgcn-amd-amdhsa-hcc\",\"thread_warp_size\":64}");
  tl_target_release(t);
  /* An arch without a known warp size loses a given one. */
  t = determine_ok("{\"kind\":\"hip\",\"mcpu\":\"gfx803\",\"thread_warp_size\":64}");
  assert_false(tl_target_has_attr(t, "thread_warp_size"));
  tl_target_release(t);
  /* Upstream normalizes dicts and Targets, not the string "hip"; nor other kinds. */
  t = determine_ok("hip");
  assert_false(tl_target_has_attr(t, "thread_warp_size"));
  tl_target_release(t);
  t = determine_ok("{\"kind\":\"rocm\",\"mcpu\":\"gfx1100\"}");
  assert_true(tl_target_attr_int(t, "thread_warp_size", &w));
  assert_int_equal(w, 64); /* rocm's own default, untouched */
  tl_target_release(t);
}

/* ---- registration ---- */

static int g_calls[4];

static tl_status detect_none(void *user_data, tl_target **out) {
  (void)user_data;
  g_calls[0]++;
  *out = NULL;
  return TL_OK;
}

static tl_status detect_fail(void *user_data, tl_target **out) {
  g_calls[1]++;
  *out = NULL;
  return tl__error(TL_ERUNTIME, "boom from %s", (const char *)user_data);
}

static tl_status detect_hip(void *user_data, tl_target **out) {
  (void)user_data;
  g_calls[2]++;
  return tl_target_parse("{\"kind\":\"hip\",\"mcpu\":\"gfx1100\"}", out);
}

static tl_status detect_never(void *user_data, tl_target **out) {
  (void)user_data;
  g_calls[3]++;
  return tl_target_parse("c", out);
}

static tl_status normalize_alias(const char *spec, void *user_data, tl_target **out) {
  *out = NULL;
  if (strcmp(spec, (const char *)user_data) != 0) return TL_OK;
  return tl_target_parse("{\"kind\":\"hip\",\"mcpu\":\"gfx942\"}", out);
}

static tl_status normalize_broken(const char *spec, void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  if (strcmp(spec, "broken") != 0) return TL_OK;
  return tl__error(TL_EUNAVAILABLE, "the broken backend is not installed");
}

static void test_registration_rules(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_target_detector("fake-a", detect_none, NULL, false));
  /* The same registration again is a no-op; a different one is a conflict. */
  TL_ASSERT_OK(tl_register_target_detector("fake-a", detect_none, NULL, false));
  TL_ASSERT_ERR(tl_register_target_detector("fake-a", detect_fail, NULL, false), TL_EEXIST, "");
  TL_ASSERT_MSG("Target detector 'fake-a' is already registered");
  TL_ASSERT_ERR(tl_register_target_detector("fake-a", detect_none, (void *)"other", false), TL_EEXIST, "");
  TL_ASSERT_ERR(tl_register_target_normalizer("hip", normalize_alias, "x", false), TL_EEXIST, "");
  TL_ASSERT_MSG("Target normalizer 'hip' is already registered");
  TL_ASSERT_ERR(tl_register_target_detector(NULL, detect_none, NULL, false), TL_EINVAL, "");
  TL_ASSERT_MSG("Target detector name must be a non-empty string");
  TL_ASSERT_ERR(tl_register_target_detector("", detect_none, NULL, false), TL_EINVAL, "non-empty");
  TL_ASSERT_ERR(tl_register_target_detector("x", NULL, NULL, false), TL_EINVAL, "");
  TL_ASSERT_MSG("Target detector 'x' has no function");
  TL_ASSERT_ERR(tl_register_target_normalizer("x", NULL, NULL, false), TL_EINVAL, "has no function");
  const char *names[8];
  assert_int_equal(tl_list_target_detectors(names, 8), 3);
  assert_string_equal(names[2], "fake-a");
  /* A custom normalizer; its result goes through the normalizers once more
   * (here hip's, which adds the warp size). */
  TL_ASSERT_OK(tl_register_target_normalizer("alias", normalize_alias, "my-amd-gpu", false));
  tl_target *t = determine_ok("my-amd-gpu");
  int64_t w;
  assert_true(tl_target_attr_int(t, "thread_warp_size", &w));
  assert_int_equal(w, 64);
  tl_target_release(t);
  /* A failing normalizer fails the call, as an exception does upstream. */
  TL_ASSERT_OK(tl_register_target_normalizer("broken", normalize_broken, NULL, false));
  EXPECT_DETERMINE_ERR("broken", TL_EUNAVAILABLE, "the broken backend is not installed");
  t = determine_ok("c"); /* others still work */
  tl_target_release(t);
}

/* Replaces the built-in detectors: runs last. */
static void test_fake_detector_list(void **state) {
  (void)state;
  memset(g_calls, 0, sizeof g_calls);
  /* Override keeps the position: cuda, cpu, fake-a. */
  TL_ASSERT_OK(tl_register_target_detector("cuda", detect_none, NULL, true));
  TL_ASSERT_OK(tl_register_target_detector("cpu", detect_fail, (void *)"cpu", true));
  const char *names[8];
  assert_int_equal(tl_list_target_detectors(names, 8), 3);
  assert_string_equal(names[0], "cuda");
  assert_string_equal(names[1], "cpu");
  tl_target *t = (tl_target *)(uintptr_t)1;
  TL_ASSERT_ERR(tl_auto_detect_target(&t), TL_ENOTFOUND, "");
  TL_ASSERT_MSG("No registered target detector found an available target. Tried: cuda: not found, cpu: boom from "
                "cpu, fake-a: not found.");
  assert_null(t);
  assert_int_equal(g_calls[0], 2);
  assert_int_equal(g_calls[1], 1);
  EXPECT_DETERMINE_ERR("auto", TL_ENOTFOUND,
                       "No registered target detector found an available target. Tried: cuda: not found, cpu: boom "
                       "from cpu, fake-a: not found.");
  /* The first that finds one wins; later ones do not run. The result goes through
   * the normalizers (hip's adds the warp size). */
  TL_ASSERT_OK(tl_register_target_detector("fake-hip", detect_hip, NULL, false));
  TL_ASSERT_OK(tl_register_target_detector("fake-never", detect_never, NULL, false));
  TL_ASSERT_OK(tl_auto_detect_target(&t));
  assert_string_equal(tl_target_str(t), "{\"kind\":\"hip\",\"tag\":\"\",\"keys\":[\"hip\",\"gpu\"],\"mcpu\":\"gfx1100\","
                                        "\"mtriple\":\"amdgcn-amd-amdhsa-hcc\",\"thread_warp_size\":32}");
  assert_int_equal(g_calls[2], 1);
  assert_int_equal(g_calls[3], 0);
  tl_target_release(t);
  TL_ASSERT_ERR(tl_auto_detect_target(NULL), TL_EINVAL, "out is NULL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_builtin_registries),
    cmocka_unit_test(test_arch_names),
    cmocka_unit_test(test_real_cuda_detector),
    cmocka_unit_test(test_determine_auto_and_env),
    cmocka_unit_test(test_determine_manual),
    cmocka_unit_test(test_hip_normalizer),
    cmocka_unit_test(test_registration_rules),
    cmocka_unit_test(test_fake_detector_list),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
