/* Launch overhead: host time per tl_kernel_call of an empty-bodied kernel
 * (bench/device/kernels/empty.py) through the nvrtc and nvcc execution backends,
 * against raw cuLaunchKernel of the same device function (the same generated CUDA
 * compiled by NVRTC and loaded here) in the same process. Each sample is the mean
 * host time of a batch of launches; the GPU is drained between batches so the
 * launch queue never fills; the median of the samples is reported.
 *
 *   bench_cuda_launch [batches] [launches per batch]     (default 400 x 100) */
#include "codegen/codegen.h"
#include "cuda_bench.h"
#include "runtime/nvrtc_lib.h"
#include "tilelang/backend.h"
#include "transform/pass.h"

/* The generated CUDA of the kernel, compiled by NVRTC as the nvrtc backend does. */
static tl__CUfunction raw_function(const tl_ir_module *m, tl__CUmodule *mod) {
  tl_backend_context *ctx = NULL;
  if (tl_create_backend_context(cb_target, NULL, "source", &ctx) != TL_OK) {
    fprintf(stderr, "context: %s\n", tl_last_error());
    exit(1);
  }
  tl_ir_module *work = NULL;
  tl_ir_module_clone(m, &work);
  tl_artifact *dev = NULL;
  if (tl__pass_semantic_check(work, tl_backend_context_target(ctx)) != TL_OK ||
      tl_backend_context_lower(ctx, work) != TL_OK || tl_backend_context_codegen_device(ctx, work, 0, &dev) != TL_OK) {
    fprintf(stderr, "lowering: %s\n", tl_last_error());
    exit(1);
  }
  const tl__nvrtc *n = NULL;
  if (tl__nvrtc_get(&n) != TL_OK) {
    fprintf(stderr, "%s\n", tl_last_error());
    exit(1);
  }
  char arch[64], inc[600];
  snprintf(arch, sizeof arch, "--gpu-architecture=%s", cb_arch);
  snprintf(inc, sizeof inc, "-I%s", n->include);
  const char *opts[] = {arch, "--fmad=false", "-default-device", "-std=c++17", inc};
  tl__nvrtc_result r;
  if (tl__nvrtc_compile(n, tl_artifact_source(dev), "empty.cu", opts, n->include[0] ? 5 : 4, &r) != TL_OK) {
    fprintf(stderr, "%s\n", tl_last_error());
    exit(1);
  }
  tl__CUfunction f;
  cb_check(cb_cu->cuModuleLoadData(mod, r.cubin), "cuModuleLoadData");
  cb_check(cb_cu->cuModuleGetFunction(&f, *mod, "empty_kernel"), "cuModuleGetFunction");
  tl__nvrtc_result_free(&r);
  tl_artifact_release(dev);
  tl_ir_module_free(work);
  tl_backend_context_release(ctx);
  return f;
}

/* Median host µs per launch of `launch` over batches. */
typedef struct launcher {
  tl_kernel *k;
  const tl_value *args;
  tl__CUfunction raw;
} launcher;

static void one(const launcher *l) {
  if (l->k) {
    if (tl_kernel_call(l->k, l->args, 1, NULL) != TL_OK) {
      fprintf(stderr, "tl_kernel_call: %s\n", tl_last_error());
      exit(1);
    }
  } else {
    cb_check(cb_cu->cuLaunchKernel(l->raw, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL), "cuLaunchKernel");
  }
}

static double per_launch_us(const launcher *l, int batches, int per_batch) {
  double *v = calloc((size_t)batches, sizeof *v);
  for (int i = 0; i < 50; i++) one(l); /* warm: module loaded, caches hot */
  cb_check(cb_cu->cuCtxSynchronize(), "cuCtxSynchronize");
  for (int b = 0; b < batches; b++) {
    double t0 = cb_now_us();
    for (int i = 0; i < per_batch; i++) one(l);
    v[b] = (cb_now_us() - t0) / per_batch;
    cb_check(cb_cu->cuCtxSynchronize(), "cuCtxSynchronize");
  }
  double m = cb_median(v, (size_t)batches);
  free(v);
  return m;
}

int main(int argc, char **argv) {
  int batches = argc > 1 ? atoi(argv[1]) : 400, per_batch = argc > 2 ? atoi(argv[2]) : 100;
  if (batches < 1 || batches > 100000 || per_batch < 1) return 2;
  cb_open();
  tl_ir_module *m = cb_parse("empty.py", NULL, 0);
  cb_tensor a;
  cb_alloc(&a, kDLFloat, 32, 1, 1, 0);
  tl_value args[1] = {cb_value(&a)};
  tl__CUmodule mod;
  launcher raw = {NULL, NULL, raw_function(m, &mod)};
  /* interleaved rounds so drift (clocks, other load) hits every variant alike */
  static const char *const execs[2] = {"nvrtc", "nvcc"};
  tl_kernel *k[2];
  for (int e = 0; e < 2; e++) k[e] = cb_compile(m, execs[e]);
  double best[3] = {1e30, 1e30, 1e30};
  for (int round = 0; round < 3; round++) {
    double t = per_launch_us(&raw, batches, per_batch);
    if (t < best[0]) best[0] = t;
    for (int e = 0; e < 2; e++) {
      launcher l = {k[e], args, NULL};
      t = per_launch_us(&l, batches, per_batch);
      if (t < best[1 + e]) best[1 + e] = t;
    }
  }
  printf("host time per launch (median of %d batches of %d, best of 3 rounds):\n", batches, per_batch);
  printf("  raw cuLaunchKernel       %.3f us\n", best[0]);
  for (int e = 0; e < 2; e++)
    printf("  tl_kernel_call (%-5s)   %.3f us  (%+.1f%% of raw)\n", execs[e], best[1 + e],
           100.0 * (best[1 + e] - best[0]) / best[0]);
  cb_result("launch.raw_cuLaunchKernel", best[0], "us");
  cb_result("launch.nvrtc", best[1], "us");
  cb_result("launch.nvcc", best[2], "us");
  for (int e = 0; e < 2; e++) tl_kernel_release(k[e]);
  cb_cu->cuModuleUnload(mod);
  cb_free(&a);
  tl_ir_module_free(m);
  return 0;
}
