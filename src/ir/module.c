/* Modules: the arena that owns every node, the function list and attributes. */
#include "module.h"

#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"

void *tl__ir_alloc(tl_ir_module *mod, size_t n) {
  void *p = tl__arena_alloc(&mod->arena, n);
  if (!p) tl__ir_fail(mod, tl__oom());
  return p;
}

tl_status tl__ir_fail(tl_ir_module *mod, tl_status s) {
  mod->nfailures++;
  mod->last_failure = s;
  return s;
}

tl_status tl__ir_null_status(tl_ir_module *mod, const char *what) {
  if (mod->nfailures == 0) return tl__error(TL_EINVAL, "%s", what);
  if (mod->last_failure == TL_ENOMEM) return tl__oom();
  return mod->last_failure;
}

const char *tl__ir_intern(tl_ir_module *mod, const char *s) {
  if (!s) return NULL;
  char *d = tl__arena_strdup(&mod->arena, s);
  if (!d) tl__ir_fail(mod, tl__oom());
  return d;
}

void *tl__ir_copy_ptrs(tl_ir_module *mod, const void *const *src, uint32_t n) {
  if (n == 0) return NULL;
  void **dst = tl__ir_alloc(mod, sizeof(void *) * n);
  if (dst && src) memcpy(dst, src, sizeof(void *) * n);
  return dst;
}

tl_status tl_ir_module_create(tl_ir_module **out) {
  *out = NULL;
  tl_ir_module *m = tl__calloc(1, sizeof *m);
  if (!m) return tl__oom();
  tl__arena_init(&m->arena, 0);
  tl__vec_init(&m->funcs, sizeof(tl_ir_func *));
  tl__vec_init(&m->attrs, sizeof(tl_ir_attr));
  *out = m;
  return TL_OK;
}

void tl_ir_module_free(tl_ir_module *mod) {
  if (!mod) return;
  tl__vec_free(&mod->funcs);
  tl__vec_free(&mod->attrs);
  tl__arena_free(&mod->arena);
  tl__free(mod);
}

size_t tl_ir_module_num_funcs(const tl_ir_module *mod) { return mod->funcs.len; }

tl_ir_func *tl_ir_module_func(const tl_ir_module *mod, size_t i) {
  return i < mod->funcs.len ? TL__VEC_AT(&mod->funcs, tl_ir_func *, i) : NULL;
}

tl_ir_func *tl_ir_module_find_func(const tl_ir_module *mod, const char *name) {
  for (size_t i = 0; i < mod->funcs.len; i++) {
    tl_ir_func *f = TL__VEC_AT(&mod->funcs, tl_ir_func *, i);
    if (tl__str_eq(f->name, name)) return f;
  }
  return NULL;
}

void tl_ir_module_remove_func(tl_ir_module *mod, size_t i) { tl__vec_remove(&mod->funcs, i, NULL); }

const char *tl_ir_module_intern(tl_ir_module *mod, const char *s) { return tl__ir_intern(mod, s); }

/* Sets key in an attribute vector, replacing an existing entry. */
static tl_status set_attr(tl__vec *attrs, tl_ir_attr a) {
  for (size_t i = 0; i < attrs->len; i++) {
    tl_ir_attr *e = tl__vec_at(attrs, i);
    if (strcmp(e->key, a.key) == 0) {
      *e = a;
      return TL_OK;
    }
  }
  return tl__vec_push(attrs, &a);
}

tl_status tl_ir_module_set_attr_str(tl_ir_module *mod, const char *key, const char *value) {
  if (!key || !value) return tl__error(TL_EINVAL, "tl_ir_module_set_attr_str: key and value must not be NULL");
  const char *k = tl_ir_module_intern(mod, key), *v = tl_ir_module_intern(mod, value);
  if (!k || !v) return TL_ENOMEM;
  return set_attr(&mod->attrs, (tl_ir_attr){k, TL_ATTR_STR, 0, v});
}

tl_status tl_ir_module_set_attr_int(tl_ir_module *mod, const char *key, int64_t value) {
  if (!key) return tl__error(TL_EINVAL, "tl_ir_module_set_attr_int: key must not be NULL");
  const char *k = tl_ir_module_intern(mod, key);
  if (!k) return TL_ENOMEM;
  return set_attr(&mod->attrs, (tl_ir_attr){k, TL_ATTR_INT, value, NULL});
}

const tl_ir_attr *tl_ir_module_attr(const tl_ir_module *mod, const char *key) {
  for (size_t i = 0; key && i < mod->attrs.len; i++) {
    const tl_ir_attr *a = tl__vec_at(&mod->attrs, i);
    if (strcmp(a->key, key) == 0) return a;
  }
  return NULL;
}

void tl_ir_builder_set_loc(tl_ir_module *mod, tl_ir_span span) { mod->loc = span; }
tl_ir_span tl_ir_builder_loc(const tl_ir_module *mod) { return mod->loc; }
