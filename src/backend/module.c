/* BackendModule's methods (upstream module.py): component lookup by the target's
 * kind once the manifest is known to own the target. */
#include <string.h>

#include "backend/codegen_registries.h"
#include "backend/manifest.h"
#include "backend/message.h"
#include "backend/registry.h"
#include "base/error.h"

bool tl_backend_module_matches(const tl_backend_module *m, const tl_target *target) {
  if (!m || !target) return false;
  if (!tl__manifest_owns_kind(m, tl_target_kind(target))) return false;
  return m->supports_target ? m->supports_target(target, m->predicate_data) : true;
}

tl_status tl__module_require_target(const tl_backend_module *m, const tl_target *target) {
  if (!m) return tl__error(TL_EINVAL, "backend manifest must not be NULL");
  if (!target) return tl__error(TL_EINVAL, "target must not be NULL");
  if (tl_backend_module_matches(m, target)) return TL_OK;
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, "Backend ");
  tl__sb_repr(&sb, m->name);
  tl__sb_append(&sb, " does not match target ");
  tl__sb_target(&sb, target);
  return tl__sb_error(TL_EINVAL, &sb);
}

tl_status tl_pass_pipeline_lower(const tl_pass_pipeline *p, tl_ir_module *mod, const tl_target *target) {
  if (!p) return tl__error(TL_EINVAL, "pass pipeline must not be NULL");
  if (!p->lower) return tl__error(TL_EINVAL, "pass pipeline '%s' has no lower function", p->name ? p->name : "");
  if (!mod) return tl__error(TL_EINVAL, "module must not be NULL");
  return p->lower(mod, target, p->user_data);
}

tl_status tl_backend_module_get_pipeline(const tl_backend_module *m, const tl_target *target,
                                         const tl_pass_pipeline **out) {
  if (out) *out = NULL;
  TL__TRY(tl__module_require_target(m, target));
  if (out) *out = tl__manifest_pipeline(m, tl_target_kind(target));
  return TL_OK;
}

tl_status tl_backend_module_lower(const tl_backend_module *m, tl_ir_module *mod, const tl_target *target) {
  const tl_pass_pipeline *p;
  TL__TRY(tl_backend_module_get_pipeline(m, target, &p));
  return tl_pass_pipeline_lower(p, mod, target);
}

tl_status tl_backend_module_get_device_codegen(const tl_backend_module *m, const tl_target *target,
                                               const tl_device_codegen **out) {
  if (out) *out = NULL;
  TL__TRY(tl__module_require_target(m, target));
  if (out) *out = tl__manifest_device_codegen(m, tl_target_kind(target));
  return TL_OK;
}

tl_status tl_backend_module_codegen_device(const tl_backend_module *m, tl_ir_module *mod, const tl_target *target,
                                           bool compile_device, tl_artifact **out) {
  if (out) *out = NULL;
  const tl_device_codegen *c;
  TL__TRY(tl_backend_module_get_device_codegen(m, target, &c));
  return tl_device_codegen_lower(c, mod, target, compile_device, out);
}

tl_status tl_backend_module_get_host_codegen(const tl_backend_module *m, const tl_target *target_host,
                                             const tl_host_codegen **out) {
  if (out) *out = NULL;
  if (!m) return tl__error(TL_EINVAL, "backend manifest must not be NULL");
  if (!target_host) return tl__error(TL_EINVAL, "target host must not be NULL");
  const tl_host_codegen *c = tl__manifest_host_codegen(m, tl_target_kind(target_host));
  if (!c || !tl_host_codegen_matches(c, target_host)) {
    tl__sb sb = TL__SB_INIT;
    tl__sb_append(&sb, "Backend ");
    tl__sb_repr(&sb, m->name);
    tl__sb_append(&sb, " has no host codegen matching target ");
    tl__sb_target(&sb, target_host);
    return tl__sb_error(TL_EINVAL, &sb);
  }
  if (out) *out = c;
  return TL_OK;
}

tl_status tl_backend_module_codegen_host(const tl_backend_module *m, tl_ir_module *mod, const tl_target *target_host,
                                         tl_artifact **out) {
  if (out) *out = NULL;
  const tl_host_codegen *c;
  TL__TRY(tl_backend_module_get_host_codegen(m, target_host, &c));
  return tl_host_codegen_lower(c, mod, target_host, out);
}

tl_status tl_backend_module_preprocess_host_codegen(const tl_backend_module *m, tl_ir_module *mod,
                                                    const tl_target *target_host, const tl_target *target) {
  TL__TRY(tl__module_require_target(m, target));
  const tl_host_codegen_hook *const *hooks = tl__manifest_hooks(m, tl_target_kind(target));
  for (size_t i = 0; hooks && hooks[i]; i++) {
    if (!tl_host_codegen_hook_matches(hooks[i], target)) continue;
    TL__TRY(tl_host_codegen_hook_lower(hooks[i], mod, target_host, target));
  }
  return TL_OK;
}
