/* Strings, vectors, the ordered map and the arena, including removal from the middle. */
#include "base/alloc.h"
#include "base/arena.h"
#include "base/map.h"
#include "base/str.h"
#include "base/vec.h"
#include "tl_test.h"

static void test_format(void **state) {
  (void)state;
  char *s = tl__format("%s-%d", "sm", 90);
  assert_string_equal(s, "sm-90");
  tl__free(s);
}

static void test_builder(void **state) {
  (void)state;
  tl__sb sb = TL__SB_INIT;
  assert_string_equal(tl__sb_str(&sb), "");
  tl__sb_append(&sb, "Available: ");
  const char *items[] = {"cpu", "cuda", "rocm"};
  tl__sb_join(&sb, items, 3, ", ", "<none>");
  tl__sb_putc(&sb, '.');
  assert_string_equal(tl__sb_str(&sb), "Available: cpu, cuda, rocm.");
  tl__sb_truncate(&sb, 9);
  assert_string_equal(tl__sb_str(&sb), "Available");
  for (int i = 0; i < 1000; i++) tl__sb_appendf(&sb, "%d", i % 10);
  assert_int_equal(sb.len, 9 + 1000);
  char *out = tl__sb_finish(&sb);
  assert_non_null(out);
  assert_null(sb.buf);
  tl__free(out);

  tl__sb_join(&sb, NULL, 0, ", ", "<none>");
  assert_string_equal(tl__sb_str(&sb), "<none>");
  tl__sb_free(&sb);
  out = tl__sb_finish(&sb); /* empty builder gives "" */
  assert_string_equal(out, "");
  tl__free(out);
}

static void test_str_helpers(void **state) {
  (void)state;
  assert_true(tl__str_eq_nocase("NVRTC", "nvrtc"));
  assert_false(tl__str_eq_nocase("nvrtc", "nvrt"));
  assert_true(tl__str_eq(NULL, NULL));
  assert_false(tl__str_eq("a", NULL));
  assert_true(tl__str_starts_with("sm_90a", "sm_"));
  assert_false(tl__str_starts_with("compute_90", "sm_"));
  assert_true(tl__str_ends_with("lib.so", ".so"));
  char *l = tl__str_lower("AuTo");
  assert_string_equal(l, "auto");
  tl__free(l);
}

static void test_vec(void **state) {
  (void)state;
  tl__vec v = TL__VEC_INIT(int);
  for (int i = 0; i < 10; i++) TL_ASSERT_OK(tl__vec_push(&v, &i));
  assert_int_equal(v.len, 10);
  int out = -1;
  tl__vec_remove(&v, 4, &out); /* middle */
  assert_int_equal(out, 4);
  int expect[] = {0, 1, 2, 3, 5, 6, 7, 8, 9};
  assert_int_equal(v.len, 9);
  for (size_t i = 0; i < v.len; i++) assert_int_equal(TL__VEC_AT(&v, int, i), expect[i]);
  tl__vec_remove(&v, 0, NULL); /* front */
  assert_int_equal(TL__VEC_AT(&v, int, 0), 1);
  int x = 100;
  TL_ASSERT_OK(tl__vec_insert(&v, 2, &x));
  assert_int_equal(TL__VEC_AT(&v, int, 2), 100);
  assert_int_equal(TL__VEC_AT(&v, int, 3), 3);
  assert_true(tl__vec_pop(&v, &out));
  assert_int_equal(out, 9);
  assert_null(tl__vec_at(&v, 100));
  TL_ASSERT_ERR(tl__vec_insert(&v, 100, &x), TL_EINTERNAL, "past length");
  tl__vec_free(&v);
  assert_false(tl__vec_pop(&v, &out));
}

/* A struct element, to check byte (not element) counts in memmove. */
typedef struct {
  char name[24];
  double weight;
} wide;

static void test_vec_wide_remove(void **state) {
  (void)state;
  tl__vec v = TL__VEC_INIT(wide);
  for (int i = 0; i < 6; i++) {
    wide w = {{0}, i * 1.5};
    snprintf(w.name, sizeof w.name, "item%d", i);
    TL_ASSERT_OK(tl__vec_push(&v, &w));
  }
  tl__vec_remove(&v, 2, NULL);
  tl__vec_remove(&v, 2, NULL);
  const char *names[] = {"item0", "item1", "item4", "item5"};
  for (size_t i = 0; i < 4; i++) assert_string_equal(TL__VEC_AT(&v, wide, i).name, names[i]);
  assert_true(TL__VEC_AT(&v, wide, 3).weight == 7.5);
  tl__vec_free(&v);
}

static void test_map_basic(void **state) {
  (void)state;
  tl__map m = TL__MAP_INIT;
  int vals[100];
  char key[32];
  for (int i = 0; i < 100; i++) {
    vals[i] = i;
    snprintf(key, sizeof key, "key%d", i);
    TL_ASSERT_OK(tl__map_put(&m, key, &vals[i], NULL));
  }
  assert_int_equal(tl__map_len(&m), 100);
  for (int i = 0; i < 100; i++) {
    snprintf(key, sizeof key, "key%d", i);
    int *p = tl__map_find(&m, key);
    assert_non_null(p);
    assert_int_equal(*p, i);
    assert_string_equal(tl__map_key(&m, (size_t)i), key); /* insertion order */
  }
  assert_null(tl__map_find(&m, "nope"));
  void *old = NULL;
  int replacement = 7;
  TL_ASSERT_OK(tl__map_put(&m, "key5", &replacement, &old));
  assert_ptr_equal(old, &vals[5]);
  assert_string_equal(tl__map_key(&m, 5), "key5"); /* position kept */
  assert_int_equal(tl__map_len(&m), 100);
  tl__map_free(&m, NULL);
}

static void test_map_remove_middle(void **state) {
  (void)state;
  tl__map m = TL__MAP_INIT;
  static int v[5] = {0, 1, 2, 3, 4};
  const char *keys[] = {"a", "b", "c", "d", "e"};
  for (int i = 0; i < 5; i++) TL_ASSERT_OK(tl__map_put(&m, keys[i], &v[i], NULL));
  void *old = NULL;
  assert_true(tl__map_remove(&m, "c", &old));
  assert_ptr_equal(old, &v[2]);
  assert_false(tl__map_remove(&m, "c", NULL));
  assert_int_equal(tl__map_len(&m), 4);
  const char *rest[] = {"a", "b", "d", "e"};
  for (size_t i = 0; i < 4; i++) {
    assert_string_equal(tl__map_key(&m, i), rest[i]);
    assert_ptr_equal(tl__map_find(&m, rest[i]), tl__map_value(&m, i));
  }
  assert_true(tl__map_remove(&m, "a", NULL)); /* front */
  assert_true(tl__map_remove(&m, "e", NULL)); /* back */
  assert_int_equal(tl__map_len(&m), 2);
  assert_ptr_equal(tl__map_find(&m, "b"), &v[1]);
  assert_ptr_equal(tl__map_find(&m, "d"), &v[3]);
  TL_ASSERT_OK(tl__map_put(&m, "c", &v[2], NULL)); /* re-add goes to the end */
  assert_string_equal(tl__map_key(&m, 2), "c");
  tl__map_free(&m, NULL);
}

static void free_counted(void *p) { (*(int *)p)++; }

static void test_map_free_values(void **state) {
  (void)state;
  tl__map m = TL__MAP_INIT;
  int counter = 0;
  TL_ASSERT_OK(tl__map_put(&m, "x", &counter, NULL));
  TL_ASSERT_OK(tl__map_put(&m, "y", &counter, NULL));
  tl__map_free(&m, free_counted);
  assert_int_equal(counter, 2);
  assert_int_equal(tl__map_len(&m), 0);
}

static void test_arena(void **state) {
  (void)state;
  tl__arena a;
  tl__arena_init(&a, 256);
  char *s = tl__arena_strdup(&a, "hello");
  assert_string_equal(s, "hello");
  tl__arena_mark mk = tl__arena_get_mark(&a);
  for (int i = 0; i < 100; i++) {
    long *p = tl__arena_alloc(&a, 40);
    assert_non_null(p);
    assert_int_equal(((uintptr_t)p) % _Alignof(max_align_t), 0);
    assert_int_equal(p[0], 0);
    p[0] = i;
  }
  void *big = tl__arena_alloc(&a, 10000); /* larger than a chunk */
  assert_non_null(big);
  tl__arena_rewind(&a, mk);
  assert_string_equal(s, "hello"); /* allocations before the mark survive */
  char *t = tl__arena_strndup(&a, "abcdef", 3);
  assert_string_equal(t, "abc");
  tl__arena_free(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_format),          cmocka_unit_test(test_builder),
    cmocka_unit_test(test_str_helpers),     cmocka_unit_test(test_vec),
    cmocka_unit_test(test_vec_wide_remove), cmocka_unit_test(test_map_basic),
    cmocka_unit_test(test_map_remove_middle), cmocka_unit_test(test_map_free_values),
    cmocka_unit_test(test_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
