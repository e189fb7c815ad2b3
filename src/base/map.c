#include "map.h"

#include <string.h>

#include "alloc.h"
#include "error.h"
#include "hash.h"

void tl__map_init(tl__map *m) { *m = (tl__map)TL__MAP_INIT; }

static uint64_t key_hash(const char *key) { return tl__hash_str(key, 0x6d6170ull); }

/* The slot holding `key`, or the empty slot where it would go. */
static size_t find_slot(const tl__map *m, const char *key, uint64_t h) {
  size_t mask = m->nslots - 1;
  for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
    uint32_t s = m->slots[i];
    if (s == 0) return i;
    const tl__map_entry *e = &m->entries[s - 1];
    if (e->hash == h && strcmp(e->key, key) == 0) return i;
  }
}

/* Rebuilds the index with at least `nslots` slots (a power of two). */
static tl_status rebuild(tl__map *m, size_t nslots) {
  uint32_t *slots = tl__calloc(nslots, sizeof *slots);
  if (!slots) return tl__oom();
  tl__free(m->slots);
  m->slots = slots;
  m->nslots = nslots;
  for (size_t i = 0; i < m->len; i++) {
    size_t j = find_slot(m, m->entries[i].key, m->entries[i].hash);
    m->slots[j] = (uint32_t)(i + 1);
  }
  return TL_OK;
}

tl_status tl__map_put(tl__map *m, const char *key, void *value, void **old) {
  uint64_t h = key_hash(key);
  if (m->nslots) {
    size_t j = find_slot(m, key, h);
    if (m->slots[j]) {
      tl__map_entry *e = &m->entries[m->slots[j] - 1];
      if (old) *old = e->value;
      e->value = value;
      return TL_OK;
    }
  }
  if (old) *old = NULL;
  if (m->len >= UINT32_MAX - 1) return tl__error(TL_EINTERNAL, "map is full");
  /* Keep the load factor under 1/2. */
  if ((m->len + 1) * 2 > m->nslots) {
    size_t n = m->nslots ? m->nslots * 2 : 16;
    while ((m->len + 1) * 2 > n) n *= 2;
    TL__TRY(rebuild(m, n));
  }
  if (m->len == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 8;
    tl__map_entry *e = tl__realloc(m->entries, cap * sizeof *e);
    if (!e) return tl__oom();
    m->entries = e;
    m->cap = cap;
  }
  char *k = tl__strdup(key);
  if (!k) return tl__oom();
  size_t j = find_slot(m, key, h);
  m->entries[m->len] = (tl__map_entry){k, value, h};
  m->slots[j] = (uint32_t)(m->len + 1);
  m->len++;
  return TL_OK;
}

bool tl__map_get(const tl__map *m, const char *key, void **out) {
  if (!m->nslots || !key) return false;
  size_t j = find_slot(m, key, key_hash(key));
  if (!m->slots[j]) return false;
  if (out) *out = m->entries[m->slots[j] - 1].value;
  return true;
}

void *tl__map_find(const tl__map *m, const char *key) {
  void *v = NULL;
  return tl__map_get(m, key, &v) ? v : NULL;
}

bool tl__map_remove(tl__map *m, const char *key, void **old) {
  if (!m->nslots || !key) return false;
  size_t j = find_slot(m, key, key_hash(key));
  if (!m->slots[j]) return false;
  size_t idx = m->slots[j] - 1;
  if (old) *old = m->entries[idx].value;
  tl__free(m->entries[idx].key);
  memmove(&m->entries[idx], &m->entries[idx + 1], (m->len - idx - 1) * sizeof *m->entries);
  m->len--;
  /* Reindex in place: clear the table and reinsert (cannot fail: no allocation). */
  memset(m->slots, 0, m->nslots * sizeof *m->slots);
  for (size_t i = 0; i < m->len; i++) m->slots[find_slot(m, m->entries[i].key, m->entries[i].hash)] = (uint32_t)(i + 1);
  return true;
}

size_t tl__map_len(const tl__map *m) { return m->len; }
const char *tl__map_key(const tl__map *m, size_t i) { return i < m->len ? m->entries[i].key : NULL; }
void *tl__map_value(const tl__map *m, size_t i) { return i < m->len ? m->entries[i].value : NULL; }

void tl__map_free(tl__map *m, void (*free_value)(void *)) {
  for (size_t i = 0; i < m->len; i++) {
    if (free_value) free_value(m->entries[i].value);
    tl__free(m->entries[i].key);
  }
  tl__free(m->entries);
  tl__free(m->slots);
  tl__map_init(m);
}
