/* Backend lookups as a fresh process sees them: a lazily registered backend (the
 * in-tree opencl plugin, which nothing has listed yet) is found by get_backend, an
 * unknown name still gets its message, and the registry's generation changes on a
 * registration and a lazy registration only. */
#include "tilelang/backend.h"
#include "tilelang/backend_registry.h"
#include "tl_test.h"

static void test_get_backend_finds_a_lazy_backend_first(void **state) {
  (void)state;
  const tl_backend_module *m = NULL;
  TL_ASSERT_OK(tl_get_backend("opencl", &m));
  assert_non_null(m);
  assert_string_equal(m->name, "opencl");
  const tl_backend_module *again = NULL;
  TL_ASSERT_OK(tl_get_backend("opencl", &again));
  assert_ptr_equal(m, again);
  TL_ASSERT_ERR(tl_get_backend("no-such-backend", &m), TL_ENOTFOUND, "Unknown backend 'no-such-backend'. Available: ");
  assert_null(m);
}

static tl_status lower_nothing(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)mod, (void)target, (void)user_data;
  return TL_OK;
}

static tl_status source_nothing(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out) {
  (void)mod, (void)target, (void)user_data;
  return tl_artifact_create("vulkan", "", out);
}

static const tl_pass_pipeline k_pipeline = {"vulkan", lower_nothing, NULL};
static const tl_device_codegen k_codegen = {"gen", {NULL, NULL}, {source_nothing, NULL}, NULL, NULL};
static const tl_execution_backend_spec k_source = {"source", NULL, NULL, NULL, false, false, NULL};
static const char *const k_kinds[] = {"vulkan", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"vulkan", &k_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_codegens[] = {{"vulkan", &k_codegen}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_specs[] = {&k_source, NULL};
static const tl_backend_module k_backend = {
    .struct_size = sizeof(tl_backend_module),
    .name = "generation-test",
    .target_kinds = k_kinds,
    .pipelines = k_pipelines,
    .device_codegens = k_codegens,
    .execution_backends = k_specs,
};

static void test_generation_changes_with_the_registry_only(void **state) {
  (void)state;
  const tl_backend_module *all[64];
  size_t n = tl_list_backends(all, 64);
  uint64_t g = tl_backend_registry_generation();
  /* Lookups and listings leave it as it is. */
  assert_int_equal(tl_list_backends(all, 64), n);
  const tl_backend_module *m = NULL;
  TL_ASSERT_OK(tl_get_backend("cpu", &m));
  assert_true(tl_backend_registry_generation() == g);
  /* A registration changes it; registering the same declaration again does not. */
  TL_ASSERT_OK(tl_register_backend(&k_backend, NULL));
  uint64_t after = tl_backend_registry_generation();
  assert_true(after != g);
  TL_ASSERT_OK(tl_register_backend(&k_backend, NULL));
  assert_true(tl_backend_registry_generation() == after);
  assert_int_equal(tl_list_backends(all, 64), n + 1);
  /* A lazy device codegen registration may register a backend when imported. */
  TL_ASSERT_OK(tl_register_lazy_device_codegen("nvptx", "builtin:no-such-builtin"));
  assert_true(tl_backend_registry_generation() != after);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_get_backend_finds_a_lazy_backend_first),
      cmocka_unit_test(test_generation_changes_with_the_registry_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
