/* tl_value: constructors for owned values and their release. An owned artifact (a
 * type of the backend layer, above this one) is released through its object header
 * (base/object.h), so this file needs nothing from above. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/object.h"
#include "tilelang/ffi.h"
#include "tilelang/target.h"

tl_value tl_value_str(const char *s) {
  tl_value v = {TL_VALUE_STR, s ? strlen(s) : 0, {.s = s}};
  return v;
}

tl_status tl_value_set_str(tl_value *v, const char *s) {
  if (!v || !s) return tl__error(TL_EINVAL, "tl_value_set_str: NULL argument");
  size_t n = strlen(s);
  char *copy = tl__strndup(s, n);
  if (!copy) return tl__oom();
  tl_value_clear(v);
  *v = (tl_value){TL_VALUE_STR, n, {.s = copy}};
  return TL_OK;
}

tl_status tl_value_set_bytes(tl_value *v, const void *data, size_t size) {
  if (!v || (!data && size)) return tl__error(TL_EINVAL, "tl_value_set_bytes: NULL argument");
  /* One extra byte so that an empty value still owns a distinct allocation. */
  char *copy = tl__malloc(size + 1);
  if (!copy) return tl__oom();
  if (size) memcpy(copy, data, size);
  copy[size] = '\0';
  tl_value_clear(v);
  *v = (tl_value){TL_VALUE_BYTES, size, {.bytes = copy}};
  return TL_OK;
}

void tl_value_clear(tl_value *v) {
  if (!v) return;
  switch (v->kind) {
    case TL_VALUE_STR: tl__free((void *)v->v.s); break;
    case TL_VALUE_BYTES: tl__free((void *)v->v.bytes); break;
    case TL_VALUE_TARGET: tl_target_release(v->v.target); break;
    case TL_VALUE_ARTIFACT: tl__object_release((const tl__object *)v->v.artifact); break;
    default: break; /* scalars, and borrowed PTR/IR_MODULE/TENSOR */
  }
  *v = (tl_value){TL_VALUE_NONE, 0, {.i = 0}};
}
