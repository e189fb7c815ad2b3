/* tl_ir_interpret is thread-safe for distinct tensors: threads interpreting one
 * finished module at once get exactly the single-threaded results. */
#include <pthread.h>

#include "base/fp16.h"
#include "interp_util.h"

enum { NTHREADS = 4, M = 40, N = 36, K = 50 };

typedef struct job {
  const tl_ir_module *m;
  uint16_t a[M * K], b[K * N], c[M * N];
  tl_status status;
} job;

static void *worker(void *p) {
  job *j = p;
  host_tensor ha, hb, hc;
  tl_value args[] = {ht_wrap(&ha, TL_DT_FLOAT16, j->a, 2, M, K), ht_wrap(&hb, TL_DT_FLOAT16, j->b, 2, K, N),
                     ht_wrap(&hc, TL_DT_FLOAT16, j->c, 2, M, N)};
  for (int rep = 0; rep < 3 && j->status == TL_OK; rep++) j->status = tl_ir_interpret(j->m, "matmul", args, 3);
  return NULL;
}

static void test_concurrent_interpretation(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/examples/gemm.py", TL_SOURCE_DIR);
  tl_ir_const_binding consts[] = {{"M", "40"}, {"N", "36"}, {"K", "50"}, {"block_M", "16"}, {"block_N", "16"}};
  tl_ir_parse_options opts = {sizeof opts, consts, 5, NULL, false};
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_parse_file(path, &opts, &m));
  static job jobs[NTHREADS + 1];
  uint64_t rng = 77;
  for (int t = 0; t <= NTHREADS; t++) {
    jobs[t].m = m;
    jobs[t].status = TL_OK;
    for (int k = 0; k < M * K; k++) jobs[t].a[k] = tl__f64_to_f16(test_uniform(&rng));
    for (int k = 0; k < K * N; k++) jobs[t].b[k] = tl__f64_to_f16(test_uniform(&rng));
  }
  /* The last job's inputs are thread 0's, run alone first: the reference. */
  memcpy(jobs[NTHREADS].a, jobs[0].a, sizeof jobs[0].a);
  memcpy(jobs[NTHREADS].b, jobs[0].b, sizeof jobs[0].b);
  worker(&jobs[NTHREADS]);
  TL_ASSERT_OK(jobs[NTHREADS].status);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) assert_int_equal(pthread_create(&th[t], NULL, worker, &jobs[t]), 0);
  for (int t = 0; t < NTHREADS; t++) assert_int_equal(pthread_join(th[t], NULL), 0);
  for (int t = 0; t < NTHREADS; t++) TL_ASSERT_OK(jobs[t].status);
  assert_memory_equal(jobs[0].c, jobs[NTHREADS].c, sizeof jobs[0].c);
  /* Each thread's result is its own: check one element of each against C. */
  for (int t = 0; t < NTHREADS; t++) {
    float acc = 0;
    for (int k = 0; k < K; k++) {
      float prod = tl__f16_to_f32(jobs[t].a[k]) * tl__f16_to_f32(jobs[t].b[k * N]);
      acc = acc + prod;
    }
    assert_int_equal(jobs[t].c[0], tl__f32_to_f16(acc));
  }
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_interpretation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
