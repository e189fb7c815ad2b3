/* The detector and normalizer registries (one lock each, registration order). */
#ifndef TL_TARGET_REGISTRY_H
#define TL_TARGET_REGISTRY_H

#include "tilelang/target.h"

typedef struct tl__target_registry tl__target_registry;
extern tl__target_registry tl__target_detectors;
extern tl__target_registry tl__target_normalizers;

/* One registered function, copied out so it can run without the lock. */
typedef struct tl__target_hook {
  const char *name; /* stable for the life of the process */
  union {
    tl_target_detect_fn detect;
    tl_target_normalize_fn normalize;
  } fn;
  void *user_data;
} tl__target_hook;

/* A copy of the registry's entries in order (*out is tl__free'd by the caller;
 * NULL when empty). TL_ENOMEM on failure. */
tl_status tl__target_registry_snapshot(tl__target_registry *r, tl__target_hook **out, size_t *n);

/* A counter that changes on every registration or override of a detector or
 * normalizer (never on failed calls). Thread-safe. */
uint64_t tl__target_hooks_generation(void);

#endif
