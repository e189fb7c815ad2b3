/* The rocm backend, assembled in one place: target kind `hip`, pipeline `hip` (the
 * shared GPU passes with HIP's wavefront: 64 lanes on gfx9, 32 on gfx10 and later),
 * device codegen `hip` (HIP C++ source; compiling it needs ROCm, which nothing here
 * drives), and the execution backend `source`: HIP source until a HIP runtime can
 * be tested. */
#include "backends/rocm/backend.h"

#include "backends/rocm/pipeline.h"
#include "tilelang/backend.h"

static const tl_device_codegen k_device_hip = {
  .name = "hip",
  .build = {NULL, NULL}, /* no HIP compiler is driven */
  .build_without_compile = TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT("target.build.tilelang_hip_without_compile"),
};

/*                                        name      available predicate user host code device compile reason */
static const tl_execution_backend_spec k_source = {"source", NULL, NULL, NULL, false, false, NULL};

static const char *const k_kinds[] = {"hip", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"hip", &tl__hip_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_device_codegens[] = {{"hip", &k_device_hip}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_execution_backends[] = {&k_source, NULL};

static const tl_backend_module k_rocm = {
  .struct_size = sizeof(tl_backend_module),
  .name = "rocm",
  .target_kinds = k_kinds,
  .pipelines = k_pipelines,
  .device_codegens = k_device_codegens,
  .execution_backends = k_execution_backends,
};

tl_status tl__rocm_backend_init(void) { return tl_register_backend(&k_rocm, NULL); }
