/* Detector and normalizer registries, as upstream's ordered dicts
 * (tilelang/backend/target.py): registration order, override replaces in place.
 * Entries are never removed, so names handed out stay valid. */
#include "registry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/init.h"
#include "base/map.h"

struct tl__target_registry {
  const char *what; /* "detector" or "normalizer", for messages */
  pthread_mutex_t lock;
  tl__map entries; /* name -> tl__target_hook* */
};

tl__target_registry tl__target_detectors = {"detector", PTHREAD_MUTEX_INITIALIZER, TL__MAP_INIT};
tl__target_registry tl__target_normalizers = {"normalizer", PTHREAD_MUTEX_INITIALIZER, TL__MAP_INIT};

/* Changes whenever any detector or normalizer is added or replaced, so caches of
 * determine_target results (src/backend/target_cache.c) can tell they are stale. */
static atomic_uint_fast64_t g_generation;

uint64_t tl__target_hooks_generation(void) { return atomic_load_explicit(&g_generation, memory_order_acquire); }

static tl_status reg_add(tl__target_registry *r, const char *name, tl__target_hook hook, bool override) {
  TL__TRY(tl__ensure_builtins());
  if (!name || !*name) return tl__error(TL_EINVAL, "Target %s name must be a non-empty string", r->what);
  pthread_mutex_lock(&r->lock);
  tl_status s = TL_OK;
  tl__target_hook *e = tl__map_find(&r->entries, name);
  if (e) {
    bool same = e->fn.detect == hook.fn.detect && e->user_data == hook.user_data;
    if (!same && !override) s = tl__error(TL_EEXIST, "Target %s '%s' is already registered", r->what, name);
    else if (!same) {
      e->fn = hook.fn, e->user_data = hook.user_data;
      atomic_fetch_add_explicit(&g_generation, 1, memory_order_acq_rel);
    }
  } else {
    e = tl__malloc(sizeof *e);
    if (!e) {
      s = tl__oom();
    } else {
      *e = hook;
      s = tl__map_put(&r->entries, name, e, NULL);
      if (s == TL_OK) {
        e->name = tl__map_key(&r->entries, tl__map_len(&r->entries) - 1);
        atomic_fetch_add_explicit(&g_generation, 1, memory_order_acq_rel);
      } else {
        tl__free(e);
      }
    }
  }
  pthread_mutex_unlock(&r->lock);
  return s;
}

tl_status tl_register_target_detector(const char *name, tl_target_detect_fn fn, void *user_data, bool override) {
  if (!fn) return tl__error(TL_EINVAL, "Target detector '%s' has no function", name ? name : "(null)");
  tl__target_hook h = {.fn.detect = fn, .user_data = user_data};
  return reg_add(&tl__target_detectors, name, h, override);
}

tl_status tl_register_target_normalizer(const char *name, tl_target_normalize_fn fn, void *user_data, bool override) {
  if (!fn) return tl__error(TL_EINVAL, "Target normalizer '%s' has no function", name ? name : "(null)");
  tl__target_hook h = {.fn.normalize = fn, .user_data = user_data};
  return reg_add(&tl__target_normalizers, name, h, override);
}

static size_t reg_list(tl__target_registry *r, const char **out, size_t cap) {
  (void)tl__ensure_builtins(); /* on failure, list what is there */
  pthread_mutex_lock(&r->lock);
  size_t n = tl__map_len(&r->entries);
  for (size_t i = 0; i < n && i < cap; i++) out[i] = tl__map_key(&r->entries, i);
  pthread_mutex_unlock(&r->lock);
  return n;
}

size_t tl_list_target_detectors(const char **out, size_t cap) { return reg_list(&tl__target_detectors, out, cap); }
size_t tl_list_target_normalizers(const char **out, size_t cap) { return reg_list(&tl__target_normalizers, out, cap); }

tl_status tl__target_registry_snapshot(tl__target_registry *r, tl__target_hook **out, size_t *n) {
  *out = NULL;
  *n = 0;
  pthread_mutex_lock(&r->lock);
  size_t len = tl__map_len(&r->entries);
  tl_status s = TL_OK;
  if (len) {
    tl__target_hook *copy = tl__malloc(len * sizeof *copy);
    if (!copy) {
      s = tl__oom();
    } else {
      for (size_t i = 0; i < len; i++) copy[i] = *(tl__target_hook *)tl__map_value(&r->entries, i);
      *out = copy;
      *n = len;
    }
  }
  pthread_mutex_unlock(&r->lock);
  return s;
}
