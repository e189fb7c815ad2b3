/* The artifact's internals: what codegen hands on to the execution backends. */
#ifndef TL_BACKEND_ARTIFACT_H
#define TL_BACKEND_ARTIFACT_H

#include <stddef.h>

#include "base/object.h"
#include "tilelang/backend.h"

/* Immutable after creation; shared by reference count. The object header comes
 * first: a tl_value owning an artifact is released through it (base/object.h). */
struct tl_artifact {
  tl__object object;
  char *format; /* "c", "cuda", "ptx", "cubin", ... */
  char *source; /* generated text ("" for purely binary artifacts) */
  void *binary; /* optional compiled bytes (cubin, shared object), or NULL */
  size_t binary_size;
  /* The kernel table (host parameters, symbolic dims, launches with their extents as
   * expressions; src/kernel_table/), owned; NULL if none. */
  struct tl_kernel_table *table;
};

#endif
