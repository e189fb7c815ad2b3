/* Device codegens `hip`, `metal` and `webgpu`: source without compilation (no HIP,
 * Metal or WebGPU runtime is driven here; their execution backend is `source`),
 * each artifact carrying the host entry's kernel table, and the global functions
 * the manifests name. */
#include "base/error.h"
#include "codegen/c_dialect.h"
#include "codegen/gpu_dialects.h"
#include "codegen/wgsl.h"

tl_status tl__hip_device_codegen(const tl_ir_module *mod, const tl_target *target, tl_artifact **out) {
  (void)target; /* the warp size was fixed by lowering (the kernels' "target" attribute) */
  return tl__c_plain_device_artifact(&tl__c_dialect_hip, mod, "hip", out);
}

tl_status tl__metal_device_codegen(const tl_ir_module *mod, const tl_target *target, tl_artifact **out) {
  (void)target;
  return tl__c_plain_device_artifact(&tl__c_dialect_metal, mod, "metal", out);
}

tl_status tl__wgsl_device_codegen(const tl_ir_module *mod, const tl_target *target, tl_artifact **out) {
  (void)target;
  return tl__wgsl_device_artifact(mod, out);
}

typedef tl_status (*codegen_fn)(const tl_ir_module *, const tl_target *, tl_artifact **);

/* (module, target) -> artifact, as TL_GLOBAL_FUNC_DEVICE_CODEGEN expects. */
static tl_status call_codegen(const tl_value *args, int nargs, tl_value *ret, codegen_fn fn, const char *name) {
  if (nargs != 2 || args[0].kind != TL_VALUE_IR_MODULE || args[1].kind != TL_VALUE_TARGET || !args[0].v.mod)
    return tl__error(TL_EINVAL, "%s takes (module, target)", name);
  tl_artifact *a = NULL;
  TL__TRY(fn(args[0].v.mod, args[1].v.target, &a));
  *ret = tl_value_artifact(a);
  return TL_OK;
}

static tl_status build_hip(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  return call_codegen(args, nargs, ret, tl__hip_device_codegen, user_data);
}
static tl_status build_metal(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  return call_codegen(args, nargs, ret, tl__metal_device_codegen, user_data);
}
static tl_status build_wgsl(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  return call_codegen(args, nargs, ret, tl__wgsl_device_codegen, user_data);
}

tl_status tl__gpu_codegen_register_builtins(void) {
  static const struct {
    const char *name;
    tl_packed_fn fn;
  } k_funcs[] = {
    {"target.build.tilelang_hip_without_compile", build_hip},
    {"target.build.tilelang_metal_without_compile", build_metal},
    {"target.build.tilelang_webgpu_without_compile", build_wgsl},
  };
  for (size_t i = 0; i < sizeof k_funcs / sizeof k_funcs[0]; i++)
    TL__TRY(tl_register_global_func(k_funcs[i].name, k_funcs[i].fn, (void *)k_funcs[i].name, true));
  return TL_OK;
}
