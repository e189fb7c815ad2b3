/* The opencl backend as a plugin: a complete backend declared through
 * tilelang/plugin.h alone, the worked example of docs/writing-a-backend.md.
 *
 *   manifest  opencl: kind `opencl`, pipeline `opencl`, device codegen `opencl`,
 *             execution backends `opencl` (PoCL's CPU device in CI, any OpenCL 1.2
 *             device elsewhere) and `source`, in that 'auto' order
 *   pipeline  the library's shared GPU pass list (host->gpu_lower), the same one
 *             CUDA's pipeline runs, with OpenCL's parameters: no warp shuffles
 *             (warp size 1: reductions through __local memory), the target's
 *             threads and local memory per work-group, all of it static
 *   codegen   OpenCL C 1.2 through the library's C-family printer with this
 *             plugin's plain-data dialect (dialect.c, host->c_device_artifact)
 *   runtime   runtime.c, registered as the execution backend implementation
 *             `opencl` (host->register_exec_impl)
 *
 * The library registers it lazily: tl_register_lazy_device_codegen("opencl",
 * ".../libtilelang-opencl.so"), so the first use of kind `opencl` loads it. */
#include <string.h>

#include "opencl.h"

TL_PLUGIN_ABI_VERSION_SYMBOL();

const tl_plugin_host *tlp_host;

/* ---------------------------------------------------------------- pipeline */

static tl_status lower_opencl(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)user_data;
  const tl_gpu_lower_params params = {
    .struct_size = sizeof(tl_gpu_lower_params),
    .warp_size = 1,                 /* no sub-group shuffles in OpenCL 1.2 */
    .max_threads = 256,             /* the target's max_threads_per_block wins */
    .max_shared_bytes = 16 * 1024,  /* a larger max_shared_memory_per_block wins */
    .static_shared_bytes = INT64_MAX, /* __local arrays have fixed sizes: never dynamic */
    .vector_bytes = 16,
    .launch_convention = "opencl",
  };
  return tlp_host->gpu_lower(mod, target, &params);
}

static const tl_pass_pipeline k_pipeline = {"opencl", lower_opencl, NULL};

/* ----------------------------------------------------------------- codegen */

static tl_status codegen_opencl(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out) {
  (void)target, (void)user_data;
  return tlp_host->c_device_artifact(mod, &tlp_opencl_dialect, "opencl", out);
}

static const tl_device_codegen k_device = {
  .name = "opencl",
  .build = {NULL, NULL}, /* the execution backend builds the program for its device */
  .build_without_compile = {codegen_opencl, NULL},
};

/* ---------------------------------------------------------------- manifest */

static bool opencl_available(void *user_data) {
  (void)user_data;
  return tlp_opencl_available();
}

static const char *opencl_reason(void *user_data) {
  (void)user_data;
  return tlp_opencl_unavailable_reason();
}

/*                                        name      available         predicate user host code device compile reason */
static const tl_execution_backend_spec k_opencl = {"opencl", opencl_available, NULL, NULL, false, false, opencl_reason};
static const tl_execution_backend_spec k_source = {"source", NULL, NULL, NULL, false, false, NULL};

static const char *const k_kinds[] = {"opencl", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"opencl", &k_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_device_codegens[] = {{"opencl", &k_device}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_execution_backends[] = {&k_opencl, &k_source, NULL};

static const tl_backend_module k_manifest = {
  .struct_size = sizeof(tl_backend_module),
  .name = "opencl",
  .target_kinds = k_kinds,
  .pipelines = k_pipelines,
  .device_codegens = k_device_codegens,
  .execution_backends = k_execution_backends,
};

/* ---------------------------------------------------------------------- init */

TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host);

TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host) {
  /* The services of ABI 1.1 (lowering, code generation, runtimes) are needed. */
  if (!TL_PLUGIN_HOST_HAS(host, read_file))
    return host->set_error(TL_EUNAVAILABLE, "the opencl plugin needs plugin ABI 1.1 services (a newer library)");
  tlp_host = host;
  tl_status s = host->register_exec_impl(&tlp_opencl_exec);
  if (s == TL_OK) s = tlp_opencl_register_funcs();
  if (s == TL_OK) s = host->register_backend(&k_manifest, NULL);
  return s;
}
