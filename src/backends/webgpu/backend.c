/* The webgpu backend, assembled in one place: target kind `webgpu`, pipeline
 * `webgpu` (the shared GPU passes), device codegen `webgpu` (a WGSL module), and the
 * execution backend `source` (no WebGPU runtime is driven). */
#include "backends/webgpu/backend.h"

#include "backends/gpu_pipeline.h"
#include "tilelang/backend.h"

static tl_status lower_webgpu(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)user_data;
  /* WebGPU's default limits: maxComputeInvocationsPerWorkgroup 256,
   * maxComputeWorkgroupStorageSize 16384. */
  tl__gpu_params d = {1, 256, 16 * 1024, 16 * 1024, 16, "webgpu", 0, false}, p;
  tl__gpu_params_from_target(target, &d, &p);
  return tl__gpu_lower(mod, target, &p);
}

const tl_pass_pipeline tl__webgpu_pipeline = {"webgpu", lower_webgpu, NULL};

static const tl_device_codegen k_device_webgpu = {
  .name = "webgpu",
  .build = {NULL, NULL},
  .build_without_compile = TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT("target.build.tilelang_webgpu_without_compile"),
};

static const tl_execution_backend_spec k_source = {"source", NULL, NULL, NULL, false, false, NULL};

static const char *const k_kinds[] = {"webgpu", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"webgpu", &tl__webgpu_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_device_codegens[] = {{"webgpu", &k_device_webgpu}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_execution_backends[] = {&k_source, NULL};

static const tl_backend_module k_webgpu = {
  .struct_size = sizeof(tl_backend_module),
  .name = "webgpu",
  .target_kinds = k_kinds,
  .pipelines = k_pipelines,
  .device_codegens = k_device_codegens,
  .execution_backends = k_execution_backends,
};

tl_status tl__webgpu_backend_init(void) { return tl_register_backend(&k_webgpu, NULL); }
