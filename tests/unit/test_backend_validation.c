/* Every validation rule of upstream BackendModule.__post_init__, each with its own
 * message, in upstream's order; the checks C adds; and the identity relation used
 * when a manifest is registered again. Validation runs before anything is stored, so
 * each failing registration must leave the registry without the manifest. */
#include "backend/manifest.h"
#include "tl_backend_test.h"

static tlt_calls calls;
static const tl_pass_pipeline vk_pipeline = {"vulkan", tlt_lower, &calls};
static const tl_pass_pipeline nv_pipeline = {"nvptx", tlt_lower, &calls};
static const tl_pass_pipeline wrong_pipeline = {"cuda", tlt_lower, &calls};
static const tl_pass_pipeline no_lower_pipeline = {"vulkan", NULL, NULL};
static const tl_device_codegen vk_codegen = {"vk", {tlt_build, "spirv"}, {tlt_build, "spirv-src"}, NULL, NULL};
static const tl_device_codegen nv_codegen = {"nv", {tlt_build, "ptx"}, {NULL, NULL}, NULL, NULL};
static const tl_device_codegen unnamed_codegen = {NULL, {tlt_build, "x"}, {NULL, NULL}, NULL, NULL};
static const tl_host_codegen c_host = {"c", tlt_build, "c", NULL, NULL};
static const tl_host_codegen no_build_host = {"c", NULL, NULL, NULL, NULL};
static const tl_host_codegen_hook hook_a = {"hook_a", tlt_hook, "a", NULL, NULL};
static const tl_host_codegen_hook no_apply_hook = {"hook_x", NULL, NULL, NULL, NULL};
static const tl_execution_backend_spec spec_src = {"source", NULL, NULL, NULL, false, false, NULL};
static const tl_execution_backend_spec spec_src2 = {"source", NULL, NULL, NULL, false, true, NULL};
static const tl_execution_backend_spec spec_ffi = {"tvm_ffi", NULL, NULL, NULL, true, true, NULL};
static const tl_execution_backend_spec spec_unnamed = {"", NULL, NULL, NULL, false, false, NULL};

static const char *const kinds_vk_nv[] = {"vulkan", "nvptx", NULL};
static const tl_pipeline_entry pipelines_ok[] = {{"vulkan", &vk_pipeline}, {"nvptx", &nv_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry devices_ok[] = {{"vulkan", &vk_codegen}, {"nvptx", &nv_codegen}, {NULL, NULL}};
static const tl_execution_backend_spec *const specs_ok[] = {&spec_src, &spec_ffi, NULL};
static const tl_host_codegen_entry hosts_ok[] = {{"c", &c_host}, {NULL, NULL}};
static const tl_host_codegen_hook *const hooks_a[] = {&hook_a, NULL};
static const tl_host_codegen_hooks_entry hook_lists_ok[] = {{"vulkan", hooks_a}, {NULL, NULL}};
static const tl_callback_entry callbacks_ok[] = {{"test_validation.cb", tlt_echo, "cb"}, {NULL, NULL, NULL}};

/* A valid manifest to break one field at a time. */
static tl_backend_module valid(const char *name) {
  tl_backend_module m = {
    .struct_size = sizeof(tl_backend_module),
    .name = name,
    .target_kinds = kinds_vk_nv,
    .pipelines = pipelines_ok,
    .device_codegens = devices_ok,
    .execution_backends = specs_ok,
    .supports_target = tlt_model_is,
    .predicate_data = (void *)"validation",
    .host_codegens = hosts_ok,
    .host_codegen_hooks = hook_lists_ok,
    .callbacks = callbacks_ok,
  };
  return m;
}

/* Validation fails with exactly `msg`, and registration does too, storing nothing. */
static void expect_invalid(const tl_backend_module *m, const char *msg) {
  if (tl__manifest_validate(m) != TL_EINVAL) fail_msg("expected TL_EINVAL for: %s", msg);
  TL_ASSERT_MSG(msg);
  /* The public entry (what bindings call on construction) says the same. */
  if (tl_backend_module_validate(m) != TL_EINVAL) fail_msg("tl_backend_module_validate accepted: %s", msg);
  TL_ASSERT_MSG(msg);
  const tl_backend_module *out = (const tl_backend_module *)m;
  TL_ASSERT_ERR(tl_register_backend(m, &out), TL_EINVAL, NULL);
  TL_ASSERT_MSG(msg);
  assert_null(out);
  if (m->name && *m->name) assert_int_equal(tl_get_backend(m->name, NULL), TL_ENOTFOUND);
}

static void test_valid_manifest(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.ok");
  TL_ASSERT_OK(tl__manifest_validate(&m));
  /* Optional mappings may be NULL. */
  m.host_codegens = NULL;
  m.host_codegen_hooks = NULL;
  m.callbacks = NULL;
  static const tl_execution_backend_spec *const no_host[] = {&spec_src, NULL};
  m.execution_backends = no_host;
  TL_ASSERT_OK(tl__manifest_validate(&m));
  m.struct_size = 0; /* "the current size" */
  TL_ASSERT_OK(tl__manifest_validate(&m));
}

static void test_rule1_name(void **state) {
  (void)state;
  tl_backend_module m = valid("");
  expect_invalid(&m, "BackendModule.name must not be empty");
  m.name = NULL;
  expect_invalid(&m, "BackendModule.name must not be empty");
}

static void test_rule2_kinds(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r2");
  m.target_kinds = NULL;
  expect_invalid(&m, "BackendModule 'test_validation.r2' must own at least one non-empty target kind");
  static const char *const none[] = {NULL};
  m.target_kinds = none;
  expect_invalid(&m, "BackendModule 'test_validation.r2' must own at least one non-empty target kind");
  static const char *const has_empty[] = {"vulkan", "", NULL};
  m.target_kinds = has_empty;
  expect_invalid(&m, "BackendModule 'test_validation.r2' must own at least one non-empty target kind");
}

static void test_rule3_unique_kinds(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r3");
  static const char *const dup[] = {"vulkan", "nvptx", "vulkan", NULL};
  m.target_kinds = dup;
  expect_invalid(&m, "BackendModule 'test_validation.r3' target kinds must be unique");
}

static void test_rule4_pipeline_per_kind(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r4");
  const char *msg = "BackendModule 'test_validation.r4' must define exactly one pipeline for every target kind";
  static const tl_pipeline_entry missing[] = {{"vulkan", &vk_pipeline}, {NULL, NULL}};
  m.pipelines = missing;
  expect_invalid(&m, msg);
  static const tl_pipeline_entry extra[] = {
    {"vulkan", &vk_pipeline}, {"nvptx", &nv_pipeline}, {"cuda", &wrong_pipeline}, {NULL, NULL}};
  m.pipelines = extra;
  expect_invalid(&m, msg);
  static const tl_pipeline_entry repeated[] = {{"vulkan", &vk_pipeline}, {"vulkan", &vk_pipeline}, {NULL, NULL}};
  m.pipelines = repeated;
  expect_invalid(&m, msg);
  m.pipelines = NULL;
  expect_invalid(&m, msg);
}

static void test_rule5_pipeline_name(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r5");
  static const tl_pipeline_entry wrong[] = {{"vulkan", &vk_pipeline}, {"nvptx", &wrong_pipeline}, {NULL, NULL}};
  m.pipelines = wrong;
  expect_invalid(&m, "BackendModule 'test_validation.r5' pipeline 'cuda' does not match target kind 'nvptx'");
  /* C: a NULL pipeline, or one without a lower function. */
  static const tl_pipeline_entry null_pipeline[] = {{"vulkan", NULL}, {"nvptx", &nv_pipeline}, {NULL, NULL}};
  m.pipelines = null_pipeline;
  expect_invalid(&m, "BackendModule 'test_validation.r5' pipeline for target kind 'vulkan' must not be NULL");
  static const tl_pipeline_entry no_lower[] = {{"vulkan", &no_lower_pipeline}, {"nvptx", &nv_pipeline}, {NULL, NULL}};
  m.pipelines = no_lower;
  expect_invalid(&m, "BackendModule 'test_validation.r5' pipeline 'vulkan' has no lower function");
}

static void test_rule6_device_codegen_per_kind(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r6");
  const char *msg = "BackendModule 'test_validation.r6' must define device codegen for every target kind";
  static const tl_device_codegen_entry missing[] = {{"nvptx", &nv_codegen}, {NULL, NULL}};
  m.device_codegens = missing;
  expect_invalid(&m, msg);
  static const tl_device_codegen_entry other[] = {{"vulkan", &vk_codegen}, {"cuda", &nv_codegen}, {NULL, NULL}};
  m.device_codegens = other;
  expect_invalid(&m, msg);
  m.device_codegens = NULL;
  expect_invalid(&m, msg);
  static const tl_device_codegen_entry null_codegen[] = {{"vulkan", &vk_codegen}, {"nvptx", NULL}, {NULL, NULL}};
  m.device_codegens = null_codegen;
  expect_invalid(&m, "BackendModule 'test_validation.r6' device codegen for target kind 'nvptx': "
                     "device codegen must not be NULL");
  static const tl_device_codegen_entry unnamed[] = {{"vulkan", &unnamed_codegen}, {"nvptx", &nv_codegen}, {NULL, NULL}};
  m.device_codegens = unnamed;
  expect_invalid(&m, "BackendModule 'test_validation.r6' device codegen for target kind 'vulkan': "
                     "device codegen name must not be empty");
}

static void test_host_codegen_checks(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.host");
  static const tl_host_codegen_entry dup[] = {{"c", &c_host}, {"c", &c_host}, {NULL, NULL}};
  m.host_codegens = dup;
  expect_invalid(&m, "BackendModule 'test_validation.host' host codegen target kinds must be unique");
  static const tl_host_codegen_entry empty[] = {{"", &c_host}, {NULL, NULL}};
  m.host_codegens = empty;
  expect_invalid(&m, "BackendModule 'test_validation.host' host codegen target kinds must not be empty");
  static const tl_host_codegen_entry no_build[] = {{"c", &no_build_host}, {NULL, NULL}};
  m.host_codegens = no_build;
  expect_invalid(&m, "BackendModule 'test_validation.host' host codegen for target kind 'c': "
                     "host codegen 'c' has no build function");
}

static void test_rule7_hook_kinds_owned(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r7");
  static const tl_host_codegen_hooks_entry unowned[] = {
    {"webgpu", hooks_a}, {"vulkan", hooks_a}, {"cuda", hooks_a}, {"webgpu", hooks_a}, {NULL, NULL}};
  m.host_codegen_hooks = unowned;
  /* sorted(set(...)) as a Python list */
  expect_invalid(&m, "BackendModule 'test_validation.r7' host codegen hook targets are not owned by this "
                     "backend: ['cuda', 'webgpu']");
}

static void test_rule8_hook_lists_non_empty(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r8");
  static const tl_host_codegen_hook *const none[] = {NULL};
  static const tl_host_codegen_hooks_entry empty[] = {{"vulkan", hooks_a}, {"nvptx", none}, {NULL, NULL}};
  m.host_codegen_hooks = empty;
  expect_invalid(&m, "BackendModule 'test_validation.r8' host codegen hook lists must not be empty");
  static const tl_host_codegen_hooks_entry null_list[] = {{"nvptx", NULL}, {NULL, NULL}};
  m.host_codegen_hooks = null_list;
  expect_invalid(&m, "BackendModule 'test_validation.r8' host codegen hook lists must not be empty");
  /* C: a kind listed twice, a hook without apply. */
  static const tl_host_codegen_hooks_entry twice[] = {{"vulkan", hooks_a}, {"vulkan", hooks_a}, {NULL, NULL}};
  m.host_codegen_hooks = twice;
  expect_invalid(&m, "BackendModule 'test_validation.r8' host codegen hook target kinds must be unique");
  static const tl_host_codegen_hook *const bad[] = {&hook_a, &no_apply_hook, NULL};
  static const tl_host_codegen_hooks_entry bad_hook[] = {{"vulkan", bad}, {NULL, NULL}};
  m.host_codegen_hooks = bad_hook;
  expect_invalid(&m, "BackendModule 'test_validation.r8' host codegen hook for target kind 'vulkan': "
                     "host codegen hook 'hook_x' has no apply function");
}

static void test_rule9_execution_backends(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r9");
  m.execution_backends = NULL;
  expect_invalid(&m, "BackendModule 'test_validation.r9' must define at least one execution backend");
  static const tl_execution_backend_spec *const none[] = {NULL};
  m.execution_backends = none;
  expect_invalid(&m, "BackendModule 'test_validation.r9' must define at least one execution backend");
}

static void test_rule10_unique_execution_backends(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r10");
  static const tl_execution_backend_spec *const dup[] = {&spec_src, &spec_ffi, &spec_src2, NULL};
  m.execution_backends = dup;
  expect_invalid(&m, "BackendModule 'test_validation.r10' execution backend names must be unique: "
                     "['source', 'tvm_ffi', 'source']");
  static const tl_execution_backend_spec *const unnamed[] = {&spec_src, &spec_unnamed, NULL};
  m.execution_backends = unnamed;
  expect_invalid(&m, "BackendModule 'test_validation.r10' execution backend names must not be empty");
}

static void test_rule11_host_codegen_required(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r11");
  m.host_codegens = NULL;
  const char *msg = "BackendModule 'test_validation.r11' enables host codegen but defines no host codegen targets";
  expect_invalid(&m, msg);
  static const tl_host_codegen_entry empty[] = {{NULL, NULL}};
  m.host_codegens = empty;
  expect_invalid(&m, msg);
}

static void test_rule12_callback_names(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.r12");
  static const tl_callback_entry empty[] = {{"test_validation.ok", tlt_echo, NULL}, {"", tlt_echo, NULL}, {NULL, NULL, NULL}};
  m.callbacks = empty;
  expect_invalid(&m, "BackendModule 'test_validation.r12' callback names must not be empty");
  static const tl_callback_entry no_fn[] = {{"test_validation.nofn", NULL, NULL}, {NULL, NULL, NULL}};
  m.callbacks = no_fn;
  expect_invalid(&m, "BackendModule 'test_validation.r12' callback 'test_validation.nofn' has no function");
}

static void test_rules_in_upstream_order(void **state) {
  (void)state;
  /* Broken in every later rule at once: the earliest rule speaks. */
  tl_backend_module m = valid("test_validation.order");
  static const char *const dup[] = {"vulkan", "vulkan", NULL};
  m.target_kinds = dup;
  m.pipelines = NULL;
  m.device_codegens = NULL;
  m.execution_backends = NULL;
  expect_invalid(&m, "BackendModule 'test_validation.order' target kinds must be unique");
  m.target_kinds = kinds_vk_nv;
  expect_invalid(&m, "BackendModule 'test_validation.order' must define exactly one pipeline for every target kind");
  m.pipelines = pipelines_ok;
  expect_invalid(&m, "BackendModule 'test_validation.order' must define device codegen for every target kind");
  m.device_codegens = devices_ok;
  expect_invalid(&m, "BackendModule 'test_validation.order' must define at least one execution backend");
}

static void test_struct_size_and_null(void **state) {
  (void)state;
  tl_backend_module m = valid("test_validation.size");
  m.struct_size = 8;
  TL_ASSERT_ERR(tl_register_backend(&m, NULL), TL_EINVAL, "struct_size is 8; set it to sizeof(tl_backend_module)");
  /* A newer plugin's larger struct is accepted: only known fields are read. */
  m.struct_size = sizeof(tl_backend_module) + 16;
  TL_ASSERT_OK(tl__manifest_validate(&m));
  TL_ASSERT_ERR(tl_register_backend(NULL, NULL), TL_EINVAL, "must not be NULL");
}

static void test_names_are_python_reprs(void **state) {
  (void)state;
  /* The messages print names as Python's repr does. */
  tl_backend_module m = valid("it's");
  m.target_kinds = NULL;
  expect_invalid(&m, "BackendModule \"it's\" must own at least one non-empty target kind");
  m.name = "tab\there";
  expect_invalid(&m, "BackendModule 'tab\\there' must own at least one non-empty target kind");
}

/* ----------------------------------------------------------------- identity */

static void test_identity(void **state) {
  (void)state;
  tl_backend_module a = valid("test_validation.same"), b = valid("test_validation.same");
  assert_true(tl__manifest_equal(&a, &a));
  assert_true(tl__manifest_equal(&a, &b)); /* field by field */
  /* Strings compare by content. */
  char name[] = "test_validation.same";
  b.name = name;
  static const char *const kinds_copy[] = {"vulkan", "nvptx", NULL};
  b.target_kinds = kinds_copy;
  static const tl_pipeline_entry pipelines_copy[] = {{"vulkan", &vk_pipeline}, {"nvptx", &nv_pipeline}, {NULL, NULL}};
  b.pipelines = pipelines_copy;
  assert_true(tl__manifest_equal(&a, &b));
  /* struct_size 0 means the current size. */
  b.struct_size = 0;
  assert_true(tl__manifest_equal(&a, &b));
  /* A NULL optional array equals an empty one. */
  static const tl_callback_entry no_callbacks[] = {{NULL, NULL, NULL}};
  tl_backend_module c = valid("x"), d = valid("x");
  c.callbacks = NULL;
  d.callbacks = no_callbacks;
  assert_true(tl__manifest_equal(&c, &d));

  /* Each field matters; descriptors compare by identity. */
  tl_backend_module e = valid("test_validation.same");
  static const tl_pass_pipeline vk_pipeline_twin = {"vulkan", tlt_lower, &calls};
  static const tl_pipeline_entry other_pipeline[] = {{"vulkan", &vk_pipeline_twin}, {"nvptx", &nv_pipeline}, {NULL, NULL}};
  e.pipelines = other_pipeline;
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.same");
  static const char *const reversed[] = {"nvptx", "vulkan", NULL};
  e.target_kinds = reversed;
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.same");
  e.predicate_data = (void *)"other";
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.same");
  e.supports_target = NULL;
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.same");
  static const tl_execution_backend_spec *const fewer[] = {&spec_src, NULL};
  e.execution_backends = fewer;
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.same");
  static const tl_callback_entry other_cb[] = {{"test_validation.cb", tlt_echo, "other"}, {NULL, NULL, NULL}};
  e.callbacks = other_cb;
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.same");
  e.host_codegen_hooks = NULL;
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.same");
  e.host_codegens = NULL;
  assert_false(tl__manifest_equal(&a, &e));
  e = valid("test_validation.other");
  assert_false(tl__manifest_equal(&a, &e));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_valid_manifest),
    cmocka_unit_test(test_rule1_name),
    cmocka_unit_test(test_rule2_kinds),
    cmocka_unit_test(test_rule3_unique_kinds),
    cmocka_unit_test(test_rule4_pipeline_per_kind),
    cmocka_unit_test(test_rule5_pipeline_name),
    cmocka_unit_test(test_rule6_device_codegen_per_kind),
    cmocka_unit_test(test_host_codegen_checks),
    cmocka_unit_test(test_rule7_hook_kinds_owned),
    cmocka_unit_test(test_rule8_hook_lists_non_empty),
    cmocka_unit_test(test_rule9_execution_backends),
    cmocka_unit_test(test_rule10_unique_execution_backends),
    cmocka_unit_test(test_rule11_host_codegen_required),
    cmocka_unit_test(test_rule12_callback_names),
    cmocka_unit_test(test_rules_in_upstream_order),
    cmocka_unit_test(test_struct_size_and_null),
    cmocka_unit_test(test_names_are_python_reprs),
    cmocka_unit_test(test_identity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
