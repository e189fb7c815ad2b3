/* Threads registering, resolving and creating contexts at once (run under TSan by
 * `make tsan`: label "threads"). Every thread registers its own backends, codegens
 * and global functions while resolving its own and the others' targets; all threads
 * also register one shared manifest, which must be registered exactly once. */
#include <pthread.h>

#include "backend/codegen_registries.h"
#include "tl_backend_test.h"

enum { THREADS = 8, PER_THREAD = 12 };

static const tl_pass_pipeline pipeline = {"vulkan", tlt_lower, NULL};
static const tl_device_codegen codegen = {"vk", {tlt_build, "spirv"}, {tlt_build, "spirv-text"}, NULL, NULL};
static const tl_host_codegen host_c = {"c", tlt_build, "c-host", NULL, NULL};
static const tl_host_codegen_hook hook = {"hook", tlt_hook, "h", tlt_never, NULL};
static const tl_execution_backend_spec source = {"source", NULL, NULL, NULL, true, false, NULL};
static const char *const kinds[] = {"vulkan", NULL};
static const tl_pipeline_entry pipelines[] = {{"vulkan", &pipeline}, {NULL, NULL}};
static const tl_device_codegen_entry devices[] = {{"vulkan", &codegen}, {NULL, NULL}};
static const tl_host_codegen_entry hosts[] = {{"c", &host_c}, {NULL, NULL}};
static const tl_host_codegen_hook *const hooks[] = {&hook, NULL};
static const tl_host_codegen_hooks_entry hook_lists[] = {{"vulkan", hooks}, {NULL, NULL}};
static const tl_execution_backend_spec *const specs[] = {&source, NULL};

static tl_backend_module backends[THREADS][PER_THREAD];
static char names[THREADS][PER_THREAD][48];
static char models[THREADS][PER_THREAD][48];
static tl_device_codegen direct[THREADS][PER_THREAD];
static const tl_backend_module shared = {sizeof(tl_backend_module), "threads.shared", kinds, pipelines, devices, specs,
                                         tlt_model_is, (void *)"shared", hosts, hook_lists, NULL};

typedef struct worker {
  int id;
  pthread_barrier_t *barrier;
  const tl_backend_module *shared_out;
  int failures;
  char message[256];
} worker;

#define CHECK(w, expr)                                                              \
  do {                                                                              \
    tl_status s_ = (expr);                                                          \
    if (s_ != TL_OK && (w)->failures++ == 0)                                        \
      snprintf((w)->message, sizeof (w)->message, "%s: %s", #expr, tl_last_error()); \
  } while (0)

static tl_status own_context(int id, int k, tl_backend_context **out) {
  char spec[128];
  snprintf(spec, sizeof spec, "{\"kind\":\"vulkan\",\"model\":\"%s\"}", models[id][k]);
  return tl_create_backend_context(spec, "c", "auto", out);
}

static void *work(void *p) {
  worker *w = p;
  int id = w->id;
  pthread_barrier_wait(w->barrier);
  for (int k = 0; k < PER_THREAD; k++) {
    CHECK(w, tl_register_backend(&backends[id][k], NULL));
    CHECK(w, tl_register_device_codegen("nvptx", &direct[id][k], false));
    char fname[64];
    snprintf(fname, sizeof fname, "threads.fn.%d.%d", id, k);
    CHECK(w, tl_register_global_func(fname, tlt_echo, names[id][k], false));

    const tl_backend_module *out = NULL;
    CHECK(w, tl_register_backend(&shared, &out));
    if (out && !w->shared_out) w->shared_out = out;
    if (out != w->shared_out && w->failures++ == 0) snprintf(w->message, sizeof w->message, "shared manifest differs");

    /* Our own backend resolves; so does another thread's, if already there. */
    tl_backend_context *c = NULL;
    CHECK(w, own_context(id, k, &c));
    if (c && strcmp(tl_backend_context_name(c), names[id][k]) != 0 && w->failures++ == 0)
      snprintf(w->message, sizeof w->message, "context resolved to %s", tl_backend_context_name(c));
    tl_artifact *a = NULL;
    if (c) CHECK(w, tl_backend_context_codegen_device(c, NULL, -1, &a));
    tl_artifact_release(a);
    tl_backend_context_release(c);
    int other = (id + 1) % THREADS;
    if (own_context(other, k, &c) == TL_OK) tl_backend_context_release(c);

    tl_value ret;
    CHECK(w, tl_call_global_func(fname, NULL, 0, &ret));
    tl_value_clear(&ret);

    tl_target *t = NULL;
    CHECK(w, tl_target_parse("nvptx", &t));
    const tl_device_codegen *dc = NULL;
    if (t) CHECK(w, tl_resolve_device_codegen(t, &dc));
    tl_target_release(t);

    const tl_backend_module *list[4];
    (void)tl_list_backends(list, 4);
    const char *fnames[4];
    (void)tl_list_global_funcs(fnames, 4);
    const tl_backend_module *got = NULL;
    CHECK(w, tl_get_backend(names[id][k], &got));
  }
  return NULL;
}

static void test_concurrent_registries(void **state) {
  (void)state;
  for (int i = 0; i < THREADS; i++) {
    for (int k = 0; k < PER_THREAD; k++) {
      snprintf(names[i][k], sizeof names[i][k], "threads.b%d.%d", i, k);
      snprintf(models[i][k], sizeof models[i][k], "m%d_%d", i, k);
      backends[i][k] = (tl_backend_module){sizeof(tl_backend_module), names[i][k], kinds, pipelines, devices, specs,
                                           tlt_model_is, models[i][k], hosts, hook_lists, NULL};
      direct[i][k] = (tl_device_codegen){names[i][k], {tlt_build, "ptx"}, {NULL, NULL}, NULL, NULL};
    }
  }
  size_t before = tl_list_backends(NULL, 0);
  size_t funcs_before = tl_list_global_funcs(NULL, 0);
  size_t dev_vk = tl__component_count(&tl__device_codegens, "vulkan");
  size_t dev_nv = tl__component_count(&tl__device_codegens, "nvptx");
  size_t host_c_before = tl__component_count(&tl__host_codegens, "c");
  size_t hooks_vk = tl__component_count(&tl__host_codegen_hooks, "vulkan");
  pthread_t threads[THREADS];
  worker workers[THREADS];
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (worker){i, &barrier, NULL, 0, ""};
    assert_int_equal(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&barrier);
  for (int i = 0; i < THREADS; i++) {
    if (workers[i].failures) fail_msg("thread %d: %d failures, first: %s", i, workers[i].failures, workers[i].message);
    assert_ptr_equal(workers[i].shared_out, workers[0].shared_out);
  }
  /* Everything is there exactly once. */
  assert_int_equal(tl_list_backends(NULL, 0), before + THREADS * PER_THREAD + 1);
  assert_int_equal(tl_list_global_funcs(NULL, 0), funcs_before + THREADS * PER_THREAD);
  assert_int_equal(tl__component_count(&tl__device_codegens, "nvptx"), dev_nv + THREADS * PER_THREAD);
  /* One device codegen entry per manifest guard, plus the shared manifest's; the
   * host codegen object is shared by all of them. */
  assert_int_equal(tl__component_count(&tl__device_codegens, "vulkan"), dev_vk + THREADS * PER_THREAD + 1);
  assert_int_equal(tl__component_count(&tl__host_codegens, "c"), host_c_before + 1);
  assert_int_equal(tl__component_count(&tl__host_codegen_hooks, "vulkan"), hooks_vk + THREADS * PER_THREAD + 1);
  for (int i = 0; i < THREADS; i++) {
    for (int k = 0; k < PER_THREAD; k++) {
      tl_backend_context *c = NULL;
      TL_ASSERT_OK(own_context(i, k, &c));
      assert_string_equal(tl_backend_context_name(c), names[i][k]);
      tl_backend_context_release(c);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_concurrent_registries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
