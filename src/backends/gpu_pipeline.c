/* The shared GPU pass list (gpu_pipeline.h). */
#include "backends/gpu_pipeline.h"
#include "base/error.h"

const tl__pass tl__gpu_passes[] = {
    {"simplify", tl__pass_simplify},
    {"gpu_software_pipeline", tl__pass_gpu_software_pipeline},           /* T.Pipelined's stages (cp.async) */
    {"lower_elementwise_tile_ops", tl__pass_lower_elementwise_tile_ops}, /* T.copy, T.fill, ... -> T.Parallel */
    {"gpu_lower_views", tl__pass_gpu_lower_views},                       /* T.reshape / T.view -> their source */
    {"gpu_insert_barriers", tl__pass_gpu_insert_barriers},               /* between block-level steps */
    {"gpu_pad_shared", tl__pass_gpu_pad_shared},                         /* tensor-core operand rows */
    {"gpu_lower_simt", tl__pass_gpu_lower_simt},                         /* threads, layouts, tile ops */
    {"flatten", tl__pass_flatten},
    {"simplify", tl__pass_simplify},
    {"gpu_check_sync", tl__pass_gpu_check_sync},                 /* barriers and shuffles where all arrive */
    {"gpu_plan_shared_memory", tl__pass_gpu_plan_shared_memory}, /* static or dynamic, limits */
    {"split_host_device", tl__pass_split_host_device},           /* host entry + kernels, launches */
    {"gpu_vectorize", tl__pass_gpu_vectorize},                   /* 16-byte loads and stores */
    {"gpu_async_copy", tl__pass_gpu_async_copy},                 /* the stages' copies as cp.async */
    {"simplify", tl__pass_simplify},
    {"make_packed_api", tl__pass_make_packed_api},               /* argument checks, alignment */
    {"gpu_annotate_kernels", tl__pass_gpu_annotate_kernels},     /* "target" of kernels, launch convention */
};

const size_t tl__gpu_num_passes = sizeof tl__gpu_passes / sizeof tl__gpu_passes[0];

tl_status tl__gpu_lower(tl_ir_module *mod, const tl_target *target, const tl__gpu_params *params) {
  if (!params) return tl__error(TL_EINVAL, "tl__gpu_lower: no parameters");
  const tl__gpu_params *prev = tl__gpu_params_enter(params);
  tl_status st = tl__run_passes(mod, target, tl__gpu_passes, tl__gpu_num_passes);
  tl__gpu_params_exit(prev);
  return st;
}
