/* A registry of named components per target kind: the shape shared by the device
 * codegen, host codegen and host codegen hook registries of upstream's seeds
 * (register with override, lazy import per kind, resolve = first match).
 *
 * An entry is either registered directly (tl_register_device_codegen & co., with
 * upstream's name rules) or published by a backend manifest, guarded by the
 * manifest's predicate. Published entries never conflict: a manifest publishing the
 * same component under the same guard as an existing entry shares it (a count), and
 * entries of different manifests may share a name, their guards telling them apart.
 *
 * One rwlock per registry. No component function or predicate runs with it held:
 * lookups copy the kind's entries out first (descriptors live for the process). */
#ifndef TL_BACKEND_COMPONENT_REGISTRY_H
#define TL_BACKEND_COMPONENT_REGISTRY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/map.h"
#include "tilelang/backend.h"

typedef struct tl__component_entry {
  const char *name;      /* borrowed from the descriptor */
  const void *component; /* the descriptor */
  tl_target_predicate guard; /* the publishing manifest's predicate; NULL: none */
  void *guard_data;
  bool direct;           /* registered directly */
  size_t publications;   /* manifests that published it */
} tl__component_entry;

typedef struct tl__component_registry {
  pthread_rwlock_t lock;
  tl__map kinds;         /* target kind -> kind slot (component_registry.c) */
  const char *what;      /* "Device codegen", "Host codegen", "Host codegen hook" */
  const char *no_match;  /* "device codegen registered for target": "No <that> 'k'. Available: a, b." */
  bool (*matches)(const void *component, const tl_target *target);
} tl__component_registry;

#define TL__COMPONENT_REGISTRY_INIT(what, no_match, matches) \
  {PTHREAD_RWLOCK_INITIALIZER, TL__MAP_INIT, what, no_match, matches}

/* A snapshot of matching entries: a few inline, more on the heap. */
#define TL__MATCHES_INLINE 8
typedef struct tl__component_matches {
  const void **items;
  size_t len;
  const void *inline_items[TL__MATCHES_INLINE];
} tl__component_matches;
void tl__component_matches_free(tl__component_matches *m);

/* Direct registration with upstream's rules: a name already registered for the kind
 * is TL_EEXIST ("<what> 'x' is already registered for target kind 'k'") unless
 * override, which removes every entry of that name and appends this one. */
tl_status tl__component_register(tl__component_registry *r, const char *kind, const void *component,
                                 const char *name, bool override);
/* Publication by a manifest (see above); TL_ENOMEM leaves the registry unchanged. */
tl_status tl__component_publish(tl__component_registry *r, const char *kind, const void *component,
                                const char *name, tl_target_predicate guard, void *guard_data);
/* Undoes one tl__component_publish exactly (entry and kind slot included). */
void tl__component_unpublish(tl__component_registry *r, const char *kind, const void *component,
                             tl_target_predicate guard, void *guard_data);
/* Records the kind's import path and marks the kind not loaded. */
tl_status tl__component_set_lazy(tl__component_registry *r, const char *kind, const char *import_path);
/* Imports the kind's lazy path if one is registered and not yet loaded (with no lock
 * held; a failure is the import's error, and a later call tries again). */
tl_status tl__component_ensure_loaded(tl__component_registry *r, const char *kind);
/* Imports the pending lazy path of every kind. Every kind is tried; returns the last
 * failure. */
tl_status tl__component_load_all(tl__component_registry *r);
/* The components of the target's kind that match it (guard and component predicate),
 * in registration order, after importing the kind's lazy path if not yet done. */
tl_status tl__component_matching(tl__component_registry *r, const tl_target *target, tl__component_matches *out);
/* The first match, or TL_ENOTFOUND with the registry's no_match message. */
tl_status tl__component_resolve(tl__component_registry *r, const tl_target *target, const void **out);
/* Names of matching components (see tl_allowed_device_codegens_for_target). */
size_t tl__component_allowed(tl__component_registry *r, const tl_target *target, const char **names, size_t cap);
/* Number of entries for the kind and whether it has a slot (tests, rollback checks). */
size_t tl__component_count(tl__component_registry *r, const char *kind);

#endif
