/* The one allocation hook. Failures are injected by a countdown so that OOM
 * sweeps (as libuv's test-loop-oom) can walk every allocation site. */
#include "alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long g_fail_at;   /* 0: never fail; otherwise the 1-based allocation to fail */
static atomic_long g_count;     /* allocations since armed */
static atomic_int g_failed;

void tl__alloc_fail_after(long n) {
  atomic_store(&g_count, 0);
  atomic_store(&g_failed, 0);
  atomic_store(&g_fail_at, n);
}

long tl__alloc_count(void) { return atomic_load(&g_count); }
int tl__alloc_failed(void) { return atomic_load(&g_failed); }

/* True when this allocation must fail. Cheap when the hook is off. */
static int should_fail(void) {
  long at = atomic_load_explicit(&g_fail_at, memory_order_relaxed);
  long n = atomic_fetch_add_explicit(&g_count, 1, memory_order_relaxed) + 1;
  if (at > 0 && n >= at) {
    atomic_store(&g_failed, 1);
    return 1;
  }
  return 0;
}

void *tl__malloc(size_t n) {
  if (should_fail()) return NULL;
  return malloc(n ? n : 1);
}

void *tl__calloc(size_t count, size_t size) {
  if (should_fail()) return NULL;
  if (count == 0 || size == 0) count = size = 1;
  return calloc(count, size);
}

void *tl__realloc(void *p, size_t n) {
  if (should_fail()) return NULL;
  return realloc(p, n ? n : 1);
}

void tl__free(void *p) { free(p); }

char *tl__strndup(const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = strnlen(s, n);
  char *d = tl__malloc(len + 1);
  if (!d) return NULL;
  memcpy(d, s, len);
  d[len] = '\0';
  return d;
}

char *tl__strdup(const char *s) {
  if (!s) return NULL;
  return tl__strndup(s, strlen(s));
}
