/* Execution backend specs and their resolution for a manifest and a target, exactly
 * as upstream's BackendModule.resolve_execution_backend. */
#include "tl_backend_test.h"

static atomic_bool nvrtc_ok, nvcc_ok;
static atomic_int nvrtc_checks;

static bool nvrtc_available(void *user_data) {
  atomic_fetch_add(&nvrtc_checks, 1);
  return atomic_load((atomic_bool *)user_data);
}
static const char *nvrtc_reason(void *user_data) {
  (void)user_data;
  return "libnvrtc.so.12 not found";
}
static bool only_model_a(const tl_target *t, void *user_data) {
  (void)user_data;
  return tlt_model_is(t, (void *)"a");
}

static const tl_execution_backend_spec nvrtc = {"nvrtc", nvrtc_available, NULL, &nvrtc_ok, false, true, nvrtc_reason};
static const tl_execution_backend_spec nvcc = {"nvcc", tlt_flag_available, NULL, &nvcc_ok, true, true, NULL};
static const tl_execution_backend_spec model_a_only = {"model_a_only", NULL, only_model_a, NULL, false, false, NULL};
static const tl_execution_backend_spec source = {"source", NULL, NULL, NULL, false, false, NULL};

static const tl_pass_pipeline pipeline = {"vulkan", tlt_lower, NULL};
static const tl_device_codegen codegen = {"vk", {tlt_build, "spirv"}, {NULL, NULL}, NULL, NULL};
static const tl_host_codegen host = {"c", tlt_build, "c", NULL, NULL};
static const char *const kinds[] = {"vulkan", NULL};
static const tl_pipeline_entry pipelines[] = {{"vulkan", &pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry devices[] = {{"vulkan", &codegen}, {NULL, NULL}};
static const tl_host_codegen_entry hosts[] = {{"c", &host}, {NULL, NULL}};
static const tl_execution_backend_spec *const specs[] = {&nvrtc, &nvcc, &model_a_only, &source, NULL};
static const tl_backend_module m = {sizeof(tl_backend_module), "test_exec", kinds, pipelines, devices, specs,
                                    tlt_always, NULL, hosts, NULL, NULL};

static void test_spec_methods(void **state) {
  (void)state;
  tl_target *a = tlt_target("{\"kind\":\"vulkan\",\"model\":\"a\"}"), *b = tlt_target("vulkan");
  assert_true(tl_execution_backend_spec_matches(&source, b));
  assert_true(tl_execution_backend_spec_matches(&model_a_only, a));
  assert_false(tl_execution_backend_spec_matches(&model_a_only, b));
  assert_false(tl_execution_backend_spec_matches(NULL, b));
  assert_true(tl_execution_backend_spec_is_available(&source));
  atomic_store(&nvrtc_ok, false);
  assert_false(tl_execution_backend_spec_is_available(&nvrtc));
  atomic_store(&nvrtc_ok, true);
  assert_true(tl_execution_backend_spec_is_available(&nvrtc)); /* asked again: not cached */
  assert_false(tl_execution_backend_spec_is_available(NULL));
  assert_string_equal(tl_execution_backend_spec_unavailable_reason(&nvrtc), "libnvrtc.so.12 not found");
  assert_null(tl_execution_backend_spec_unavailable_reason(&source));
  tl_target_release(a);
  tl_target_release(b);
}

static void test_allowed(void **state) {
  (void)state;
  tl_target *a = tlt_target("{\"kind\":\"vulkan\",\"model\":\"a\"}"), *b = tlt_target("vulkan");
  const char *names[8];
  atomic_store(&nvrtc_ok, false);
  atomic_store(&nvcc_ok, true);
  /* Declaration order, filtered by the specs' predicates; all or only available. */
  assert_int_equal(tl_backend_module_allowed_execution_backends(&m, a, true, names, 8), 4);
  assert_string_equal(names[0], "nvrtc");
  assert_string_equal(names[1], "nvcc");
  assert_string_equal(names[2], "model_a_only");
  assert_string_equal(names[3], "source");
  assert_int_equal(tl_backend_module_allowed_execution_backends(&m, b, true, names, 8), 3);
  assert_string_equal(names[2], "source");
  assert_int_equal(tl_backend_module_allowed_execution_backends(&m, b, false, names, 8), 2);
  assert_string_equal(names[0], "nvcc");
  assert_string_equal(names[1], "source");
  /* Sizing call, short buffer. */
  assert_int_equal(tl_backend_module_allowed_execution_backends(&m, a, true, NULL, 0), 4);
  assert_int_equal(tl_backend_module_allowed_execution_backends(&m, a, true, names, 1), 4);
  assert_string_equal(names[0], "nvrtc");
  /* A target the manifest does not own: 0 and upstream's message. */
  tl_target *other = tlt_target("nvptx");
  assert_int_equal(tl_backend_module_allowed_execution_backends(&m, other, true, names, 8), 0);
  assert_non_null(strstr(tl_last_error(), "Backend 'test_exec' does not match target"));
  tl_target_release(other);
  tl_target_release(a);
  tl_target_release(b);
}

static const tl_execution_backend_spec *resolve(const char *requested, const tl_target *t, tl_status expect) {
  const tl_execution_backend_spec *s = (const tl_execution_backend_spec *)&m;
  tl_status got = tl_backend_module_resolve_execution_backend(&m, requested, t, &s);
  if (got != expect)
    fail_msg("resolve(%s): expected %s, got %s (%s)", requested ? requested : "NULL", tl_status_name(expect),
             tl_status_name(got), tl_last_error());
  if (got != TL_OK) assert_null(s);
  return s;
}

static void test_resolve_auto(void **state) {
  (void)state;
  tl_target *b = tlt_target("vulkan");
  atomic_store(&nvrtc_ok, true);
  atomic_store(&nvcc_ok, true);
  assert_ptr_equal(resolve(NULL, b, TL_OK), &nvrtc);
  assert_ptr_equal(resolve("auto", b, TL_OK), &nvrtc);
  assert_ptr_equal(resolve("AUTO", b, TL_OK), &nvrtc);
  /* The first available one, in declaration order. */
  atomic_store(&nvrtc_ok, false);
  assert_ptr_equal(resolve("auto", b, TL_OK), &nvcc);
  atomic_store(&nvcc_ok, false);
  assert_ptr_equal(resolve("auto", b, TL_OK), &source);
  /* Availability is asked on every resolution. */
  int checks = atomic_load(&nvrtc_checks);
  resolve("auto", b, TL_OK);
  assert_int_equal(atomic_load(&nvrtc_checks), checks + 1);
  tl_target_release(b);
}

static void test_resolve_named(void **state) {
  (void)state;
  tl_target *a = tlt_target("{\"kind\":\"vulkan\",\"model\":\"a\"}"), *b = tlt_target("vulkan");
  atomic_store(&nvrtc_ok, true);
  atomic_store(&nvcc_ok, false);
  assert_ptr_equal(resolve("nvrtc", b, TL_OK), &nvrtc);
  assert_ptr_equal(resolve("NVRTC", b, TL_OK), &nvrtc); /* lowered before comparing */
  assert_ptr_equal(resolve("model_a_only", a, TL_OK), &model_a_only);

  resolve("cython", b, TL_EINVAL);
  TL_ASSERT_MSG("Invalid execution backend 'cython' for target 'vulkan'. Allowed: nvrtc, nvcc, source. "
                "Tip: use execution_backend='auto'.");
  /* A spec whose predicate refuses the target is not allowed for it. */
  resolve("model_a_only", b, TL_EINVAL);
  TL_ASSERT_MSG("Invalid execution backend 'model_a_only' for target 'vulkan'. Allowed: nvrtc, nvcc, source. "
                "Tip: use execution_backend='auto'.");
  /* The message keeps the request as given. */
  resolve("Cython", b, TL_EINVAL);
  TL_ASSERT_MSG("Invalid execution backend 'Cython' for target 'vulkan'. Allowed: nvrtc, nvcc, source. "
                "Tip: use execution_backend='auto'.");

  resolve("nvcc", b, TL_EUNAVAILABLE);
  TL_ASSERT_MSG("Execution backend 'nvcc' requires extra dependencies and is not available now. "
                "Try one of: nvrtc, source.");
  resolve("NVCC", a, TL_EUNAVAILABLE);
  TL_ASSERT_MSG("Execution backend 'NVCC' requires extra dependencies and is not available now. "
                "Try one of: nvrtc, model_a_only, source.");

  TL_ASSERT_ERR(tl_backend_module_resolve_execution_backend(&m, "auto", NULL, NULL), TL_EINVAL, NULL);
  tl_target_release(a);
  tl_target_release(b);
}

/* A manifest whose specs may all be unavailable or refuse the target. */
static atomic_bool only_ok;
static bool only_pred(const tl_target *t, void *ud) {
  (void)ud;
  return tlt_model_is(t, (void *)"only");
}
static const tl_execution_backend_spec only2 = {"only", tlt_flag_available, only_pred, &only_ok, false, false, NULL};
static const tl_execution_backend_spec *const specs_only[] = {&only2, NULL};
static const tl_backend_module m_only = {sizeof(tl_backend_module), "test_exec_only", kinds, pipelines, devices,
                                         specs_only, tlt_always, NULL, NULL, NULL, NULL};

static void test_nothing_available(void **state) {
  (void)state;
  tl_target *t = tlt_target("{\"kind\":\"vulkan\",\"model\":\"only\"}"), *u = tlt_target("vulkan");
  const tl_execution_backend_spec *s = NULL;
  atomic_store(&only_ok, false);
  TL_ASSERT_ERR(tl_backend_module_resolve_execution_backend(&m_only, "auto", t, &s), TL_EINVAL, NULL);
  TL_ASSERT_MSG("No available execution backend for target 'vulkan'. Allowed: only.");
  TL_ASSERT_ERR(tl_backend_module_resolve_execution_backend(&m_only, "only", t, &s), TL_EUNAVAILABLE, NULL);
  TL_ASSERT_MSG("Execution backend 'only' requires extra dependencies and is not available now. Try one of: <none>.");
  /* No spec matches the target at all. */
  TL_ASSERT_ERR(tl_backend_module_resolve_execution_backend(&m_only, NULL, u, &s), TL_EINVAL, NULL);
  TL_ASSERT_MSG("No available execution backend for target 'vulkan'. Allowed: <none>.");
  TL_ASSERT_ERR(tl_backend_module_resolve_execution_backend(&m_only, "only", u, &s), TL_EINVAL, NULL);
  TL_ASSERT_MSG("Invalid execution backend 'only' for target 'vulkan'. Allowed: <none>. "
                "Tip: use execution_backend='auto'.");
  atomic_store(&only_ok, true);
  TL_ASSERT_OK(tl_backend_module_resolve_execution_backend(&m_only, "auto", t, &s));
  assert_ptr_equal(s, &only2);
  /* A target the manifest does not own. */
  tl_target *other = tlt_target("nvptx");
  TL_ASSERT_ERR(tl_backend_module_resolve_execution_backend(&m_only, "auto", other, &s), TL_EINVAL,
                "Backend 'test_exec_only' does not match target");
  tl_target_release(other);
  tl_target_release(t);
  tl_target_release(u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_spec_methods),
    cmocka_unit_test(test_allowed),
    cmocka_unit_test(test_resolve_auto),
    cmocka_unit_test(test_resolve_named),
    cmocka_unit_test(test_nothing_available),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
