/* A bump allocator: many small allocations freed together (IR nodes live in their
 * module's arena). A mark/rewind pair undoes allocations made since the mark. */
#ifndef TL_BASE_ARENA_H
#define TL_BASE_ARENA_H

#include <stddef.h>

typedef struct tl__arena_chunk tl__arena_chunk;

typedef struct tl__arena {
  tl__arena_chunk *head; /* newest chunk first */
  size_t chunk_size;     /* default size of a new chunk */
  size_t used;           /* bytes handed out, for statistics */
} tl__arena;

typedef struct tl__arena_mark {
  tl__arena_chunk *chunk;
  size_t offset;
  size_t used;
} tl__arena_mark;

void tl__arena_init(tl__arena *a, size_t chunk_size); /* 0: a sensible default */
/* Zeroed memory aligned for any type, or NULL (no message set: callers report OOM). */
void *tl__arena_alloc(tl__arena *a, size_t n);
char *tl__arena_strdup(tl__arena *a, const char *s);
char *tl__arena_strndup(tl__arena *a, const char *s, size_t n);
tl__arena_mark tl__arena_get_mark(const tl__arena *a);
/* Frees everything allocated after the mark was taken. */
void tl__arena_rewind(tl__arena *a, tl__arena_mark mark);
void tl__arena_free(tl__arena *a);

#endif
