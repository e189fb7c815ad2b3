/* The device codegen, host codegen and host codegen hook registries (upstream
 * device_codegen.py / host_codegen.py): registration with override, lazy imports,
 * resolution (first match), the messages; and the components' own methods. */
#include "backend/codegen_registries.h"
#include "backend/plugin_loader.h"
#include "tl_backend_test.h"

/* ------------------------------------------------------------ DeviceCodegen */

static const tl_device_codegen both = {"both", {tlt_build, "cubin"}, {tlt_build, "cuda"}, NULL, NULL};
static const tl_device_codegen compile_only = {"compile_only", {tlt_build, "cubin"}, {NULL, NULL}, NULL, NULL};
static const tl_device_codegen source_only = {"source_only", {NULL, NULL}, {tlt_build, "cuda"}, NULL, NULL};
static const tl_device_codegen failing = {"failing", {tlt_fail_build, NULL}, {NULL, NULL}, NULL, NULL};
static const tl_device_codegen picky = {"picky", {tlt_build, "x"}, {NULL, NULL}, tlt_model_is, (void *)"picky"};

static void test_device_codegen_methods(void **state) {
  (void)state;
  tl_target *t = tlt_target("{\"kind\":\"vulkan\",\"model\":\"picky\"}");
  tl_target *u = tlt_target("vulkan");
  assert_true(tl_device_codegen_matches(&both, u));
  assert_true(tl_device_codegen_matches(&picky, t));
  assert_false(tl_device_codegen_matches(&picky, u));
  assert_false(tl_device_codegen_matches(NULL, u));

  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_device_codegen_lower(&both, NULL, t, true, &a));
  assert_string_equal(tl_artifact_format(a), "cubin");
  assert_string_equal(tl_artifact_source(a), "// cubin for vulkan");
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_device_codegen_lower(&both, NULL, t, false, &a));
  assert_string_equal(tl_artifact_format(a), "cuda");
  tl_artifact_release(a);

  a = (tl_artifact *)&a;
  TL_ASSERT_ERR(tl_device_codegen_lower(&compile_only, NULL, t, false, &a), TL_EUNSUPPORTED, NULL);
  TL_ASSERT_MSG("Device codegen 'compile_only' for target 'vulkan' does not support lowering without compilation");
  assert_null(a);
  TL_ASSERT_ERR(tl_device_codegen_lower(&source_only, NULL, t, true, &a), TL_EUNSUPPORTED, NULL);
  TL_ASSERT_MSG("Device codegen 'source_only' for target 'vulkan' does not support lowering with compilation");
  /* The codegen's own failure propagates unchanged. */
  TL_ASSERT_ERR(tl_device_codegen_lower(&failing, NULL, t, true, &a), TL_ECOMPILE, NULL);
  TL_ASSERT_MSG("tlt_fail_build: the compiler said no");
  tl_target_release(t);
  tl_target_release(u);
}

/* ---------------------------------------------------- the device registry */

static size_t allowed(const tl_target *t, const char **names, size_t cap) {
  return tl_allowed_device_codegens_for_target(t, names, cap);
}

static void test_device_register_and_resolve(void **state) {
  (void)state;
  tl_target *plain = tlt_target("nvptx");
  tl_target *p = tlt_target("{\"kind\":\"nvptx\",\"model\":\"picky\"}");
  const tl_device_codegen *c = NULL;
  TL_ASSERT_ERR(tl_resolve_device_codegen(plain, &c), TL_ENOTFOUND, NULL);
  TL_ASSERT_MSG("No device codegen registered for target 'nvptx'. Available: <none>.");

  TL_ASSERT_OK(tl_register_device_codegen("nvptx", &picky, false));
  TL_ASSERT_ERR(tl_resolve_device_codegen(plain, &c), TL_ENOTFOUND, NULL);
  TL_ASSERT_MSG("No device codegen registered for target 'nvptx'. Available: picky.");
  TL_ASSERT_OK(tl_resolve_device_codegen(p, &c));
  assert_ptr_equal(c, &picky);

  /* Resolution takes the first registered match. */
  TL_ASSERT_OK(tl_register_device_codegen("nvptx", &both, false));
  TL_ASSERT_OK(tl_register_device_codegen("nvptx", &compile_only, false));
  TL_ASSERT_OK(tl_resolve_device_codegen(plain, &c));
  assert_ptr_equal(c, &both);
  TL_ASSERT_OK(tl_resolve_device_codegen(p, &c));
  assert_ptr_equal(c, &picky);
  const char *names[4] = {NULL};
  assert_int_equal(allowed(plain, names, 4), 2);
  assert_string_equal(names[0], "both");
  assert_string_equal(names[1], "compile_only");
  assert_int_equal(allowed(p, NULL, 0), 3);

  /* A second codegen of the same name: upstream's error, unless override. */
  static const tl_device_codegen both_v2 = {"both", {tlt_build, "v2"}, {NULL, NULL}, NULL, NULL};
  TL_ASSERT_ERR(tl_register_device_codegen("nvptx", &both_v2, false), TL_EEXIST, NULL);
  TL_ASSERT_MSG("Device codegen 'both' is already registered for target kind 'nvptx'");
  /* Override removes the old entry (from the middle) and appends the new one. */
  TL_ASSERT_OK(tl_register_device_codegen("nvptx", &both_v2, true));
  assert_int_equal(allowed(plain, names, 4), 2);
  assert_string_equal(names[0], "compile_only");
  assert_string_equal(names[1], "both");
  TL_ASSERT_OK(tl_resolve_device_codegen(plain, &c));
  assert_ptr_equal(c, &compile_only);
  assert_int_equal(tl__component_count(&tl__device_codegens, "nvptx"), 3);

  /* The same name under another kind is another entry. */
  TL_ASSERT_OK(tl_register_device_codegen("rocm", &both, false));

  TL_ASSERT_ERR(tl_register_device_codegen("", &both, false), TL_EINVAL, "target kind must not be empty");
  TL_ASSERT_ERR(tl_register_device_codegen("nvptx", NULL, false), TL_EINVAL, "must not be NULL");
  static const tl_device_codegen unnamed = {"", {tlt_build, "x"}, {NULL, NULL}, NULL, NULL};
  TL_ASSERT_ERR(tl_register_device_codegen("nvptx", &unnamed, false), TL_EINVAL, "name must not be empty");
  TL_ASSERT_ERR(tl_resolve_device_codegen(NULL, &c), TL_EINVAL, NULL);
  tl_target_release(plain);
  tl_target_release(p);
}

/* ------------------------------------------------------------ lazy imports */

static atomic_int lazy_inits, broken_inits;
static const tl_device_codegen lazy_codegen = {"lazy", {tlt_build, "lazy"}, {NULL, NULL}, NULL, NULL};
static const tl_device_codegen late_codegen = {"late", {tlt_build, "late"}, {NULL, NULL}, NULL, NULL};

static tl_status lazy_init(const tl_plugin_host *host) {
  atomic_fetch_add(&lazy_inits, 1);
  return host->register_device_codegen("vulkan", &lazy_codegen, false);
}

static atomic_bool broken_fails;
static tl_status broken_init(const tl_plugin_host *host) {
  atomic_fetch_add(&broken_inits, 1);
  if (atomic_load(&broken_fails)) return host->set_error(TL_EIO, "the broken backend could not read its data");
  return host->register_device_codegen("vulkan", &late_codegen, false);
}

static void test_device_lazy(void **state) {
  (void)state;
  TL_ASSERT_OK(tl__plugin_register_builtin("test_codegen_lazy", lazy_init));
  TL_ASSERT_OK(tl_register_lazy_device_codegen("vulkan", "builtin:test_codegen_lazy"));
  assert_int_equal(atomic_load(&lazy_inits), 0); /* nothing imported yet */
  tl_target *t = tlt_target("vulkan");
  const tl_device_codegen *c = NULL;
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_ptr_equal(c, &lazy_codegen);
  assert_int_equal(atomic_load(&lazy_inits), 1);
  const char *names[3];
  assert_int_equal(tl_allowed_device_codegens_for_target(t, names, 3), 1);
  assert_int_equal(atomic_load(&lazy_inits), 1); /* imported once */
  /* Registering the path again marks the kind not loaded; the import itself still
   * happens at most once per path. */
  TL_ASSERT_OK(tl_register_lazy_device_codegen("vulkan", "builtin:test_codegen_lazy"));
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_int_equal(atomic_load(&lazy_inits), 1);

  /* A new path for the kind is imported on the next lookup. Its failure propagates
   * and is retried by the following lookup. */
  atomic_store(&broken_fails, true);
  TL_ASSERT_OK(tl__plugin_register_builtin("test_codegen_broken", broken_init));
  TL_ASSERT_OK(tl_register_lazy_device_codegen("vulkan", "builtin:test_codegen_broken"));
  TL_ASSERT_ERR(tl_resolve_device_codegen(t, &c), TL_EIO, NULL);
  TL_ASSERT_MSG("while initialising plugin 'builtin:test_codegen_broken': the broken backend could not read its data");
  assert_int_equal(tl_allowed_device_codegens_for_target(t, names, 3), 0);
  assert_non_null(strstr(tl_last_error(), "could not read its data"));
  assert_int_equal(atomic_load(&broken_inits), 2);
  atomic_store(&broken_fails, false);
  assert_int_equal(tl_allowed_device_codegens_for_target(t, names, 3), 2);
  TL_ASSERT_MSG(""); /* success clears the message */
  assert_string_equal(names[0], "lazy");
  assert_string_equal(names[1], "late");
  assert_int_equal(atomic_load(&broken_inits), 3);
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_int_equal(atomic_load(&broken_inits), 3);

  /* An unknown built-in is a load failure naming the path. */
  TL_ASSERT_OK(tl_register_lazy_device_codegen("vulkan", "builtin:test_codegen_missing"));
  TL_ASSERT_ERR(tl_resolve_device_codegen(t, &c), TL_EUNAVAILABLE, NULL);
  TL_ASSERT_MSG("Cannot load plugin 'builtin:test_codegen_missing': no built-in backend is named 'test_codegen_missing'");
  TL_ASSERT_OK(tl_register_lazy_device_codegen("vulkan", "builtin:test_codegen_lazy")); /* back to a good one */
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  tl_target_release(t);

  TL_ASSERT_ERR(tl_register_lazy_device_codegen("vulkan", ""), TL_EINVAL, "import path must not be empty");
  TL_ASSERT_ERR(tl_register_lazy_device_codegen("vulkan", "builtin:"), TL_EINVAL, "names no built-in backend");
  TL_ASSERT_ERR(tl_register_lazy_device_codegen("", "builtin:x"), TL_EINVAL, "target kind must not be empty");
}

/* ----------------------------------------------------- global function codegens */

static tl_status gf_build(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  if (nargs != 2 || args[0].kind != TL_VALUE_IR_MODULE || args[1].kind != TL_VALUE_TARGET)
    return tl__error(TL_EINVAL, "gf_build: expected (module, target)");
  tl_artifact *a = NULL;
  TL__TRY(tl_artifact_create((const char *)user_data, tl_target_kind(args[1].v.target), &a));
  ret->kind = TL_VALUE_ARTIFACT;
  ret->v.artifact = a;
  return TL_OK;
}

static tl_status gf_wrong(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  (void)user_data;
  return tl_value_set_str(ret, "not an artifact");
}

static const tl_device_codegen gf_device = {
  "gf", TL_GLOBAL_FUNC_DEVICE_CODEGEN("test_codegen.build_gf"),
  TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT("test_codegen.build_gf_without_compile"), NULL, NULL};
static const tl_host_codegen gf_host = {.name = "gf_host", TL_GLOBAL_FUNC_HOST_CODEGEN("test_codegen.build_gf_host")};

static void test_global_func_codegens(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_global_func("test_codegen.build_gf", gf_build, "compiled", false));
  TL_ASSERT_OK(tl_register_global_func("test_codegen.build_gf_without_compile", gf_wrong, NULL, false));
  TL_ASSERT_OK(tl_register_global_func("test_codegen.build_gf_host", gf_build, "host", false));
  tl_ir_module *mod = NULL;
  TL_ASSERT_OK(tl_ir_module_create(&mod));
  tl_target *t = tlt_target("vulkan"), *h = tlt_target("c");
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_device_codegen_lower(&gf_device, mod, t, true, &a));
  assert_string_equal(tl_artifact_format(a), "compiled");
  assert_string_equal(tl_artifact_source(a), "vulkan");
  tl_artifact_release(a);
  TL_ASSERT_ERR(tl_device_codegen_lower(&gf_device, mod, t, false, &a), TL_EINTERNAL, NULL);
  TL_ASSERT_MSG("Global function 'test_codegen.build_gf_without_compile' did not return an artifact");
  TL_ASSERT_OK(tl_host_codegen_lower(&gf_host, mod, h, &a));
  assert_string_equal(tl_artifact_format(a), "host");
  assert_string_equal(tl_artifact_source(a), "c");
  tl_artifact_release(a);
  static const tl_host_codegen missing = {.name = "missing", TL_GLOBAL_FUNC_HOST_CODEGEN("test_codegen.nope")};
  TL_ASSERT_ERR(tl_host_codegen_lower(&missing, mod, h, &a), TL_ENOTFOUND, "test_codegen.nope");
  tl_ir_module_free(mod);
  tl_target_release(t);
  tl_target_release(h);
}

/* --------------------------------------------------------------- host side */

static const tl_host_codegen host_c = {"c", tlt_build, "c-host", NULL, NULL};
static const tl_host_codegen host_c_alt = {"c_alt", tlt_build, "c-alt", tlt_model_is, (void *)"alt"};
static const tl_host_codegen_hook hook_one = {"one", tlt_hook, "one", NULL, NULL};
static const tl_host_codegen_hook hook_two = {"two", tlt_hook, "two", NULL, NULL};
static const tl_host_codegen_hook hook_picky = {"picky", tlt_hook, "picky", tlt_model_is, (void *)"picky"};
static const tl_host_codegen_hook hook_fail = {"fail", tlt_failing_hook, "fail", tlt_model_is, (void *)"fail"};

static void test_host_codegens(void **state) {
  (void)state;
  tl_target *plain = tlt_target("nvptx");
  tl_target *alt = tlt_target("{\"kind\":\"nvptx\",\"model\":\"alt\"}");
  const tl_host_codegen *c = NULL;
  TL_ASSERT_ERR(tl_resolve_host_codegen(plain, &c), TL_ENOTFOUND, NULL);
  TL_ASSERT_MSG("No host codegen registered for target host 'nvptx'. Available: <none>.");
  TL_ASSERT_OK(tl_register_host_codegen("nvptx", &host_c_alt, false));
  TL_ASSERT_ERR(tl_resolve_host_codegen(plain, &c), TL_ENOTFOUND, NULL);
  TL_ASSERT_MSG("No host codegen registered for target host 'nvptx'. Available: c_alt.");
  TL_ASSERT_OK(tl_register_host_codegen("nvptx", &host_c, false));
  TL_ASSERT_OK(tl_resolve_host_codegen(plain, &c));
  assert_ptr_equal(c, &host_c);
  TL_ASSERT_OK(tl_resolve_host_codegen(alt, &c));
  assert_ptr_equal(c, &host_c_alt);
  const char *names[3];
  assert_int_equal(tl_allowed_host_codegens_for_target(alt, names, 3), 2);
  assert_string_equal(names[0], "c_alt");
  assert_string_equal(names[1], "c");
  TL_ASSERT_ERR(tl_register_host_codegen("nvptx", &host_c, false), TL_EEXIST, NULL);
  TL_ASSERT_MSG("Host codegen 'c' is already registered for target kind 'nvptx'");
  TL_ASSERT_OK(tl_register_host_codegen("nvptx", &host_c, true));
  assert_int_equal(tl_allowed_host_codegens_for_target(alt, names, 3), 2);

  tl_artifact *a = NULL;
  assert_true(tl_host_codegen_matches(&host_c, plain));
  assert_false(tl_host_codegen_matches(&host_c_alt, plain));
  TL_ASSERT_OK(tl_host_codegen_lower(&host_c, NULL, plain, &a));
  assert_string_equal(tl_artifact_format(a), "c-host");
  tl_artifact_release(a);
  static const tl_host_codegen no_build = {"nb", NULL, NULL, NULL, NULL};
  TL_ASSERT_ERR(tl_register_host_codegen("nvptx", &no_build, false), TL_EINVAL, "has no build function");
  tl_target_release(plain);
  tl_target_release(alt);
}

static void test_hooks(void **state) {
  (void)state;
  tl_target *host = tlt_target("c");
  tl_target *t = tlt_target("vulkan");
  tl_target *p = tlt_target("{\"kind\":\"vulkan\",\"model\":\"picky\"}");
  tl_target *f = tlt_target("{\"kind\":\"vulkan\",\"model\":\"fail\"}");
  tlt_trace *tr = tlt_hook_trace();
  /* No hooks at all, and no device target: nothing happens. */
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, host, t));
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, host, NULL));
  assert_string_equal(tr->text, "");

  TL_ASSERT_OK(tl_register_host_codegen_hook("vulkan", &hook_one, false));
  TL_ASSERT_OK(tl_register_host_codegen_hook("vulkan", &hook_picky, false));
  TL_ASSERT_OK(tl_register_host_codegen_hook("vulkan", &hook_two, false));
  TL_ASSERT_OK(tl_register_host_codegen_hook("vulkan", &hook_fail, false));
  TL_ASSERT_ERR(tl_register_host_codegen_hook("vulkan", &hook_two, false), TL_EEXIST, NULL);
  TL_ASSERT_MSG("Host codegen hook 'two' is already registered for target kind 'vulkan'");

  /* Every matching hook, in registration order. */
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, host, t));
  assert_string_equal(tr->text, "one(c,vulkan) two(c,vulkan)");
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, host, p));
  assert_string_equal(tr->text, "one(c,vulkan) picky(c,vulkan) two(c,vulkan)");
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, host, NULL));
  assert_string_equal(tr->text, "");
  /* A failing hook stops the rest and its error propagates. */
  TL_ASSERT_ERR(tl_apply_host_codegen_hooks(NULL, host, f), TL_EINVAL, NULL);
  TL_ASSERT_MSG("hook fail failed");
  assert_string_equal(tr->text, "one(c,vulkan) two(c,vulkan)");

  /* Override moves a hook to the end. */
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_register_host_codegen_hook("vulkan", &hook_one, true));
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, host, t));
  assert_string_equal(tr->text, "two(c,vulkan) one(c,vulkan)");

  assert_true(tl_host_codegen_hook_matches(&hook_one, t));
  assert_false(tl_host_codegen_hook_matches(&hook_picky, t));
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_host_codegen_hook_lower(&hook_picky, NULL, NULL, t));
  assert_string_equal(tr->text, "picky(-,vulkan)");

  static const tl_host_codegen_hook no_apply = {"na", NULL, NULL, NULL, NULL};
  TL_ASSERT_ERR(tl_register_host_codegen_hook("vulkan", &no_apply, false), TL_EINVAL, "has no apply function");
  tl_target_release(host);
  tl_target_release(t);
  tl_target_release(p);
  tl_target_release(f);
}

static atomic_int hooks_inits;
static const tl_host_codegen_hook lazy_hook = {"lazy_hook", tlt_hook, "lazy", NULL, NULL};
static const tl_host_codegen lazy_host = {"lazy_host", tlt_build, "lazy-host", NULL, NULL};
static tl_status hooks_init(const tl_plugin_host *host) {
  atomic_fetch_add(&hooks_inits, 1);
  TL__TRY(host->register_host_codegen_hook("nvptx", &lazy_hook, false));
  return host->register_host_codegen("nvptx", &lazy_host, false);
}

static void test_host_lazy(void **state) {
  (void)state;
  TL_ASSERT_OK(tl__plugin_register_builtin("test_codegen_hooks", hooks_init));
  TL_ASSERT_OK(tl_register_lazy_host_codegen_hooks("nvptx", "builtin:test_codegen_hooks"));
  TL_ASSERT_OK(tl_register_lazy_host_codegen("nvptx", "builtin:test_codegen_hooks"));
  tl_target *t = tlt_target("nvptx");
  tlt_trace *tr = tlt_hook_trace();
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, t, t));
  assert_string_equal(tr->text, "lazy(nvptx,nvptx)");
  const char *names[4];
  assert_int_equal(tl_allowed_host_codegens_for_target(t, names, 4), 2);
  assert_string_equal(names[0], "c"); /* registered by test_host_codegens */
  assert_string_equal(names[1], "lazy_host");
  assert_int_equal(atomic_load(&hooks_inits), 1); /* one import path, initialised once */
  tl_target_release(t);
}

/* --------------------------------------------------------------- artifacts */

static void test_artifacts(void **state) {
  (void)state;
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_artifact_create("cuda", NULL, &a));
  assert_string_equal(tl_artifact_format(a), "cuda");
  assert_string_equal(tl_artifact_source(a), "");
  size_t n = 99;
  assert_null(tl_artifact_binary(a, &n));
  assert_int_equal(n, 0);
  assert_ptr_equal(tl_artifact_retain(a), a);
  tl_artifact_release(a);
  tl_artifact_release(a);
  tl_artifact_release(NULL);

  TL_ASSERT_OK(tl_artifact_create_binary("cubin", "// ptx", "\x7f" "ELF\0\1", 6, &a));
  const unsigned char *b = tl_artifact_binary(a, &n);
  assert_int_equal(n, 6);
  assert_memory_equal(b, "\x7f" "ELF\0\1", 6);
  assert_string_equal(tl_artifact_source(a), "// ptx");
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_artifact_create_binary("so", NULL, "", 0, &a)); /* empty but present */
  assert_non_null(tl_artifact_binary(a, &n));
  assert_int_equal(n, 0);
  tl_artifact_release(a);

  TL_ASSERT_ERR(tl_artifact_create("", "x", &a), TL_EINVAL, "format must not be empty");
  assert_null(a);
  TL_ASSERT_ERR(tl_artifact_create_binary("so", NULL, NULL, 4, &a), TL_EINVAL, "binary is NULL");
  TL_ASSERT_ERR(tl_artifact_create("c", "x", NULL), TL_EINVAL, NULL);
}

static tl_status artifact_op(void *ctx) {
  tl_artifact **out = ctx;
  return tl_artifact_create_binary("cubin", "source", "bytes", 5, out);
}

static void test_artifact_oom(void **state) {
  (void)state;
  tl_artifact *a = NULL;
  assert_true(tl_oom_sweep(artifact_op, NULL, &a) >= 4);
  assert_string_equal(tl_artifact_source(a), "source");
  tl_artifact_release(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_device_codegen_methods),
    cmocka_unit_test(test_device_register_and_resolve),
    cmocka_unit_test(test_device_lazy),
    cmocka_unit_test(test_global_func_codegens),
    cmocka_unit_test(test_host_codegens),
    cmocka_unit_test(test_hooks),
    cmocka_unit_test(test_host_lazy),
    cmocka_unit_test(test_artifacts),
    cmocka_unit_test(test_artifact_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
