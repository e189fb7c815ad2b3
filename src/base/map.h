/* An insertion-ordered hash map from strings to pointers (keys are copied).
 * Entries sit in an array in insertion order (iterate with tl__map_key/value by
 * index); an open-addressing index of entry positions makes lookups O(1). */
#ifndef TL_BASE_MAP_H
#define TL_BASE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilelang/base.h"

typedef struct tl__map_entry {
  char *key;
  void *value;
  uint64_t hash;
} tl__map_entry;

typedef struct tl__map {
  tl__map_entry *entries;
  size_t len, cap;
  uint32_t *slots; /* 0: empty; otherwise entry index + 1 */
  size_t nslots;   /* power of two, or 0 */
} tl__map;

#define TL__MAP_INIT {NULL, 0, 0, NULL, 0}

void tl__map_init(tl__map *m);
/* Inserts or replaces. On replace, the previous value goes to *old (if non-NULL) and
 * the entry keeps its position. TL_ENOMEM leaves the map unchanged. */
tl_status tl__map_put(tl__map *m, const char *key, void *value, void **old);
/* True if present; the value goes to *out (if non-NULL). */
bool tl__map_get(const tl__map *m, const char *key, void **out);
/* The value or NULL. */
void *tl__map_find(const tl__map *m, const char *key);
/* Removes the key, keeping the order of the others. */
bool tl__map_remove(tl__map *m, const char *key, void **old);
size_t tl__map_len(const tl__map *m);
const char *tl__map_key(const tl__map *m, size_t i);
void *tl__map_value(const tl__map *m, size_t i);
/* Frees keys and storage; calls free_value on each value if non-NULL. */
void tl__map_free(tl__map *m, void (*free_value)(void *));

#endif
