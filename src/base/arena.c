#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "alloc.h"

struct tl__arena_chunk {
  tl__arena_chunk *next;
  size_t size;   /* usable bytes in data */
  size_t offset; /* bytes used */
  alignas(max_align_t) unsigned char data[];
};

#define ALIGN (alignof(max_align_t))

void tl__arena_init(tl__arena *a, size_t chunk_size) {
  a->head = NULL;
  a->chunk_size = chunk_size ? chunk_size : 16384;
  a->used = 0;
}

void *tl__arena_alloc(tl__arena *a, size_t n) {
  if (n > SIZE_MAX - ALIGN) return NULL;
  n = (n + ALIGN - 1) & ~(ALIGN - 1);
  if (n == 0) n = ALIGN;
  tl__arena_chunk *c = a->head;
  if (!c || c->size - c->offset < n) {
    size_t size = n > a->chunk_size ? n : a->chunk_size;
    c = tl__malloc(sizeof *c + size);
    if (!c) return NULL;
    c->size = size;
    c->offset = 0;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->offset;
  c->offset += n;
  a->used += n;
  memset(p, 0, n);
  return p;
}

char *tl__arena_strndup(tl__arena *a, const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = strnlen(s, n);
  char *d = tl__arena_alloc(a, len + 1);
  if (!d) return NULL;
  memcpy(d, s, len);
  d[len] = '\0';
  return d;
}

char *tl__arena_strdup(tl__arena *a, const char *s) { return s ? tl__arena_strndup(a, s, strlen(s)) : NULL; }

tl__arena_mark tl__arena_get_mark(const tl__arena *a) {
  return (tl__arena_mark){a->head, a->head ? a->head->offset : 0, a->used};
}

void tl__arena_rewind(tl__arena *a, tl__arena_mark mark) {
  while (a->head && a->head != mark.chunk) {
    tl__arena_chunk *next = a->head->next;
    tl__free(a->head);
    a->head = next;
  }
  if (a->head) a->head->offset = mark.offset;
  a->used = mark.used;
}

void tl__arena_free(tl__arena *a) {
  tl__arena_rewind(a, (tl__arena_mark){NULL, 0, 0});
}
