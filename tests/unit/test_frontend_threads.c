/* tl_ir_parse and the printer are thread-safe: threads parsing and printing the
 * examples at once get the same text as one thread alone. */
#include <pthread.h>

#include "frontend_test.h"

#define NTHREADS 4
#define ROUNDS 5

static char **g_names, **g_src, **g_expected;
static size_t g_n;

static void *worker(void *arg) {
  long bad = 0;
  (void)arg;
  for (int r = 0; r < ROUNDS; r++)
    for (size_t i = 0; i < g_n; i++) {
      tl_ir_module *m = NULL;
      if (tl_ir_parse(g_src[i], g_names[i], NULL, &m) != TL_OK) {
        bad++;
        continue;
      }
      char *t = tl_ir_print_module(m);
      if (!t || strcmp(t, g_expected[i]) != 0) bad++;
      tl_free(t);
      tl_ir_module_free(m);
    }
  return (void *)bad;
}

static void test_parallel_parse(void **state) {
  (void)state;
  g_names = ft_list(EXAMPLES_DIR, ".py", &g_n);
  assert_true(g_n > 0);
  g_src = calloc(g_n, sizeof *g_src);
  g_expected = calloc(g_n, sizeof *g_expected);
  for (size_t i = 0; i < g_n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", EXAMPLES_DIR, g_names[i]);
    g_src[i] = ft_read(path);
    tl_ir_module *m = NULL;
    TL_ASSERT_OK(tl_ir_parse(g_src[i], g_names[i], NULL, &m));
    g_expected[i] = tl_ir_print_module(m);
    tl_ir_module_free(m);
  }
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, worker, NULL), 0);
  for (int i = 0; i < NTHREADS; i++) {
    void *bad;
    pthread_join(th[i], &bad);
    assert_int_equal((long)bad, 0);
  }
  for (size_t i = 0; i < g_n; i++) {
    free(g_src[i]);
    tl_free(g_expected[i]);
  }
  free(g_src);
  free(g_expected);
  ft_free_list(g_names, g_n);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_parallel_parse)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
