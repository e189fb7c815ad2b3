/* The plugin host table's ABI 1.1 services (plugin.h): what an out-of-tree backend
 * needs beyond registration, so that a plugin compiled against plugin.h alone can
 * lower with the shared GPU passes, print code with the C-family printer in its own
 * dialect, launch from kernel tables and register an execution backend. They live
 * in the code generation, transform and runtime layers, so they are gathered here,
 * above all of them, and handed to the plugin loader while the built-ins are
 * registered (before any plugin can be imported through the registries). */
#include <stdarg.h>

#include "backend/plugin_loader.h"
#include "backends/gpu_pipeline.h"
#include "backends/plugin_services.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/files.h"
#include "codegen/c_dialect.h"
#include "runtime/exec_backend.h"
#include "tilelang/runtime.h"

static void *svc_alloc(size_t size) {
  void *p = tl__malloc(size ? size : 1);
  if (!p) tl__oom();
  return p;
}

static void svc_free(void *p) { tl__free(p); }

static tl_status svc_set_errorf(tl_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tl_status s = tl__verror(status, fmt ? fmt : "", ap);
  va_end(ap);
  return s;
}

/* The size of the first version of tl_gpu_lower_params (ABI 1.1). */
#define GPU_PARAMS_V1_SIZE \
  (offsetof(tl_gpu_lower_params, launch_convention) + sizeof(((tl_gpu_lower_params *)0)->launch_convention))

tl_status tl__plugin_gpu_lower(tl_ir_module *mod, const tl_target *target, const tl_gpu_lower_params *defaults) {
  if (!mod || !target || !defaults) return tl__error(TL_EINVAL, "gpu_lower: module, target and parameters are required");
  if (defaults->struct_size != 0 && defaults->struct_size < GPU_PARAMS_V1_SIZE)
    return tl__error(TL_EINVAL, "gpu_lower: parameters with struct_size %zu, smaller than the first version's (%zu)",
                     defaults->struct_size, (size_t)GPU_PARAMS_V1_SIZE);
  if (defaults->max_threads < 1 || defaults->max_shared_bytes < 0 || defaults->static_shared_bytes < 0 ||
      defaults->vector_bytes < 1)
    return tl__error(TL_EINVAL, "gpu_lower: max_threads and vector_bytes must be positive, shared memory sizes not "
                                "negative");
  tl__gpu_params d = {defaults->warp_size < 1 ? 1 : defaults->warp_size,
                      defaults->max_threads,
                      defaults->max_shared_bytes,
                      defaults->static_shared_bytes,
                      defaults->vector_bytes,
                      defaults->launch_convention,
                      0 /* plugins get no tensor-core lowering (its builtins print only in CUDA) */,
                      false /* nor cp.async pipelines (likewise) */};
  tl__gpu_params p;
  tl__gpu_params_from_target(target, &d, &p);
  return tl__gpu_lower(mod, target, &p);
}

static tl_status svc_module_kernel_table(const tl_ir_module *mod, tl_kernel_table **out) {
  if (!out) return tl__error(TL_EINVAL, "module_kernel_table: out must not be NULL");
  return tl__c_module_kernel_table(mod, out);
}

static tl_status svc_c_device_source(const tl_ir_module *mod, const tl_c_dialect *dialect, char **out) {
  if (!out) return tl__error(TL_EINVAL, "c_device_source: out must not be NULL");
  *out = NULL;
  if (!mod) return tl__error(TL_EINVAL, "c_device_source: module must not be NULL");
  return tl__c_plain_device_source(dialect, mod, out);
}

static tl_status svc_c_device_artifact(const tl_ir_module *mod, const tl_c_dialect *dialect, const char *format,
                                       tl_artifact **out) {
  if (!out) return tl__error(TL_EINVAL, "c_device_artifact: out must not be NULL");
  return tl__c_plain_device_artifact(dialect, mod, format, out);
}

static const tl_kernel_table *svc_artifact_kernel_table(const tl_artifact *a) { return tl_artifact_kernel_table(a); }

static tl_status svc_write_file(const char *path, const void *data, size_t size) {
  if (!path || (!data && size)) return tl__error(TL_EINVAL, "write_file: a path and data are required");
  return tl__file_write(path, data, size);
}

static tl_status svc_read_file(const char *path, char **data, size_t *size) {
  if (!path || !data) return tl__error(TL_EINVAL, "read_file: a path and an output are required");
  return tl__file_read(path, data, size);
}

static char *svc_path_join(const char *dir, const char *name) {
  if (!dir || !name) {
    tl__error(TL_EINVAL, "path_join: a directory and a name are required");
    return NULL;
  }
  char *p = tl__path_join(dir, name);
  if (!p) tl__oom();
  return p;
}

/* Only the fields from `alloc` on are taken (tl__plugin_host_extend). */
static const tl_plugin_host k_services = {
  .alloc = svc_alloc,
  .free = svc_free,
  .set_errorf = svc_set_errorf,
  .dtype_name = tl_dtype_name,
  .gpu_lower = tl__plugin_gpu_lower,
  .c_device_source = svc_c_device_source,
  .c_device_artifact = svc_c_device_artifact,
  .artifact_kernel_table = svc_artifact_kernel_table,
  .artifact_with_kernel_table = tl_artifact_with_kernel_table,
  .module_kernel_table = svc_module_kernel_table,
  .kernel_table_copy = tl_kernel_table_copy,
  .kernel_table_free = tl_kernel_table_free,
  .kernel_table_bind_args = tl_kernel_table_bind_args,
  .launch_expr_eval = tl_launch_expr_eval,
  .register_exec_impl = tl__register_plugin_exec_impl,
  .path_join = svc_path_join,
  .write_file = svc_write_file,
  .read_file = svc_read_file,
};

tl_status tl__plugin_services_init(void) {
  tl__plugin_host_extend(&k_services);
  return TL_OK;
}
