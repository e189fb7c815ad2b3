/* ctest-labels: threads */
/* The cuda backend from several threads at once (run under ThreadSanitizer by
 * `make tsan`): tl_compile through nvrtc of different and of the same kernels
 * (NVRTC, the process-wide tables found once, the identity cache), and the binary
 * cache filled by concurrent nvcc compilations of one source (entries published
 * by rename: every thread gets the same valid cubin, and the entry is valid
 * after). Nothing is launched: no GPU is needed. */
#include <pthread.h>

#include "backends/cuda/compile.h"
#include "base/files.h"
#include "cuda_test.h"
#include "runtime/nvcc_tool.h"
#include "tilelang/engine.h"

#define NTHREADS 4

typedef struct job {
  int index;
  tl_status status;
  char message[512];
  char *bin;
  size_t size;
} job;

static void *compile_thread(void *arg) {
  job *j = arg;
  /* thread i compiles examples i, i+1, ... and every thread compiles example 0 */
  for (int round = 0; round < 3 && j->status == TL_OK; round++) {
    size_t which = round == 2 ? 0 : (size_t)(j->index + round * NTHREADS) % CUDA_NEXAMPLES;
    tl_ir_module *m = NULL;
    j->status = cuda_parse_example_file(TL_SOURCE_DIR, &k_cuda_examples[which], &m);
    tl_compile_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.target = "{\"kind\":\"cuda\",\"arch\":\"sm_90a\"}";
    o.execution_backend = "nvrtc";
    tl_kernel *k = NULL;
    if (j->status == TL_OK) j->status = tl_compile(m, NULL, &o, &k);
    if (j->status != TL_OK) snprintf(j->message, sizeof j->message, "%s", tl_last_error());
    tl_kernel_release(k);
    tl_ir_module_free(m);
  }
  return NULL;
}

static void test_concurrent_nvrtc(void **state) {
  (void)state;
  if (!tl__nvrtc_available()) skip();
  char *cache = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-cuda-threads-", &cache));
  setenv("TILELANG_CACHE_DIR", cache, 1);
  pthread_t t[NTHREADS];
  job jobs[NTHREADS];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < NTHREADS; i++) {
    jobs[i].index = i;
    assert_int_equal(pthread_create(&t[i], NULL, compile_thread, &jobs[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < NTHREADS; i++)
    if (jobs[i].status != TL_OK) fail_msg("thread %d: %s: %s", i, tl_status_name(jobs[i].status), jobs[i].message);
  tl_kernel_cache_clear_memory();
  TL_ASSERT_OK(tl__remove_tree(cache));
  tl__free(cache);
  unsetenv("TILELANG_CACHE_DIR");
}

static const char k_src[] = "extern \"C\" __global__ void threads_k(float *x) { x[threadIdx.x] += 1.0f; }\n";
static tl_target *g_target;

static void *cache_thread(void *arg) {
  job *j = arg;
  const char *format = NULL;
  j->status = tl__cuda_compile_cached(k_src, g_target, &j->bin, &j->size, &format);
  if (j->status != TL_OK) snprintf(j->message, sizeof j->message, "%s", tl_last_error());
  return NULL;
}

static void test_concurrent_binary_cache(void **state) {
  (void)state;
  if (!tl__nvcc_available()) skip();
  char *cache = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-cuda-threads-", &cache));
  setenv("TILELANG_CACHE_DIR", cache, 1);
  TL_ASSERT_OK(tl_target_parse("{\"kind\":\"cuda\",\"arch\":\"sm_90a\"}", &g_target));
  pthread_t t[3];
  job jobs[3];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < 3; i++) assert_int_equal(pthread_create(&t[i], NULL, cache_thread, &jobs[i]), 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 3; i++) {
    if (jobs[i].status != TL_OK) fail_msg("thread %d: %s", i, jobs[i].message);
    assert_int_equal(jobs[i].size, jobs[0].size);
    assert_memory_equal(jobs[i].bin, jobs[0].bin, jobs[0].size);
  }
  /* the entry left behind is whole: a hit */
  tl__cuda_cache_stats s0, s1;
  tl__cuda_binary_cache_stats(&s0);
  char *bin = NULL;
  size_t size = 0;
  const char *format = NULL;
  TL_ASSERT_OK(tl__cuda_compile_cached(k_src, g_target, &bin, &size, &format));
  tl__cuda_binary_cache_stats(&s1);
  assert_int_equal(s1.hits - s0.hits, 1);
  assert_memory_equal(bin, jobs[0].bin, size);
  tl__free(bin);
  for (int i = 0; i < 3; i++) tl__free(jobs[i].bin);
  tl_target_release(g_target);
  TL_ASSERT_OK(tl__remove_tree(cache));
  tl__free(cache);
  unsetenv("TILELANG_CACHE_DIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_concurrent_nvrtc),
    cmocka_unit_test(test_concurrent_binary_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
