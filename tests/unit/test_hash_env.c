/* Hashing and environment helpers. */
#include <stdlib.h>

#include "base/env.h"
#include "base/hash.h"
#include "base/object.h"
#include "base/refcount.h"
#include "tl_test.h"

static void test_hash_stable(void **state) {
  (void)state;
  assert_true(tl__hash_str("cuda", 0) == tl__hash_str("cuda", 0));
  assert_true(tl__hash_str("cuda", 0) != tl__hash_str("cudb", 0));
  assert_true(tl__hash_str("cuda", 0) != tl__hash_str("cuda", 1));
  assert_true(tl__hash_str(NULL, 0) != tl__hash_str("", 0));
  assert_true(tl__hash_combine(1, 2) != tl__hash_combine(2, 1));
  /* XXH3 of "" with seed 0 is a published constant; stable across builds. */
  assert_true(tl__hash_bytes("", 0, 0) == 0x2D06800538D394C2ull);
}

static void test_hasher_boundaries(void **state) {
  (void)state;
  tl__hasher a, b;
  tl__hasher_init(&a, 0);
  tl__hasher_init(&b, 0);
  tl__hasher_str(&a, "ab");
  tl__hasher_str(&a, "c");
  tl__hasher_str(&b, "a");
  tl__hasher_str(&b, "bc");
  assert_true(tl__hasher_done(&a) != tl__hasher_done(&b));
  char hex[33];
  tl__hash128_hex("abc", 3, hex);
  assert_int_equal(strlen(hex), 32);
}

static void test_env(void **state) {
  (void)state;
  setenv("TL_TEST_FLAG", "Yes", 1);
  assert_true(tl__env_flag("TL_TEST_FLAG", false));
  setenv("TL_TEST_FLAG", "off", 1);
  assert_false(tl__env_flag("TL_TEST_FLAG", true));
  setenv("TL_TEST_FLAG", "maybe", 1);
  assert_true(tl__env_flag("TL_TEST_FLAG", true));
  unsetenv("TL_TEST_FLAG");
  assert_false(tl__env_flag("TL_TEST_FLAG", false));
  assert_null(tl__env("TL_TEST_FLAG"));
  setenv("TL_TEST_INT", "123", 1);
  assert_int_equal(tl__env_int("TL_TEST_INT", 5), 123);
  setenv("TL_TEST_INT", "12x", 1);
  assert_int_equal(tl__env_int("TL_TEST_INT", 5), 5);
  unsetenv("TL_TEST_INT");
  assert_non_null(tl__env_home());
}

static void test_refcount(void **state) {
  (void)state;
  tl__refcount r;
  tl__ref_init(&r);
  tl__ref_inc(&r);
  assert_int_equal(tl__ref_count(&r), 2);
  assert_false(tl__ref_dec(&r));
  assert_true(tl__ref_dec(&r));
}

/* The root of the on-disk caches: TILELANG_CACHE_DIR, else under the home directory. */
static void test_env_cache_root(void **state) {
  (void)state;
  const char *saved = getenv("TILELANG_CACHE_DIR");
  char *keep = saved ? tl__strdup(saved) : NULL;
  char *root = NULL;
  setenv("TILELANG_CACHE_DIR", "/some/where", 1);
  TL_ASSERT_OK(tl__env_cache_root(&root));
  assert_string_equal(root, "/some/where");
  tl__free(root);
  setenv("TILELANG_CACHE_DIR", "", 1); /* empty: as unset */
  TL_ASSERT_OK(tl__env_cache_root(&root));
  assert_true(strstr(root, "/.tilelang-c/cache") != NULL);
  assert_true(strncmp(root, tl__env_home(), strlen(tl__env_home())) == 0);
  tl__free(root);
  if (keep) setenv("TILELANG_CACHE_DIR", keep, 1);
  else unsetenv("TILELANG_CACHE_DIR");
  tl__free(keep);
}

/* An object released through its header runs its own destructor, once, at the last
 * reference (how ffi releases an artifact value without naming the type). */
typedef struct counted {
  tl__object object;
  int *destroyed;
} counted;

static void counted_destroy(tl__object *o) {
  counted *c = (counted *)o;
  (*c->destroyed)++;
  tl__free(c);
}

static void test_object_release(void **state) {
  (void)state;
  int destroyed = 0;
  counted *c = tl__malloc(sizeof *c);
  assert_non_null(c);
  c->destroyed = &destroyed;
  tl__object_init(&c->object, counted_destroy);
  tl__object_retain(&c->object);
  tl__object_release(&c->object);
  assert_int_equal(destroyed, 0);
  tl__object_release(&c->object);
  assert_int_equal(destroyed, 1);
  tl__object_release(NULL);
  tl__object_retain(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hash_stable), cmocka_unit_test(test_hasher_boundaries),
    cmocka_unit_test(test_env), cmocka_unit_test(test_refcount),
    cmocka_unit_test(test_env_cache_root), cmocka_unit_test(test_object_release),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
