/* Helpers of the GPU benchmarks (bench/device/bench_cuda_*.c, run by
 * tests/device/bench.sh): the driver and a context on device 0, compiling a
 * kernel file of bench/device/kernels with tl_compile, device buffers, timing with
 * events and with the host clock, medians, and result lines
 *
 *   RESULT <key> <value> <unit>
 *
 * that bench.sh gathers into the markdown table for docs/BENCHMARKS.md. */
#ifndef TL_CUDA_BENCH_H
#define TL_CUDA_BENCH_H

#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/cuda_arch.h"
#include "runtime/cuda_driver.h"
#include "tilelang/engine.h"
#include "tilelang/target.h"

static const tl__cuda_driver *cb_cu;
static tl__CUcontext cb_ctx;
static char cb_arch[32] = "sm_90a";
static char cb_target[96];

static inline void cb_check(tl__CUresult r, const char *what) {
  if (r == TL__CUDA_SUCCESS) return;
  fprintf(stderr, "%s failed: %s (%s)\n", what, tl__cuda_error_name(cb_cu, r), tl__cuda_error_string(cb_cu, r));
  exit(1);
}

/* The driver and device 0's primary context, current; the target for its arch. */
static inline void cb_open(void) {
  if (tl__cuda_driver_get(&cb_cu) != TL_OK) {
    fprintf(stderr, "no GPU: %s\n", tl_last_error());
    exit(1);
  }
  tl__CUdevice dev;
  cb_check(cb_cu->cuDeviceGet(&dev, 0), "cuDeviceGet");
  cb_check(cb_cu->cuDevicePrimaryCtxRetain(&cb_ctx, dev), "cuDevicePrimaryCtxRetain");
  cb_check(cb_cu->cuCtxSetCurrent(cb_ctx), "cuCtxSetCurrent");
  tl_target *t = NULL;
  if (tl_target_parse("{\"kind\":\"cuda\"}", &t) == TL_OK) tl__cuda_resolve_arch(t, cb_arch, sizeof cb_arch);
  tl_target_release(t);
  snprintf(cb_target, sizeof cb_target, "{\"kind\":\"cuda\",\"arch\":\"%s\"}", cb_arch);
  char name[128] = "";
  cb_cu->cuDeviceGetName(name, sizeof name, dev);
  printf("device 0: %s (%s)\n", name, cb_arch);
}

/* Parses bench/device/kernels/<file> with the bindings ("K=V"...). */
static inline tl_ir_module *cb_parse(const char *file, const tl_ir_const_binding *b, size_t nb) {
  char path[1024];
  snprintf(path, sizeof path, "%s/bench/device/kernels/%s", TL_SOURCE_DIR, file);
  tl_ir_parse_options o = {sizeof o, b, nb, NULL, false};
  tl_ir_module *m = NULL;
  if (tl_ir_parse_file(path, &o, &m) != TL_OK) {
    fprintf(stderr, "%s: %s\n", file, tl_last_error());
    exit(1);
  }
  return m;
}

static inline tl_kernel *cb_compile(const tl_ir_module *m, const char *exec) {
  tl_compile_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.target = cb_target;
  o.execution_backend = exec;
  tl_kernel *k = NULL;
  if (tl_compile(m, NULL, &o, &k) != TL_OK) {
    fprintf(stderr, "tl_compile (%s): %s\n", exec, tl_last_error());
    exit(1);
  }
  return k;
}

/* A device tensor (compact, on device 0) of `n` elements of dtype (code, bits). */
typedef struct cb_tensor {
  DLTensor t;
  int64_t shape[2];
  tl__CUdeviceptr ptr;
  size_t bytes;
} cb_tensor;

static inline void cb_alloc(cb_tensor *x, uint8_t code, uint8_t bits, int ndim, int64_t d0, int64_t d1) {
  memset(x, 0, sizeof *x);
  x->shape[0] = d0;
  x->shape[1] = d1;
  x->bytes = (size_t)bits / 8 * (size_t)d0 * (size_t)(ndim > 1 ? d1 : 1);
  cb_check(cb_cu->cuMemAlloc(&x->ptr, x->bytes), "cuMemAlloc");
  cb_check(cb_cu->cuMemsetD8(x->ptr, 0, x->bytes), "cuMemsetD8");
  x->t.data = (void *)(uintptr_t)x->ptr;
  x->t.device.device_type = kDLCUDA;
  x->t.ndim = ndim;
  x->t.dtype.code = code;
  x->t.dtype.bits = bits;
  x->t.dtype.lanes = 1;
  x->t.shape = x->shape;
}

static inline void cb_free(cb_tensor *x) {
  if (x->ptr) cb_cu->cuMemFree(x->ptr);
  x->ptr = 0;
}

static inline tl_value cb_value(cb_tensor *x) { return tl_value_tensor((struct DLTensor *)(void *)&x->t); }

static inline double cb_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int cb_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static inline double cb_median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cb_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Milliseconds of GPU time of `reps` calls of k between two events (after one
 * warm-up call), the median of `rounds` such measurements divided by reps. */
static inline double cb_time_kernel_ms(tl_kernel *k, const tl_value *args, int nargs, int rounds, int reps) {
  tl__CUevent e0, e1;
  cb_check(cb_cu->cuEventCreate(&e0, 0), "cuEventCreate");
  cb_check(cb_cu->cuEventCreate(&e1, 0), "cuEventCreate");
  if (tl_kernel_call(k, args, nargs, NULL) != TL_OK) {
    fprintf(stderr, "tl_kernel_call: %s\n", tl_last_error());
    exit(1);
  }
  cb_check(cb_cu->cuCtxSynchronize(), "cuCtxSynchronize");
  double v[64];
  if (rounds > 64) rounds = 64;
  for (int r = 0; r < rounds; r++) {
    cb_check(cb_cu->cuEventRecord(e0, NULL), "cuEventRecord");
    for (int i = 0; i < reps; i++) tl_kernel_call(k, args, nargs, NULL);
    cb_check(cb_cu->cuEventRecord(e1, NULL), "cuEventRecord");
    cb_check(cb_cu->cuEventSynchronize(e1), "cuEventSynchronize");
    float ms = 0;
    cb_check(cb_cu->cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime");
    v[r] = (double)ms / reps;
  }
  cb_cu->cuEventDestroy(e0);
  cb_cu->cuEventDestroy(e1);
  return cb_median(v, (size_t)rounds);
}

static inline void cb_result(const char *key, double value, const char *unit) {
  printf("RESULT %s %.6g %s\n", key, value, unit);
  fflush(stdout);
}

#endif
