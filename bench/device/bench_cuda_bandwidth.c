/* Memory bandwidth of generated kernels (bench/device/kernels: copy, vector_add,
 * row_sum; float32, 1 to 3 GiB moved per call) through the nvrtc execution
 * backend: GPU time per call from events (median of rounds of several calls),
 * bytes read plus bytes written per second. tests/device/bench.sh puts torch's
 * numbers for the same operations and sizes beside them (bench_torch.py).
 *
 *   bench_cuda_bandwidth [log2 of the elements]     (default 28: 1 GiB of float32) */
#include "cuda_bench.h"

static void report(const char *name, double ms, double bytes) {
  double gbs = bytes / (ms * 1e-3) / 1e9;
  printf("  %-11s %9.3f ms  %8.1f GB/s  (%.2f GB moved)\n", name, ms, gbs, bytes / 1e9);
  char key[64];
  snprintf(key, sizeof key, "bandwidth.%s", name);
  cb_result(key, gbs, "GB/s");
}

int main(int argc, char **argv) {
  int lg = argc > 1 ? atoi(argv[1]) : 28;
  if (lg < 16 || lg > 29) return 2; /* int32 indices: at most 2^29 elements */
  cb_open();
  int64_t n = (int64_t)1 << lg;
  char nbuf[32], mbuf[32];
  snprintf(nbuf, sizeof nbuf, "%lld", (long long)n);
  printf("float32, %lld elements (%.2f GiB a tensor), nvrtc:\n", (long long)n, (double)n * 4 / (1 << 30));

  tl_ir_const_binding b1[] = {{"N", nbuf}};
  tl_ir_module *copy = cb_parse("copy.py", b1, 1);
  tl_kernel *k = cb_compile(copy, "nvrtc");
  cb_tensor a, b, c;
  cb_alloc(&a, kDLFloat, 32, 1, n, 0);
  cb_alloc(&b, kDLFloat, 32, 1, n, 0);
  cb_alloc(&c, kDLFloat, 32, 1, n, 0);
  tl_value args2[2] = {cb_value(&a), cb_value(&b)};
  report("copy", cb_time_kernel_ms(k, args2, 2, 15, 5), 2.0 * 4 * (double)n);
  tl_kernel_release(k);
  tl_ir_module_free(copy);

  tl_ir_module *add = cb_parse("vector_add.py", b1, 1);
  k = cb_compile(add, "nvrtc");
  tl_value args3[3] = {cb_value(&a), cb_value(&b), cb_value(&c)};
  report("vector_add", cb_time_kernel_ms(k, args3, 3, 15, 5), 3.0 * 4 * (double)n);
  tl_kernel_release(k);
  tl_ir_module_free(add);

  /* row_sum: M rows of 4096 */
  int64_t m = n / 4096;
  snprintf(mbuf, sizeof mbuf, "%lld", (long long)m);
  tl_ir_const_binding b2[] = {{"M", mbuf}, {"N", "4096"}};
  tl_ir_module *rs = cb_parse("row_sum.py", b2, 2);
  k = cb_compile(rs, "nvrtc");
  a.t.ndim = 2;
  a.shape[0] = m;
  a.shape[1] = 4096;
  c.shape[0] = m;
  tl_value argsr[2] = {cb_value(&a), cb_value(&c)};
  report("row_sum", cb_time_kernel_ms(k, argsr, 2, 15, 5), 4.0 * (double)n + 4.0 * (double)m);
  tl_kernel_release(k);
  tl_ir_module_free(rs);
  cb_free(&a);
  cb_free(&b);
  cb_free(&c);
  return 0;
}
