/* Status names and messages, the thread-local last error, context prefixes. */
#include <pthread.h>
#include <stdio.h>

#include "base/error.h"
#include "tl_test.h"

static void test_status_names(void **state) {
  (void)state;
  assert_string_equal(tl_status_name(TL_OK), "TL_OK");
  assert_string_equal(tl_status_name(TL_EINVAL), "TL_EINVAL");
  assert_string_equal(tl_status_name(TL_EINTERNAL), "TL_EINTERNAL");
  assert_string_equal(tl_status_name((tl_status)999), "TL_UNKNOWN");
  assert_string_equal(tl_status_message(TL_ENOMEM), "out of memory");
  assert_int_equal(TL_OK, 0);
}

static void test_format_and_context(void **state) {
  (void)state;
  assert_int_equal(tl__error(TL_EINVAL, "bad %s %d", "thing", 42), TL_EINVAL);
  TL_ASSERT_MSG("bad thing 42");
  assert_int_equal(tl__error_context(TL_EINVAL, "while registering backend '%s': ", "cuda"), TL_EINVAL);
  TL_ASSERT_MSG("while registering backend 'cuda': bad thing 42");
  tl__error_clear();
  TL_ASSERT_MSG("");
}

static void test_message_may_reference_itself(void **state) {
  (void)state;
  tl__error(TL_EINVAL, "inner");
  tl__error(TL_EINVAL, "outer: %s", tl_last_error());
  TL_ASSERT_MSG("outer: inner");
}

static void test_long_message(void **state) {
  (void)state;
  char big[5000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  tl__error(TL_ECOMPILE, "compiler said: %s", big);
  assert_int_equal(strlen(tl_last_error()), strlen("compiler said: ") + sizeof big - 1);
  /* Referencing a long (heap) message in the next one. */
  tl__error(TL_ECOMPILE, "again: %s", tl_last_error());
  assert_true(strncmp(tl_last_error(), "again: compiler said: xxx", 25) == 0);
  tl__error(TL_EINVAL, "short");
  TL_ASSERT_MSG("short");
}

static void test_oom_message(void **state) {
  (void)state;
  assert_int_equal(tl__oom(), TL_ENOMEM);
  TL_ASSERT_MSG("out of memory");
}

/* Two threads set and read errors in a tight loop; each only ever sees its own. */
typedef struct {
  int id;
  int mismatches;
  pthread_barrier_t *barrier;
} thread_arg;

static void *error_thread(void *p) {
  thread_arg *a = p;
  char expect[64];
  pthread_barrier_wait(a->barrier);
  for (int i = 0; i < 20000; i++) {
    snprintf(expect, sizeof expect, "thread %d iteration %d", a->id, i);
    if (i % 97 == 0) {
      char big[1200];
      memset(big, 'a' + a->id, sizeof big - 1);
      big[sizeof big - 1] = 0;
      tl__error(TL_EINVAL, "%s", big); /* exercises the heap buffer */
      if (tl_last_error()[0] != 'a' + a->id) a->mismatches++;
    }
    tl__error(TL_EINVAL, "thread %d iteration %d", a->id, i);
    if (strcmp(tl_last_error(), expect) != 0) a->mismatches++;
  }
  return NULL;
}

static void test_two_threads(void **state) {
  (void)state;
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, 2);
  thread_arg args[2] = {{0, 0, &barrier}, {1, 0, &barrier}};
  pthread_t t[2];
  tl__error(TL_EINVAL, "main thread message");
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, error_thread, &args[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&barrier);
  assert_int_equal(args[0].mismatches, 0);
  assert_int_equal(args[1].mismatches, 0);
  TL_ASSERT_MSG("main thread message");
}

/* tl_set_error: how components written against the public API report a failure. */
static void test_set_error(void **state) {
  (void)state;
  assert_int_equal(tl_set_error(TL_ECOMPILE, "nvcc said no"), TL_ECOMPILE);
  TL_ASSERT_MSG("nvcc said no");
  assert_int_equal(tl_set_error(TL_EINVAL, NULL), TL_EINVAL);
  assert_string_equal(tl_last_error(), "");
  char big[4000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  tl_set_error(TL_EINVAL, big);
  assert_string_equal(tl_last_error(), big);
  tl_set_error(TL_EINVAL, "100% literal %s"); /* not a format string */
  TL_ASSERT_MSG("100% literal %s");
}

static void test_version(void **state) {
  (void)state;
  const char *v = tl_version();
  int a, b, c;
  assert_int_equal(sscanf(v, "%d.%d.%d", &a, &b, &c), 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_status_names),     cmocka_unit_test(test_format_and_context),
    cmocka_unit_test(test_message_may_reference_itself),
    cmocka_unit_test(test_long_message),     cmocka_unit_test(test_oom_message),
    cmocka_unit_test(test_two_threads),      cmocka_unit_test(test_version),
    cmocka_unit_test(test_set_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
