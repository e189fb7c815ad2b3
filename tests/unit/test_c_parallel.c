/* The thread decision of CPU block loops (src/codegen/c_parallel.c): whether a
 * launch pays for a team, how many threads it gets, and the pass config
 * tl.cpu.num_threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "codegen/c_parallel.h"
#include "tilelang/base.h"
#include "transform/session.h"

static void test_min_parallel_blocks(void **state) {
  (void)state;
  assert_int_equal(tl__cgen_min_parallel_blocks(1), 65536);
  assert_int_equal(tl__cgen_min_parallel_blocks(768), 86); /* ceil(65536 / 768) */
  assert_int_equal(tl__cgen_min_parallel_blocks(65536), 2); /* never a team of one block */
  assert_int_equal(tl__cgen_min_parallel_blocks((int64_t)1 << 40), 2);
}

static void test_team_size(void **state) {
  (void)state;
  /* one thread per 2^16 statements of the whole launch, at least 2 */
  assert_int_equal(tl__cgen_team_size(64, 4096, 0), 4);   /* 2^18 statements */
  assert_int_equal(tl__cgen_team_size(100, 768, 0), 2);   /* 76,800: just over the threshold */
  /* and never more than one per block */
  assert_int_equal(tl__cgen_team_size(44, 3145728, 0), 44); /* the 1024^3 GEMM's blocks */
  assert_int_equal(tl__cgen_team_size(3, (int64_t)1 << 40, 0), 3);
  /* tl.cpu.num_threads caps it */
  assert_int_equal(tl__cgen_team_size(44, 3145728, 3), 3);
  assert_int_equal(tl__cgen_team_size(64, 4096, 16), 4);
  /* a block count known only at run time: only the configured limit */
  assert_int_equal(tl__cgen_team_size(-1, 768, 0), 0);
  assert_int_equal(tl__cgen_team_size(-1, 768, 8), 8);
}

static int64_t limit_with(const char *setting, tl_status *st) {
  const char *cfg[] = {setting, NULL};
  tl__session s;
  tl__session_init(&s);
  s.pass_configs = setting ? cfg : NULL;
  tl__session *prev = tl__session_enter(&s);
  int64_t n = -1;
  *st = tl__cgen_thread_limit(&n);
  tl__session_exit(prev);
  tl__session_free(&s);
  return n;
}

static void test_thread_limit_config(void **state) {
  (void)state;
  tl_status st;
  assert_int_equal(limit_with(NULL, &st), 0);
  assert_int_equal(st, TL_OK);
  assert_int_equal(limit_with("tl.cpu.num_threads=3", &st), 3);
  assert_int_equal(st, TL_OK);
  assert_int_equal(limit_with("tl.cpu.num_threads=1", &st), 1);
  assert_int_equal(st, TL_OK);
  const char *bad[] = {"tl.cpu.num_threads=0", "tl.cpu.num_threads=-2", "tl.cpu.num_threads=abc",
                       "tl.cpu.num_threads=4x", "tl.cpu.num_threads=", "tl.cpu.num_threads=99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(limit_with(bad[i], &st), 0);
    assert_int_equal(st, TL_EINVAL);
    assert_non_null(strstr(tl_last_error(), "tl.cpu.num_threads"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_min_parallel_blocks),
      cmocka_unit_test(test_team_size),
      cmocka_unit_test(test_thread_limit_config),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
