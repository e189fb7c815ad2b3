/* Artifacts: generated code as an immutable, reference-counted value. */
#include "backend/artifact.h"

#include <stddef.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "tilelang/runtime.h"

_Static_assert(offsetof(struct tl_artifact, object) == 0, "an artifact is released through its object header");

static void artifact_destroy(tl__object *object) {
  tl_artifact *a = (tl_artifact *)object;
  tl__free(a->format);
  tl__free(a->source);
  tl__free(a->binary);
  tl_kernel_table_free(a->table);
  tl__free(a);
}

tl_status tl_artifact_create_binary(const char *format, const char *source, const void *bytes, size_t size,
                                    tl_artifact **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_artifact_create: out must not be NULL");
  *out = NULL;
  if (!format || !*format) return tl__error(TL_EINVAL, "artifact format must not be empty");
  if (!bytes && size) return tl__error(TL_EINVAL, "artifact binary is NULL but its size is %zu", size);
  tl_artifact *a = tl__calloc(1, sizeof *a);
  if (!a) return tl__oom();
  a->format = tl__strdup(format);
  a->source = tl__strdup(source ? source : "");
  if (bytes) {
    a->binary = tl__malloc(size ? size : 1);
    if (a->binary) {
      if (size) memcpy(a->binary, bytes, size);
      a->binary_size = size;
    }
  }
  if (!a->format || !a->source || (bytes && !a->binary)) {
    tl__free(a->format);
    tl__free(a->source);
    tl__free(a->binary);
    tl__free(a);
    return tl__oom();
  }
  tl__object_init(&a->object, artifact_destroy);
  *out = a;
  return TL_OK;
}

tl_status tl_artifact_create(const char *format, const char *source, tl_artifact **out) {
  return tl_artifact_create_binary(format, source, NULL, 0, out);
}

tl_artifact *tl_artifact_retain(const tl_artifact *a) {
  tl__object_retain(a ? &a->object : NULL);
  return (tl_artifact *)a;
}

void tl_artifact_release(const tl_artifact *a) { tl__object_release(a ? &a->object : NULL); }

const char *tl_artifact_format(const tl_artifact *a) { return a ? a->format : NULL; }
const char *tl_artifact_source(const tl_artifact *a) { return a ? a->source : NULL; }

const void *tl_artifact_binary(const tl_artifact *a, size_t *size) {
  if (size) *size = a && a->binary ? a->binary_size : 0;
  return a ? a->binary : NULL;
}

tl_status tl_artifact_with_kernel_table(const tl_artifact *a, const tl_kernel_table *table, tl_artifact **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_artifact_with_kernel_table: out must not be NULL");
  *out = NULL;
  if (!a) return tl__error(TL_EINVAL, "tl_artifact_with_kernel_table: artifact must not be NULL");
  tl_kernel_table *copy = NULL;
  if (table) TL__TRY(tl_kernel_table_copy(table, &copy));
  tl_artifact *n = NULL;
  tl_status s = tl_artifact_create_binary(a->format, a->source, a->binary, a->binary ? a->binary_size : 0, &n);
  if (s != TL_OK) {
    tl_kernel_table_free(copy);
    return s;
  }
  n->table = copy;
  *out = n;
  return TL_OK;
}

const tl_kernel_table *tl_artifact_kernel_table(const tl_artifact *a) { return a ? a->table : NULL; }
