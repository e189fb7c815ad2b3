/* The `hip` pipeline: the shared GPU passes with HIP's parameters. Lowering is the
 * same as CUDA's except for the numbers (a wavefront of 64 lanes on gfx9, the LDS
 * size), so this is the reused pass list, not a branch on the kind. */
#include "backends/rocm/pipeline.h"

#include "backends/gpu_pipeline.h"
#include "backends/rocm/target.h"
#include "tilelang/target.h"

void tl__hip_gpu_params(const tl_target *target, tl__gpu_params *out) {
  int64_t warp = 64;
  const char *mcpu = NULL;
  if (target && tl_target_attr_str(target, "mcpu", &mcpu) && tl__rocm_warp_size(mcpu) > 0)
    warp = tl__rocm_warp_size(mcpu);
  tl__gpu_params d = {warp, 1024, 64 * 1024, 64 * 1024, 16, "hip_module", 0, false};
  tl__gpu_params_from_target(target, &d, out); /* thread_warp_size etc. of the target win */
}

static tl_status lower_hip(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)user_data;
  tl__gpu_params p;
  tl__hip_gpu_params(target, &p);
  return tl__gpu_lower(mod, target, &p);
}

const tl_pass_pipeline tl__hip_pipeline = {"hip", lower_hip, NULL};
