/* The metal backend, assembled in one place: target kind `metal`, pipeline `metal`
 * (the shared GPU passes), device codegen `metal` (Metal Shading Language source;
 * no Metal compiler exists on Linux), the host codegen hook `metal_context`, and the
 * execution backend `source`.
 *
 * The hook runs where host code generation runs (tl_backend_context_preprocess_
 * host_codegen); `source` generates no host code, so it matters for a Metal
 * runtime backend added later, and to anyone preparing host code themselves. */
#include "backends/metal/backend.h"

#include "backends/gpu_pipeline.h"
#include "base/error.h"
#include "tilelang/backend.h"

static tl_status lower_metal(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)user_data;
  /* Apple GPUs: 32-lane SIMD groups (the kind's default thread_warp_size is 16,
   * which simd_shuffle_xor serves as well), 32 KB of threadgroup memory. */
  tl__gpu_params d = {32, 256, 32 * 1024, 32 * 1024, 16, "metal", 0, false}, p;
  tl__gpu_params_from_target(target, &d, &p);
  return tl__gpu_lower(mod, target, &p);
}

const tl_pass_pipeline tl__metal_pipeline = {"metal", lower_metal, NULL};

/* True if the statement launches a device kernel. */
static bool launch_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  bool *found = v->ctx;
  if (s->kind == TL_STMT_LAUNCH) *found = true;
  return !*found;
}

static tl_status mark_metal_context(tl_ir_module *mod, const tl_target *target_host, const tl_target *target,
                                    void *user_data) {
  (void)target_host, (void)target, (void)user_data;
  if (!mod) return tl__error(TL_EINVAL, "metal_context: module must not be NULL");
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_PACKED || !f->body) continue;
    bool launches = false;
    tl_ir_visitor v = {NULL, launch_stmt, &launches};
    tl_ir_visit_stmt(&v, f->body);
    if (launches) TL__TRY(tl_ir_func_set_attr_int(mod, f, "tl.metal_context", 1));
  }
  return TL_OK;
}

const tl_host_codegen_hook tl__metal_context_hook = {"metal_context", mark_metal_context, NULL, NULL, NULL};

static const tl_device_codegen k_device_metal = {
  .name = "metal",
  .build = {NULL, NULL}, /* no Metal compiler on this platform */
  .build_without_compile = TL_GLOBAL_FUNC_DEVICE_CODEGEN_INIT("target.build.tilelang_metal_without_compile"),
};

static const tl_execution_backend_spec k_source = {"source", NULL, NULL, NULL, false, false, NULL};

static const char *const k_kinds[] = {"metal", NULL};
static const tl_pipeline_entry k_pipelines[] = {{"metal", &tl__metal_pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry k_device_codegens[] = {{"metal", &k_device_metal}, {NULL, NULL}};
static const tl_host_codegen_hook *const k_hooks[] = {&tl__metal_context_hook, NULL};
static const tl_host_codegen_hooks_entry k_hook_entries[] = {{"metal", k_hooks}, {NULL, NULL}};
static const tl_execution_backend_spec *const k_execution_backends[] = {&k_source, NULL};

static const tl_backend_module k_metal = {
  .struct_size = sizeof(tl_backend_module),
  .name = "metal",
  .target_kinds = k_kinds,
  .pipelines = k_pipelines,
  .device_codegens = k_device_codegens,
  .execution_backends = k_execution_backends,
  .host_codegen_hooks = k_hook_entries,
};

tl_status tl__metal_backend_init(void) { return tl_register_backend(&k_metal, NULL); }
