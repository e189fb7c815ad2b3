/* The global functions of the library's code generators, one row each: the name a
 * manifest's TL_GLOBAL_FUNC_DEVICE_CODEGEN / _HOST_CODEGEN names, and the code
 * generator's own (module, target) -> artifact function, in the file of that code
 * generator. A new code generator is a new row. */
#include "base/error.h"
#include "codegen/codegen.h"
#include "codegen/gpu_dialects.h"

typedef tl_status (*codegen_fn)(const tl_ir_module *mod, const tl_target *target, tl_artifact **out);

typedef struct codegen_global {
  const char *name;
  codegen_fn build;
} codegen_global;

static const codegen_global k_codegen_globals[] = {
  {"target.build.tilelang_c", tl__c_device_codegen},                                /* codegen_c.c */
  {"target.build.tilelang_c_host", tl__c_host_codegen},                             /* host_c.c */
  {"target.build.tilelang_cuda", tl__cuda_device_build},                            /* codegen_cuda.c */
  {"target.build.tilelang_cuda_without_compile", tl__cuda_device_build_without_compile},
  {"target.build.tilelang_hip_without_compile", tl__hip_device_codegen},            /* codegen_gpu.c */
  {"target.build.tilelang_metal_without_compile", tl__metal_device_codegen},
  {"target.build.tilelang_webgpu_without_compile", tl__wgsl_device_codegen},
};

/* (module, target) -> artifact, as TL_GLOBAL_FUNC_DEVICE_CODEGEN expects; user_data
 * is the row. */
static tl_status call_codegen(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  const codegen_global *row = user_data;
  if (nargs != 2 || args[0].kind != TL_VALUE_IR_MODULE || args[1].kind != TL_VALUE_TARGET || !args[0].v.mod)
    return tl__error(TL_EINVAL, "%s takes (module, target)", row->name);
  tl_artifact *a = NULL;
  TL__TRY(row->build(args[0].v.mod, args[1].v.target, &a));
  *ret = tl_value_artifact(a);
  return TL_OK;
}

tl_status tl__codegen_register_builtins(void) {
  for (size_t i = 0; i < sizeof k_codegen_globals / sizeof k_codegen_globals[0]; i++)
    TL__TRY(tl_register_global_func(k_codegen_globals[i].name, call_codegen, (void *)&k_codegen_globals[i], true));
  return TL_OK;
}
