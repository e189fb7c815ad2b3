/* The `cuda` pipeline: the shared GPU passes with CUDA's parameters. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/pipeline.h"
#include "backends/gpu_pipeline.h"
#include "tilelang/target.h"

int tl__cuda_arch_cc(const char *arch) {
  if (!arch || strncmp(arch, "sm_", 3) != 0) return 0;
  char *end;
  long cc = strtol(arch + 3, &end, 10);
  return end == arch + 3 || cc < 0 || cc > 1000 ? 0 : (int)cc;
}

int64_t tl__cuda_max_shared_bytes(const char *arch) {
  if (!arch || strncmp(arch, "sm_", 3) != 0) return 48 * 1024;
  char *end;
  long cc = strtol(arch + 3, &end, 10);
  if (end == arch + 3) return 48 * 1024;
  /* The opt-in maximum per block (CUDA programming guide, compute capabilities). */
  switch (cc) {
  case 70:
  case 72: return 96 * 1024;
  case 75: return 64 * 1024;
  case 80:
  case 87: return 163 * 1024;
  case 86:
  case 89:
  case 120:
  case 121: return 99 * 1024;
  case 90:
  case 100:
  case 101:
  case 103:
  case 110: return 227 * 1024;
  default: return 48 * 1024;
  }
}

void tl__cuda_gpu_params(const tl_target *target, tl__gpu_params *out) {
  const char *arch = NULL;
  if (target) tl_target_attr_str(target, "arch", &arch);
  tl__gpu_params d = {32, 1024, tl__cuda_max_shared_bytes(arch), 48 * 1024, 16, "cuda_driver", 0, false};
  if (tl__cuda_arch_cc(arch) >= 80) d.mma |= TL__GPU_MMA_M16N8K16; /* mma.sync.m16n8k16 f16/bf16 */
  d.cp_async = tl__cuda_arch_cc(arch) >= 80;                        /* cp.async */
  tl__gpu_params_from_target(target, &d, out);
}

static tl_status lower_cuda(tl_ir_module *mod, const tl_target *target, void *user_data) {
  (void)user_data;
  tl__gpu_params p;
  tl__cuda_gpu_params(target, &p);
  return tl__gpu_lower(mod, target, &p);
}

const tl_pass_pipeline tl__cuda_pipeline = {"cuda", lower_cuda, NULL};
