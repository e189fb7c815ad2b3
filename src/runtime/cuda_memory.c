/* CUDA device memory for callers whose data is on the host (tlc run, C programs
 * without a GPU framework): allocations, copies and synchronisation in the primary
 * context of the device, the caller's current context restored afterwards. Each
 * allocation holds a reference on the primary context, so the context (and the
 * memory in it) outlives every kernel object that retained it. */
#include "runtime/cuda_driver.h"
#include "runtime/device_memory.h"

#include "base/error.h"

#define K_DL_CUDA 2 /* kDLCUDA */

typedef struct scope {
  const tl__cuda_driver *d;
  tl__CUdevice dev;
  tl__CUcontext ctx, prev;
} scope;

static tl_status cu_fail(const tl__cuda_driver *d, tl__CUresult r, const char *what, int32_t device_id) {
  return tl__error(TL_ERUNTIME, "%s on CUDA device %d failed: %s (%s)", what, (int)device_id,
                   tl__cuda_error_name(d, r), tl__cuda_error_string(d, r));
}

/* Retains device_id's primary context and makes it current. */
static tl_status enter(int32_t device_id, scope *s) {
  tl_status st = tl__cuda_driver_get(&s->d);
  if (st != TL_OK) return st;
  const tl__cuda_driver *d = s->d;
  int count = 0;
  tl__CUresult r = d->cuDeviceGetCount(&count);
  if (r != TL__CUDA_SUCCESS) return cu_fail(d, r, "cuDeviceGetCount", device_id);
  if (device_id < 0 || device_id >= count)
    return tl__error(TL_EINVAL, "CUDA device %d does not exist (this machine has %d)", (int)device_id, count);
  if ((r = d->cuDeviceGet(&s->dev, device_id)) != TL__CUDA_SUCCESS) return cu_fail(d, r, "cuDeviceGet", device_id);
  if ((r = d->cuDevicePrimaryCtxRetain(&s->ctx, s->dev)) != TL__CUDA_SUCCESS)
    return cu_fail(d, r, "cuDevicePrimaryCtxRetain", device_id);
  s->prev = NULL;
  const char *what = "cuCtxGetCurrent";
  if ((r = d->cuCtxGetCurrent(&s->prev)) == TL__CUDA_SUCCESS) {
    what = "cuCtxSetCurrent";
    if (s->prev == s->ctx || (r = d->cuCtxSetCurrent(s->ctx)) == TL__CUDA_SUCCESS) return TL_OK;
  }
  d->cuDevicePrimaryCtxRelease(s->dev);
  return cu_fail(d, r, what, device_id);
}

/* Restores the caller's context; `keep` leaves the primary context's reference
 * held (an allocation now owns it). */
static void leave(const scope *s, int keep) {
  if (s->prev != s->ctx) s->d->cuCtxSetCurrent(s->prev);
  if (!keep) s->d->cuDevicePrimaryCtxRelease(s->dev);
}

static tl_status cuda_alloc(int32_t device_id, size_t bytes, void **out) {
  *out = NULL;
  scope s;
  tl_status st = enter(device_id, &s);
  if (st != TL_OK) return st;
  tl__CUdeviceptr p = 0;
  tl__CUresult r = s.d->cuMemAlloc(&p, bytes ? bytes : 1);
  if (r != TL__CUDA_SUCCESS) st = cu_fail(s.d, r, "cuMemAlloc", device_id);
  leave(&s, st == TL_OK);
  if (st == TL_OK) *out = (void *)(uintptr_t)p;
  return st;
}

static void cuda_free(int32_t device_id, void *data) {
  if (!data) return;
  scope s;
  if (enter(device_id, &s) != TL_OK) return;
  s.d->cuMemFree((tl__CUdeviceptr)(uintptr_t)data);
  leave(&s, 0);
  s.d->cuDevicePrimaryCtxRelease(s.dev); /* the allocation's reference */
}

static tl_status cuda_to_device(int32_t device_id, void *dst, const void *src, size_t bytes) {
  if (!bytes) return TL_OK;
  scope s;
  tl_status st = enter(device_id, &s);
  if (st != TL_OK) return st;
  tl__CUresult r = s.d->cuMemcpyHtoD((tl__CUdeviceptr)(uintptr_t)dst, src, bytes);
  if (r != TL__CUDA_SUCCESS) st = cu_fail(s.d, r, "cuMemcpyHtoD", device_id);
  leave(&s, 0);
  return st;
}

static tl_status cuda_to_host(int32_t device_id, void *dst, const void *src, size_t bytes) {
  if (!bytes) return TL_OK;
  scope s;
  tl_status st = enter(device_id, &s);
  if (st != TL_OK) return st;
  tl__CUresult r = s.d->cuMemcpyDtoH(dst, (tl__CUdeviceptr)(uintptr_t)src, bytes);
  if (r != TL__CUDA_SUCCESS) st = cu_fail(s.d, r, "cuMemcpyDtoH", device_id);
  leave(&s, 0);
  return st;
}

static tl_status cuda_synchronize(int32_t device_id) {
  scope s;
  tl_status st = enter(device_id, &s);
  if (st != TL_OK) return st;
  tl__CUresult r = s.d->cuCtxSynchronize();
  if (r != TL__CUDA_SUCCESS) st = cu_fail(s.d, r, "cuCtxSynchronize", device_id);
  leave(&s, 0);
  return st;
}

const tl__device_memory tl__cuda_memory = {
  .device_type = K_DL_CUDA,
  .alloc = cuda_alloc,
  .free = cuda_free,
  .to_device = cuda_to_device,
  .to_host = cuda_to_host,
  .synchronize = cuda_synchronize,
};
