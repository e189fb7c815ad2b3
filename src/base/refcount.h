/* Atomic reference counts for immutable shared objects (targets, contexts, kernels). */
#ifndef TL_BASE_REFCOUNT_H
#define TL_BASE_REFCOUNT_H

#include <stdatomic.h>
#include <stdbool.h>

typedef struct tl__refcount {
  atomic_long n;
} tl__refcount;

static inline void tl__ref_init(tl__refcount *r) { atomic_init(&r->n, 1); }

/* Casts away const: retaining an immutable object does not change its value. */
static inline void tl__ref_inc(const tl__refcount *r) {
  atomic_fetch_add_explicit(&((tl__refcount *)r)->n, 1, memory_order_relaxed);
}

/* True when this was the last reference and the object must be destroyed. */
static inline bool tl__ref_dec(const tl__refcount *r) {
  return atomic_fetch_sub_explicit(&((tl__refcount *)r)->n, 1, memory_order_acq_rel) == 1;
}

static inline long tl__ref_count(const tl__refcount *r) {
  return atomic_load_explicit(&((tl__refcount *)r)->n, memory_order_relaxed);
}

#endif
