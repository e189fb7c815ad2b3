/* The backend manifest registry (register_backend, get_backend, list_backends):
 * idempotent and conflicting registration, predicates for shared kinds, publication
 * of a manifest's components, callbacks as global functions, rollback under an OOM
 * sweep; and BackendModule's methods. */
#include "backend/codegen_registries.h"
#include "backend/registry.h"
#include "tl_backend_test.h"

static tlt_calls vk_calls;
static const tl_pass_pipeline vk_pipeline = {"vulkan", tlt_lower, &vk_calls};
static const tl_device_codegen vk_codegen = {"vk_main", {tlt_build, "spirv"}, {tlt_build, "spirv-text"}, NULL, NULL};
static const tl_host_codegen host_c = {"c", tlt_build, "c-host", NULL, NULL};
static const tl_host_codegen host_picky = {"c", tlt_build, "picky-host", tlt_model_is, (void *)"picky-host"};
static const tl_host_codegen_hook hook_a = {"hook_a", tlt_hook, "a", NULL, NULL};
static const tl_host_codegen_hook hook_b = {"hook_b", tlt_hook, "b", tlt_has_key, (void *)"with_b"};
static const tl_execution_backend_spec spec_src = {"source", NULL, NULL, NULL, true, false, NULL};

static const char *const kinds_vk[] = {"vulkan", NULL};
static const tl_pipeline_entry pipelines_vk[] = {{"vulkan", &vk_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry devices_vk[] = {{"vulkan", &vk_codegen}, {NULL, NULL}};
static const tl_execution_backend_spec *const specs_src[] = {&spec_src, NULL};
static const tl_host_codegen_entry hosts_c[] = {{"c", &host_c}, {NULL, NULL}};
static const tl_host_codegen_hook *const hooks_ab[] = {&hook_a, &hook_b, NULL};
static const tl_host_codegen_hooks_entry hook_lists_vk[] = {{"vulkan", hooks_ab}, {NULL, NULL}};

static tl_backend_module manifest(const char *name, const char *model) {
  tl_backend_module m = {
    .struct_size = sizeof(tl_backend_module),
    .name = name,
    .target_kinds = kinds_vk,
    .pipelines = pipelines_vk,
    .device_codegens = devices_vk,
    .execution_backends = specs_src,
    .supports_target = model ? tlt_model_is : NULL,
    .predicate_data = (void *)model,
    .host_codegens = hosts_c,
    .host_codegen_hooks = hook_lists_vk,
  };
  return m;
}

static bool listed(const tl_backend_module *m) {
  const tl_backend_module *all[256];
  size_t n = tl_list_backends(all, 256);
  for (size_t i = 0; i < n && i < 256; i++)
    if (all[i] == m) return true;
  return false;
}

/* ------------------------------------------------------------- registration */

static void test_register_get_list(void **state) {
  (void)state;
  static tl_backend_module m;
  m = manifest("test_registry.basic", "basic");
  size_t before = tl_list_backends(NULL, 0);
  const tl_backend_module *out = NULL;
  TL_ASSERT_OK(tl_register_backend(&m, &out));
  assert_ptr_equal(out, &m);
  TL_ASSERT_OK(tl_get_backend("test_registry.basic", &out));
  assert_ptr_equal(out, &m);
  assert_int_equal(tl_list_backends(NULL, 0), before + 1);
  assert_true(listed(&m));

  /* Listing is a copy in registration order. */
  static tl_backend_module later;
  later = manifest("test_registry.later", "later");
  TL_ASSERT_OK(tl_register_backend(&later, NULL));
  size_t n = tl_list_backends(NULL, 0);
  const tl_backend_module **all = calloc(n, sizeof *all);
  assert_int_equal(tl_list_backends(all, n), n);
  assert_ptr_equal(all[n - 2], &m);
  assert_ptr_equal(all[n - 1], &later);
  free(all);
}

static void test_get_unknown(void **state) {
  (void)state;
  const tl_backend_module *out = (const tl_backend_module *)1;
  TL_ASSERT_ERR(tl_get_backend("test_registry.nope", &out), TL_ENOTFOUND, "Unknown backend 'test_registry.nope'. Available: ");
  assert_null(out);
  /* The available names are sorted (ours were registered "basic" then "later"). */
  const char *msg = tl_last_error();
  const char *basic = strstr(msg, "test_registry.basic"), *later = strstr(msg, "test_registry.later");
  assert_non_null(basic);
  assert_non_null(later);
  assert_true(basic < later);
  TL_ASSERT_ERR(tl_get_backend(NULL, &out), TL_EINVAL, NULL);
}

static void test_idempotent_and_conflicting(void **state) {
  (void)state;
  static tl_backend_module first, copy, different;
  first = manifest("test_registry.idem", "idem");
  TL_ASSERT_OK(tl_register_backend(&first, NULL));
  size_t n = tl_list_backends(NULL, 0);
  size_t published = tl__component_count(&tl__device_codegens, "vulkan");
  const tl_backend_module *out = NULL;
  /* The same pointer again, or an equal declaration: the registered one comes back. */
  TL_ASSERT_OK(tl_register_backend(&first, &out));
  assert_ptr_equal(out, &first);
  copy = manifest("test_registry.idem", "idem");
  TL_ASSERT_OK(tl_register_backend(&copy, &out));
  assert_ptr_equal(out, &first);
  assert_int_equal(tl_list_backends(NULL, 0), n);
  assert_int_equal(tl__component_count(&tl__device_codegens, "vulkan"), published);
  /* A different declaration under the same name fails and changes nothing. */
  different = manifest("test_registry.idem", "other");
  TL_ASSERT_ERR(tl_register_backend(&different, &out), TL_EEXIST, NULL);
  TL_ASSERT_MSG("Backend 'test_registry.idem' is already registered with a different declaration");
  assert_null(out);
  TL_ASSERT_OK(tl_get_backend("test_registry.idem", &out));
  assert_ptr_equal(out, &first);
  assert_int_equal(tl_list_backends(NULL, 0), n);
}

static void test_shared_kind_needs_predicates(void **state) {
  (void)state;
  static tl_backend_module owner, no_pred, with_pred;
  static const char *const kinds_nv[] = {"nvptx", NULL};
  static const tl_pass_pipeline nv_pipeline = {"nvptx", tlt_lower, NULL};
  static const tl_pipeline_entry pipelines_nv[] = {{"nvptx", &nv_pipeline}, {NULL, NULL}};
  static const tl_device_codegen_entry devices_nv[] = {{"nvptx", &vk_codegen}, {NULL, NULL}};
  owner = manifest("test_registry.nv_owner", NULL);
  owner.target_kinds = kinds_nv;
  owner.pipelines = pipelines_nv;
  owner.device_codegens = devices_nv;
  owner.host_codegen_hooks = NULL;
  TL_ASSERT_OK(tl_register_backend(&owner, NULL));
  /* The existing owner has no predicate: even a newcomer with one is refused. */
  with_pred = owner;
  with_pred.name = "test_registry.nv_with_pred";
  with_pred.supports_target = tlt_always;
  TL_ASSERT_ERR(tl_register_backend(&with_pred, NULL), TL_EINVAL, NULL);
  TL_ASSERT_MSG("Backends sharing target kind 'nvptx' must define supports_target predicates");
  assert_int_equal(tl_get_backend("test_registry.nv_with_pred", NULL), TL_ENOTFOUND);

  /* An owner with a predicate, a newcomer without one: refused too. */
  static tl_backend_module vk_owner;
  vk_owner = manifest("test_registry.shared_a", "shared_a");
  TL_ASSERT_OK(tl_register_backend(&vk_owner, NULL));
  no_pred = manifest("test_registry.shared_none", NULL);
  TL_ASSERT_ERR(tl_register_backend(&no_pred, NULL), TL_EINVAL, NULL);
  TL_ASSERT_MSG("Backends sharing target kind 'vulkan' must define supports_target predicates");
  assert_false(listed(&no_pred));
}

/* Two manifests sharing one pipeline object and one kind, told apart by their
 * predicates, as upstream's CUDA and CuTeDSL backends are (a key on the target). */
static bool lacks_key(const tl_target *t, void *key) { return !tl_target_has_key(t, key); }

static void test_two_manifests_one_kind(void **state) {
  (void)state;
  static tl_backend_module plain, variant;
  static const tl_device_codegen variant_codegen = {"vk_variant", {tlt_build, "variant"}, {NULL, NULL}, NULL, NULL};
  static const tl_device_codegen_entry devices_variant[] = {{"vulkan", &variant_codegen}, {NULL, NULL}};
  static const tl_execution_backend_spec spec_variant = {"variant_exec", NULL, NULL, NULL, false, false, NULL};
  static const tl_execution_backend_spec *const specs_variant[] = {&spec_variant, NULL};
  plain = manifest("test_registry.plain", NULL);
  plain.supports_target = lacks_key;
  plain.predicate_data = (void *)"tlvariant";
  plain.host_codegen_hooks = NULL;
  variant = manifest("test_registry.variant", NULL);
  variant.supports_target = tlt_has_key;
  variant.predicate_data = (void *)"tlvariant";
  variant.device_codegens = devices_variant;
  variant.execution_backends = specs_variant;
  variant.host_codegen_hooks = NULL;
  assert_ptr_equal(plain.pipelines, variant.pipelines); /* one pipeline object */
  TL_ASSERT_OK(tl_register_backend(&plain, NULL));
  TL_ASSERT_OK(tl_register_backend(&variant, NULL));

  tl_backend_context *ctx = NULL;
  /* Both own vulkan; the other test manifests' predicates want a "model". */
  TL_ASSERT_OK(tl_create_backend_context("vulkan", NULL, NULL, &ctx));
  assert_string_equal(tl_backend_context_name(ctx), "test_registry.plain");
  tl_backend_context_release(ctx);
  TL_ASSERT_OK(tl_create_backend_context("{\"kind\":\"vulkan\",\"keys\":[\"tlvariant\",\"vulkan\",\"gpu\"]}", NULL, NULL, &ctx));
  assert_string_equal(tl_backend_context_name(ctx), "test_registry.variant");
  assert_string_equal(tl_backend_context_execution_backend(ctx)->name, "variant_exec");
  /* The pipeline object is shared; the codegen follows the manifest. */
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_backend_context_codegen_device(ctx, NULL, 1, &a));
  assert_string_equal(tl_artifact_format(a), "variant");
  tl_artifact_release(a);
  tl_backend_context_release(ctx);

  /* The device codegen registry resolves each through its manifest's guard. */
  tl_target *t = tlt_target("{\"kind\":\"vulkan\",\"keys\":[\"tlvariant\",\"vulkan\",\"gpu\"]}");
  const tl_device_codegen *c = NULL;
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_ptr_equal(c, &variant_codegen);
  tl_target_release(t);
  t = tlt_target("vulkan");
  TL_ASSERT_OK(tl_resolve_device_codegen(t, &c));
  assert_ptr_equal(c, &vk_codegen);
  tl_target_release(t);
}

/* ------------------------------------------------- publication and callbacks */

static void test_publication(void **state) {
  (void)state;
  static tl_backend_module m;
  static const tl_device_codegen pub_codegen = {"pub", {tlt_build, "pub"}, {NULL, NULL}, NULL, NULL};
  static const tl_device_codegen_entry devices_pub[] = {{"vulkan", &pub_codegen}, {NULL, NULL}};
  static const tl_host_codegen_entry hosts_pub[] = {{"c", &host_c}, {"nvptx", &host_picky}, {NULL, NULL}};
  m = manifest("test_registry.pub", "pub");
  m.device_codegens = devices_pub;
  m.host_codegens = hosts_pub;
  size_t host_c_entries = tl__component_count(&tl__host_codegens, "c");
  TL_ASSERT_OK(tl_register_backend(&m, NULL));
  /* Device codegens: guarded by the manifest's predicate. */
  tl_target *mine = tlt_target("{\"kind\":\"vulkan\",\"model\":\"pub\"}");
  tl_target *other = tlt_target("{\"kind\":\"vulkan\",\"model\":\"someone-else\"}");
  const char *names[16];
  size_t n = tl_allowed_device_codegens_for_target(mine, names, 16);
  bool found = false;
  for (size_t i = 0; i < n; i++) found |= strcmp(names[i], "pub") == 0;
  assert_true(found);
  n = tl_allowed_device_codegens_for_target(other, names, 16);
  for (size_t i = 0; i < n; i++) assert_string_not_equal(names[i], "pub");
  /* Host codegens: the same object under "c" is shared by every manifest. */
  assert_int_equal(tl__component_count(&tl__host_codegens, "c"), host_c_entries);
  const tl_host_codegen *hc = NULL;
  tl_target *c = tlt_target("c");
  /* (The built-in cpu backend's host codegen for "c" comes first.) */
  tl__component_matches all;
  TL_ASSERT_OK(tl__component_matching(&tl__host_codegens, c, &all));
  bool listed = false;
  for (size_t i = 0; i < all.len; i++) listed |= all.items[i] == (const void *)&host_c;
  tl__component_matches_free(&all);
  assert_true(listed);
  tl_target *h = tlt_target("{\"kind\":\"nvptx\",\"model\":\"picky-host\"}");
  TL_ASSERT_OK(tl_resolve_host_codegen(h, &hc));
  assert_ptr_equal(hc, &host_picky);
  /* Hooks: guarded by the manifest's predicate, and by their own. */
  tlt_trace *tr = tlt_hook_trace();
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, c, other));
  assert_string_equal(tr->text, ""); /* no manifest owning this target declared hooks */
  tl_target *with_b = tlt_target("{\"kind\":\"vulkan\",\"model\":\"pub\",\"keys\":[\"with_b\",\"vulkan\"]}");
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, c, with_b));
  assert_string_equal(tr->text, "a(c,vulkan) b(c,vulkan)");
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_apply_host_codegen_hooks(NULL, c, mine));
  assert_string_equal(tr->text, "a(c,vulkan)");
  tl_target_release(mine);
  tl_target_release(other);
  tl_target_release(with_b);
  tl_target_release(c);
  tl_target_release(h);
}

static void test_callbacks_become_global_funcs(void **state) {
  (void)state;
  static tl_backend_module m;
  static const tl_callback_entry callbacks[] = {
    {"test_registry.callback", tlt_echo, "from the manifest"},
    {"test_registry.preexisting", tlt_echo, "overridden"},
    {NULL, NULL, NULL},
  };
  TL_ASSERT_OK(tl_register_global_func("test_registry.preexisting", tlt_echo, "original", false));
  m = manifest("test_registry.callbacks", "callbacks");
  m.callbacks = callbacks;
  TL_ASSERT_OK(tl_register_backend(&m, NULL));
  tl_value ret;
  TL_ASSERT_OK(tl_call_global_func("test_registry.callback", NULL, 0, &ret));
  assert_string_equal(ret.v.s, "from the manifest");
  tl_value_clear(&ret);
  TL_ASSERT_OK(tl_call_global_func("test_registry.preexisting", NULL, 0, &ret));
  assert_string_equal(ret.v.s, "overridden");
  tl_value_clear(&ret);
}

/* ------------------------------------------------------------------ rollback */

typedef struct registry_state {
  size_t backends, funcs, dev_vk, dev_nv, host_c, host_nv, hooks_vk, hooks_nv;
  tl_packed_fn pre_fn;
  void *pre_ud;
} registry_state;

static void snapshot(registry_state *s) {
  s->backends = tl_list_backends(NULL, 0);
  s->funcs = tl_list_global_funcs(NULL, 0);
  s->dev_vk = tl__component_count(&tl__device_codegens, "vulkan");
  s->dev_nv = tl__component_count(&tl__device_codegens, "nvptx");
  s->host_c = tl__component_count(&tl__host_codegens, "c");
  s->host_nv = tl__component_count(&tl__host_codegens, "nvptx");
  s->hooks_vk = tl__component_count(&tl__host_codegen_hooks, "vulkan");
  s->hooks_nv = tl__component_count(&tl__host_codegen_hooks, "nvptx");
  TL_ASSERT_OK(tl_get_global_func("test_registry.oom.pre", &s->pre_fn, &s->pre_ud));
}

static tl_backend_module oom_manifest;

static tl_status oom_register(void *ctx) {
  (void)ctx;
  return tl_register_backend(&oom_manifest, NULL);
}

static void oom_unchanged(void *ctx) {
  registry_state *before = ctx, now;
  snapshot(&now);
  assert_memory_equal(before, &now, sizeof now);
  assert_int_equal(tl_get_backend("test_registry.oom", NULL), TL_ENOTFOUND);
  assert_int_equal(tl_get_global_func("test_registry.oom.cb", NULL, NULL), TL_ENOTFOUND);
  /* The kind index is as it was: vulkan still resolves the same way, and nvptx' owner list is unchanged. */
  const tl_backend_module *owners[8];
  size_t n;
  assert_int_equal(tl__backends_for_kind("rocm", owners, 8, &n), TL_ENOTFOUND);
  assert_true(strstr(tl_last_error(), "'rocm'") != NULL);
}

static void test_rollback_oom_sweep(void **state) {
  (void)state;
  /* A manifest that touches every registry: a new kind (rocm), a shared kind
   * (vulkan), device codegens, host codegens (shared and new), hook lists, callbacks
   * (one new, one overriding). */
  static const char *const kinds[] = {"vulkan", "rocm", NULL};
  static const tl_pass_pipeline rocm_pipeline = {"rocm", tlt_lower, NULL};
  static const tl_pipeline_entry pipelines[] = {{"vulkan", &vk_pipeline}, {"rocm", &rocm_pipeline}, {NULL, NULL}};
  static const tl_device_codegen oom_codegen = {"oom", {tlt_build, "oom"}, {NULL, NULL}, NULL, NULL};
  static const tl_device_codegen_entry devices[] = {{"vulkan", &oom_codegen}, {"rocm", &vk_codegen}, {NULL, NULL}};
  static const tl_host_codegen oom_host = {"oom_host", tlt_build, "oom-host", NULL, NULL};
  static const tl_host_codegen_entry hosts[] = {{"c", &host_c}, {"nvptx", &oom_host}, {NULL, NULL}};
  static const tl_host_codegen_hook *const hooks_b[] = {&hook_b, NULL};
  static const tl_host_codegen_hooks_entry hook_lists[] = {{"vulkan", hooks_ab}, {"rocm", hooks_b}, {NULL, NULL}};
  static const tl_callback_entry callbacks[] = {
    {"test_registry.oom.cb", tlt_echo, "new"}, {"test_registry.oom.pre", tlt_echo, "override"}, {NULL, NULL, NULL}};
  oom_manifest = manifest("test_registry.oom", "oom");
  oom_manifest.target_kinds = kinds;
  oom_manifest.pipelines = pipelines;
  oom_manifest.device_codegens = devices;
  oom_manifest.host_codegens = hosts;
  oom_manifest.host_codegen_hooks = hook_lists;
  oom_manifest.callbacks = callbacks;
  TL_ASSERT_OK(tl_register_global_func("test_registry.oom.pre", tlt_echo, "before", false));

  registry_state before;
  snapshot(&before);
  long sites = tl_oom_sweep(oom_register, oom_unchanged, &before);
  assert_true(sites >= 8);
  /* The successful run registered everything. */
  const tl_backend_module *out = NULL;
  TL_ASSERT_OK(tl_get_backend("test_registry.oom", &out));
  assert_ptr_equal(out, &oom_manifest);
  registry_state after;
  snapshot(&after);
  assert_int_equal(after.backends, before.backends + 1);
  assert_int_equal(after.funcs, before.funcs + 1);
  assert_int_equal(after.dev_vk, before.dev_vk + 1);
  assert_int_equal(after.host_nv, before.host_nv + 1);
  assert_int_equal(after.hooks_vk, before.hooks_vk + 2);
  assert_int_equal(after.hooks_nv, before.hooks_nv);
  assert_ptr_not_equal(after.pre_ud, before.pre_ud);
  const tl_backend_module *owners[8];
  size_t n;
  TL_ASSERT_OK(tl__backends_for_kind("rocm", owners, 8, &n));
  assert_int_equal(n, 1);
  assert_ptr_equal(owners[0], &oom_manifest);
}

/* ------------------------------------------------------------------- methods */

static void test_module_methods(void **state) {
  (void)state;
  static tl_backend_module m;
  static const tl_host_codegen_entry hosts[] = {{"c", &host_c}, {"llvm", &host_picky}, {NULL, NULL}};
  m = manifest("test_registry.methods", "methods");
  m.host_codegens = hosts;
  tl_target *t = tlt_target("{\"kind\":\"vulkan\",\"model\":\"methods\"}");
  tl_target *t_b = tlt_target("{\"kind\":\"vulkan\",\"model\":\"methods\",\"keys\":[\"with_b\",\"vulkan\"]}");
  tl_target *wrong_model = tlt_target("{\"kind\":\"vulkan\",\"model\":\"nope\"}");
  tl_target *wrong_kind = tlt_target("{\"kind\":\"nvptx\",\"model\":\"methods\"}");
  tl_target *host = tlt_target("c");
  tl_target *llvm = tlt_target("llvm");
  tl_target *picky_llvm = tlt_target("{\"kind\":\"llvm\",\"model\":\"picky-host\"}");
  assert_true(tl_backend_module_matches(&m, t));
  assert_false(tl_backend_module_matches(&m, wrong_model));
  assert_false(tl_backend_module_matches(&m, wrong_kind));
  assert_false(tl_backend_module_matches(NULL, t));

  const tl_pass_pipeline *p = NULL;
  TL_ASSERT_OK(tl_backend_module_get_pipeline(&m, t, &p));
  assert_ptr_equal(p, &vk_pipeline);
  int calls = atomic_load(&vk_calls.n);
  TL_ASSERT_ERR(tl_backend_module_lower(&m, NULL, t), TL_EINVAL, "module must not be NULL");
  assert_int_equal(atomic_load(&vk_calls.n), calls); /* refused before the pipeline runs */
  tl_ir_module *mod = NULL;
  TL_ASSERT_OK(tl_ir_module_create(&mod));
  TL_ASSERT_OK(tl_backend_module_lower(&m, mod, t));
  assert_int_equal(atomic_load(&vk_calls.n), calls + 1);
  assert_string_equal(vk_calls.last, "vulkan");

  char expected[512];
  snprintf(expected, sizeof expected, "Backend 'test_registry.methods' does not match target %s", tl_target_str(wrong_model));
  TL_ASSERT_ERR(tl_backend_module_get_pipeline(&m, wrong_model, &p), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);
  assert_null(p);
  TL_ASSERT_ERR(tl_backend_module_lower(&m, mod, wrong_model), TL_EINVAL, "does not match target");
  snprintf(expected, sizeof expected, "Backend 'test_registry.methods' does not match target %s", tl_target_str(wrong_kind));
  const tl_device_codegen *dc = NULL;
  TL_ASSERT_ERR(tl_backend_module_get_device_codegen(&m, wrong_kind, &dc), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);

  TL_ASSERT_OK(tl_backend_module_get_device_codegen(&m, t, &dc));
  assert_ptr_equal(dc, &vk_codegen);
  tl_artifact *a = NULL;
  TL_ASSERT_OK(tl_backend_module_codegen_device(&m, mod, t, true, &a));
  assert_string_equal(tl_artifact_format(a), "spirv");
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_backend_module_codegen_device(&m, mod, t, false, &a));
  assert_string_equal(tl_artifact_format(a), "spirv-text");
  tl_artifact_release(a);

  const tl_host_codegen *hc = NULL;
  TL_ASSERT_OK(tl_backend_module_get_host_codegen(&m, host, &hc));
  assert_ptr_equal(hc, &host_c);
  TL_ASSERT_OK(tl_backend_module_codegen_host(&m, mod, host, &a));
  assert_string_equal(tl_artifact_format(a), "c-host");
  tl_artifact_release(a);
  TL_ASSERT_OK(tl_backend_module_get_host_codegen(&m, picky_llvm, &hc));
  assert_ptr_equal(hc, &host_picky);
  /* The llvm host codegen's own predicate refuses a plain llvm host. */
  snprintf(expected, sizeof expected, "Backend 'test_registry.methods' has no host codegen matching target %s",
           tl_target_str(llvm));
  TL_ASSERT_ERR(tl_backend_module_get_host_codegen(&m, llvm, &hc), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);
  snprintf(expected, sizeof expected, "Backend 'test_registry.methods' has no host codegen matching target %s",
           tl_target_str(t));
  TL_ASSERT_ERR(tl_backend_module_codegen_host(&m, mod, t, &a), TL_EINVAL, NULL);
  TL_ASSERT_MSG(expected);

  /* Hooks of the target's kind, in order, each subject to its own predicate. */
  tlt_trace *tr = tlt_hook_trace();
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_backend_module_preprocess_host_codegen(&m, mod, host, t));
  assert_string_equal(tr->text, "a(c,vulkan)");
  tr->text[0] = '\0';
  TL_ASSERT_OK(tl_backend_module_preprocess_host_codegen(&m, mod, host, t_b));
  assert_string_equal(tr->text, "a(c,vulkan) b(c,vulkan)");
  TL_ASSERT_ERR(tl_backend_module_preprocess_host_codegen(&m, mod, host, wrong_model), TL_EINVAL,
                "does not match target");

  tl_ir_module_free(mod);
  tl_target_release(t);
  tl_target_release(t_b);
  tl_target_release(wrong_model);
  tl_target_release(wrong_kind);
  tl_target_release(host);
  tl_target_release(llvm);
  tl_target_release(picky_llvm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_register_get_list),
    cmocka_unit_test(test_get_unknown),
    cmocka_unit_test(test_idempotent_and_conflicting),
    cmocka_unit_test(test_shared_kind_needs_predicates),
    cmocka_unit_test(test_two_manifests_one_kind),
    cmocka_unit_test(test_publication),
    cmocka_unit_test(test_callbacks_become_global_funcs),
    cmocka_unit_test(test_rollback_oom_sweep),
    cmocka_unit_test(test_module_methods),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
