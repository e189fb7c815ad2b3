/* Concurrency: many threads calling one kernel at once (each with its own tensors,
 * some with bad arguments whose messages stay per thread), and threads building and
 * loading kernels at the same time (libtcc under its global lock, the native
 * compiler examined once). */
#include <pthread.h>

#include "lowered_fixtures.h"
#include "runtime_test.h"

#define THREADS 8
#define CALLS 200

typedef struct worker {
  tl_kernel *k;
  int id;
  int failures;
  char first_failure[256];
} worker;

static void note(worker *w, const char *what) {
  if (w->failures++ == 0) snprintf(w->first_failure, sizeof w->first_failure, "%s", what);
}

static void *call_loop(void *arg) {
  worker *w = arg;
  enum { N = 777 };
  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
  for (int it = 0; it < CALLS; it++) {
    int n = 1 + (w->id * 131 + it * 17) % N;
    for (int i = 0; i < n; i++) {
      a[i] = (float)(w->id * 1000 + i);
      b[i] = (float)it;
    }
    host_tensor ha, hb, hc;
    tl_value args[3] = {ht_wrap(&ha, TL_DT_FLOAT32, a, 1, n, 0), ht_wrap(&hb, TL_DT_FLOAT32, b, 1, n, 0),
                        ht_wrap(&hc, TL_DT_FLOAT32, c, 1, n, 0)};
    if (it % 5 == 4) { /* a bad call: its message must be this thread's own */
      hb.shape[0] = n + w->id + 1;
      char want[160];
      snprintf(want, sizeof want, "argument 'B': dimension 0 must equal N (=%d from argument 'A') but is %d", n,
               n + w->id + 1);
      if (tl_kernel_call(w->k, args, 3, NULL) != TL_EINVAL || strcmp(tl_last_error(), want) != 0)
        note(w, tl_last_error());
      continue;
    }
    if (tl_kernel_call(w->k, args, 3, NULL) != TL_OK) {
      note(w, tl_last_error());
      continue;
    }
    for (int i = 0; i < n; i++)
      if (c[i] != (float)(w->id * 1000 + i + it)) {
        note(w, "wrong result");
        break;
      }
  }
  free(a), free(b), free(c);
  return NULL;
}

static void concurrent_calls(const char *runner) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_vadd(m, TL_DT_FLOAT32);
  tl_kernel *k = NULL;
  TL_ASSERT_OK(rt_build(runner, m, NULL, "vadd", &k));
  pthread_t th[THREADS];
  worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){tl_kernel_retain(k), i, 0, ""};
    assert_int_equal(pthread_create(&th[i], NULL, call_loop, &w[i]), 0);
  }
  tl_kernel_release(k); /* the workers hold the last references */
  for (int i = 0; i < THREADS; i++) {
    pthread_join(th[i], NULL);
    if (w[i].failures) fail_msg("%s thread %d: %d failures, first: %s", runner, i, w[i].failures, w[i].first_failure);
    tl_kernel_release(w[i].k);
  }
  tl_ir_module_free(m);
}

static void test_concurrent_calls(void **state) {
  (void)state;
  const char *runners[2];
  size_t nr = rt_runners(runners);
  for (size_t r = 0; r < nr; r++) {
#ifdef __SANITIZE_THREAD__
    /* native kernels run OpenMP loops in libgomp, which ThreadSanitizer cannot see
     * into: its reports there would be about the runtime, not this library. */
    if (!strcmp(runners[r], "native")) continue;
#endif
    concurrent_calls(runners[r]);
  }
}

typedef struct builder {
  const char *runner;
  tl_status status;
  char message[512];
  bool ran;
} builder;

static void *build_and_run(void *arg) {
  builder *b = arg;
  tl_ir_module *m = NULL;
  b->status = tl_ir_module_create(&m);
  tl_kernel *k = NULL;
  if (b->status == TL_OK) {
    build_vadd(m, TL_DT_INT32);
    b->status = rt_build(b->runner, m, NULL, "vadd", &k);
  }
  if (b->status == TL_OK) {
    int32_t x[3] = {1, 2, 3}, y[3] = {10, 20, 30}, z[3] = {0};
    host_tensor hx, hy, hz;
    tl_value args[3] = {ht_wrap(&hx, TL_DT_INT32, x, 1, 3, 0), ht_wrap(&hy, TL_DT_INT32, y, 1, 3, 0),
                        ht_wrap(&hz, TL_DT_INT32, z, 1, 3, 0)};
    b->status = tl_kernel_call(k, args, 3, NULL);
    b->ran = z[0] == 11 && z[1] == 22 && z[2] == 33;
  }
  if (b->status != TL_OK) snprintf(b->message, sizeof b->message, "%s", tl_last_error());
  tl_kernel_release(k);
  tl_ir_module_free(m);
  return NULL;
}

static void test_concurrent_builds(void **state) {
  (void)state;
  const char *runners[2];
  size_t nr = rt_runners(runners);
  enum { BUILDERS = 4 };
  for (size_t r = 0; r < nr; r++) {
#ifdef __SANITIZE_THREAD__
    if (!strcmp(runners[r], "native")) continue;
#endif
    pthread_t th[BUILDERS];
    builder b[BUILDERS];
    for (int i = 0; i < BUILDERS; i++) {
      b[i] = (builder){runners[r], TL_OK, "", false};
      assert_int_equal(pthread_create(&th[i], NULL, build_and_run, &b[i]), 0);
    }
    for (int i = 0; i < BUILDERS; i++) {
      pthread_join(th[i], NULL);
      if (b[i].status != TL_OK) fail_msg("%s builder %d: %s", runners[r], i, b[i].message);
      assert_true(b[i].ran);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_concurrent_calls),
    cmocka_unit_test(test_concurrent_builds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
