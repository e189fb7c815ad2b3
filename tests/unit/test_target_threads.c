/* Two threads at once (label `threads`, run under TSan by `make tsan`): parsing
 * (racing to build the cached bare-kind and tag targets), sharing and releasing
 * one target's references, registering detectors and normalizers (distinct and
 * identical ones), listing, detecting and determining. */
#include <pthread.h>

#include "target_test.h"

#define ROUNDS 400

static pthread_barrier_t g_start;
static tl_target *g_shared;

static tl_status detect_none(void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  return TL_OK;
}

static tl_status detect_other(void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  return TL_OK;
}

static tl_status normalize_none(const char *spec, void *user_data, tl_target **out) {
  (void)spec;
  (void)user_data;
  *out = NULL;
  return TL_OK;
}

typedef struct worker {
  int id;
  int conflicts; /* TL_EEXIST answers to the contested registration */
  const char *failure;
} worker;

static const char *const specs[] = {"opencl", "nvptx", "nvidia/nvidia-h200", "apple/m1-gpu",
                                    "{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"host\":\"llvm\"}",
                                    "{\"tag\":\"nvidia/nvidia-l40\",\"host\":\"nvidia/jetson-tx1\"}"};
#define NSPECS (sizeof specs / sizeof specs[0])

static void *work(void *p) {
  worker *w = p;
  char expected[NSPECS][1024];
  pthread_barrier_wait(&g_start);
  for (int r = 0; r < ROUNDS && !w->failure; r++) {
    for (size_t i = 0; i < NSPECS; i++) {
      tl_target *t = NULL;
      if (tl_target_parse(specs[i], &t) != TL_OK) {
        w->failure = "parse failed";
        break;
      }
      if (r == 0) snprintf(expected[i], sizeof expected[i], "%s", tl_target_str(t));
      else if (strcmp(expected[i], tl_target_str(t)) != 0) w->failure = "parse gave a different target";
      tl_target_release(t);
    }
    /* References to one target taken and dropped from both threads. */
    tl_target *s = tl_target_retain(g_shared);
    if (strcmp(tl_target_kind(s), "cuda") != 0) w->failure = "shared target changed";
    tl_target_release(s);
    if (r % 20 == 0) {
      char name[32];
      snprintf(name, sizeof name, "thread%d-%d", w->id, r);
      if (tl_register_target_detector(name, detect_none, NULL, false) != TL_OK) w->failure = "register failed";
      if (tl_register_target_normalizer(name, normalize_none, NULL, false) != TL_OK) w->failure = "register failed";
      /* The same registration from both threads: fine; a different one: a conflict. */
      if (tl_register_target_detector("shared", detect_none, NULL, false) != TL_OK) w->failure = "idempotent failed";
      tl_status c = tl_register_target_detector("contested", w->id ? detect_other : detect_none, NULL, false);
      if (c == TL_EEXIST) w->conflicts++;
      else if (c != TL_OK) w->failure = "contested failed";
      const char *names[512];
      size_t n = tl_list_target_detectors(names, 512);
      if (n < 2 || strcmp(names[0], "cuda") != 0) w->failure = "detector list broken";
      tl_target *t = NULL;
      if (tl_determine_target("c", &t) != TL_OK || tl_auto_detect_target(&(tl_target *){NULL}) != TL_OK)
        w->failure = "determine failed";
      tl_target_release(t);
    }
  }
  return NULL;
}

static void test_two_threads(void **state) {
  (void)state;
  g_shared = parse_ok("{\"kind\":\"cuda\",\"arch\":\"sm_80\"}");
  pthread_barrier_init(&g_start, NULL, 2);
  worker w[2] = {{0, 0, NULL}, {1, 0, NULL}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&g_start);
  for (int i = 0; i < 2; i++)
    if (w[i].failure) fail_msg("thread %d: %s", i, w[i].failure);
  /* Exactly one thread lost each contested registration after the first win. */
  assert_int_equal(w[0].conflicts + w[1].conflicts, ROUNDS / 20);
  const char *names[512];
  size_t n = tl_list_target_detectors(names, 512);
  assert_int_equal(n, 2 + 2 * (ROUNDS / 20) + 2);
  tl_target_release(g_shared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_two_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
