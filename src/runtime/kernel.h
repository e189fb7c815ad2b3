/* Kernel objects (tilelang/runtime.h): a loaded, callable kernel with its table,
 * sources and the runtime state of the execution backend that loaded it. The engine
 * creates them after build+load (or a cache hit). */
#ifndef TL_RUNTIME_KERNEL_H
#define TL_RUNTIME_KERNEL_H

#include "runtime/device_memory.h"
#include "runtime/exec_backend.h"

typedef struct tl__kernel_desc {
  const char *name;               /* the kernel's name (the host entry's symbol) */
  const tl_target *target;        /* retained by the kernel; may be NULL */
  const char *exec_name;          /* the execution backend that loaded it */
  const tl_kernel_table *table;   /* copied; may be NULL */
  const char *device_source;      /* copied; NULL means "" */
  const char *host_source;        /* copied; NULL means "" */
  bool from_cache;
  const tl__device_memory *memory; /* the execution backend's; NULL: host tensors */
} tl__kernel_desc;

/* A new kernel (the caller's reference) copying everything in `d` and taking
 * ownership of `loaded`, which is destroyed on failure too. `loaded.call` must be
 * set. Thread-safe. */
tl_status tl__kernel_create(const tl__kernel_desc *d, tl__loaded loaded, tl_kernel **out);

/* The device memory of the kernel's execution backend, or NULL (host tensors). */
const tl__device_memory *tl__kernel_memory(const tl_kernel *k);

#endif
