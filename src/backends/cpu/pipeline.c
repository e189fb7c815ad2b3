/* The `c` pipeline: what upstream's CPU lowering does, pass by pass, for
 * block-level tile programs run on host cores. */
#include "backends/cpu/pipeline.h"
#include "backends/cpu/tile_budget.h"
#include "base/error.h"
#include "transform/pass.h"

static const tl__pass k_c_passes[] = {
    {"cpu_tile_budget", tl__pass_cpu_tile_budget},   /* tiles live on the stack: a limit */
    {"simplify", tl__pass_simplify},
    {"lower_gemm_cpu", tl__pass_lower_gemm_cpu},     /* T.gemm on tiles -> T.gemm_strided */
    {"lower_tile_ops", tl__pass_lower_tile_ops},     /* T.copy, other T.gemm, ... -> loops */
    {"lower_views", tl__pass_lower_views},           /* T.reshape / T.view -> their source */
    {"lower_kernel_cpu", tl__pass_lower_kernel_cpu}, /* blocks -> one parallel loop */
    {"flatten", tl__pass_flatten},                   /* local arrays -> one dimension */
    {"simplify", tl__pass_simplify},
    {"split_host_device", tl__pass_split_host_device}, /* host entry + device kernels */
    {"widen_index_cpu", tl__pass_widen_index_cpu},     /* a + b indices in 64 bits where exact */
    {"make_packed_api", tl__pass_make_packed_api},     /* argument checks, symbolic dims */
};

static tl_status lower_c(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)user_data;
  TL__TRY(tl__run_passes(mod, target, k_c_passes, sizeof k_c_passes / sizeof k_c_passes[0]));
  /* Device functions are compiled with the host code and called directly. */
  return tl_ir_module_set_attr_str(mod, "tl.launch_convention", "call");
}

const tl_pass_pipeline tl__cpu_pipeline = {"c", lower_c, NULL};
