/* The rocm backend's pass pipeline (docs/lowering.md, "The GPU pipeline"). */
#ifndef TL_BACKENDS_ROCM_PIPELINE_H
#define TL_BACKENDS_ROCM_PIPELINE_H

#include "tilelang/plugin.h"
#include "transform/gpu/gpu.h"

/* Pipeline "hip": the shared GPU pass list (the one cuda runs) with HIP's
 * parameters; launch convention "hip_module". */
extern const tl_pass_pipeline tl__hip_pipeline;

/* HIP's parameters for a target: the wavefront from thread_warp_size (the hip
 * normalizer sets it from a gfx mcpu), else from mcpu (64 on gfx9, 32 on gfx10 and
 * later), else 64; 1024 threads per block; 64 KB of LDS per workgroup, all static
 * (no dynamic shared memory is needed below the limit); 16-byte vectors. */
void tl__hip_gpu_params(const tl_target *target, tl__gpu_params *out);

#endif
