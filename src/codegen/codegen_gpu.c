/* Device codegens `hip`, `metal` and `webgpu`: source without compilation (no HIP,
 * Metal or WebGPU runtime is driven here; their execution backend is `source`),
 * each artifact carrying the host entry's kernel table (their global functions:
 * codegen_globals.c). */
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
