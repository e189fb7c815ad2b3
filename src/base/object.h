/* Reference-counted objects that carry their own destructor, so a lower layer can
 * release an object of a type defined above it without naming that type: a tl_value
 * owning an artifact (src/ffi/value.c) is released through the artifact's header,
 * the way TVM's FFI objects carry their deleter.
 *
 * A type opts in by making a tl__object its FIRST member (a pointer to the type is
 * then a pointer to its header; the type's file checks this with a static
 * assertion) and initializing it with the function that frees the whole object. */
#ifndef TL_BASE_OBJECT_H
#define TL_BASE_OBJECT_H

#include <stddef.h>

#include "base/refcount.h"

typedef struct tl__object tl__object;
struct tl__object {
  tl__refcount rc;
  /* Frees the object (the whole enclosing struct) when the last reference goes. */
  void (*destroy)(tl__object *self);
};

/* One reference, held by the creator. */
static inline void tl__object_init(tl__object *o, void (*destroy)(tl__object *self)) {
  tl__ref_init(&o->rc);
  o->destroy = destroy;
}

/* Casts away const: retaining an immutable object does not change its value. */
static inline void tl__object_retain(const tl__object *o) {
  if (o) tl__ref_inc(&o->rc);
}

/* Drops one reference; the last one destroys the object. NULL-safe. */
static inline void tl__object_release(const tl__object *o) {
  if (o && tl__ref_dec(&o->rc)) o->destroy((tl__object *)o);
}

#endif
