/* Device memory of an execution backend whose kernels take tensors in device
 * memory (the CUDA ones): what tl_kernel_device_alloc and its siblings
 * (tilelang/runtime.h) reach through a kernel. An implementation that leaves its
 * `memory` NULL runs on host tensors (kDLCPU). */
#ifndef TL_RUNTIME_DEVICE_MEMORY_H
#define TL_RUNTIME_DEVICE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "tilelang/base.h"

typedef struct tl__device_memory {
  int32_t device_type; /* DLPack's DLDeviceType of the tensors */
  tl_status (*alloc)(int32_t device_id, size_t bytes, void **out);
  void (*free)(int32_t device_id, void *data);
  tl_status (*to_device)(int32_t device_id, void *dst, const void *src, size_t bytes);
  tl_status (*to_host)(int32_t device_id, void *dst, const void *src, size_t bytes);
  /* Waits for all work on the device (every stream). */
  tl_status (*synchronize)(int32_t device_id);
} tl__device_memory;

/* CUDA device memory through the driver (cuda_memory.c), in each device's primary
 * context: kDLCUDA. */
extern const tl__device_memory tl__cuda_memory;

#endif
