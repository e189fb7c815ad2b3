/* DeviceCodegen and the device codegen registry (upstream device_codegen.py). */
#include "backend/codegen_registries.h"
#include "backend/registry.h"

#include "base/error.h"
#include "base/init.h"

static bool device_matches(const void *c, const tl_target *target) {
  return tl_device_codegen_matches(c, target);
}

tl__component_registry tl__device_codegens =
  TL__COMPONENT_REGISTRY_INIT("Device codegen", "device codegen registered for target", device_matches);

tl_status tl__check_device_codegen(const tl_device_codegen *c) {
  if (!c) return tl__error(TL_EINVAL, "device codegen must not be NULL");
  if (!c->name || !*c->name) return tl__error(TL_EINVAL, "device codegen name must not be empty");
  return TL_OK;
}

tl_status tl__codegen_via_global_func(const char *name, tl_ir_module *mod, const tl_target *target,
                                      tl_artifact **out) {
  if (!out) return tl__error(TL_EINVAL, "out must not be NULL");
  *out = NULL;
  if (!name) return tl__error(TL_EINVAL, "codegen global function name must not be NULL");
  tl_value args[2] = {tl_value_module(mod), tl_value_target(target)};
  tl_value ret = {TL_VALUE_NONE, 0, {.i = 0}};
  TL__TRY(tl_call_global_func(name, args, 2, &ret));
  if (ret.kind != TL_VALUE_ARTIFACT || !ret.v.artifact) {
    tl_value_clear(&ret);
    return tl__error(TL_EINTERNAL, "Global function '%s' did not return an artifact", name);
  }
  *out = ret.v.artifact; /* the reference moves to the caller */
  return TL_OK;
}

tl_status tl_device_codegen_via_global_func(tl_ir_module *mod, const tl_target *target, void *name,
                                            tl_artifact **out) {
  return tl__codegen_via_global_func(name, mod, target, out);
}

bool tl_device_codegen_matches(const tl_device_codegen *c, const tl_target *target) {
  if (!c || !target) return false;
  return c->supports_target ? c->supports_target(target, c->predicate_data) : true;
}

tl_status tl_device_codegen_lower(const tl_device_codegen *c, tl_ir_module *mod, const tl_target *target,
                                  bool compile_device, tl_artifact **out) {
  if (!out) return tl__error(TL_EINVAL, "out must not be NULL");
  *out = NULL;
  TL__TRY(tl__check_device_codegen(c));
  if (!target) return tl__error(TL_EINVAL, "target must not be NULL");
  const tl_device_codegen_call *call = compile_device ? &c->build : &c->build_without_compile;
  if (!call->fn)
    return tl__error(TL_EUNSUPPORTED, "Device codegen '%s' for target '%s' does not support lowering %s", c->name,
                     tl_target_kind(target), compile_device ? "with compilation" : "without compilation");
  tl_artifact *a = NULL;
  tl_status s = call->fn(mod, target, call->user_data, &a);
  if (s != TL_OK) {
    tl_artifact_release(a);
    return s;
  }
  if (!a) return tl__error(TL_EINTERNAL, "Device codegen '%s' returned no artifact", c->name);
  *out = a;
  return TL_OK;
}

tl_status tl_register_device_codegen(const char *target_kind, const tl_device_codegen *codegen, bool override) {
  TL__TRY(tl__ensure_builtins());
  TL__TRY(tl__check_device_codegen(codegen));
  return tl__component_register(&tl__device_codegens, target_kind, codegen, codegen->name, override);
}

tl_status tl_register_lazy_device_codegen(const char *target_kind, const char *import_path) {
  TL__TRY(tl__ensure_builtins());
  TL__TRY(tl__component_set_lazy(&tl__device_codegens, target_kind, import_path));
  tl__backend_registry_changed(); /* its import may register a backend */
  return TL_OK;
}

size_t tl_allowed_device_codegens_for_target(const tl_target *target, const char **names, size_t cap) {
  if (tl__ensure_builtins() != TL_OK) return 0;
  return tl__component_allowed(&tl__device_codegens, target, names, cap);
}

tl_status tl_resolve_device_codegen(const tl_target *target, const tl_device_codegen **out) {
  TL__TRY(tl__ensure_builtins());
  const void *c = NULL;
  tl_status s = tl__component_resolve(&tl__device_codegens, target, &c);
  if (out) *out = c;
  return s;
}
