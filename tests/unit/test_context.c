/* BackendContext: create_backend_context's resolution (target, host, exactly one
 * backend, execution backend), its errors, the context's own validation, and the
 * stages it runs. */
#include "tl_backend_test.h"

static tlt_calls lower_calls;
static atomic_bool fast_ok;
static const tl_pass_pipeline pipeline = {"vulkan", tlt_lower, &lower_calls};
static const tl_device_codegen codegen = {"vk", {tlt_build, "spirv"}, {tlt_build, "spirv-text"}, NULL, NULL};
static const tl_host_codegen host_c = {"c", tlt_build, "c-host", NULL, NULL};
static const tl_host_codegen_hook hook_a = {"hook_a", tlt_hook, "a", NULL, NULL};
static const tl_execution_backend_spec fast = {"fast", tlt_flag_available, NULL, &fast_ok, false, true, NULL};
static const tl_execution_backend_spec source = {"source", NULL, NULL, NULL, true, false, NULL};
static const tl_execution_backend_spec compiled = {"compiled", NULL, NULL, NULL, false, true, NULL};
static const tl_execution_backend_spec stranger = {"stranger", NULL, NULL, NULL, false, false, NULL};
static const tl_execution_backend_spec picky = {"picky", NULL, tlt_never, NULL, false, false, NULL};

static const char *const kinds[] = {"vulkan", NULL};
static const tl_pipeline_entry pipelines[] = {{"vulkan", &pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry devices[] = {{"vulkan", &codegen}, {NULL, NULL}};
static const tl_host_codegen_entry hosts[] = {{"c", &host_c}, {NULL, NULL}};
static const tl_host_codegen_hook *const hooks[] = {&hook_a, NULL};
static const tl_host_codegen_hooks_entry hook_lists[] = {{"vulkan", hooks}, {NULL, NULL}};
static const tl_execution_backend_spec *const specs[] = {&fast, &source, &compiled, &picky, NULL};

static const tl_backend_module ctx_backend = {sizeof(tl_backend_module), "test_ctx", kinds, pipelines, devices, specs,
                                              tlt_model_is, (void *)"ctx", hosts, hook_lists, NULL};
static const tl_backend_module dup1 = {sizeof(tl_backend_module), "test_ctx.dup1", kinds, pipelines, devices, specs,
                                       tlt_model_is, (void *)"dup", hosts, NULL, NULL};
static const tl_backend_module dup2 = {sizeof(tl_backend_module), "test_ctx.dup2", kinds, pipelines, devices, specs,
                                       tlt_model_is, (void *)"dup", hosts, NULL, NULL};

#define CTX_TARGET "{\"kind\":\"vulkan\",\"model\":\"ctx\"}"

static int setup(void **state) {
  (void)state;
  unsetenv("TILELANG_EXECUTION_BACKEND");
  unsetenv("TILELANG_DEFAULT_TARGET");
  atomic_store(&fast_ok, false);
  return 0;
}

/* str(Target(spec, host)): what the messages print. */
static char *target_text(const char *spec, const char *host_spec) {
  tl_target *t = tlt_target(spec), *h = tlt_target(host_spec), *full = NULL;
  TL_ASSERT_OK(tl_target_with_host(t, h, &full));
  char *s = strdup(tl_target_str(full));
  tl_target_release(t);
  tl_target_release(h);
  tl_target_release(full);
  return s;
}

static void test_register(void **state) {
  (void)state;
  TL_ASSERT_OK(tl_register_backend(&ctx_backend, NULL));
  TL_ASSERT_OK(tl_register_backend(&dup1, NULL));
  TL_ASSERT_OK(tl_register_backend(&dup2, NULL));
}

static void test_resolved_context(void **state) {
  (void)state;
  tl_backend_context *c = NULL;
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, "auto", &c));
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  assert_ptr_equal(tl_backend_context_module(c), &ctx_backend);
  /* The default host, attached to the target. */
  const tl_target *t = tl_backend_context_target(c), *h = tl_backend_context_target_host(c);
  assert_string_equal(tl_target_kind(t), "vulkan");
  assert_string_equal(tl_target_kind(h), "c");
  assert_non_null(tl_target_host(t));
  assert_true(tl_target_equal(tl_target_host(t), h));
  /* 'auto': the first available spec ("fast" is not). */
  assert_ptr_equal(tl_backend_context_execution_backend(c), &source);
  /* Immutable and shared by reference. */
  tl_backend_context *again = tl_backend_context_retain(c);
  assert_ptr_equal(again, c);
  tl_backend_context_release(again);
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  tl_backend_context_release(c);
  tl_backend_context_release(NULL);

  atomic_store(&fast_ok, true);
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, NULL, &c));
  assert_ptr_equal(tl_backend_context_execution_backend(c), &fast);
  tl_backend_context_release(c);
  atomic_store(&fast_ok, false);
}

static void test_hosts(void **state) {
  (void)state;
  tl_backend_context *c = NULL;
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, "llvm", NULL, &c));
  assert_string_equal(tl_target_kind(tl_backend_context_target_host(c)), "llvm");
  assert_string_equal(tl_target_kind(tl_target_host(tl_backend_context_target(c))), "llvm");
  /* The manifest has no llvm host codegen: only codegen_host notices. */
  tl_artifact *a = NULL;
  TL_ASSERT_ERR(tl_backend_context_codegen_host(c, NULL, &a), TL_EINVAL, "has no host codegen matching target");
  tl_backend_context_release(c);
  /* A host carried by the target is kept when none is given. */
  TL_ASSERT_OK(tl_create_backend_context("{\"kind\":\"vulkan\",\"model\":\"ctx\",\"host\":\"llvm\"}", NULL, NULL, &c));
  assert_string_equal(tl_target_kind(tl_backend_context_target_host(c)), "llvm");
  tl_backend_context_release(c);
  /* An explicit host wins over the target's own. */
  TL_ASSERT_OK(tl_create_backend_context("{\"kind\":\"vulkan\",\"model\":\"ctx\",\"host\":\"llvm\"}", "c", NULL, &c));
  assert_string_equal(tl_target_kind(tl_backend_context_target_host(c)), "c");
  tl_backend_context_release(c);
  TL_ASSERT_ERR(tl_create_backend_context(CTX_TARGET, "no_such_kind", NULL, &c), TL_EINVAL, NULL);
  assert_null(c);
}

static void test_execution_backend_choice(void **state) {
  (void)state;
  tl_backend_context *c = NULL;
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, "Compiled", &c));
  assert_ptr_equal(tl_backend_context_execution_backend(c), &compiled);
  tl_backend_context_release(c);
  /* NULL takes TILELANG_EXECUTION_BACKEND; an explicit argument wins over it. */
  setenv("TILELANG_EXECUTION_BACKEND", "compiled", 1);
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, NULL, &c));
  assert_ptr_equal(tl_backend_context_execution_backend(c), &compiled);
  tl_backend_context_release(c);
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, "auto", &c));
  assert_ptr_equal(tl_backend_context_execution_backend(c), &source);
  tl_backend_context_release(c);
  setenv("TILELANG_EXECUTION_BACKEND", "bogus", 1);
  TL_ASSERT_ERR(tl_create_backend_context(CTX_TARGET, NULL, NULL, &c), TL_EINVAL, NULL);
  TL_ASSERT_MSG("Invalid execution backend 'bogus' for target 'vulkan'. Allowed: fast, source, compiled. "
                "Tip: use execution_backend='auto'.");
  setenv("TILELANG_EXECUTION_BACKEND", "", 1); /* empty: 'auto' */
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, NULL, &c));
  assert_ptr_equal(tl_backend_context_execution_backend(c), &source);
  tl_backend_context_release(c);
  unsetenv("TILELANG_EXECUTION_BACKEND");
  TL_ASSERT_ERR(tl_create_backend_context(CTX_TARGET, NULL, "fast", &c), TL_EUNAVAILABLE, NULL);
  TL_ASSERT_MSG("Execution backend 'fast' requires extra dependencies and is not available now. "
                "Try one of: source, compiled.");
  assert_null(c);
}

static void test_resolution_errors(void **state) {
  (void)state;
  tl_backend_context *c = NULL;
  /* A kind nobody registered. */
  TL_ASSERT_ERR(tl_create_backend_context("nvptx", NULL, NULL, &c), TL_ENOTFOUND,
                "No backend registered for target kind 'nvptx'. Available: ");
  assert_non_null(strstr(tl_last_error(), "vulkan"));
  /* Nobody's predicate matches. */
  char *text = target_text("{\"kind\":\"vulkan\",\"model\":\"nobody\"}", "c");
  char expected[1024];
  snprintf(expected, sizeof expected, "No backend matches target %s", text);
  TL_ASSERT_ERR(tl_create_backend_context("{\"kind\":\"vulkan\",\"model\":\"nobody\"}", NULL, NULL, &c), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);
  free(text);
  /* Two match. */
  text = target_text("{\"kind\":\"vulkan\",\"model\":\"dup\"}", "c");
  snprintf(expected, sizeof expected, "Multiple backends match target %s: test_ctx.dup1, test_ctx.dup2", text);
  TL_ASSERT_ERR(tl_create_backend_context("{\"kind\":\"vulkan\",\"model\":\"dup\"}", NULL, NULL, &c), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);
  free(text);
  /* Target errors come from the target layer unchanged. */
  TL_ASSERT_ERR(tl_create_backend_context("{\"kind\":\"vulkan\",", NULL, NULL, &c), TL_EINVAL, NULL);
  TL_ASSERT_ERR(tl_create_backend_context("cuda -arch=sm_90", NULL, NULL, &c), TL_EINVAL, NULL);
  assert_null(c);
  TL_ASSERT_ERR(tl_create_backend_context(CTX_TARGET, NULL, NULL, NULL), TL_EINVAL, NULL);
}

static void test_auto_target(void **state) {
  (void)state;
  /* target NULL means "auto": TILELANG_DEFAULT_TARGET first. */
  setenv("TILELANG_DEFAULT_TARGET", CTX_TARGET, 1);
  tl_backend_context *c = NULL;
  TL_ASSERT_OK(tl_create_backend_context(NULL, NULL, NULL, &c));
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  tl_backend_context_release(c);
  TL_ASSERT_OK(tl_create_backend_context("auto", NULL, NULL, &c));
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  tl_backend_context_release(c);
  unsetenv("TILELANG_DEFAULT_TARGET");
}

static void test_context_validation(void **state) {
  (void)state;
  tl_target *t = tlt_target("{\"kind\":\"vulkan\",\"model\":\"ctx\",\"host\":\"c\"}");
  tl_target *other = tlt_target("{\"kind\":\"vulkan\",\"model\":\"other\",\"host\":\"c\"}");
  tl_target *no_host = tlt_target(CTX_TARGET);
  tl_backend_context *c = NULL;
  TL_ASSERT_OK(tl_backend_context_create(&ctx_backend, t, NULL, &compiled, &c));
  assert_string_equal(tl_target_kind(tl_backend_context_target_host(c)), "c");
  tl_backend_context_release(c);

  char expected[1024];
  snprintf(expected, sizeof expected, "Backend module 'test_ctx' does not match target %s", tl_target_str(other));
  TL_ASSERT_ERR(tl_backend_context_create(&ctx_backend, other, NULL, &compiled, &c), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);
  TL_ASSERT_ERR(tl_backend_context_create(&ctx_backend, t, NULL, &stranger, &c), TL_EINVAL, NULL);
  TL_ASSERT_MSG("Execution backend 'stranger' is not declared by backend module 'test_ctx'");
  snprintf(expected, sizeof expected, "Execution backend 'picky' does not match target %s", tl_target_str(t));
  TL_ASSERT_ERR(tl_backend_context_create(&ctx_backend, t, NULL, &picky, &c), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);
  TL_ASSERT_ERR(tl_backend_context_create(&ctx_backend, no_host, NULL, &compiled, &c), TL_EINVAL, "needs a target host");
  TL_ASSERT_ERR(tl_backend_context_create(NULL, t, NULL, &compiled, &c), TL_EINVAL, NULL);
  assert_null(c);
  tl_target_release(t);
  tl_target_release(other);
  tl_target_release(no_host);
}

static void test_stages(void **state) {
  (void)state;
  tl_ir_module *mod = NULL;
  TL_ASSERT_OK(tl_ir_module_create(&mod));
  tl_backend_context *src = NULL, *cmp = NULL;
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, "source", &src));
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, "compiled", &cmp));

  int n = atomic_load(&lower_calls.n);
  TL_ASSERT_OK(tl_backend_context_lower(src, mod));
  assert_int_equal(atomic_load(&lower_calls.n), n + 1);
  assert_string_equal(lower_calls.last, "vulkan");

  /* -1: the execution backend's enable_device_compile. */
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_backend_context_codegen_device(src, mod, -1, &a));
  assert_string_equal(tl_artifact_format(a), "spirv-text");
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_backend_context_codegen_device(cmp, mod, -1, &a));
  assert_string_equal(tl_artifact_format(a), "spirv");
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_backend_context_codegen_device(src, mod, 1, &a));
  assert_string_equal(tl_artifact_format(a), "spirv");
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_backend_context_codegen_device(cmp, mod, 0, &a));
  assert_string_equal(tl_artifact_format(a), "spirv-text");
  tl_artifact_release(a);
  TL_ASSERT_ERR(tl_backend_context_codegen_device(cmp, mod, 2, &a), TL_EINVAL, "compile_device must be 1, 0 or -1");
  assert_null(a);

  tlt_trace *tr = tlt_hook_trace();
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_backend_context_preprocess_host_codegen(src, mod));
  assert_string_equal(tr->text, "a(c,vulkan)");
  TL_ASSERT_OK(tl_backend_context_codegen_host(src, mod, &a));
  assert_string_equal(tl_artifact_format(a), "c-host");
  assert_string_equal(tl_artifact_source(a), "// c-host for c");
  tl_artifact_release(a);

  TL_ASSERT_ERR(tl_backend_context_lower(NULL, mod), TL_EINVAL, NULL);
  tl_backend_context_release(src);
  tl_backend_context_release(cmp);
  tl_ir_module_free(mod);
}

/* A normalizer claiming one exact spec. */
#define ALIAS_SPEC "{\"kind\":\"vulkan\",\"model\":\"alias\"}"
static tl_status alias_normalizer(const char *spec, void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  if (strcmp(spec, ALIAS_SPEC) != 0) return TL_OK;
  return tl_target_parse(CTX_TARGET, out);
}

/* The same name, replaced with override: maps the alias to a target no backend owns. */
static tl_status alias_normalizer_elsewhere(const char *spec, void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  if (strcmp(spec, ALIAS_SPEC) != 0) return TL_OK;
  return tl_target_parse("{\"kind\":\"vulkan\",\"model\":\"nobody\"}", out);
}

/* Resolved targets are cached per strings; what they depend on invalidates them. */
static void test_target_cache(void **state) {
  (void)state;
  tl_backend_context *c = NULL, *d = NULL;
  /* The same strings give equal targets, whether resolved or cached. */
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, NULL, &c));
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, NULL, NULL, &d));
  assert_true(tl_target_equal(tl_backend_context_target(c), tl_backend_context_target(d)));
  assert_true(tl_target_equal(tl_backend_context_target_host(c), tl_backend_context_target_host(d)));
  tl_backend_context_release(c);
  tl_backend_context_release(d);
  /* The host argument is part of the key. */
  TL_ASSERT_OK(tl_create_backend_context(CTX_TARGET, "llvm", NULL, &c));
  assert_string_equal(tl_target_kind(tl_backend_context_target_host(c)), "llvm");
  tl_backend_context_release(c);

  /* A normalizer registered after a spec was resolved applies to it. */
  TL_ASSERT_ERR(tl_create_backend_context(ALIAS_SPEC, NULL, NULL, &c), TL_EINVAL, "No backend matches target");
  TL_ASSERT_OK(tl_register_target_normalizer("test_ctx.alias", alias_normalizer, NULL, false));
  TL_ASSERT_OK(tl_create_backend_context(ALIAS_SPEC, NULL, NULL, &c));
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  tl_backend_context_release(c);
  /* Replacing that normalizer under its own name (override) applies too. */
  TL_ASSERT_OK(tl_register_target_normalizer("test_ctx.alias", alias_normalizer_elsewhere, NULL, true));
  TL_ASSERT_ERR(tl_create_backend_context(ALIAS_SPEC, NULL, NULL, &c), TL_EINVAL, "No backend matches target");
  TL_ASSERT_OK(tl_register_target_normalizer("test_ctx.alias", alias_normalizer, NULL, true));
  TL_ASSERT_OK(tl_create_backend_context(ALIAS_SPEC, NULL, NULL, &c));
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  tl_backend_context_release(c);

  /* "auto" follows TILELANG_DEFAULT_TARGET. */
  setenv("TILELANG_DEFAULT_TARGET", CTX_TARGET, 1);
  TL_ASSERT_OK(tl_create_backend_context(NULL, NULL, NULL, &c));
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  tl_backend_context_release(c);
  setenv("TILELANG_DEFAULT_TARGET", "{\"kind\":\"vulkan\",\"model\":\"dup\"}", 1);
  TL_ASSERT_ERR(tl_create_backend_context(NULL, NULL, NULL, &c), TL_EINVAL, "Multiple backends match target");
  unsetenv("TILELANG_DEFAULT_TARGET");

  /* Backend selection is never cached: a manifest registered later competes. */
  static const tl_backend_module late = {sizeof(tl_backend_module), "test_ctx.late", kinds, pipelines, devices, specs,
                                         tlt_model_is, (void *)"ctx", hosts, NULL, NULL};
  TL_ASSERT_OK(tl_register_backend(&late, NULL));
  TL_ASSERT_ERR(tl_create_backend_context(CTX_TARGET, NULL, NULL, &c), TL_EINVAL,
                ": test_ctx, test_ctx.late");
}

static tl_status create_op(void *ctx) {
  tl_backend_context **out = ctx;
  return tl_create_backend_context(CTX_TARGET, "c", "auto", out);
}

static void test_create_oom(void **state) {
  (void)state;
  tl_backend_context *c = NULL;
  assert_true(tl_oom_sweep(create_op, NULL, &c) >= 1);
  assert_string_equal(tl_backend_context_name(c), "test_ctx");
  tl_backend_context_release(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(test_register, setup),
    cmocka_unit_test_setup(test_resolved_context, setup),
    cmocka_unit_test_setup(test_hosts, setup),
    cmocka_unit_test_setup(test_execution_backend_choice, setup),
    cmocka_unit_test_setup(test_resolution_errors, setup),
    cmocka_unit_test_setup(test_auto_target, setup),
    cmocka_unit_test_setup(test_context_validation, setup),
    cmocka_unit_test_setup(test_stages, setup),
    cmocka_unit_test_setup(test_create_oom, setup),
    cmocka_unit_test_setup(test_target_cache, setup), /* last: registers a competing backend */
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
