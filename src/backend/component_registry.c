/* Registries of named components per target kind (see component_registry.h). */
#include "backend/component_registry.h"

#include <string.h>

#include "backend/message.h"
#include "backend/plugin_loader.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "base/vec.h"

typedef struct kind_slot {
  tl__vec entries; /* tl__component_entry, registration order */
  char *lazy_path; /* import path to load before the first lookup, or NULL */
  bool loaded;     /* lazy_path has been imported (meaningless without one) */
} kind_slot;

#define ENTRY(slot, i) TL__VEC_AT(&(slot)->entries, tl__component_entry, i)

void tl__component_matches_free(tl__component_matches *m) {
  if (m->items != m->inline_items) tl__free(m->items);
  m->items = m->inline_items;
  m->len = 0;
}

static void matches_init(tl__component_matches *m) {
  m->items = m->inline_items;
  m->len = 0;
}

/* The slot of `kind`, created if `create`; NULL (and TL_ENOMEM set if creating). */
static kind_slot *get_slot(tl__component_registry *r, const char *kind, bool create, bool *created) {
  if (created) *created = false;
  kind_slot *slot = tl__map_find(&r->kinds, kind);
  if (slot || !create) return slot;
  slot = tl__calloc(1, sizeof *slot);
  if (!slot) {
    tl__oom();
    return NULL;
  }
  tl__vec_init(&slot->entries, sizeof(tl__component_entry));
  if (tl__map_put(&r->kinds, kind, slot, NULL) != TL_OK) {
    tl__free(slot);
    return NULL;
  }
  if (created) *created = true;
  return slot;
}

/* Drops a slot that holds nothing (no entries, no lazy path). */
static void drop_slot_if_empty(tl__component_registry *r, const char *kind, kind_slot *slot) {
  if (slot->entries.len || slot->lazy_path) return;
  tl__map_remove(&r->kinds, kind, NULL);
  tl__vec_free(&slot->entries);
  tl__free(slot);
}

static tl_status check_kind(const char *kind) {
  if (!kind || !*kind) return tl__error(TL_EINVAL, "target kind must not be empty");
  return TL_OK;
}

tl_status tl__component_register(tl__component_registry *r, const char *kind, const void *component,
                                 const char *name, bool override) {
  TL__TRY(check_kind(kind));
  tl_status s = TL_OK;
  pthread_rwlock_wrlock(&r->lock);
  bool created;
  kind_slot *slot = get_slot(r, kind, true, &created);
  if (!slot) {
    pthread_rwlock_unlock(&r->lock);
    return tl__oom();
  }
  bool taken = false;
  for (size_t i = 0; i < slot->entries.len; i++)
    if (strcmp(ENTRY(slot, i).name, name) == 0) taken = true;
  if (taken && !override) {
    tl__sb sb = TL__SB_INIT;
    tl__sb_appendf(&sb, "%s ", r->what);
    tl__sb_repr(&sb, name);
    tl__sb_append(&sb, " is already registered for target kind ");
    tl__sb_repr(&sb, kind);
    s = tl__sb_error(TL_EEXIST, &sb);
  } else {
    /* Room first, so that removing the old entries cannot be followed by a failure. */
    s = tl__vec_reserve(&slot->entries, slot->entries.len + 1);
    if (s == TL_OK) {
      for (size_t i = slot->entries.len; i-- > 0;)
        if (strcmp(ENTRY(slot, i).name, name) == 0) tl__vec_remove(&slot->entries, i, NULL);
      tl__component_entry e = {name, component, NULL, NULL, true, 0};
      s = tl__vec_push(&slot->entries, &e); /* capacity reserved: cannot fail */
    }
  }
  if (s != TL_OK && created) drop_slot_if_empty(r, kind, slot);
  pthread_rwlock_unlock(&r->lock);
  return s;
}

static bool same_entry(const tl__component_entry *e, const void *component, tl_target_predicate guard,
                       void *guard_data) {
  return e->component == component && e->guard == guard && e->guard_data == guard_data;
}

tl_status tl__component_publish(tl__component_registry *r, const char *kind, const void *component,
                                const char *name, tl_target_predicate guard, void *guard_data) {
  TL__TRY(check_kind(kind));
  pthread_rwlock_wrlock(&r->lock);
  bool created;
  kind_slot *slot = get_slot(r, kind, true, &created);
  if (!slot) {
    pthread_rwlock_unlock(&r->lock);
    return tl__oom();
  }
  tl_status s = TL_OK;
  size_t i = 0;
  for (; i < slot->entries.len; i++)
    if (same_entry(&ENTRY(slot, i), component, guard, guard_data)) break;
  if (i < slot->entries.len) {
    ENTRY(slot, i).publications++;
  } else {
    tl__component_entry e = {name, component, guard, guard_data, false, 1};
    s = tl__vec_push(&slot->entries, &e);
    if (s != TL_OK && created) drop_slot_if_empty(r, kind, slot);
  }
  pthread_rwlock_unlock(&r->lock);
  return s;
}

void tl__component_unpublish(tl__component_registry *r, const char *kind, const void *component,
                             tl_target_predicate guard, void *guard_data) {
  pthread_rwlock_wrlock(&r->lock);
  kind_slot *slot = get_slot(r, kind, false, NULL);
  if (slot) {
    for (size_t i = slot->entries.len; i-- > 0;) {
      tl__component_entry *e = &ENTRY(slot, i);
      if (!same_entry(e, component, guard, guard_data) || e->publications == 0) continue;
      if (--e->publications == 0 && !e->direct) tl__vec_remove(&slot->entries, i, NULL);
      break;
    }
    drop_slot_if_empty(r, kind, slot);
  }
  pthread_rwlock_unlock(&r->lock);
}

tl_status tl__component_set_lazy(tl__component_registry *r, const char *kind, const char *import_path) {
  TL__TRY(check_kind(kind));
  TL__TRY(tl__plugin_check_path(import_path));
  char *path = tl__strdup(import_path);
  if (!path) return tl__oom();
  pthread_rwlock_wrlock(&r->lock);
  kind_slot *slot = get_slot(r, kind, true, NULL);
  if (!slot) {
    pthread_rwlock_unlock(&r->lock);
    tl__free(path);
    return tl__oom();
  }
  tl__free(slot->lazy_path);
  slot->lazy_path = path;
  slot->loaded = false;
  pthread_rwlock_unlock(&r->lock);
  return TL_OK;
}

/* Imports the kind's lazy path if it has one not yet loaded. The import runs with no
 * lock held; the kind is marked loaded only if its path is still the one imported. */
tl_status tl__component_ensure_loaded(tl__component_registry *r, const char *kind) {
  char *path = NULL;
  pthread_rwlock_rdlock(&r->lock);
  kind_slot *slot = get_slot(r, kind, false, NULL);
  bool pending = slot && slot->lazy_path && !slot->loaded;
  if (pending) path = tl__strdup(slot->lazy_path);
  pthread_rwlock_unlock(&r->lock);
  if (!pending) return TL_OK;
  if (!path) return tl__oom();
  tl_status s = tl__plugin_import(path);
  if (s == TL_OK) {
    pthread_rwlock_wrlock(&r->lock);
    slot = get_slot(r, kind, false, NULL);
    if (slot && slot->lazy_path && strcmp(slot->lazy_path, path) == 0) slot->loaded = true;
    pthread_rwlock_unlock(&r->lock);
  }
  tl__free(path);
  return s;
}

tl_status tl__component_load_all(tl__component_registry *r) {
  /* The kinds with a pending path, copied out first: imports run without the lock. */
  tl__vec kinds = TL__VEC_INIT(char *);
  tl_status s = TL_OK;
  pthread_rwlock_rdlock(&r->lock);
  for (size_t i = 0; i < tl__map_len(&r->kinds) && s == TL_OK; i++) {
    kind_slot *slot = tl__map_value(&r->kinds, i);
    if (!slot->lazy_path || slot->loaded) continue;
    char *k = tl__strdup(tl__map_key(&r->kinds, i));
    s = k ? tl__vec_push(&kinds, &k) : tl__oom();
    if (s != TL_OK) tl__free(k);
  }
  pthread_rwlock_unlock(&r->lock);
  for (size_t i = 0; i < kinds.len; i++) {
    char *k = TL__VEC_AT(&kinds, char *, i);
    tl_status si = tl__component_ensure_loaded(r, k);
    if (si != TL_OK) s = si; /* every kind is tried; the last failure is reported */
    tl__free(k);
  }
  tl__vec_free(&kinds);
  return s;
}

/* Copies the kind's entries out under the read lock. */
static tl_status snapshot(tl__component_registry *r, const char *kind, tl__component_entry *buf, size_t cap,
                          tl__component_entry **out, size_t *n) {
  *out = buf;
  *n = 0;
  pthread_rwlock_rdlock(&r->lock);
  kind_slot *slot = get_slot(r, kind, false, NULL);
  size_t len = slot ? slot->entries.len : 0;
  if (len > cap) {
    *out = tl__malloc(len * sizeof **out);
    if (!*out) {
      pthread_rwlock_unlock(&r->lock);
      *out = buf;
      return tl__oom();
    }
  }
  if (len) memcpy(*out, slot->entries.data, len * sizeof **out);
  *n = len;
  pthread_rwlock_unlock(&r->lock);
  return TL_OK;
}

tl_status tl__component_matching(tl__component_registry *r, const tl_target *target, tl__component_matches *out) {
  matches_init(out);
  if (!target) return tl__error(TL_EINVAL, "target must not be NULL");
  const char *kind = tl_target_kind(target);
  TL__TRY(tl__component_ensure_loaded(r, kind));
  tl__component_entry buf[TL__MATCHES_INLINE], *entries;
  size_t n;
  TL__TRY(snapshot(r, kind, buf, TL__MATCHES_INLINE, &entries, &n));
  if (n > TL__MATCHES_INLINE) {
    out->items = tl__malloc(n * sizeof *out->items);
    if (!out->items) {
      out->items = out->inline_items;
      tl__free(entries);
      return tl__oom();
    }
  }
  for (size_t i = 0; i < n; i++) {
    const tl__component_entry *e = &entries[i];
    if (e->guard && !e->guard(target, e->guard_data)) continue;
    if (!r->matches(e->component, target)) continue;
    out->items[out->len++] = e->component;
  }
  if (entries != buf) tl__free(entries);
  return TL_OK;
}

/* The message for a kind with no match: every registered name, each once. */
static tl_status no_match_error(tl__component_registry *r, const char *kind) {
  tl__component_entry buf[TL__MATCHES_INLINE], *entries;
  size_t n;
  TL__TRY(snapshot(r, kind, buf, TL__MATCHES_INLINE, &entries, &n));
  tl__sb names = TL__SB_INIT;
  size_t listed = 0;
  for (size_t i = 0; i < n; i++) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) seen = strcmp(entries[j].name, entries[i].name) == 0;
    if (seen) continue;
    if (listed++) tl__sb_append(&names, ", ");
    tl__sb_append(&names, entries[i].name);
  }
  if (entries != buf) tl__free(entries);
  if (names.failed) {
    tl__sb_free(&names);
    return tl__oom();
  }
  tl__error(TL_ENOTFOUND, "No %s '%s'. Available: %s.", r->no_match, kind, listed ? tl__sb_str(&names) : "<none>");
  tl__sb_free(&names);
  return TL_ENOTFOUND;
}

tl_status tl__component_resolve(tl__component_registry *r, const tl_target *target, const void **out) {
  if (!out) return tl__error(TL_EINVAL, "out must not be NULL");
  *out = NULL;
  tl__component_matches m;
  TL__TRY(tl__component_matching(r, target, &m));
  if (m.len) *out = m.items[0];
  tl__component_matches_free(&m);
  if (*out) return TL_OK;
  return no_match_error(r, tl_target_kind(target));
}

size_t tl__component_allowed(tl__component_registry *r, const tl_target *target, const char **names, size_t cap) {
  tl__component_matches m;
  if (tl__component_matching(r, target, &m) != TL_OK) return 0;
  size_t n = m.len;
  /* Every component type starts with its name. */
  for (size_t i = 0; i < n && i < cap; i++) names[i] = *(const char *const *)m.items[i];
  tl__component_matches_free(&m);
  tl__error_clear();
  return n;
}

size_t tl__component_count(tl__component_registry *r, const char *kind) {
  pthread_rwlock_rdlock(&r->lock);
  kind_slot *slot = get_slot(r, kind, false, NULL);
  size_t n = slot ? slot->entries.len : 0;
  pthread_rwlock_unlock(&r->lock);
  return n;
}
