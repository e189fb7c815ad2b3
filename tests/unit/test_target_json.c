/* The JSON text of targets: layout, TVM's string escaping, number formats, the
 * indented form, export, and equality/hash on the canonical text. */
#include <stdlib.h>

#include "target_test.h"

static void test_layout(void **state) {
  (void)state;
  /* kind, tag, keys, host, then attributes in schema order. */
  EXPECT_STR("{\"arch\":\"sm_90\",\"host\":{\"kind\":\"c\",\"mcpu\":\"x\"},\"keys\":[\"k\"],\"tag\":\"t\",\"kind\":\"cuda\"}",
             "{\"kind\":\"cuda\",\"tag\":\"t\",\"keys\":[\"k\"],\"host\":{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],"
             "\"mcpu\":\"x\"},\"arch\":\"sm_90\",\"thread_warp_size\":32,\"max_num_threads\":1024}");
  /* The llvm default triple is the build machine's. */
  assert_string_equal(tl__target_default_triple(), TL_TEST_TRIPLE);
}

static void test_string_escaping(void **state) {
  (void)state;
  /* As tvm-ffi's EscapeString: quote, backslash, slash, \b\f\n\r\t, other control
   * bytes and DEL as \u00xx (lowercase hex), everything else (UTF-8) as is. */
  EXPECT_STR("{\"kind\":\"c\",\"mcpu\":\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\u00e9\u4e2d\"}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],"
             "\"mcpu\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\xc3\xa9\xe4\xb8\xad\"}");
  /* Keys and tags too. */
  EXPECT_STR("{\"kind\":\"c\",\"tag\":\"a/b\",\"keys\":[\"x/y\"],\"feature.p/q\":\"/\"}",
             "{\"kind\":\"c\",\"tag\":\"a\\/b\",\"keys\":[\"x\\/y\"],\"feature.p\\/q\":\"\\/\"}");
  tl_target *t = parse_ok("{\"kind\":\"c\",\"tag\":\"a/b\"}");
  assert_string_equal(tl_target_tag(t), "a/b"); /* escaping is only in the text */
  tl_target_release(t);
}

static void test_numbers(void **state) {
  (void)state;
  /* Ints in decimal, full int64 range; floats (features only) as tvm-ffi prints
   * them: integral below 2^53 with ".0", others %.17g. */
  EXPECT_STR("{\"kind\":\"c\",\"workspace-byte-alignment\":-9223372036854775808,"
             "\"constants-byte-alignment\":9223372036854775807}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],\"workspace-byte-alignment\":-9223372036854775808,"
             "\"constants-byte-alignment\":9223372036854775807}");
  EXPECT_STR("{\"kind\":\"c\",\"feature.a\":1.0,\"feature.b\":0.1,\"feature.c\":1e20,\"feature.d\":-2.5e-300,"
             "\"feature.e\":123456789012345.0,\"feature.f\":-0.0}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],\"feature.a\":1.0,\"feature.b\":0.10000000000000001,"
             "\"feature.c\":1e+20,\"feature.d\":-2.5e-300,\"feature.e\":123456789012345.0,"
             "\"feature.f\":-0.0}");
  EXPECT_ERR("{\"kind\":\"c\",\"feature.x\":1e400}",
             "Failed to parse target JSON config: real number overflow near '1e400' at line 1, column 29. "
             "Target creation from string failed: {\"kind\":\"c\",\"feature.x\":1e400}");
}

static void test_nested_feature_values_are_canonical(void **state) {
  (void)state;
  /* Maps inside feature values are sorted by key, so equal values print alike. */
  EXPECT_STR("{\"kind\":\"c\",\"feature.m\":{\"z\":{\"b\":1,\"a\":[{\"y\":1,\"x\":2}]},\"a\":{}},\"feature.e\":[]}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],\"feature.e\":[],"
             "\"feature.m\":{\"a\":{},\"z\":{\"a\":[{\"x\":2,\"y\":1}],\"b\":1}}}");
}

static void test_export(void **state) {
  (void)state;
  tl_target *t = parse_ok("nvidia/jetson-agx-orin-32gb");
  char *e = tl_target_export(t);
  assert_string_equal(e, tl_target_str(t));
  assert_ptr_not_equal(e, tl_target_str(t));
  tl_free(e);
  /* Indented as tvm-ffi's Stringify(indent=2): note the empty array layout. */
  tl_target *h = parse_ok("{\"kind\":\"cuda\",\"keys\":[],\"arch\":\"sm_80\",\"host\":{\"kind\":\"c\",\"libs\":[\"m\"]}}");
  char *p = tl_target_export_indent(h, 2);
  assert_string_equal(p,
                      "{\n"
                      "  \"kind\": \"cuda\",\n"
                      "  \"tag\": \"\",\n"
                      "  \"keys\": [\n"
                      "  ],\n"
                      "  \"host\": {\n"
                      "    \"kind\": \"c\",\n"
                      "    \"tag\": \"\",\n"
                      "    \"keys\": [\n"
                      "      \"cpu\"\n"
                      "    ],\n"
                      "    \"libs\": [\n"
                      "      \"m\"\n"
                      "    ]\n"
                      "  },\n"
                      "  \"arch\": \"sm_80\",\n"
                      "  \"thread_warp_size\": 32,\n"
                      "  \"max_num_threads\": 1024\n"
                      "}");
  tl_free(p);
  p = tl_target_export_indent(h, 0);
  assert_string_equal(p, tl_target_str(h));
  tl_free(p);
  tl_target_release(h);
  tl_target_release(t);
  assert_null(tl_target_export(NULL));
}

/* Both specs give equal targets with equal hashes. */
static void expect_equal(const char *a, const char *b) {
  tl_target *x = parse_ok(a), *y = parse_ok(b);
  if (!tl_target_equal(x, y)) fail_msg("%s != %s:\n  %s\n  %s", a, b, tl_target_str(x), tl_target_str(y));
  assert_true(tl_target_hash(x) == tl_target_hash(y));
  tl_target_release(x);
  tl_target_release(y);
}

static void expect_unequal(const char *a, const char *b) {
  tl_target *x = parse_ok(a), *y = parse_ok(b);
  if (tl_target_equal(x, y)) fail_msg("%s == %s", a, b);
  assert_true(tl_target_hash(x) != tl_target_hash(y));
  tl_target_release(x);
  tl_target_release(y);
}

static void test_equality_and_hash(void **state) {
  (void)state;
  expect_equal("cuda", "{\"kind\":\"cuda\"}");
  expect_equal("cuda", "{\"kind\":\"cuda\",\"keys\":[\"cuda\",\"gpu\"],\"max_num_threads\":1024}");
  expect_equal("{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"max_num_threads\":true}",
               "{\"max_num_threads\":1,\"arch\":\"sm_90\",\"kind\":\"cuda\"}");
  expect_equal("nvidia/nvidia-h100", "{\"kind\":\"cuda\",\"arch\":\"sm_90a\",\"max_shared_memory_per_block\":49152,"
                                     "\"max_threads_per_block\":1024,\"registers_per_block\":65536,"
                                     "\"l2_cache_size_bytes\":52428800}");
  expect_equal("{\"kind\":\"c\",\"feature.b\":{\"x\":1,\"y\":2},\"feature.a\":1}",
               "{\"kind\":\"c\",\"feature.a\":1,\"feature.b\":{\"y\":2,\"x\":1}}");
  expect_equal("{\"kind\":\"c\",\"host\":\"llvm\"}", "{\"kind\":\"c\",\"host\":{\"kind\":\"llvm\"}}");
  expect_unequal("cuda", "nvptx");
  expect_unequal("{\"kind\":\"c\",\"keys\":[\"a\",\"b\"]}", "{\"kind\":\"c\",\"keys\":[\"b\",\"a\"]}");
  expect_unequal("{\"kind\":\"c\",\"tag\":\"x\"}", "c");
  expect_unequal("{\"tag\":\"nvidia/nvidia-h100\"}", "nvidia/nvidia-h100");
  expect_unequal("{\"kind\":\"c\",\"host\":\"c\"}", "c");
  expect_unequal("{\"kind\":\"c\",\"feature.a\":1}", "{\"kind\":\"c\",\"feature.a\":1.0}");
  expect_unequal("{\"kind\":\"c\",\"feature.a\":1}", "{\"kind\":\"c\",\"feature.a\":true}");
  expect_unequal("{\"kind\":\"c\",\"host\":\"llvm\"}", "{\"kind\":\"c\",\"host\":{\"kind\":\"llvm\",\"mcpu\":\"x\"}}");
  assert_true(tl_target_equal(NULL, NULL));
  tl_target *c = parse_ok("c");
  assert_false(tl_target_equal(c, NULL));
  assert_int_equal(tl_target_hash(NULL), 0);
  /* with_host results compare by value too. */
  tl_target *l = parse_ok("llvm"), *w = NULL, *p = parse_ok("{\"kind\":\"c\",\"host\":\"llvm\"}");
  TL_ASSERT_OK(tl_target_with_host(c, l, &w));
  assert_true(tl_target_equal(w, p));
  assert_true(tl_target_hash(w) == tl_target_hash(p));
  tl_target_release(w);
  tl_target_release(p);
  tl_target_release(l);
  tl_target_release(c);
}

static void test_every_kind_and_tag_round_trips(void **state) {
  (void)state;
  const char *names[300];
  size_t nk = tl_list_target_kinds(names, 300);
  size_t nt = tl_list_target_tags(names + nk, 300 - nk);
  for (size_t i = 0; i < nk + nt; i++) {
    tl_target *a = parse_ok(names[i]);
    tl_target *b = parse_ok(tl_target_str(a));
    assert_true(tl_target_equal(a, b));
    assert_string_equal(tl_target_str(a), tl_target_str(b));
    tl_target_release(a);
    tl_target_release(b);
  }
  /* Including the tag-recording form. */
  tl_target *a = parse_ok("{\"tag\":\"nvidia/nvidia-b100\",\"host\":\"nvidia/jetson-tx2\"}");
  tl_target *b = parse_ok(tl_target_str(a));
  assert_string_equal(tl_target_str(a), tl_target_str(b));
  assert_string_equal(tl_target_tag(b), "nvidia/nvidia-b100");
  tl_target_release(a);
  tl_target_release(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_layout),
    cmocka_unit_test(test_string_escaping),
    cmocka_unit_test(test_numbers),
    cmocka_unit_test(test_nested_feature_values_are_canonical),
    cmocka_unit_test(test_export),
    cmocka_unit_test(test_equality_and_hash),
    cmocka_unit_test(test_every_kind_and_tag_round_trips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
