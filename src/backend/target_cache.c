/* The resolved-target cache of create_backend_context (see target_cache.h).
 *
 * Validity: tl_determine_target is a function of its string, of the normalizers
 * registered (and, for "auto", of TILELANG_DEFAULT_TARGET and the detectors); parsing
 * and attaching a host are pure. An entry records the detector and normalizer
 * registries' generation (which changes on every registration, overrides
 * included) and the environment value, so registering or replacing a detector or
 * normalizer, or changing the variable, makes old entries miss.
 *
 * Fixed storage (no allocation): a few entries replaced round-robin, under a rwlock. */
#include "backend/target_cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/env.h"
#include "base/hash.h"
#include "target/registry.h"

#define ENTRIES 16
#define KEY_MAX 512

typedef struct entry {
  uint64_t hash, hooks;
  size_t len;         /* 0: empty */
  char key[KEY_MAX];  /* the serialized strings */
  tl_target *target;  /* with host */
  tl_target *host;
} entry;

static pthread_rwlock_t g_lock = PTHREAD_RWLOCK_INITIALIZER;
static entry g_entries[ENTRIES];
static atomic_uint g_next;

void tl__target_cache_key_init(tl__target_cache_key *k, const char *target, const char *target_host) {
  k->target = target && strcmp(target, "auto") != 0 ? target : NULL;
  k->target_host = target_host;
  k->default_target_env = k->target ? NULL : tl__env("TILELANG_DEFAULT_TARGET");
  k->hooks = tl__target_hooks_generation();
}

/* Appends a tagged string (tag byte, then the text and its NUL); false if full. */
static bool append(char *buf, size_t *len, const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (*len + n + 2 > KEY_MAX) return false;
  buf[(*len)++] = s ? 'S' : 'N';
  if (n) memcpy(buf + *len, s, n);
  *len += n;
  buf[(*len)++] = '\0';
  return true;
}

static bool serialize(const tl__target_cache_key *k, char *buf, size_t *len, uint64_t *hash) {
  *len = 0;
  if (!append(buf, len, k->target) || !append(buf, len, k->target_host) || !append(buf, len, k->default_target_env))
    return false;
  *hash = tl__hash_bytes(buf, *len, k->hooks);
  return true;
}

static entry *find(const char *key, size_t len, uint64_t hash, uint64_t hooks) {
  for (size_t i = 0; i < ENTRIES; i++) {
    entry *e = &g_entries[i];
    if (e->len == len && e->hash == hash && e->hooks == hooks && memcmp(e->key, key, len) == 0) return e;
  }
  return NULL;
}

bool tl__target_cache_get(const tl__target_cache_key *k, tl_target **target, tl_target **host) {
  char key[KEY_MAX];
  size_t len;
  uint64_t hash;
  if (!serialize(k, key, &len, &hash)) return false;
  pthread_rwlock_rdlock(&g_lock);
  entry *e = find(key, len, hash, k->hooks);
  if (e) {
    *target = tl_target_retain(e->target);
    *host = tl_target_retain(e->host);
  }
  pthread_rwlock_unlock(&g_lock);
  return e != NULL;
}

void tl__target_cache_put(const tl__target_cache_key *k, const tl_target *target, const tl_target *host) {
  char key[KEY_MAX];
  size_t len;
  uint64_t hash;
  if (!serialize(k, key, &len, &hash)) return;
  tl_target *old_target = NULL, *old_host = NULL;
  pthread_rwlock_wrlock(&g_lock);
  if (!find(key, len, hash, k->hooks)) {
    entry *e = &g_entries[atomic_fetch_add_explicit(&g_next, 1, memory_order_relaxed) % ENTRIES];
    old_target = e->target;
    old_host = e->host;
    e->hash = hash;
    e->hooks = k->hooks;
    e->len = len;
    memcpy(e->key, key, len);
    e->target = tl_target_retain(target);
    e->host = tl_target_retain(host);
  }
  pthread_rwlock_unlock(&g_lock);
  tl_target_release(old_target);
  tl_target_release(old_host);
}
