/* Out of memory during a JSON parse is reported as out of memory, never as a syntax
 * error: jansson allocates through the library's allocator (base/json.h), so the
 * sweeps reach its lexer and object allocations too. Targets, kernel tables. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "tilelang/runtime.h"
#include "tilelang/target.h"
#include "tl_test.h"

static tl_status parse_target(void *ctx) {
  tl_target *t = NULL;
  TL__TRY(tl_target_parse(ctx, &t));
  tl_target_release(t);
  return TL_OK;
}

static void test_target_json_oom(void **state) {
  (void)state;
  static const char text[] =
      "{\"kind\": \"cuda\", \"arch\": \"sm_80\", \"keys\": [\"cuda\", \"gpu\"], \"max_num_threads\": 1024, "
      "\"libs\": [\"cublas\", \"cudnn\"], \"host\": {\"kind\": \"c\", \"mcpu\": \"x86-64\"}}";
  assert_true(tl_oom_sweep(parse_target, NULL, (void *)text) > 10);
}

static tl_status parse_table(void *ctx) {
  tl_kernel_table *t = NULL;
  TL__TRY(tl_kernel_table_from_json(ctx, &t));
  tl_kernel_table_free(t);
  return TL_OK;
}

static void test_kernel_table_json_oom(void **state) {
  (void)state;
  /* A real table: what `tlc build examples/vector_add.py` writes. */
  static const char json[] =
      "{\"entry\":\"vector_add\",\"params\":[{\"name\":\"A\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":0}],"
      "\"output\":false},{\"name\":\"B\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":0}],\"output\":false},"
      "{\"name\":\"C\",\"tensor\":true,\"dtype\":\"float32\",\"dims\":[{\"sym\":0}],\"output\":false}],"
      "\"syms\":[{\"name\":\"N\",\"param\":0,\"dim\":0}],\"launches\":[{\"symbol\":\"vector_add_kernel\",\"args\":"
      "[{\"kind\":\"tensor\",\"index\":0,\"dtype\":\"float32\"},{\"kind\":\"tensor\",\"index\":1,\"dtype\":\"float32\"},"
      "{\"kind\":\"tensor\",\"index\":2,\"dtype\":\"float32\"},{\"kind\":\"sym\",\"index\":0,\"dtype\":\"int32\"}],"
      "\"grid\":[[1],[1],[1]],\"block\":[[1],[1],[1]],\"dyn_shared_bytes\":[0]}]}";
  assert_true(tl_oom_sweep(parse_table, NULL, (void *)json) > 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_target_json_oom),
      cmocka_unit_test(test_kernel_table_json_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
