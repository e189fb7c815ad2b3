/* OOM sweeps over the target layer: every allocation of a parse (jansson's too,
 * routed through the library's hook for this test), of determine_target with its
 * normalizers and first-use registration of the built-ins, of error messages, of
 * export, with_host and registration fails cleanly: TL_ENOMEM, "out of memory",
 * no output, no change to registries; leaks are caught by the ASan build.
 *
 * One allowance: jansson reports some of its own allocation failures while
 * lexing user text as syntax errors ("string or '}' expected"), so when the
 * injected failure hit jansson during a parse of user JSON, that TL_EINVAL is
 * accepted; so is success when a normalizer read such a failure as "not mine"
 * (the ops check that the result is then still the right target). Failures on
 * JSON the library wrote itself are always TL_ENOMEM. Auto-detection may also
 * succeed when only the text of a message it did not need failed to allocate. */
#include <jansson.h>

#include "target_test.h"

static int g_jansson_failed;

static void *jansson_malloc(size_t n) {
  void *p = tl__malloc(n);
  if (!p) g_jansson_failed = 1;
  return p;
}

typedef tl_status (*oom_op)(void *ctx);
typedef void (*oom_check)(void *ctx);

enum { STRICT = 0, USER_JSON = 1, MAY_SUCCEED = 2 };

/* tl_oom_sweep with the allowances above (USER_JSON: the jansson one;
 * MAY_SUCCEED: success despite a failed allocation, result checked by the op). */
static long sweep(oom_op op, oom_check after_failure, void *ctx, int mode) {
  bool user_json = mode & USER_JSON;
  for (long n = 1;; n++) {
    g_jansson_failed = 0;
    tl__alloc_fail_after(n);
    tl_status s = op(ctx);
    int injected = tl__alloc_failed();
    tl__alloc_fail_after(0);
    if (!injected) {
      if (s != TL_OK) fail_msg("OOM sweep: op failed without injected failure at N=%ld: %s", n, tl_last_error());
      return n - 1;
    }
    if (s == TL_OK && ((user_json && g_jansson_failed) || (mode & MAY_SUCCEED))) continue; /* result checked */
    bool jansson_misreport = user_json && g_jansson_failed && s == TL_EINVAL &&
                             strstr(tl_last_error(), "Failed to parse target JSON config: ");
    if (!jansson_misreport) {
      if (s != TL_ENOMEM) fail_msg("OOM sweep: N=%ld gave %s (%s), expected TL_ENOMEM", n, tl_status_name(s), tl_last_error());
      if (!strstr(tl_last_error(), "out of memory")) fail_msg("OOM sweep: N=%ld message \"%s\"", n, tl_last_error());
    }
    if (after_failure) after_failure(ctx);
    if (n > 1000000) fail_msg("OOM sweep did not terminate");
  }
}

typedef struct op_ctx {
  const char *spec;
  const char *expect; /* op_parse_error: the message's telling part; op_determine: the result */
  tl_target *out;
  const tl_target *arg;
} op_ctx;

static void check_no_output(void *p) {
  op_ctx *c = p;
  assert_null(c->out);
}

static tl_status op_parse(void *p) {
  op_ctx *c = p;
  tl_status s = tl_target_parse(c->spec, &c->out);
  tl_target_release(c->out);
  if (s == TL_OK) c->out = NULL;
  return s;
}

static tl_status op_determine(void *p) {
  op_ctx *c = p;
  tl_status s = tl_determine_target(c->spec, &c->out);
  if (s == TL_OK && c->expect) assert_string_equal(tl_target_str(c->out), c->expect);
  tl_target_release(c->out);
  if (s == TL_OK) c->out = NULL;
  return s;
}

/* A parse that must fail with TL_EINVAL and a complete message: OOM while
 * building the message must be TL_ENOMEM, not a truncated message. */
static tl_status op_parse_error(void *p) {
  op_ctx *c = p;
  tl_status s = tl_target_parse(c->spec, &c->out);
  if (s == TL_EINVAL && strstr(tl_last_error(), c->expect)) return TL_OK;
  if (s == TL_OK) fail_msg("%s parsed", c->spec);
  return s;
}

static tl_status op_with_host(void *p) {
  op_ctx *c = p;
  tl_target *h = NULL;
  tl_status s = tl_target_with_host(c->arg, c->arg, &h);
  if (s == TL_OK) assert_string_equal(tl_target_kind(tl_target_host(h)), tl_target_kind(c->arg));
  else assert_null(h);
  tl_target_release(h);
  return s;
}

static tl_status op_export(void *p) {
  op_ctx *c = p;
  char *a = tl_target_export(c->arg);
  if (!a) return TL_ENOMEM;
  char *b = tl_target_export_indent(c->arg, 4);
  tl_free(a);
  if (!b) return TL_ENOMEM;
  tl_free(b);
  return TL_OK;
}

static tl_status detect_nothing(void *user_data, tl_target **out) {
  (void)user_data;
  *out = NULL;
  return TL_OK;
}

static tl_status op_register(void *p) {
  (void)p;
  return tl_register_target_detector("oom-detector", detect_nothing, NULL, false);
}

static void check_not_registered(void *p) {
  (void)p;
  const char *names[16];
  size_t n = tl_list_target_detectors(names, 16);
  for (size_t i = 0; i < n && i < 16; i++) assert_string_not_equal(names[i], "oom-detector");
}

static void test_oom_determine_with_builtins_first_use(void **state) {
  (void)state;
  /* First call in the process: registers the built-ins, runs the hip normalizer
   * (json_loads, json_dumps) and finalization. */
  op_ctx c = {"{\"kind\":\"hip\",\"mcpu\":\"gfx1100\"}",
              "{\"kind\":\"hip\",\"tag\":\"\",\"keys\":[\"hip\",\"gpu\"],\"mcpu\":\"gfx1100\","
              "\"mtriple\":\"amdgcn-amd-amdhsa-hcc\",\"thread_warp_size\":32}",
              NULL, NULL};
  long n = sweep(op_determine, check_no_output, &c, USER_JSON);
  assert_true(n > 10);
  const char *names[8];
  assert_int_equal(tl_list_target_detectors(names, 8), 2);
  /* "auto": the detectors; the cuda one finds nothing on a machine without a GPU. */
  tl_target *want = NULL;
  TL_ASSERT_OK(tl_determine_target("auto", &want));
  c.spec = "auto";
  c.expect = tl_target_str(want);
  sweep(op_determine, check_no_output, &c, MAY_SUCCEED);
  tl_target_release(want);
}

static void test_oom_parse_nested(void **state) {
  (void)state;
  /* Tag expansion, a host map holding a JSON-string host holding a tag, keys,
   * features with nested values: every path of FromConfig. */
  op_ctx c = {"{\"tag\":\"nvidia/jetson-agx-orin-64gb\",\"host\":{\"kind\":\"llvm\",\"host\":"
              "\"{\\\"kind\\\":\\\"c\\\",\\\"host\\\":\\\"apple/m1-gpu\\\",\\\"keys\\\":[\\\"a\\\",\\\"b\\\"]}\","
              "\"mcpu\":\"x\",\"mattr\":[\"+a\",\"+b\"]},\"libs\":[\"cublas\"],\"device\":\"dev\","
              "\"feature.x\":{\"b\":[1,2.5,null],\"a\":\"s/t\"},\"max_num_threads\":true}",
              NULL, NULL, NULL};
  long n = sweep(op_parse, check_no_output, &c, USER_JSON);
  assert_true(n > 30);
  c.spec = "vulkan"; /* a bare kind: builds its cached target the first time */
  sweep(op_parse, check_no_output, &c, STRICT);
  c.spec = "nvidia/nvidia-l4"; /* a tag, likewise: its JSON is the library's own */
  sweep(op_parse, check_no_output, &c, STRICT);
}

static void test_oom_error_messages(void **state) {
  (void)state;
  const struct {
    const char *spec, *expect;
  } cases[] = {
    {"cuda -arch=sm_90 -keys=a,b -flag", "Equivalent JSON: {\"kind\":\"cuda\",\"arch\":\"sm_90\",\"keys\":[\"a\",\"b\"],"
                                         "\"flag\":true}"},
    {"{\"kind\":\"cuda\",\"host\":{\"kind\":\"c\",\"bad\":1}}", "Target creation from config dict failed: {\"kind\":\"c\""},
    {"{\"kind\":\"cuda\",", "Failed to parse target JSON config: string or '}' expected near end of file"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    op_ctx c = {cases[i].spec, cases[i].expect, NULL, NULL};
    sweep(op_parse_error, NULL, &c, cases[i].spec[0] == '{' ? USER_JSON : STRICT);
  }
}

static void test_oom_with_host_export_register(void **state) {
  (void)state;
  tl_target *t = parse_ok("{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"host\":\"llvm\",\"feature.f\":[{\"a\":1}]}");
  op_ctx c = {NULL, NULL, NULL, t};
  sweep(op_with_host, NULL, &c, STRICT);
  sweep(op_export, NULL, &c, STRICT);
  tl_target_release(t);
  sweep(op_register, check_not_registered, &c, STRICT);
}

int main(void) {
  /* jansson allocates through the library's hook here, so sweeps reach it too. */
  json_set_alloc_funcs(jansson_malloc, tl__free);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_oom_determine_with_builtins_first_use),
    cmocka_unit_test(test_oom_parse_nested),
    cmocka_unit_test(test_oom_error_messages),
    cmocka_unit_test(test_oom_with_host_export_register),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
