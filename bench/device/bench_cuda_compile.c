/* Compile times of the cuda backend for examples/vector_add.py (needs no GPU):
 * our own part (parse, lower, CUDA codegen), NVRTC's own time on that source,
 * tl_compile cold (caches off) through nvrtc and through nvcc, and warm: a hit
 * in the in-memory kernel cache and in the disk cache (a new process's case).
 * Medians of several runs, in a scratch cache directory.
 *
 *   bench_cuda_compile [runs]     (default 9) */
#include <unistd.h>

#include "base/alloc.h"
#include "base/files.h"
#include "codegen/codegen.h"
#include "cuda_bench.h"
#include "runtime/nvrtc_lib.h"
#include "tilelang/backend.h"
#include "transform/pass.h"

#define TARGET "{\"kind\":\"cuda\",\"arch\":\"sm_90a\"}"

static tl_ir_module *parse_example(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/vector_add.py", TL_SOURCE_DIR);
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, NULL, &m) != TL_OK) {
    fprintf(stderr, "%s\n", tl_last_error());
    exit(1);
  }
  return m;
}

static double compile_ms(const tl_ir_module *m, const char *exec, bool disable_cache) {
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = TARGET;
  o.execution_backend = exec;
  o.disable_cache = disable_cache;
  tl_kernel *k = NULL;
  double t0 = cb_now_us();
  if (tl_compile(m, NULL, &o, &k) != TL_OK) {
    fprintf(stderr, "tl_compile (%s): %s\n", exec, tl_last_error());
    exit(1);
  }
  double ms = (cb_now_us() - t0) / 1e3;
  tl_kernel_release(k);
  return ms;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 9;
  if (runs < 1 || runs > 64) return 2;
  char *cache = NULL;
  if (tl__make_scratch_dir("tl-bench-compile-", &cache) != TL_OK) return 1;
  setenv("TILELANG_CACHE_DIR", cache, 1);
  double front[64], nvrtc[64], cold_nvrtc[64], cold_nvcc[64], mem[64], disk[64];
  const tl__nvrtc *n = NULL;
  if (tl__nvrtc_get(&n) != TL_OK) {
    fprintf(stderr, "%s\n", tl_last_error());
    return 1;
  }
  char inc[600];
  snprintf(inc, sizeof inc, "-I%s", n->include);
  const char *opts[] = {"--gpu-architecture=sm_90a", "--fmad=false", "-default-device", "-std=c++17", inc};
  for (int r = 0; r < runs; r++) {
    /* ours: parse + lower + codegen */
    double t0 = cb_now_us();
    tl_ir_module *m = parse_example();
    tl_backend_context *ctx = NULL;
    tl_artifact *dev = NULL;
    if (tl_create_backend_context(TARGET, NULL, "nvrtc", &ctx) != TL_OK ||
        tl__pass_semantic_check(m, tl_backend_context_target(ctx)) != TL_OK || tl_backend_context_lower(ctx, m) != TL_OK ||
        tl_backend_context_codegen_device(ctx, m, 0, &dev) != TL_OK) {
      fprintf(stderr, "%s\n", tl_last_error());
      return 1;
    }
    front[r] = (cb_now_us() - t0) / 1e3;
    tl__nvrtc_result res;
    if (tl__nvrtc_compile(n, tl_artifact_source(dev), "vector_add.cu", opts, n->include[0] ? 5 : 4, &res) != TL_OK) {
      fprintf(stderr, "%s\n", tl_last_error());
      return 1;
    }
    nvrtc[r] = res.ms;
    tl__nvrtc_result_free(&res);
    tl_artifact_release(dev);
    tl_backend_context_release(ctx);
    tl_ir_module_free(m);
    m = parse_example();
    cold_nvrtc[r] = compile_ms(m, "nvrtc", true);
    tl_ir_module_free(m);
  }
  /* nvcc cold: no kernel cache, and a fresh binary cache each run */
  int nvcc_runs = runs < 3 ? runs : 3;
  for (int r = 0; r < nvcc_runs; r++) {
    setenv("TILELANG_DISABLE_CACHE", "1", 1); /* the binary cache too */
    tl_ir_module *m = parse_example();
    cold_nvcc[r] = compile_ms(m, "nvcc", true);
    tl_ir_module_free(m);
    unsetenv("TILELANG_DISABLE_CACHE");
  }
  /* warm: the first compile fills the caches */
  tl_ir_module *m = parse_example();
  compile_ms(m, "nvrtc", false);
  for (int r = 0; r < runs; r++) mem[r] = compile_ms(m, "nvrtc", false);
  for (int r = 0; r < runs; r++) {
    tl_kernel_cache_clear_memory();
    disk[r] = compile_ms(m, "nvrtc", false);
  }
  tl_ir_module_free(m);
  double v_front = cb_median(front, (size_t)runs), v_nvrtc = cb_median(nvrtc, (size_t)runs);
  double v_cold = cb_median(cold_nvrtc, (size_t)runs), v_nvcc = cb_median(cold_nvcc, (size_t)nvcc_runs);
  double v_mem = cb_median(mem, (size_t)runs), v_disk = cb_median(disk, (size_t)runs);
  printf("examples/vector_add.py for sm_90a (medians of %d runs):\n", runs);
  printf("  parse + lower + CUDA codegen      %8.3f ms\n", v_front);
  printf("  NVRTC on that source              %8.3f ms\n", v_nvrtc);
  printf("  tl_compile cold, nvrtc            %8.3f ms\n", v_cold);
  printf("  tl_compile cold, nvcc (%d runs)    %8.3f ms\n", nvcc_runs, v_nvcc);
  printf("  tl_compile warm, memory hit       %8.3f ms\n", v_mem);
  printf("  tl_compile warm, disk hit         %8.3f ms\n", v_disk);
  cb_result("compile.frontend", v_front, "ms");
  cb_result("compile.nvrtc_only", v_nvrtc, "ms");
  cb_result("compile.cold_nvrtc", v_cold, "ms");
  cb_result("compile.cold_nvcc", v_nvcc, "ms");
  cb_result("compile.warm_memory", v_mem, "ms");
  cb_result("compile.warm_disk", v_disk, "ms");
  tl__remove_tree(cache);
  tl__free(cache);
  return 0;
}
