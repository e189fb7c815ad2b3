/* The cuda backend, assembled in one place: target kind `cuda`, pipeline `cuda`
 * (the shared GPU passes with CUDA's parameters), device codegen `cuda` (a cubin
 * through the compile callback, or CUDA source), host codegen `c` (entries with the
 * cuda_driver launch emitter), the callbacks tilelang_callback_cuda_compile and
 * tilelang_callback_cuda_validate, and the execution backends nvrtc (NVRTC and the
 * kernel table), nvcc (a cubin and a compiled C launcher) and source (writes the
 * code), in that 'auto' order. As upstream, it does not own CUDA targets carrying
 * the key `cutedsl` (those belong to a CuTeDSL backend). */
#include "backends/cuda/backend.h"

#include "backends/cuda/compile.h"
#include "backends/cuda/pipeline.h"
#include "codegen/codegen.h"
#include "runtime/exec_impls.h"
#include "runtime/nvcc_tool.h"
#include "runtime/nvrtc_lib.h"
#include "tilelang/backend.h"

static bool not_cutedsl(const tl_target *target, void *user_data) {
  (void)user_data;
  return !tl_target_has_key(target, "cutedsl");
}

static bool nvrtc_available(void *user_data) {
  (void)user_data;
  return tl__nvrtc_available(); /* searched once per process */
}
static const char *nvrtc_reason(void *user_data) {
  (void)user_data;
  return tl__nvrtc_unavailable_reason();
}

/* nvcc compiles the device code, the C compiler the launcher: both are needed. */
static bool nvcc_available(void *user_data) {
  (void)user_data;
  return tl__nvcc_available() && tl__native_available();
}
static const char *nvcc_reason(void *user_data) {
  (void)user_data;
  const char *why = tl__nvcc_unavailable_reason();
  return why ? why : tl__native_unavailable_reason();
}

static const tl_device_codegen k_device_cuda = {
  .name = "cuda",
  .build = TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT("target.build.tilelang_cuda"),
  .build_without_compile = TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT("target.build.tilelang_cuda_without_compile"),
};

/*                                        name      available        predicate user host code device compile reason */
static const tl_execution_backend_spec k_nvrtc = {"nvrtc", nvrtc_available, NULL, NULL, false, false, nvrtc_reason};
static const tl_execution_backend_spec k_nvcc = {"nvcc", nvcc_available, NULL, NULL, true, true, nvcc_reason};
static const tl_execution_backend_spec k_source = {"source", NULL, NULL, NULL, true, false, NULL};

static const char *const k_kinds[] = {"cuda", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"cuda", &tl__cuda_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_device_codegens[] = {{"cuda", &k_device_cuda}, {NULL, NULL}};
static const tl_host_codegen_entry k_host_codegens[] = {{"c", &tl__c_host_codegen_desc}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_execution_backends[] = {&k_nvrtc, &k_nvcc, &k_source, NULL};
static const tl_callback_entry k_callbacks[] = {
  {"tilelang_callback_cuda_compile", tl__cuda_callback_compile, NULL},
  {"tilelang_callback_cuda_validate", tl__cuda_callback_validate, NULL},
  {NULL, NULL, NULL},
};

static const tl_backend_module k_cuda = {
  .struct_size = sizeof(tl_backend_module),
  .name = "cuda",
  .target_kinds = k_kinds,
  .pipelines = k_pipelines,
  .device_codegens = k_device_codegens,
  .execution_backends = k_execution_backends,
  .supports_target = not_cutedsl,
  .host_codegens = k_host_codegens,
  .callbacks = k_callbacks,
};

tl_status tl__cuda_backend_init(void) { return tl_register_backend(&k_cuda, NULL); }
