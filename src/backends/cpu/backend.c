/* The cpu backend, assembled in one place: target kind `c`, pipeline `c`, device
 * codegen `c` (C source without compilation, as upstream's C target: the execution
 * backend compiles it), host codegen `c`, and the execution backends native (the
 * system C compiler), tcc (libtcc in memory) and source (writes the code), in that
 * 'auto' order. */
#include "backends/cpu/backend.h"

#include "backends/cpu/pipeline.h"
#include "codegen/codegen.h"
#include "runtime/exec_impls.h"
#include "tilelang/backend.h"

static bool native_available(void *user_data) {
  (void)user_data;
  return tl__native_available(); /* examined once per process */
}
static const char *native_reason(void *user_data) {
  (void)user_data;
  return tl__native_unavailable_reason();
}
static bool tcc_available(void *user_data) {
  (void)user_data;
  return tl__tcc_available();
}
static const char *tcc_reason(void *user_data) {
  (void)user_data;
  return tl__tcc_unavailable_reason();
}

static const tl_device_codegen k_device_c = {
  .name = "c",
  .build = {NULL, NULL}, /* compiling is the execution backend's job */
  .build_without_compile = TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT("target.build.tilelang_c"),
};

/*                                        name      available         predicate user host code device compile reason */
static const tl_execution_backend_spec k_native = {"native", native_available, NULL, NULL, true, false, native_reason};
static const tl_execution_backend_spec k_tcc = {"tcc", tcc_available, NULL, NULL, true, false, tcc_reason};
static const tl_execution_backend_spec k_source = {"source", NULL, NULL, NULL, true, false, NULL};

static const char *const k_kinds[] = {"c", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"c", &tl__cpu_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_device_codegens[] = {{"c", &k_device_c}, {NULL, NULL}};
static const tl_host_codegen_entry k_host_codegens[] = {{"c", &tl__c_host_codegen_desc}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_execution_backends[] = {&k_native, &k_tcc, &k_source, NULL};

static const tl_backend_module k_cpu = {
  .struct_size = sizeof(tl_backend_module),
  .name = "cpu",
  .target_kinds = k_kinds,
  .pipelines = k_pipelines,
  .device_codegens = k_device_codegens,
  .execution_backends = k_execution_backends,
  .host_codegens = k_host_codegens,
};

tl_status tl__cpu_backend_init(void) { return tl_register_backend(&k_cpu, NULL); }
