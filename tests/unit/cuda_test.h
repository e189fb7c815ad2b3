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
#include "cuda_cases.h"
#include "gpu_test.h"
#include "runtime/nvrtc_lib.h"

/* The target the CUDA tests compile for (the H200 the device tests run on). */
#define CUDA_TEST_TARGET "{\"kind\":\"cuda\",\"arch\":\"sm_90a\"}"

/* Parses an example with its constants (fails the test on error). */
static inline tl_ir_module *cuda_parse_example(const cuda_example *ex) {
  tl_ir_module *m = NULL;
  if (cuda_parse_example_file(TL_SOURCE_DIR, ex, &m) != TL_OK) fail_msg("%s: %s", ex->file, tl_last_error());
  return m;
}

/* Parses a focused case (fails the test on error). */
static inline tl_ir_module *cuda_parse_case(const cuda_case *c) {
  tl_ir_module *m = NULL;
  if (tl_ir_parse(c->src, "k.py", NULL, &m) != TL_OK) fail_msg("%s: %s", c->name, tl_last_error());
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
