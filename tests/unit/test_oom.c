/* The allocation hook and an OOM sweep over operations built on the base containers. */
#include "base/alloc.h"
#include "base/error.h"
#include "base/map.h"
#include "base/str.h"
#include "base/vec.h"
#include "tl_test.h"

static void test_hook_counts_and_fails(void **state) {
  (void)state;
  tl__alloc_fail_after(3);
  void *a = tl__malloc(8), *b = tl__malloc(8), *c = tl__malloc(8), *d = tl__malloc(8);
  assert_non_null(a);
  assert_non_null(b);
  assert_null(c);
  assert_null(d); /* sticky after the Nth */
  assert_true(tl__alloc_failed());
  assert_int_equal(tl__alloc_count(), 4);
  tl__alloc_fail_after(0);
  tl__free(a);
  tl__free(b);
  void *e = tl__malloc(8);
  assert_non_null(e);
  tl__free(e);
}

/* A registry-like operation: insert 20 named entries into a map that must stay
 * unchanged if any step fails (the pattern every registry in the library follows). */
typedef struct {
  tl__map map;
} registry;

static tl_status registry_add_all(void *p) {
  registry *r = p;
  tl__map scratch = TL__MAP_INIT;
  tl__vec names = TL__VEC_INIT(char *);
  tl_status s = TL_OK;
  for (int i = 0; i < 20 && s == TL_OK; i++) {
    char *name = tl__format("entry-%d", i);
    if (!name) {
      s = TL_ENOMEM;
      break;
    }
    s = tl__vec_push(&names, &name);
    if (s) {
      tl__free(name);
      break;
    }
    s = tl__map_put(&scratch, name, name, NULL);
  }
  tl__sb msg = TL__SB_INIT;
  tl__sb_append(&msg, "registered: ");
  tl__sb_join(&msg, (const char *const *)names.data, names.len, ", ", "<none>");
  if (s == TL_OK) s = tl__sb_status(&msg);
  tl__sb_free(&msg);
  /* Commit into the real map only if every step worked; a failed commit rolls back. */
  size_t committed = 0;
  for (size_t i = 0; s == TL_OK && i < tl__map_len(&scratch); i++, committed++)
    s = tl__map_put(&r->map, tl__map_key(&scratch, i), NULL, NULL);
  if (s != TL_OK)
    for (size_t i = 0; i < committed; i++) tl__map_remove(&r->map, tl__map_key(&scratch, i), NULL);
  for (size_t i = 0; i < names.len; i++) tl__free(TL__VEC_AT(&names, char *, i));
  tl__vec_free(&names);
  tl__map_free(&scratch, NULL);
  if (s == TL_ENOMEM) tl__oom();
  return s;
}

static void registry_unchanged(void *p) {
  registry *r = p;
  assert_int_equal(tl__map_len(&r->map), 1);
  assert_string_equal(tl__map_key(&r->map, 0), "existing");
}

static void test_oom_sweep(void **state) {
  (void)state;
  registry r = {TL__MAP_INIT};
  TL_ASSERT_OK(tl__map_put(&r.map, "existing", NULL, NULL));
  long sites = tl_oom_sweep(registry_add_all, registry_unchanged, &r);
  assert_true(sites > 20);
  assert_int_equal(tl__map_len(&r.map), 21);
  tl__map_free(&r.map, NULL);
}

static tl_status format_op(void *p) {
  char **out = p;
  *out = tl__format("%s/%d", "x", 1);
  return *out ? TL_OK : TL_ENOMEM;
}

static void test_oom_format(void **state) {
  (void)state;
  char *s = NULL;
  assert_int_equal(tl_oom_sweep(format_op, NULL, &s), 1);
  assert_string_equal(s, "x/1");
  tl__free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hook_counts_and_fails),
    cmocka_unit_test(test_oom_sweep),
    cmocka_unit_test(test_oom_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
