/* The backend manifest registry (upstream register_backend / get_backend /
 * list_backends): a name map in registration order and a per-kind index, under one
 * rwlock. Registration also publishes the manifest's codegens and hooks into the kind
 * registries and its callbacks as global functions; every step is undone if a later
 * one fails, so a failed registration leaves every registry exactly as it was. */
#include "backend/registry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backend/codegen_registries.h"
#include "backend/manifest.h"
#include "backend/message.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/init.h"
#include "base/map.h"
#include "base/vec.h"
#include "ffi/global_func.h"
#include "tilelang/backend_registry.h"

static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_INITIALIZER;
static tl__map g_by_name = TL__MAP_INIT; /* name -> const tl_backend_module*, registration order */
static tl__map g_by_kind = TL__MAP_INIT; /* kind -> tl__vec* of const tl_backend_module* */
/* Changes whenever the set of backends may have changed: a registration, or a lazy
 * registration whose import may register one (tl_backend_registry_generation). */
static atomic_uint_fast64_t g_generation;

void tl__backend_registry_changed(void) { atomic_fetch_add(&g_generation, 1); }

uint64_t tl_backend_registry_generation(void) { return (uint64_t)atomic_load(&g_generation); }

/* -------------------------------------------------------------- registration */

/* How far a registration got, to undo exactly that much. */
typedef struct progress {
  bool named;
  size_t kinds;          /* kinds indexed */
  size_t device;         /* device codegens published */
  size_t host;           /* host codegens published */
  size_t hook_lists;     /* hook lists fully published */
  size_t hooks;          /* hooks of the next list published */
} progress;

static void unindex_kind(const tl_backend_module *m, const char *kind) {
  tl__vec *v = tl__map_find(&g_by_kind, kind);
  if (!v) return;
  for (size_t i = v->len; i-- > 0;) {
    if (TL__VEC_AT(v, const tl_backend_module *, i) == m) {
      tl__vec_remove(v, i, NULL);
      break;
    }
  }
  if (v->len == 0) {
    tl__map_remove(&g_by_kind, kind, NULL);
    tl__vec_free(v);
    tl__free(v);
  }
}

static void undo(const tl_backend_module *m, const progress *p) {
  const tl_host_codegen_hooks_entry *hooks = m->host_codegen_hooks;
  for (size_t k = 0; k < p->hooks; k++)
    tl__component_unpublish(&tl__host_codegen_hooks, hooks[p->hook_lists].target_kind, hooks[p->hook_lists].hooks[k],
                            m->supports_target, m->predicate_data);
  for (size_t l = p->hook_lists; l-- > 0;)
    for (size_t k = 0; hooks[l].hooks[k]; k++)
      tl__component_unpublish(&tl__host_codegen_hooks, hooks[l].target_kind, hooks[l].hooks[k], m->supports_target,
                              m->predicate_data);
  for (size_t i = p->host; i-- > 0;)
    tl__component_unpublish(&tl__host_codegens, m->host_codegens[i].target_host_kind, m->host_codegens[i].codegen,
                            NULL, NULL);
  for (size_t i = p->device; i-- > 0;)
    tl__component_unpublish(&tl__device_codegens, m->device_codegens[i].target_kind, m->device_codegens[i].codegen,
                            m->supports_target, m->predicate_data);
  for (size_t i = p->kinds; i-- > 0;) unindex_kind(m, m->target_kinds[i]);
  if (p->named) tl__map_remove(&g_by_name, m->name, NULL);
}

/* Appends m to the index of `kind`, creating the index if needed. */
static tl_status index_kind(const tl_backend_module *m, const char *kind) {
  tl__vec *v = tl__map_find(&g_by_kind, kind);
  bool created = false;
  if (!v) {
    v = tl__malloc(sizeof *v);
    if (!v) return tl__oom();
    tl__vec_init(v, sizeof(const tl_backend_module *));
    created = true;
  }
  tl_status s = tl__vec_push(v, &m);
  if (s == TL_OK && created) {
    s = tl__map_put(&g_by_kind, kind, v, NULL);
    if (s != TL_OK) tl__vec_free(v);
  }
  if (s != TL_OK && created) tl__free(v);
  return s;
}

/* Every step after validation, with the write lock held. */
static tl_status register_locked(const tl_backend_module *m, progress *p) {
  TL__TRY(tl__map_put(&g_by_name, m->name, (void *)m, NULL));
  p->named = true;
  for (; m->target_kinds[p->kinds]; p->kinds++) TL__TRY(index_kind(m, m->target_kinds[p->kinds]));
  for (; m->device_codegens[p->device].target_kind; p->device++) {
    const tl_device_codegen_entry *e = &m->device_codegens[p->device];
    TL__TRY(tl__component_publish(&tl__device_codegens, e->target_kind, e->codegen, e->codegen->name,
                                  m->supports_target, m->predicate_data));
  }
  for (; m->host_codegens && m->host_codegens[p->host].target_host_kind; p->host++) {
    const tl_host_codegen_entry *e = &m->host_codegens[p->host];
    /* Host codegens match the host target, which the manifest's predicate (about the
     * device target) cannot judge: published unguarded, shared by every manifest
     * declaring the same codegen. */
    TL__TRY(tl__component_publish(&tl__host_codegens, e->target_host_kind, e->codegen, e->codegen->name, NULL, NULL));
  }
  for (; m->host_codegen_hooks && m->host_codegen_hooks[p->hook_lists].target_kind; p->hook_lists++, p->hooks = 0) {
    const tl_host_codegen_hooks_entry *e = &m->host_codegen_hooks[p->hook_lists];
    for (; e->hooks[p->hooks]; p->hooks++)
      TL__TRY(tl__component_publish(&tl__host_codegen_hooks, e->target_kind, e->hooks[p->hooks],
                                    e->hooks[p->hooks]->name, m->supports_target, m->predicate_data));
  }
  size_t ncallbacks = 0;
  while (m->callbacks && m->callbacks[ncallbacks].name) ncallbacks++;
  /* Last, and all at once: nothing after it can fail. */
  return tl__global_funcs_register_batch(m->callbacks, ncallbacks);
}

tl_status tl_register_backend(const tl_backend_module *m, const tl_backend_module **out) {
  TL__TRY(tl__ensure_builtins());
  if (out) *out = NULL;
  TL__TRY(tl__manifest_validate(m));
  pthread_rwlock_wrlock(&g_lock);
  const tl_backend_module *old = tl__map_find(&g_by_name, m->name);
  if (old) {
    pthread_rwlock_unlock(&g_lock);
    if (!tl__manifest_equal(old, m)) {
      tl__sb sb = TL__SB_INIT;
      tl__sb_append(&sb, "Backend ");
      tl__sb_repr(&sb, m->name);
      tl__sb_append(&sb, " is already registered with a different declaration");
      return tl__sb_error(TL_EEXIST, &sb);
    }
    if (out) *out = old;
    return TL_OK;
  }
  for (size_t i = 0; m->target_kinds[i]; i++) {
    tl__vec *v = tl__map_find(&g_by_kind, m->target_kinds[i]);
    for (size_t j = 0; v && j < v->len; j++) {
      const tl_backend_module *other = TL__VEC_AT(v, const tl_backend_module *, j);
      if (!other->supports_target || !m->supports_target) {
        pthread_rwlock_unlock(&g_lock);
        tl__sb sb = TL__SB_INIT;
        tl__sb_append(&sb, "Backends sharing target kind ");
        tl__sb_repr(&sb, m->target_kinds[i]);
        tl__sb_append(&sb, " must define supports_target predicates");
        return tl__sb_error(TL_EINVAL, &sb);
      }
    }
  }
  progress p;
  memset(&p, 0, sizeof p);
  tl_status s = register_locked(m, &p);
  if (s != TL_OK) undo(m, &p);
  else tl__backend_registry_changed();
  pthread_rwlock_unlock(&g_lock);
  if (s == TL_OK && out) *out = m;
  return s;
}

/* ------------------------------------------------------------------- lookup */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* "a, b" of the map's keys, sorted as Python's sorted(); "<none>" when empty. Called
 * with the lock held (read). */
static tl_status sorted_keys(const tl__map *map, tl__sb *sb) {
  size_t n = tl__map_len(map);
  if (n == 0) {
    tl__sb_append(sb, "<none>");
    return TL_OK;
  }
  const char **keys = tl__calloc(n, sizeof *keys);
  if (!keys) return tl__oom();
  for (size_t i = 0; i < n; i++) keys[i] = tl__map_key(map, i);
  qsort(keys, n, sizeof *keys, cmp_str);
  tl__sb_names(sb, keys, n, "<none>");
  tl__free(keys);
  return TL_OK;
}

tl_status tl_get_backend(const char *name, const tl_backend_module **out) {
  TL__TRY(tl__ensure_builtins());
  if (out) *out = NULL;
  if (!name) return tl__error(TL_EINVAL, "backend name must not be NULL");
  pthread_rwlock_rdlock(&g_lock);
  const tl_backend_module *m = tl__map_find(&g_by_name, name);
  if (!m) {
    /* A backend registered lazily (a device codegen's import path, such as the
     * opencl plugin's) is found as list_backends lists it: its plugin is imported
     * first. Only a miss pays for that. */
    pthread_rwlock_unlock(&g_lock);
    (void)tl__component_load_all(&tl__device_codegens);
    tl__error_clear();
    pthread_rwlock_rdlock(&g_lock);
    m = tl__map_find(&g_by_name, name);
  }
  if (m) {
    pthread_rwlock_unlock(&g_lock);
    if (out) *out = m;
    return TL_OK;
  }
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, "Unknown backend ");
  tl__sb_repr(&sb, name);
  tl__sb_append(&sb, ". Available: ");
  tl_status s = sorted_keys(&g_by_name, &sb);
  pthread_rwlock_unlock(&g_lock);
  if (s != TL_OK) {
    tl__sb_free(&sb);
    return s;
  }
  return tl__sb_error(TL_ENOTFOUND, &sb);
}

size_t tl_list_backends(const tl_backend_module **out, size_t cap) {
  if (tl__ensure_builtins() != TL_OK) return 0;
  /* Backends registered lazily (a device codegen's import path, such as the opencl
   * plugin's) are listed too: their plugins are imported first. One that fails to
   * load is left out (using its kind reports why). */
  (void)tl__component_load_all(&tl__device_codegens);
  pthread_rwlock_rdlock(&g_lock);
  size_t n = tl__map_len(&g_by_name);
  for (size_t i = 0; i < n && i < cap; i++) out[i] = tl__map_value(&g_by_name, i);
  pthread_rwlock_unlock(&g_lock);
  tl__error_clear();
  return n;
}

tl_status tl__backends_for_kind(const char *kind, const tl_backend_module **buf, size_t cap, size_t *n) {
  *n = 0;
  pthread_rwlock_rdlock(&g_lock);
  tl__vec *v = tl__map_find(&g_by_kind, kind);
  if (v) {
    *n = v->len;
    for (size_t i = 0; i < v->len && i < cap; i++) buf[i] = TL__VEC_AT(v, const tl_backend_module *, i);
    pthread_rwlock_unlock(&g_lock);
    return TL_OK;
  }
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, "No backend registered for target kind ");
  tl__sb_repr(&sb, kind);
  tl__sb_append(&sb, ". Available: ");
  tl_status s = sorted_keys(&g_by_kind, &sb);
  pthread_rwlock_unlock(&g_lock);
  if (s != TL_OK) {
    tl__sb_free(&sb);
    return s;
  }
  return tl__sb_error(TL_ENOTFOUND, &sb);
}
