/* A small cache of resolved targets for create_backend_context: (target spec, host
 * spec) -> (target with its host attached, host). Resolving a target string (the
 * normalizers, then parsing, then attaching the host) costs microseconds and gives
 * the same immutable result for the same strings, so contexts created again for
 * the same strings reuse it. */
#ifndef TL_BACKEND_TARGET_CACHE_H
#define TL_BACKEND_TARGET_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "tilelang/target.h"

/* What a cached resolution depends on besides its strings: the target detectors and
 * normalizers registered (counted), and TILELANG_DEFAULT_TARGET for "auto". */
typedef struct tl__target_cache_key {
  const char *target;      /* NULL: "auto" */
  const char *target_host; /* NULL: the target's own host, else "c" */
  const char *default_target_env;
  uint64_t hooks;          /* (detectors << 32) | normalizers */
} tl__target_cache_key;

/* Fills the key's dependencies for the current state. */
void tl__target_cache_key_init(tl__target_cache_key *k, const char *target, const char *target_host);

/* On a hit, new references to the cached target (host attached) and host. */
bool tl__target_cache_get(const tl__target_cache_key *k, tl_target **target, tl_target **host);

/* Remembers a resolution (takes its own references). Keys too long for an entry are
 * not cached. Never allocates, never fails. */
void tl__target_cache_put(const tl__target_cache_key *k, const tl_target *target, const tl_target *host);

#endif
