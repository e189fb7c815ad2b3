/* The target object: creation into one arena, the canonical text, accessors,
 * equality and hashing, host replacement.
 *
 * The text is canonical (attributes in schema order, feature keys and nested maps
 * sorted, one spelling per value), so two targets are structurally equal exactly
 * when their texts are equal: equality is a comparison of texts and the hash is a
 * hash of the text, with no recursion over hosts. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "target_impl.h"

/* Renders {"kind":..,"tag":..,"keys":[..],"host":{..},attrs...} into arena a. */
static tl_status render(tl_target *t, tl__arena *a) {
  tl__tmember stack_members[48];
  size_t n = 3 + (t->host != NULL) + t->nattrs;
  tl__tmember *m = n <= 48 ? stack_members : tl__arena_alloc(a, n * sizeof *m);
  if (!m) return tl__oom();
  tl__tval keys = {.type = TL__TV_ARRAY};
  tl__tval key_items_stack[16];
  tl__tval *key_items = t->nkeys <= 16 ? key_items_stack : tl__arena_alloc(a, t->nkeys * sizeof *key_items);
  if (t->nkeys && !key_items) return tl__oom();
  for (size_t i = 0; i < t->nkeys; i++) key_items[i] = tl__tv_str(t->keys[i]);
  keys.v.arr.items = key_items;
  keys.v.arr.n = t->nkeys;
  size_t k = 0;
  m[k++] = (tl__tmember){"kind", tl__tv_str(t->kind->name)};
  m[k++] = (tl__tmember){"tag", tl__tv_str(t->tag)};
  m[k++] = (tl__tmember){"keys", keys};
  if (t->host) m[k++] = (tl__tmember){"host", (tl__tval){.type = TL__TV_RAW, .v.s = t->host->str}};
  for (size_t i = 0; i < t->nattrs; i++) m[k++] = t->attrs[i];
  tl__tval obj = {.type = TL__TV_MAP, .v.map = {m, k, k}};
  /* One pass into a stack buffer; a second, sized pass only for long texts. */
  char stack_buf[1024];
  tl__jw w = {stack_buf, 0, sizeof stack_buf, 0, true};
  tl__jw_value(&w, &obj, 0);
  char *buf = tl__arena_alloc(a, w.len + 1);
  if (!buf) return tl__oom();
  if (w.len <= sizeof stack_buf) {
    memcpy(buf, stack_buf, w.len);
  } else {
    w = (tl__jw){buf, 0, w.len, 0, true};
    tl__jw_value(&w, &obj, 0);
  }
  buf[w.len] = '\0';
  t->str = buf;
  t->str_len = w.len;
  return TL_OK;
}

/* Points t at its data: copied into arena a, or used in place when `copy` is false. */
static tl_status fill(tl_target *t, tl__arena *a, bool copy, const char *tag, const char *const *keys, size_t nkeys,
                      tl__tmember *attrs, size_t nattrs) {
  if (!tag) tag = "";
  if (copy) {
    const char **k = nkeys ? tl__arena_alloc(a, nkeys * sizeof *k) : NULL;
    tl__tmember *m = nattrs ? tl__arena_alloc(a, nattrs * sizeof *m) : NULL;
    if (!(tag = tl__arena_strdup(a, tag)) || (nkeys && !k) || (nattrs && !m)) return tl__oom();
    for (size_t i = 0; i < nkeys; i++)
      if (!(k[i] = tl__arena_strdup(a, keys[i]))) return tl__oom();
    for (size_t i = 0; i < nattrs; i++) {
      if (!(m[i].key = tl__arena_strdup(a, attrs[i].key))) return tl__oom();
      TL__TRY(tl__tv_copy(a, &attrs[i].val, &m[i].val));
    }
    keys = k;
    attrs = m;
  }
  for (size_t i = 0; i < nattrs; i++) tl__tv_sort_maps(&attrs[i].val);
  t->tag = tag;
  t->keys = keys;
  t->nkeys = nkeys;
  t->attrs = attrs;
  t->nattrs = nattrs;
  return TL_OK;
}

tl_status tl__target_create(const tl__target_kind *kind, const char *tag, const char *const *keys, size_t nkeys,
                            tl__tmember *attrs, size_t nattrs, const tl_target *host, tl__arena *adopt,
                            tl_target **out) {
  tl__arena own;
  tl__arena_init(&own, 1024);
  tl__arena *a = adopt ? adopt : &own;
  tl__arena_mark mark = tl__arena_get_mark(a);
  tl_target *t = tl__arena_alloc(a, sizeof *t);
  if (!t) goto oom;
  t->kind = kind;
  t->host = host;
  t->base = NULL;
  if (fill(t, a, !adopt, tag, keys, nkeys, attrs, nattrs) != TL_OK || render(t, a) != TL_OK) goto oom;
  tl__ref_init(&t->rc);
  tl_target_retain(host);
  t->arena = *a;
  tl__arena_init(a, 1024);
  *out = t;
  return TL_OK;
oom:
  if (adopt) tl__arena_rewind(adopt, mark);
  else tl__arena_free(&own);
  return tl__oom();
}

tl_target *tl_target_retain(const tl_target *t) {
  if (t) tl__ref_inc(&t->rc);
  return (tl_target *)t;
}

void tl_target_release(const tl_target *t) {
  /* Iterative along the host chain; a base has no base, so recursion is one deep. */
  while (t && tl__ref_dec(&t->rc)) {
    const tl_target *host = t->host, *base = t->base;
    tl__arena a = t->arena;
    tl__arena_free(&a);
    tl_target_release(base);
    t = host;
  }
}

tl_status tl_target_with_host(const tl_target *t, const tl_target *host, tl_target **out) {
  if (!out) return tl__error(TL_EINVAL, "tl_target_with_host: out is NULL");
  *out = NULL;
  if (!t) return tl__error(TL_EINVAL, "tl_target_with_host: target is NULL");
  const tl_target *base = t->base ? t->base : t;
  tl__arena a;
  tl__arena_init(&a, 512);
  tl_target *n = tl__arena_alloc(&a, sizeof *n);
  if (!n) return tl__oom();
  /* Field by field, not `*n = *base`: base's reference count is atomic and other
   * threads may be retaining base right now. */
  memset(n, 0, sizeof *n);
  n->kind = base->kind;
  n->tag = base->tag;
  n->keys = base->keys;
  n->nkeys = base->nkeys;
  n->attrs = base->attrs;
  n->nattrs = base->nattrs;
  n->host = host;
  n->base = base;
  if (render(n, &a) != TL_OK) {
    tl__arena_free(&a);
    return tl__oom();
  }
  tl__ref_init(&n->rc);
  tl_target_retain(host);
  tl_target_retain(base);
  n->arena = a;
  *out = n;
  return TL_OK;
}

tl_status tl__target_to_value(const tl_target *t, tl__arena *a, tl__tval *out) {
  size_t n = 3 + (t->host != NULL) + t->nattrs;
  tl__tmember *m = tl__arena_alloc(a, n * sizeof *m);
  tl__tval *keys = t->nkeys ? tl__arena_alloc(a, t->nkeys * sizeof *keys) : NULL;
  if (!m || (t->nkeys && !keys)) return tl__oom();
  for (size_t i = 0; i < t->nkeys; i++) keys[i] = tl__tv_str(t->keys[i]);
  size_t k = 0;
  m[k++] = (tl__tmember){"kind", tl__tv_str(t->kind->name)};
  m[k++] = (tl__tmember){"tag", tl__tv_str(t->tag)};
  m[k++] = (tl__tmember){"keys", {.type = TL__TV_ARRAY, .v.arr = {keys, t->nkeys}}};
  if (t->host) {
    m[k] = (tl__tmember){"host", {.type = TL__TV_NONE}};
    TL__TRY(tl__target_to_value(t->host, a, &m[k].val));
    k++;
  }
  for (size_t i = 0; i < t->nattrs; i++) m[k++] = t->attrs[i];
  *out = (tl__tval){.type = TL__TV_MAP, .v.map = {m, k, n}};
  return TL_OK;
}

/* ---- accessors ---- */

const char *tl_target_kind(const tl_target *t) { return t ? t->kind->name : NULL; }
const char *tl_target_tag(const tl_target *t) { return t ? t->tag : NULL; }
const char *tl_target_str(const tl_target *t) { return t ? t->str : NULL; }
const tl_target *tl_target_host(const tl_target *t) { return t ? t->host : NULL; }

char *tl_target_export(const tl_target *t) {
  if (!t) {
    tl__error(TL_EINVAL, "tl_target_export: target is NULL");
    return NULL;
  }
  char *s = tl__strndup(t->str, t->str_len);
  if (!s) tl__oom();
  return s;
}

char *tl_target_export_indent(const tl_target *t, int indent) {
  if (indent <= 0) return tl_target_export(t);
  if (!t) return tl_target_export(t);
  tl__arena a;
  tl__arena_init(&a, 1024);
  tl__tval v;
  char *s = NULL;
  if (tl__target_to_value(t, &a, &v) == TL_OK) s = tl__json_dump(&v, indent, true);
  tl__arena_free(&a);
  return s;
}

int tl_target_device_type(const tl_target *t) {
  if (!t) return -1;
  int64_t v;
  if (tl_target_attr_int(t, "target_device_type", &v)) return (int)v;
  return t->kind->device_type;
}

size_t tl_target_num_keys(const tl_target *t) { return t ? t->nkeys : 0; }
const char *tl_target_key(const tl_target *t, size_t i) { return t && i < t->nkeys ? t->keys[i] : NULL; }

bool tl_target_has_key(const tl_target *t, const char *key) {
  if (!t || !key) return false;
  for (size_t i = 0; i < t->nkeys; i++)
    if (strcmp(t->keys[i], key) == 0) return true;
  return false;
}

size_t tl_target_num_attrs(const tl_target *t) { return t ? t->nattrs : 0; }
const char *tl_target_attr_name(const tl_target *t, size_t i) { return t && i < t->nattrs ? t->attrs[i].key : NULL; }

/* The attribute named `name`, or NULL. */
static const tl__tval *find_attr(const tl_target *t, const char *name) {
  if (!t || !name) return NULL;
  for (size_t i = 0; i < t->nattrs; i++)
    if (strcmp(t->attrs[i].key, name) == 0) return &t->attrs[i].val;
  return NULL;
}

bool tl_target_has_attr(const tl_target *t, const char *name) { return find_attr(t, name) != NULL; }

bool tl_target_attr_str(const tl_target *t, const char *name, const char **out) {
  const tl__tval *v = find_attr(t, name);
  if (!v || v->type != TL__TV_STR) return false;
  if (out) *out = v->v.s;
  return true;
}

bool tl_target_attr_int(const tl_target *t, const char *name, int64_t *out) {
  const tl__tval *v = find_attr(t, name);
  if (!v || v->type != TL__TV_INT) return false;
  if (out) *out = v->v.i;
  return true;
}

bool tl_target_attr_bool(const tl_target *t, const char *name, bool *out) {
  const tl__tval *v = find_attr(t, name);
  if (!v || v->type != TL__TV_BOOL) return false;
  if (out) *out = v->v.b;
  return true;
}

size_t tl_target_attr_array(const tl_target *t, const char *name, const char **out, size_t cap) {
  const tl__tval *v = find_attr(t, name);
  if (!v || !tl__tv_is_str_array(v)) return 0;
  for (size_t i = 0; i < v->v.arr.n && i < cap; i++) out[i] = v->v.arr.items[i].v.s;
  return v->v.arr.n;
}

bool tl_target_equal(const tl_target *a, const tl_target *b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->str_len == b->str_len && memcmp(a->str, b->str, a->str_len) == 0;
}

uint64_t tl_target_hash(const tl_target *t) {
  return t ? tl__hash_bytes(t->str, t->str_len, 0x746172676574ull) : 0;
}
