/* Hashing (XXH3 from xxhash). Stable across runs and machines of one endianness,
 * so hashes may key on-disk caches. */
#ifndef TL_BASE_HASH_H
#define TL_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t tl__hash_bytes(const void *data, size_t len, uint64_t seed);
uint64_t tl__hash_str(const char *s, uint64_t seed); /* NULL hashes like "" with a different seed */
/* Order-dependent combination of two hashes. */
uint64_t tl__hash_combine(uint64_t a, uint64_t b);

/* Incremental hashing of a sequence of values (for structural hashes). */
typedef struct tl__hasher {
  uint64_t h;
} tl__hasher;
void tl__hasher_init(tl__hasher *hs, uint64_t seed);
void tl__hasher_bytes(tl__hasher *hs, const void *data, size_t len);
void tl__hasher_u64(tl__hasher *hs, uint64_t v);
void tl__hasher_str(tl__hasher *hs, const char *s);
uint64_t tl__hasher_done(const tl__hasher *hs);

/* 128-bit hash of data as 32 lowercase hex digits plus NUL (cache keys). */
void tl__hash128_hex(const void *data, size_t len, char out[33]);

#endif
