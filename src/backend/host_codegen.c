/* HostCodegen, HostCodegenHook and their registries (upstream host_codegen.py). */
#include "backend/codegen_registries.h"

#include "base/error.h"
#include "base/init.h"

static bool host_matches(const void *c, const tl_target *target_host) {
  return tl_host_codegen_matches(c, target_host);
}
static bool hook_matches(const void *h, const tl_target *target) { return tl_host_codegen_hook_matches(h, target); }

tl__component_registry tl__host_codegens =
  TL__COMPONENT_REGISTRY_INIT("Host codegen", "host codegen registered for target host", host_matches);
tl__component_registry tl__host_codegen_hooks =
  TL__COMPONENT_REGISTRY_INIT("Host codegen hook", "host codegen hook registered for target", hook_matches);

tl_status tl__check_host_codegen(const tl_host_codegen *c) {
  if (!c) return tl__error(TL_EINVAL, "host codegen must not be NULL");
  if (!c->name || !*c->name) return tl__error(TL_EINVAL, "host codegen name must not be empty");
  if (!c->build) return tl__error(TL_EINVAL, "host codegen '%s' has no build function", c->name);
  return TL_OK;
}

tl_status tl__check_host_codegen_hook(const tl_host_codegen_hook *h) {
  if (!h) return tl__error(TL_EINVAL, "host codegen hook must not be NULL");
  if (!h->name || !*h->name) return tl__error(TL_EINVAL, "host codegen hook name must not be empty");
  if (!h->apply) return tl__error(TL_EINVAL, "host codegen hook '%s' has no apply function", h->name);
  return TL_OK;
}

tl_status tl_host_codegen_via_global_func(tl_ir_module *mod, const tl_target *target_host, void *name,
                                          tl_artifact **out) {
  return tl__codegen_via_global_func(name, mod, target_host, out);
}

bool tl_host_codegen_matches(const tl_host_codegen *c, const tl_target *target_host) {
  if (!c || !target_host) return false;
  return c->supports_target ? c->supports_target(target_host, c->predicate_data) : true;
}

tl_status tl_host_codegen_lower(const tl_host_codegen *c, tl_ir_module *mod, const tl_target *target_host,
                                tl_artifact **out) {
  if (!out) return tl__error(TL_EINVAL, "out must not be NULL");
  *out = NULL;
  TL__TRY(tl__check_host_codegen(c));
  if (!target_host) return tl__error(TL_EINVAL, "target host must not be NULL");
  tl_artifact *a = NULL;
  tl_status s = c->build(mod, target_host, c->user_data, &a);
  if (s != TL_OK) {
    tl_artifact_release(a);
    return s;
  }
  if (!a) return tl__error(TL_EINTERNAL, "Host codegen '%s' returned no artifact", c->name);
  *out = a;
  return TL_OK;
}

bool tl_host_codegen_hook_matches(const tl_host_codegen_hook *h, const tl_target *target) {
  if (!h || !target) return false;
  return h->supports_target ? h->supports_target(target, h->predicate_data) : true;
}

tl_status tl_host_codegen_hook_lower(const tl_host_codegen_hook *h, tl_ir_module *mod, const tl_target *target_host,
                                     const tl_target *target) {
  TL__TRY(tl__check_host_codegen_hook(h));
  return h->apply(mod, target_host, target, h->user_data);
}

tl_status tl_register_host_codegen(const char *target_host_kind, const tl_host_codegen *codegen, bool override) {
  TL__TRY(tl__ensure_builtins());
  TL__TRY(tl__check_host_codegen(codegen));
  return tl__component_register(&tl__host_codegens, target_host_kind, codegen, codegen->name, override);
}

tl_status tl_register_lazy_host_codegen(const char *target_host_kind, const char *import_path) {
  TL__TRY(tl__ensure_builtins());
  return tl__component_set_lazy(&tl__host_codegens, target_host_kind, import_path);
}

tl_status tl_register_host_codegen_hook(const char *target_kind, const tl_host_codegen_hook *hook, bool override) {
  TL__TRY(tl__ensure_builtins());
  TL__TRY(tl__check_host_codegen_hook(hook));
  return tl__component_register(&tl__host_codegen_hooks, target_kind, hook, hook->name, override);
}

tl_status tl_register_lazy_host_codegen_hooks(const char *target_kind, const char *import_path) {
  TL__TRY(tl__ensure_builtins());
  return tl__component_set_lazy(&tl__host_codegen_hooks, target_kind, import_path);
}

size_t tl_allowed_host_codegens_for_target(const tl_target *target_host, const char **names, size_t cap) {
  if (tl__ensure_builtins() != TL_OK) return 0;
  return tl__component_allowed(&tl__host_codegens, target_host, names, cap);
}

tl_status tl_apply_host_codegen_hooks(tl_ir_module *mod, const tl_target *target_host, const tl_target *target) {
  TL__TRY(tl__ensure_builtins());
  if (!target) return TL_OK; /* upstream: no device target, the module unchanged */
  tl__component_matches m;
  TL__TRY(tl__component_matching(&tl__host_codegen_hooks, target, &m));
  tl_status s = TL_OK;
  for (size_t i = 0; i < m.len && s == TL_OK; i++) s = tl_host_codegen_hook_lower(m.items[i], mod, target_host, target);
  tl__component_matches_free(&m);
  return s;
}

tl_status tl_resolve_host_codegen(const tl_target *target_host, const tl_host_codegen **out) {
  TL__TRY(tl__ensure_builtins());
  const void *c = NULL;
  tl_status s = tl__component_resolve(&tl__host_codegens, target_host, &c);
  if (out) *out = c;
  return s;
}
