/* The floor for bench_call.py: raw cuLaunchKernel in a C loop. Compiles CUDA source
 * with NVRTC to PTX, loads it with the driver, and launches one kernel `iters` times
 * on `stream`, returning the host nanoseconds of the loop (no synchronisation inside
 * it). Both libraries are opened with dlopen, so this builds without the CUDA
 * toolkit: bench_call.py compiles it with `cc -shared -fPIC raw_launch.c -ldl`.
 * Benchmark scaffolding only; not part of the package. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*cuInit_t)(unsigned);
typedef int (*cuCtxGetCurrent_t)(void **);
typedef int (*cuModuleLoadData_t)(void **, const void *);
typedef int (*cuModuleGetFunction_t)(void **, void *, const char *);
typedef int (*cuLaunchKernel_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                                void **, void **);
typedef int (*nvrtcCreateProgram_t)(void **, const char *, const char *, int, const char *const *,
                                    const char *const *);
typedef int (*nvrtcCompileProgram_t)(void *, int, const char *const *);
typedef int (*nvrtcGetPTXSize_t)(void *, size_t *);
typedef int (*nvrtcGetPTX_t)(void *, char *);
typedef int (*nvrtcGetProgramLogSize_t)(void *, size_t *);
typedef int (*nvrtcGetProgramLog_t)(void *, char *);

static char g_error[4096];

const char *tlbench_error(void);
const char *tlbench_error(void) { return g_error; }

static void *open_first(const char *const *names) {
  for (size_t i = 0; names[i]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (h) return h;
  }
  return NULL;
}

/* Returns the loop's nanoseconds, or -1 with tlbench_error() set. args: nargs
 * argument blocks of sizes[i] bytes each, concatenated in `blob`. */
long long tlbench_raw_launch(const char *source, const char *symbol, const char *arch, const unsigned grid[3],
                             const unsigned block[3], unsigned shared, const void *blob, const int *sizes, int nargs,
                             long iters, void *stream);
long long tlbench_raw_launch(const char *source, const char *symbol, const char *arch, const unsigned grid[3],
                             const unsigned block[3], unsigned shared, const void *blob, const int *sizes, int nargs,
                             long iters, void *stream) {
  static const char *const cuda_names[] = {"libcuda.so.1", "libcuda.so", NULL};
  static const char *const nvrtc_names[] = {"libnvrtc.so", "libnvrtc.so.12", "libnvrtc.so.13", "libnvrtc.so.11.2",
                                            NULL};
  void *cuda = open_first(cuda_names), *nvrtc = open_first(nvrtc_names);
  if (!cuda || !nvrtc) {
    snprintf(g_error, sizeof g_error, "cannot open %s", !cuda ? "libcuda.so.1" : "libnvrtc.so");
    return -1;
  }
#define SYM(lib, name) name##_t name = (name##_t)dlsym(lib, #name)
  SYM(cuda, cuInit);
  SYM(cuda, cuCtxGetCurrent);
  SYM(cuda, cuModuleLoadData);
  SYM(cuda, cuModuleGetFunction);
  cuLaunchKernel_t cuLaunchKernel = (cuLaunchKernel_t)dlsym(cuda, "cuLaunchKernel");
  SYM(nvrtc, nvrtcCreateProgram);
  SYM(nvrtc, nvrtcCompileProgram);
  SYM(nvrtc, nvrtcGetPTXSize);
  SYM(nvrtc, nvrtcGetPTX);
  SYM(nvrtc, nvrtcGetProgramLogSize);
  SYM(nvrtc, nvrtcGetProgramLog);
  if (!cuInit || !cuCtxGetCurrent || !cuModuleLoadData || !cuModuleGetFunction || !cuLaunchKernel ||
      !nvrtcCreateProgram || !nvrtcCompileProgram || !nvrtcGetPTXSize || !nvrtcGetPTX) {
    snprintf(g_error, sizeof g_error, "missing CUDA driver or NVRTC symbols");
    return -1;
  }
  void *ctx = NULL;
  if (cuInit(0) != 0 || cuCtxGetCurrent(&ctx) != 0 || !ctx) {
    snprintf(g_error, sizeof g_error, "no current CUDA context (initialise torch's CUDA first)");
    return -1;
  }
  void *prog = NULL;
  if (nvrtcCreateProgram(&prog, source, "raw.cu", 0, NULL, NULL) != 0) {
    snprintf(g_error, sizeof g_error, "nvrtcCreateProgram failed");
    return -1;
  }
  char opt[64];
  snprintf(opt, sizeof opt, "--gpu-architecture=compute_%s", arch + (strncmp(arch, "sm_", 3) == 0 ? 3 : 0));
  const char *opts[] = {opt, "-default-device", "-std=c++17"};
  if (nvrtcCompileProgram(prog, 3, opts) != 0) {
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    char *log = malloc(n + 1);
    if (log) {
      nvrtcGetProgramLog(prog, log);
      snprintf(g_error, sizeof g_error, "NVRTC (%s): %s", opt, log);
      free(log);
    }
    return -1;
  }
  size_t ptx_size = 0;
  nvrtcGetPTXSize(prog, &ptx_size);
  char *ptx = malloc(ptx_size);
  if (!ptx) return -1;
  nvrtcGetPTX(prog, ptx);
  void *module = NULL, *fn = NULL;
  int rc = cuModuleLoadData(&module, ptx);
  free(ptx);
  if (rc != 0 || cuModuleGetFunction(&fn, module, symbol) != 0) {
    snprintf(g_error, sizeof g_error, "cannot load '%s' (cuModuleLoadData %d)", symbol, rc);
    return -1;
  }
  void *params[64];
  const char *p = blob;
  for (int i = 0; i < nargs && i < 64; i++) {
    params[i] = (void *)p;
    p += sizes[i];
  }
  /* Untimed launches first: with lazy module loading (the default since CUDA 12) the
   * first launch of a fresh module loads its function, milliseconds that would be
   * spread over the timed loop. */
  for (int i = 0; i < 16; i++) {
    if (cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, stream, params, NULL) !=
        0) {
      snprintf(g_error, sizeof g_error, "cuLaunchKernel failed");
      return -1;
    }
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < iters; i++) {
    if (cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, stream, params, NULL) !=
        0) {
      snprintf(g_error, sizeof g_error, "cuLaunchKernel failed");
      return -1;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
}
