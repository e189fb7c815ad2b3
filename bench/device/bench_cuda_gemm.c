/* GEMM: C = A @ B, float16 data, float32 accumulation, M = N = K = 4096
 * (bench/device/kernels/gemm.py, 128 x 128 x 32 tiles, 128 threads: ldmatrix +
 * mma.sync on sm_80 and later), through nvrtc: GPU time from events, TFLOP/s = 2 M N K / t.
 * A sample of C's elements is checked against a double-precision dot product, so
 * the number is of a kernel that computes the product. tests/device/bench.sh
 * puts torch's (cuBLAS, tensor cores) beside it.
 *
 *   bench_cuda_gemm [size]     (default 4096) */
#include <math.h>

#include "base/fp16.h"
#include "cuda_bench.h"

int main(int argc, char **argv) {
  int size = argc > 1 ? atoi(argv[1]) : 4096;
  if (size < 128 || size > 16384 || size % 128) return 2;
  cb_open();
  char s[32];
  snprintf(s, sizeof s, "%d", size);
  tl_ir_const_binding b[] = {{"M", s}, {"N", s}, {"K", s}};
  tl_ir_module *m = cb_parse("gemm.py", b, 3);
  tl_kernel *k = cb_compile(m, "nvrtc");
  size_t n = (size_t)size * (size_t)size;
  uint16_t *ha = malloc(n * 2), *hb = malloc(n * 2), *hc = malloc(n * 2);
  uint64_t seed = 12345;
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    ha[i] = tl__f64_to_f16((double)(int)((seed >> 40) % 2001 - 1000) / 1000.0);
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    hb[i] = tl__f64_to_f16((double)(int)((seed >> 40) % 2001 - 1000) / 1000.0);
  }
  cb_tensor A, B, C;
  cb_alloc(&A, kDLFloat, 16, 2, size, size);
  cb_alloc(&B, kDLFloat, 16, 2, size, size);
  cb_alloc(&C, kDLFloat, 16, 2, size, size);
  cb_check(cb_cu->cuMemcpyHtoD(A.ptr, ha, n * 2), "cuMemcpyHtoD");
  cb_check(cb_cu->cuMemcpyHtoD(B.ptr, hb, n * 2), "cuMemcpyHtoD");
  tl_value args[3] = {cb_value(&A), cb_value(&B), cb_value(&C)};
  double ms = cb_time_kernel_ms(k, args, 3, 7, 3);
  double tflops = 2.0 * size * (double)size * size / (ms * 1e-3) / 1e12;
  cb_check(cb_cu->cuMemcpyDtoH(hc, C.ptr, n * 2), "cuMemcpyDtoH");
  /* 64 sampled elements against a double dot product (float16 output: 1e-2 relative) */
  int bad = 0;
  for (int t = 0; t < 64; t++) {
    size_t i = (size_t)(t * 7919) % (size_t)size, j = (size_t)(t * 104729) % (size_t)size;
    double ref = 0;
    for (int kk = 0; kk < size; kk++) ref += tl__f16_to_f64(ha[i * size + kk]) * tl__f16_to_f64(hb[(size_t)kk * size + j]);
    double got = tl__f16_to_f64(hc[i * size + j]);
    if (fabs(got - ref) > 1e-2 * (1 + fabs(ref))) {
      if (bad++ < 3) printf("  C[%zu, %zu] = %g, expected %g\n", i, j, got, ref);
    }
  }
  printf("gemm float16 %dx%dx%d (float32 accumulation), nvrtc: %.3f ms, %.2f TFLOP/s; %s\n", size, size, size, ms,
         tflops, bad ? "WRONG RESULTS" : "64 sampled elements correct");
  cb_result("gemm.tflops", tflops, "TFLOP/s");
  cb_result("gemm.ms", ms, "ms");
  free(ha);
  free(hb);
  free(hc);
  cb_free(&A);
  cb_free(&B);
  cb_free(&C);
  tl_kernel_release(k);
  tl_ir_module_free(m);
  return bad ? 1 : 0;
}
