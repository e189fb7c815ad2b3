/* Helpers for the CUDA tests: the examples with their parameterizations, lowering
 * them for a CUDA target, CUDA source, NVRTC compilation with ptxas' resource
 * report, and the host launcher of the nvcc path. */
#ifndef TL_CUDA_TEST_H
#define TL_CUDA_TEST_H

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"
#include "codegen/codegen.h"
#include "gpu_test.h"
#include "runtime/nvrtc_lib.h"

/* The target the CUDA tests compile for (the H200 the device tests run on). */
#define CUDA_TEST_TARGET "{\"kind\":\"cuda\",\"arch\":\"sm_90a\"}"

/* One example with constants bound (a parameterization). */
typedef struct cuda_example {
  const char *file;
  const char *label; /* names the parameterization in goldens */
  tl_ir_const_binding consts[5];
  size_t nconsts;
} cuda_example;

/* Every example at its defaults, and other parameterizations: tiles that do not
 * divide, float16 and bfloat16 data, wide rows (dynamic shared memory would come
 * from bigger tiles), and a larger GEMM tile. */
static const cuda_example k_cuda_examples[] = {
    {"vector_add.py", "default", {{0}}, 0},
    {"elementwise_add.py", "default", {{0}}, 0},
    {"elementwise_add.py", "float16", {{"M", "7"}, {"N", "9"}, {"in_dtype", "\"float16\""}, {"out_dtype", "\"float16\""}}, 4},
    {"elementwise_add.py", "bfloat16_in", {{"in_dtype", "\"bfloat16\""}}, 1},
    {"transpose.py", "default", {{0}}, 0},
    {"gemm.py", "default_float16", {{0}}, 0},
    {"gemm.py", "float32_odd", {{"M", "33"}, {"N", "17"}, {"K", "5"}, {"dtype", "\"float32\""}}, 4},
    {"gemm.py", "float16_64x64", {{"M", "256"}, {"N", "256"}, {"K", "128"}, {"block_M", "64"}, {"block_N", "64"}}, 5},
    {"row_sum.py", "default", {{0}}, 0},
    {"row_max.py", "default", {{0}}, 0},
    {"softmax.py", "default", {{0}}, 0},
    {"softmax.py", "float16", {{"M", "32"}, {"N", "256"}, {"dtype", "\"float16\""}}, 3},
    {"cumsum.py", "default", {{0}}, 0},
    {"cumsum.py", "reverse", {{"reverse", "True"}}, 1},
    {"rms_norm.py", "default", {{0}}, 0},
};
#define CUDA_NEXAMPLES (sizeof k_cuda_examples / sizeof k_cuda_examples[0])

/* Parses an example with its constants (fails the test on error). */
static inline tl_ir_module *cuda_parse_example(const cuda_example *ex) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, ex->file);
  tl_ir_parse_options opts = {sizeof opts, ex->consts, ex->nconsts};
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, &opts, &m) != TL_OK) fail_msg("%s: %s", ex->file, tl_last_error());
  return m;
}

/* A clone of m lowered for the CUDA test target (fails the test on error). */
static inline tl_ir_module *cuda_lowered(const tl_ir_module *m, const char *spec) {
  tl_ir_module *low = NULL;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  if (gpu_lower(low, spec ? spec : CUDA_TEST_TARGET) != TL_OK) fail_msg("lowering for cuda failed: %s", tl_last_error());
  return low;
}

/* CUDA source of a lowered module (tl__free it). */
static inline char *cuda_source(const tl_ir_module *low) {
  char *src = NULL;
  if (tl__cuda_device_source(low, &src) != TL_OK) fail_msg("CUDA codegen failed: %s", tl_last_error());
  return src;
}

/* The NVRTC of this machine, or NULL (the reason is then printed once). */
static inline const tl__nvrtc *cuda_test_nvrtc(void) {
  const tl__nvrtc *n = NULL;
  if (tl__nvrtc_get(&n) != TL_OK) return NULL;
  return n;
}

/* Compiles src with NVRTC as the nvrtc execution backend does, plus the ptxas
 * resource report; *log gets NVRTC's log (tl__free it). */
static inline tl_status cuda_nvrtc_compile(const tl__nvrtc *n, const char *src, const char *name, char **log) {
  char inc[600];
  snprintf(inc, sizeof inc, "-I%s", n->include);
  const char *opts[] = {"--gpu-architecture=sm_90a", "--fmad=false", "-default-device", "-std=c++17",
                        "--ptxas-options=-v", inc};
  tl__nvrtc_result r;
  tl_status s = tl__nvrtc_compile(n, src, name, opts, n->include[0] ? 6 : 5, &r);
  *log = r.log;
  r.log = NULL;
  tl__nvrtc_result_free(&r);
  return s;
}

#endif
