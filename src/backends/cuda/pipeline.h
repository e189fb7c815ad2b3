/* The cuda backend's pass pipeline (docs/lowering.md, "GPU pipeline"). */
#ifndef TL_BACKENDS_CUDA_PIPELINE_H
#define TL_BACKENDS_CUDA_PIPELINE_H

#include "tilelang/plugin.h"
#include "transform/gpu/gpu.h"

/* Pipeline "cuda": the shared GPU pass list with CUDA's parameters; sets the
 * module attribute tl.launch_convention = "cuda_driver". */
extern const tl_pass_pipeline tl__cuda_pipeline;

/* CUDA's parameters for a target: warp 32 (or thread_warp_size), 1024 threads
 * (or max_threads_per_block), 48 KB of static shared memory, and at most what the
 * arch lets a kernel opt into (sm_90: 227 KB; unknown arch: 48 KB; a larger
 * max_shared_memory_per_block wins), 16-byte vectors, and from sm_80 on the
 * tensor cores' mma.sync.m16n8k16 (TL__GPU_MMA_M16N8K16). */
void tl__cuda_gpu_params(const tl_target *target, tl__gpu_params *out);

/* The compute capability of `arch` as a number ("sm_90a": 90), 0 if unknown. */
int tl__cuda_arch_cc(const char *arch);

/* The most shared memory a block may use on `arch` ("sm_90a"), static and dynamic
 * together; 48 KB for an unknown or missing arch. */
int64_t tl__cuda_max_shared_bytes(const char *arch);

#endif
