/* A growable array of fixed-size elements. Elements are copied in by value. */
#ifndef TL_BASE_VEC_H
#define TL_BASE_VEC_H

#include <stddef.h>

#include "tilelang/base.h"

typedef struct tl__vec {
  void *data;
  size_t len, cap;
  size_t elem; /* element size in bytes */
} tl__vec;

#define TL__VEC_INIT(type) {NULL, 0, 0, sizeof(type)}
/* Typed element access; no bounds check. */
#define TL__VEC_AT(v, type, i) (((type *)(v)->data)[i])

void tl__vec_init(tl__vec *v, size_t elem_size);
/* Ensures capacity for n elements. TL_ENOMEM (message set) on failure, v unchanged. */
tl_status tl__vec_reserve(tl__vec *v, size_t n);
tl_status tl__vec_push(tl__vec *v, const void *elem);
/* Inserts before index i (i <= len). */
tl_status tl__vec_insert(tl__vec *v, size_t i, const void *elem);
/* Removes element i (i < len), keeping order; copies it to `out` if non-NULL. */
void tl__vec_remove(tl__vec *v, size_t i, void *out);
/* Removes the last element into `out` if non-NULL; false when empty. */
int tl__vec_pop(tl__vec *v, void *out);
void *tl__vec_at(const tl__vec *v, size_t i);
void tl__vec_clear(tl__vec *v);
void tl__vec_free(tl__vec *v);

#endif
