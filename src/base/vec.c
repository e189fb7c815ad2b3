#include "vec.h"

#include <string.h>

#include "alloc.h"
#include "error.h"

void tl__vec_init(tl__vec *v, size_t elem_size) { *v = (tl__vec){NULL, 0, 0, elem_size}; }

tl_status tl__vec_reserve(tl__vec *v, size_t n) {
  if (n <= v->cap) return TL_OK;
  size_t cap = v->cap ? v->cap : 4;
  while (cap < n) cap *= 2;
  if (v->elem && cap > (size_t)-1 / v->elem) return tl__oom();
  void *d = tl__realloc(v->data, cap * v->elem);
  if (!d) return tl__oom();
  v->data = d;
  v->cap = cap;
  return TL_OK;
}

tl_status tl__vec_push(tl__vec *v, const void *elem) { return tl__vec_insert(v, v->len, elem); }

tl_status tl__vec_insert(tl__vec *v, size_t i, const void *elem) {
  if (i > v->len) return tl__error(TL_EINTERNAL, "vector insert at %zu past length %zu", i, v->len);
  TL__TRY(tl__vec_reserve(v, v->len + 1));
  char *base = v->data;
  memmove(base + (i + 1) * v->elem, base + i * v->elem, (v->len - i) * v->elem);
  memcpy(base + i * v->elem, elem, v->elem);
  v->len++;
  return TL_OK;
}

void tl__vec_remove(tl__vec *v, size_t i, void *out) {
  if (i >= v->len) return;
  char *base = v->data;
  if (out) memcpy(out, base + i * v->elem, v->elem);
  /* Byte counts, not element counts: the bug IREE's unregister had. */
  memmove(base + i * v->elem, base + (i + 1) * v->elem, (v->len - i - 1) * v->elem);
  v->len--;
}

int tl__vec_pop(tl__vec *v, void *out) {
  if (v->len == 0) return 0;
  tl__vec_remove(v, v->len - 1, out);
  return 1;
}

void *tl__vec_at(const tl__vec *v, size_t i) { return i < v->len ? (char *)v->data + i * v->elem : NULL; }

void tl__vec_clear(tl__vec *v) { v->len = 0; }

void tl__vec_free(tl__vec *v) {
  tl__free(v->data);
  v->data = NULL;
  v->len = v->cap = 0;
}
