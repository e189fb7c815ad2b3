/* The tensors of a command-line run placed where the kernel takes them: for a
 * kernel whose execution backend runs on device memory (tl_kernel_device_type is
 * not kDLCPU), device copies of the host tensors of a tlc_kernel_io, uploaded
 * before the call and the outputs downloaded after it; for a host kernel, the
 * host tensors themselves. Device 0. Used by `tlc run`. */
#ifndef TLC_DEVICE_IO_H
#define TLC_DEVICE_IO_H

#include "kernel_io.h"
#include "tilelang/runtime.h"

typedef struct tlc_device_io {
  const tl_kernel *kernel;
  uint32_t n;
  tl_value *args;     /* what tl_kernel_call takes: host args, or device copies */
  DLTensor *tensors;  /* n: the device tensors (unused for host kernels) */
  size_t *bytes;      /* n: each tensor's size */
  bool on_device;
} tlc_device_io;

/* Allocates and uploads (every tensor, so in-place outputs start from the host's
 * values). TL_ERUNTIME and friends from the execution backend; nothing leaks. */
tl_status tlc_device_io_create(const tl_kernel *k, const tlc_kernel_io *host, tlc_device_io **out);
/* Downloads every output into the host tensors; waits for the kernel first. */
tl_status tlc_device_io_download(const tlc_device_io *d, tlc_kernel_io *host);
/* Waits until the kernel's work on the device has finished (a no-op on the host). */
tl_status tlc_device_io_synchronize(const tlc_device_io *d);
void tlc_device_io_free(tlc_device_io *d); /* NULL-safe */

#endif
