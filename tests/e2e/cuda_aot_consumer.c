/* A C program built against `tlc build examples/vector_add.py --target cuda
 * --execution-backend nvcc` output only: the exported header and library, no
 * project header, no CUDA header, no link against CUDA (run by
 * tests/e2e/tlc_cuda_export.sh). It checks that the packed entry refuses host
 * tensors and a missing argument; then, where the CUDA driver is present, it
 * allocates device memory through the driver (dlopen, as the library does), runs
 * the kernel through the typed wrapper and the packed entry on a created stream,
 * and checks C = A + B; where it is absent, that the call says so. Prints "ok". */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "vector_add.h"

/* Defined by the library (the cuda_driver launcher): unloads its CUDA modules. */
void vector_add_cuda_unload(void);

typedef int (*init_fn)(unsigned);
typedef int (*dev_get_fn)(int *, int);
typedef int (*ctx_retain_fn)(void **, int);
typedef int (*ctx_set_fn)(void *);
typedef int (*alloc_fn)(unsigned long long *, size_t);
typedef int (*free_fn)(unsigned long long);
typedef int (*htod_fn)(unsigned long long, const void *, size_t);
typedef int (*dtoh_fn)(void *, unsigned long long, size_t);
typedef int (*sync_fn)(void);
typedef int (*stream_create_fn)(void **, unsigned);
typedef int (*stream_sync_fn)(void *);
typedef int (*stream_destroy_fn)(void *);

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) printf("libcuda.so.1 lacks %s\n", name);
  return p;
}

static DLTensor vec(void *data, int64_t *n, int device_type) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = device_type;
  t.ndim = 1;
  t.dtype.code = 2; /* float */
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = n;
  return t;
}

enum { N = 100003 }; /* not a multiple of the block */
static float a[N], b[N], c[N];

/* The kernel on the GPU: typed wrapper (default stream), then the packed entry on
 * a stream of our own. */
static int run_on_gpu(void *h) {
  void *p[12];
  const char *names[12] = {"cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuMemAlloc_v2",
                           "cuMemFree_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuCtxSynchronize", "cuStreamCreate",
                           "cuStreamSynchronize", "cuStreamDestroy_v2"};
  for (int i = 0; i < 12; i++)
    if (!(p[i] = sym(h, names[i]))) return 1;
  init_fn cu_init;
  dev_get_fn dev_get;
  ctx_retain_fn retain;
  ctx_set_fn set;
  alloc_fn alloc;
  free_fn mfree;
  htod_fn htod;
  dtoh_fn dtoh;
  sync_fn sync;
  stream_create_fn screate;
  stream_sync_fn ssync;
  stream_destroy_fn sdestroy;
  memcpy(&cu_init, &p[0], sizeof p[0]);
  memcpy(&dev_get, &p[1], sizeof p[1]);
  memcpy(&retain, &p[2], sizeof p[2]);
  memcpy(&set, &p[3], sizeof p[3]);
  memcpy(&alloc, &p[4], sizeof p[4]);
  memcpy(&mfree, &p[5], sizeof p[5]);
  memcpy(&htod, &p[6], sizeof p[6]);
  memcpy(&dtoh, &p[7], sizeof p[7]);
  memcpy(&sync, &p[8], sizeof p[8]);
  memcpy(&screate, &p[9], sizeof p[9]);
  memcpy(&ssync, &p[10], sizeof p[10]);
  memcpy(&sdestroy, &p[11], sizeof p[11]);
  int dev = 0;
  void *ctx = NULL, *stream = NULL;
  unsigned long long da = 0, db = 0, dc = 0;
  if (cu_init(0) || dev_get(&dev, 0) || retain(&ctx, dev) || set(ctx) || alloc(&da, sizeof a) ||
      alloc(&db, sizeof b) || alloc(&dc, sizeof c) || htod(da, a, sizeof a) || htod(db, b, sizeof b)) {
    printf("CUDA setup failed\n");
    return 1;
  }
  int64_t n = N;
  DLTensor A = vec((void *)(uintptr_t)da, &n, 2), B = vec((void *)(uintptr_t)db, &n, 2), C = vec((void *)(uintptr_t)dc, &n, 2);
  char err[512] = "";
  if (vector_add_call(&A, &B, &C, err, sizeof err) != 0 || sync() || dtoh(c, dc, sizeof c)) {
    printf("typed call failed: %s\n", err);
    return 1;
  }
  for (int i = 0; i < N; i++)
    if (c[i] != a[i] + b[i]) {
      printf("C[%d] = %g, expected %g\n", i, (double)c[i], (double)(a[i] + b[i]));
      return 1;
    }
  /* the packed entry on a created stream, into a fresh output */
  memset(c, 0, sizeof c);
  if (htod(dc, c, sizeof c) || screate(&stream, 0)) return 1;
  TLValue args[3];
  memset(args, 0, sizeof args);
  args[0].kind = 10, args[0].v.tensor = &A;
  args[1].kind = 10, args[1].v.tensor = &B;
  args[2].kind = 10, args[2].v.tensor = &C;
  if (vector_add(args, 3, stream, err, sizeof err) != 0 || ssync(stream) || dtoh(c, dc, sizeof c)) {
    printf("packed call on a stream failed: %s\n", err);
    return 1;
  }
  for (int i = 0; i < N; i++)
    if (c[i] != a[i] + b[i]) {
      printf("stream: C[%d] = %g, expected %g\n", i, (double)c[i], (double)(a[i] + b[i]));
      return 1;
    }
  sdestroy(stream);
  vector_add_cuda_unload(); /* the next call loads the module again */
  if (vector_add(args, 3, NULL, err, sizeof err) != 0 || sync()) {
    printf("call after unload failed: %s\n", err);
    return 1;
  }
  mfree(da);
  mfree(db);
  mfree(dc);
  printf("ran on the GPU: C = A + B for %d elements\n", N);
  return 0;
}

int main(void) {
  for (int i = 0; i < N; i++) a[i] = (float)i * 0.5f, b[i] = (float)(N - i);
  int64_t n = N;
  DLTensor A = vec(a, &n, 1), B = vec(b, &n, 1), C = vec(c, &n, 1);
  char err[512] = "";
  /* host tensors: refused by the argument checks, naming the parameter */
  if (vector_add_call(&A, &B, &C, err, sizeof err) == 0 ||
      !strstr(err, "argument 'A': expected a CUDA tensor (kDLCUDA) but got device type 1")) {
    printf("host tensors were not refused (\"%s\")\n", err);
    return 1;
  }
  TLValue args[3];
  memset(args, 0, sizeof args);
  for (int i = 0; i < 3; i++) args[i].kind = 10;
  args[0].v.tensor = &A, args[1].v.tensor = &B, args[2].v.tensor = &C;
  if (vector_add(args, 2, NULL, err, sizeof err) == 0 || !strstr(err, "takes 3 arguments but got 2")) {
    printf("a missing argument was not refused (\"%s\")\n", err);
    return 1;
  }
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  typedef int (*init_t)(unsigned);
  init_t cu_init = NULL;
  void *pi = h ? dlsym(h, "cuInit") : NULL;
  if (pi) memcpy(&cu_init, &pi, sizeof pi);
  if (cu_init && cu_init(0) == 0) {
    if (run_on_gpu(h) != 0) return 1;
  } else {
    /* no usable driver here: the library says so, it does not crash */
    A.device.device_type = B.device.device_type = C.device.device_type = 2;
    int rc = vector_add(args, 3, NULL, err, sizeof err);
    if (rc != 4 || (!strstr(err, "libcuda.so.1") && !strstr(err, "no usable CUDA device"))) {
      printf("without a GPU: rc %d, \"%s\"\n", rc, err);
      return 1;
    }
    printf("no GPU here: %s\n", err);
  }
  printf("ok\n");
  return 0;
}
