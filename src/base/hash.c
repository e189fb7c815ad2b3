#include "hash.h"

#include <stdio.h>
#include <string.h>

/* Header-only xxhash: no link-time dependency for users of the static library. */
#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t tl__hash_bytes(const void *data, size_t len, uint64_t seed) {
  return (uint64_t)XXH3_64bits_withSeed(data, len, (XXH64_hash_t)seed);
}

uint64_t tl__hash_str(const char *s, uint64_t seed) {
  if (!s) return tl__hash_bytes("", 0, seed ^ 0x9e3779b97f4a7c15ull);
  return tl__hash_bytes(s, strlen(s), seed);
}

uint64_t tl__hash_combine(uint64_t a, uint64_t b) {
  uint64_t v[2] = {a, b};
  return tl__hash_bytes(v, sizeof v, 0x5bd1e995ull);
}

void tl__hasher_init(tl__hasher *hs, uint64_t seed) { hs->h = seed ^ 0xcbf29ce484222325ull; }

void tl__hasher_bytes(tl__hasher *hs, const void *data, size_t len) {
  /* Length first, so ("ab","c") and ("a","bc") differ. */
  uint64_t n = len;
  hs->h = tl__hash_bytes(&n, sizeof n, hs->h);
  hs->h = tl__hash_bytes(data, len, hs->h);
}

void tl__hasher_u64(tl__hasher *hs, uint64_t v) { hs->h = tl__hash_bytes(&v, sizeof v, hs->h); }

void tl__hasher_str(tl__hasher *hs, const char *s) {
  if (!s) {
    tl__hasher_u64(hs, 0xffffffffffffffffull);
    return;
  }
  tl__hasher_bytes(hs, s, strlen(s));
}

uint64_t tl__hasher_done(const tl__hasher *hs) { return hs->h; }

void tl__hash128_hex(const void *data, size_t len, char out[33]) {
  XXH128_hash_t h = XXH3_128bits(data, len);
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}
