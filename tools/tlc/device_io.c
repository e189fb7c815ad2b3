/* Device copies of a command-line run's tensors (device_io.h). */
#include "device_io.h"

#include <stdlib.h>
#include <string.h>

#include "tilelang/base.h"

#define DEVICE_ID 0

static size_t tensor_bytes(const DLTensor *t) {
  size_t n = (size_t)(t->dtype.bits * t->dtype.lanes + 7) / 8;
  for (int i = 0; i < t->ndim; i++) n *= (size_t)t->shape[i];
  return n;
}

void tlc_device_io_free(tlc_device_io *d) {
  if (!d) return;
  if (d->on_device && d->tensors)
    for (uint32_t i = 0; i < d->n; i++) tl_kernel_device_free(d->kernel, DEVICE_ID, d->tensors[i].data);
  free(d->args);
  free(d->tensors);
  free(d->bytes);
  free(d);
}

tl_status tlc_device_io_create(const tl_kernel *k, const tlc_kernel_io *host, tlc_device_io **out) {
  *out = NULL;
  tlc_device_io *d = calloc(1, sizeof *d);
  uint32_t n = host->n;
  if (d) {
    d->kernel = k;
    d->n = n;
    d->on_device = tl_kernel_device_type(k) != kDLCPU;
    d->args = calloc(n ? n : 1, sizeof *d->args);
    d->tensors = calloc(n ? n : 1, sizeof *d->tensors);
    d->bytes = calloc(n ? n : 1, sizeof *d->bytes);
  }
  if (!d || !d->args || !d->tensors || !d->bytes) {
    tlc_device_io_free(d);
    return TL_ENOMEM;
  }
  memcpy(d->args, host->args, n * sizeof *d->args);
  tl_status s = TL_OK;
  for (uint32_t i = 0; d->on_device && s == TL_OK && i < n; i++) {
    if (host->args[i].kind != TL_VALUE_TENSOR) continue;
    const DLTensor *h = &host->tensors[i];
    DLTensor *t = &d->tensors[i];
    *t = *h;
    t->device.device_type = (DLDeviceType)tl_kernel_device_type(k);
    t->device.device_id = DEVICE_ID;
    t->data = NULL;
    d->bytes[i] = tensor_bytes(h);
    s = tl_kernel_device_alloc(k, DEVICE_ID, d->bytes[i], &t->data);
    if (s == TL_OK) s = tl_kernel_copy_to_device(k, DEVICE_ID, t->data, h->data, d->bytes[i]);
    d->args[i] = tl_value_tensor((struct DLTensor *)(void *)t); /* dlpack.h names no struct tag */
  }
  if (s != TL_OK) {
    tlc_device_io_free(d);
    return s;
  }
  *out = d;
  return TL_OK;
}

tl_status tlc_device_io_synchronize(const tlc_device_io *d) {
  return tl_kernel_device_synchronize(d->kernel, DEVICE_ID);
}

tl_status tlc_device_io_download(const tlc_device_io *d, tlc_kernel_io *host) {
  if (!d->on_device) return TL_OK;
  tl_status s = tlc_device_io_synchronize(d);
  for (uint32_t i = 0; s == TL_OK && i < d->n; i++) {
    if (host->args[i].kind != TL_VALUE_TENSOR || !host->is_output[i]) continue;
    s = tl_kernel_copy_to_host(d->kernel, DEVICE_ID, host->tensors[i].data, d->tensors[i].data, d->bytes[i]);
  }
  return s;
}
