/* The artifact's internals: what codegen hands on to the execution backends. */
#ifndef TL_BACKEND_ARTIFACT_H
#define TL_BACKEND_ARTIFACT_H

#include <stddef.h>

#include "base/refcount.h"
#include "tilelang/backend.h"

/* Immutable after creation; shared by reference count. */
struct tl_artifact {
  tl__refcount rc;
  char *format; /* "c", "cuda", "ptx", "cubin", ... */
  char *source; /* generated text ("" for purely binary artifacts) */
  void *binary; /* optional compiled bytes (cubin, shared object), or NULL */
  size_t binary_size;
  /* The kernel table (host parameters, symbolic dims, launches with their extents as
   * expressions; tilelang/runtime.h), owned; NULL if none. */
  struct tl_kernel_table *table;
};

#endif
