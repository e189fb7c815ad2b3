/* jansson's allocations through tl__malloc (see json.h). */
#include "base/json.h"

#include <stdlib.h>

#include "base/alloc.h"

static _Thread_local unsigned long t_failures; /* allocations that failed on this thread */

static void *json_alloc(size_t n) {
  void *p = tl__malloc(n);
  if (!p) t_failures++;
  return p;
}

static void json_release(void *p) { tl__free(p); }

/* tl__malloc is malloc underneath, so memory jansson allocated before this runs
 * is freed correctly afterwards. */
__attribute__((constructor)) static void install(void) {
  json_malloc_t m = NULL;
  json_free_t f = NULL;
  json_get_alloc_funcs(&m, &f);
  if (m == malloc && f == free) json_set_alloc_funcs(json_alloc, json_release);
}

json_t *tl__json_loads(const char *text, size_t flags, json_error_t *err, bool *oom) {
  unsigned long before = t_failures;
  json_t *j = json_loads(text, flags, err);
  *oom = !j && (t_failures != before || (err && json_error_code(err) == json_error_out_of_memory));
  return j;
}
