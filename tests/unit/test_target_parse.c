/* Target parsing: the three string forms, tag expansion, the keys rule, hosts,
 * TVM's coercions, canonicalizers, and every error path with its exact message. */
#include "target/target_impl.h"
#include "target_test.h"

#define CUDA_DEFAULTS "\"thread_warp_size\":32,\"max_num_threads\":1024"
#define SUFFIX ". Target creation from string failed: "

/* ---- forms ---- */

static void test_bare_kind(void **state) {
  (void)state;
  EXPECT_STR("c", "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"]}");
  EXPECT_STR("cuda", "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"]," CUDA_DEFAULTS "}");
  tl_target *t = parse_ok("cuda");
  assert_string_equal(tl_target_kind(t), "cuda");
  assert_string_equal(tl_target_tag(t), "");
  assert_null(tl_target_host(t));
  /* No silent sm_50: without a device query there is no arch. */
  assert_false(tl_target_has_attr(t, "arch"));
  tl_target_release(t);
}

static void test_bare_kind_is_shared(void **state) {
  (void)state;
  /* Bare kinds and tags are immutable and cached: the same object comes back. */
  tl_target *a = parse_ok("metal"), *b = parse_ok("metal");
  assert_ptr_equal(a, b);
  tl_target_release(a);
  tl_target_release(b);
  tl_target *c = parse_ok("metal");
  assert_string_equal(tl_target_kind(c), "metal");
  tl_target_release(c);
}

static void test_json_specs_are_memoized(void **state) {
  (void)state;
  /* An identical JSON spec gives the same immutable target back. */
  const char *spec = "{\"kind\":\"opencl\",\"max_num_threads\":64}";
  tl_target *a = parse_ok(spec), *b = parse_ok(spec);
  assert_ptr_equal(a, b);
  /* Another spelling is another entry, but an equal target. */
  tl_target *c = parse_ok("{ \"max_num_threads\": 64, \"kind\": \"opencl\" }");
  assert_ptr_not_equal(a, c);
  assert_true(tl_target_equal(a, c));
  tl_target_release(b);
  tl_target_release(c);
  /* Many other specs evict it; the result is the same target all the same. */
  for (int i = 0; i < 500; i++) {
    char other[64];
    snprintf(other, sizeof other, "{\"kind\":\"opencl\",\"max_num_threads\":%d}", i);
    tl_target *t = parse_ok(other);
    int64_t v;
    assert_true(tl_target_attr_int(t, "max_num_threads", &v));
    assert_int_equal(v, i);
    tl_target_release(t);
  }
  tl_target *d = parse_ok(spec);
  assert_true(tl_target_equal(a, d));
  tl_target_release(d);
  tl_target_release(a);
  /* Failures are not memoized; off, every parse builds a new target. */
  EXPECT_ERR("{\"kind\":\"opencl\",\"x\":1}", "Unknown config option 'x'. Known options: 'kind', 'keys', 'tag', "
             "'device', 'model', 'libs', 'host', 'from_device', 'target_device_type', 'max_threads_per_block', "
             "'max_shared_memory_per_block', 'max_num_threads', 'thread_warp_size', 'texture_spatial_limit', "
             "'texture_depth_limit', 'max_function_args', 'image_base_address_alignment'" SUFFIX
             "{\"kind\":\"opencl\",\"x\":1}");
  EXPECT_ERR("{\"kind\":\"opencl\",\"x\":1}", "Unknown config option 'x'. Known options: 'kind', 'keys', 'tag', "
             "'device', 'model', 'libs', 'host', 'from_device', 'target_device_type', 'max_threads_per_block', "
             "'max_shared_memory_per_block', 'max_num_threads', 'thread_warp_size', 'texture_spatial_limit', "
             "'texture_depth_limit', 'max_function_args', 'image_base_address_alignment'" SUFFIX
             "{\"kind\":\"opencl\",\"x\":1}");
  tl__target_memo_enable(false);
  a = parse_ok(spec);
  b = parse_ok(spec);
  assert_ptr_not_equal(a, b);
  assert_true(tl_target_equal(a, b));
  tl_target_release(a);
  tl_target_release(b);
  tl__target_memo_enable(true);
}

static void test_tag_string_does_not_record_tag(void **state) {
  (void)state;
  tl_target *t = parse_ok("nvidia/nvidia-h100");
  assert_string_equal(tl_target_tag(t), "");
  const char *arch;
  assert_true(tl_target_attr_str(t, "arch", &arch));
  assert_string_equal(arch, "sm_90a");
  int64_t l2;
  assert_true(tl_target_attr_int(t, "l2_cache_size_bytes", &l2));
  assert_int_equal(l2, 52428800);
  tl_target_release(t);
}

static void test_tag_dict_records_tag_and_overrides(void **state) {
  (void)state;
  EXPECT_STR("{\"tag\":\"nvidia/nvidia-a100\"}",
             "{\"kind\":\"cuda\",\"tag\":\"nvidia\\/nvidia-a100\",\"keys\":[\"cuda\",\"gpu\"],\"arch\":\"sm_80\","
             "\"max_shared_memory_per_block\":49152,\"max_threads_per_block\":1024,\"thread_warp_size\":32,"
             "\"registers_per_block\":65536,\"l2_cache_size_bytes\":41943040,\"max_num_threads\":1024}");
  /* Overrides win over the tag's values; new options are added. */
  tl_target *t = parse_ok("{\"tag\":\"nvidia/nvidia-a100\",\"arch\":\"sm_86\",\"code\":[\"sm_86\"],\"keys\":[\"x\"]}");
  const char *arch, *code[4];
  assert_true(tl_target_attr_str(t, "arch", &arch));
  assert_string_equal(arch, "sm_86");
  assert_int_equal(tl_target_attr_array(t, "code", code, 4), 1);
  assert_string_equal(code[0], "sm_86");
  assert_int_equal(tl_target_num_keys(t), 1);
  assert_string_equal(tl_target_key(t, 0), "x");
  assert_string_equal(tl_target_tag(t), "nvidia/nvidia-a100");
  tl_target_release(t);
  /* A tag's host can be overridden as a whole. */
  t = parse_ok("{\"tag\":\"nvidia/jetson-agx-orin-64gb\",\"host\":\"c\"}");
  assert_string_equal(tl_target_kind(tl_target_host(t)), "c");
  tl_target_release(t);
}

static void test_kind_and_tag_records_without_expanding(void **state) {
  (void)state;
  EXPECT_STR("{\"kind\":\"cuda\",\"tag\":\"nvidia/nvidia-a100\"}",
             "{\"kind\":\"cuda\",\"tag\":\"nvidia\\/nvidia-a100\",\"keys\":[\"cuda\",\"gpu\"]," CUDA_DEFAULTS "}");
  /* With kind given, the tag is just a string: even an unknown one. */
  EXPECT_STR("{\"kind\":\"c\",\"tag\":\"mine\"}", "{\"kind\":\"c\",\"tag\":\"mine\",\"keys\":[\"cpu\"]}");
}

static void test_jetson_and_metal_tags_have_hosts(void **state) {
  (void)state;
  tl_target *t = parse_ok("nvidia/jetson-agx-orin-64gb");
  const tl_target *h = tl_target_host(t);
  assert_non_null(h);
  assert_string_equal(tl_target_kind(h), "llvm");
  const char *s;
  int64_t cores;
  assert_true(tl_target_attr_str(h, "mcpu", &s));
  assert_string_equal(s, "cortex-a78");
  assert_true(tl_target_attr_int(h, "num-cores", &cores));
  assert_int_equal(cores, 12);
  tl_target_release(t);
  t = parse_ok("apple/m2-gpu");
  assert_string_equal(tl_target_kind(t), "metal");
  assert_true(tl_target_attr_str(tl_target_host(t), "mcpu", &s));
  assert_string_equal(s, "apple-m2");
  int64_t v;
  assert_true(tl_target_attr_int(t, "max_function_args", &v)); /* metal default kept */
  assert_int_equal(v, 31);
  tl_target_release(t);
}

/* ---- keys ---- */

static void test_keys_rule(void **state) {
  (void)state;
  EXPECT_STR("{\"kind\":\"cuda\",\"keys\":[\"cutedsl\"]}",
             "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cutedsl\"]," CUDA_DEFAULTS "}");
  EXPECT_STR("{\"kind\":\"c\",\"device\":\"arm_cpu\"}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"arm_cpu\",\"cpu\"],\"device\":\"arm_cpu\"}");
  EXPECT_STR("{\"kind\":\"c\",\"keys\":[\"cpu\",\"arm_cpu\"],\"device\":\"arm_cpu\"}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\",\"arm_cpu\"],\"device\":\"arm_cpu\"}");
  EXPECT_STR("{\"kind\":\"c\",\"keys\":[\"a\",\"b\",\"a\",\"b\"]}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"a\",\"b\"]}");
  /* An empty explicit list still replaces the defaults. */
  EXPECT_STR("{\"kind\":\"c\",\"keys\":[]}", "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[]}");
  EXPECT_STR("{\"kind\":\"c\",\"keys\":[],\"device\":\"d\"}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"d\"],\"device\":\"d\"}");
  tl_target *t = parse_ok("cuda");
  assert_true(tl_target_has_key(t, "gpu"));
  assert_false(tl_target_has_key(t, "cpu"));
  assert_false(tl_target_has_key(t, NULL));
  assert_null(tl_target_key(t, 2));
  tl_target_release(t);
}

/* ---- coercions ---- */

static void test_coercions(void **state) {
  (void)state;
  /* bool for int and int for bool are accepted and converted. */
  EXPECT_STR("{\"kind\":\"cuda\",\"max_num_threads\":true}",
             "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"],\"thread_warp_size\":32,\"max_num_threads\":1}");
  EXPECT_STR("{\"kind\":\"webgpu\",\"supports_subgroups\":1}",
             "{\"kind\":\"webgpu\",\"tag\":\"\",\"keys\":[\"webgpu\",\"gpu\"],\"max_num_threads\":256,"
             "\"supports_subgroups\":true,\"thread_warp_size\":32}");
  EXPECT_STR("{\"kind\":\"vulkan\",\"supports_float32\":0,\"supports_int8\":-3}",
             "{\"kind\":\"vulkan\",\"tag\":\"\",\"keys\":[\"vulkan\",\"gpu\"],\"supports_float32\":false,"
             "\"supports_int8\":true,\"supports_int32\":true,\"max_num_threads\":256,\"max_threads_per_block\":256,"
             "\"thread_warp_size\":1}");
  /* Everything else is rejected, with TVM's type names. */
  EXPECT_ERR("{\"kind\":\"cuda\",\"max_num_threads\":1024.0}",
             "Option 'max_num_threads': expected type 'int' but got 'float'" SUFFIX
             "{\"kind\":\"cuda\",\"max_num_threads\":1024.0}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"max_num_threads\":\"1024\"}",
             "Option 'max_num_threads': expected type 'int' but got 'ffi.String'" SUFFIX
             "{\"kind\":\"cuda\",\"max_num_threads\":\"1024\"}");
  EXPECT_ERR("{\"kind\":\"webgpu\",\"supports_subgroups\":\"true\"}",
             "Option 'supports_subgroups': expected type 'bool' but got 'ffi.String'" SUFFIX
             "{\"kind\":\"webgpu\",\"supports_subgroups\":\"true\"}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"code\":\"sm_100a\"}",
             "Option 'code': expected type 'Array<str>' but got 'ffi.String'" SUFFIX
             "{\"kind\":\"cuda\",\"code\":\"sm_100a\"}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"code\":[\"sm_100a\",1]}",
             "Option 'code': expected type 'Array<str>' but got 'ffi.Array'" SUFFIX
             "{\"kind\":\"cuda\",\"code\":[\"sm_100a\",1]}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"arch\":null}",
             "Option 'arch': expected type 'str' but got 'None'" SUFFIX "{\"kind\":\"cuda\",\"arch\":null}");
  EXPECT_ERR("{\"kind\":\"c\",\"mcpu\":{\"a\":1}}",
             "Option 'mcpu': expected type 'str' but got 'ffi.Map'" SUFFIX "{\"kind\":\"c\",\"mcpu\":{\"a\":1}}");
  EXPECT_ERR("{\"kind\":\"c\",\"keys\":\"cpu\"}",
             "Option 'keys': expected type 'Array<str>' but got 'ffi.String'" SUFFIX "{\"kind\":\"c\",\"keys\":\"cpu\"}");
  EXPECT_ERR("{\"kind\":\"c\",\"tag\":7}",
             "Option 'tag': expected type 'str' but got 'int'" SUFFIX "{\"kind\":\"c\",\"tag\":7}");
  EXPECT_ERR("{\"kind\":\"c\",\"from_device\":\"0\"}",
             "Option 'from_device': expected type 'int' but got 'ffi.String'" SUFFIX
             "{\"kind\":\"c\",\"from_device\":\"0\"}");
  /* A type error on a declared option is reported before an unknown option. */
  EXPECT_ERR("{\"kind\":\"c\",\"zzz\":1,\"mcpu\":1}",
             "Option 'mcpu': expected type 'str' but got 'int'" SUFFIX "{\"kind\":\"c\",\"zzz\":1,\"mcpu\":1}");
}

/* ---- attributes ---- */

static void test_defaults_and_schema_order(void **state) {
  (void)state;
  /* User order does not matter: the text follows the schema. */
  EXPECT_STR("{\"max_num_threads\":512,\"arch\":\"sm_80\",\"kind\":\"cuda\",\"mcpu\":\"x\"}",
             "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"],\"mcpu\":\"x\",\"arch\":\"sm_80\","
             "\"thread_warp_size\":32,\"max_num_threads\":512}");
  /* Common options first, then the kind's. */
  EXPECT_STR("{\"kind\":\"c\",\"mcpu\":\"m\",\"libs\":[\"l\"],\"model\":\"x\",\"target_device_type\":4}",
             "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],\"model\":\"x\",\"libs\":[\"l\"],"
             "\"target_device_type\":4,\"mcpu\":\"m\"}");
  /* hip's intended defaults are raw values upstream, which TVM ignores. */
  tl_target *t = parse_ok("hip");
  assert_false(tl_target_has_attr(t, "max_num_threads"));
  assert_false(tl_target_has_attr(t, "thread_warp_size"));
  tl_target_release(t);
}

static void test_from_device_and_device_type(void **state) {
  (void)state;
  /* from_device never appears (nothing here queries devices). */
  EXPECT_STR("{\"kind\":\"c\",\"from_device\":0}", "{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"]}");
  tl_target *t = parse_ok("c");
  assert_int_equal(tl_target_device_type(t), 1);
  tl_target_release(t);
  t = parse_ok("hip");
  assert_int_equal(tl_target_device_type(t), 10);
  tl_target_release(t);
  t = parse_ok("{\"kind\":\"c\",\"target_device_type\":2}");
  assert_int_equal(tl_target_device_type(t), 2);
  tl_target_release(t);
  assert_int_equal(tl_target_device_type(NULL), -1);
}

static void test_features(void **state) {
  (void)state;
  /* feature.* keys are not schema-checked, on any kind, and sort by name. */
  EXPECT_STR("{\"kind\":\"metal\",\"feature.z\":null,\"feature.a\":[1,\"x\"],\"max_function_args\":4}",
             "{\"kind\":\"metal\",\"tag\":\"\",\"keys\":[\"metal\",\"gpu\"],\"max_num_threads\":256,"
             "\"max_threads_per_block\":256,\"max_shared_memory_per_block\":32768,\"thread_warp_size\":16,"
             "\"max_function_args\":4,\"feature.a\":[1,\"x\"],\"feature.z\":null}");
  /* "feature." alone is not a feature. */
  EXPECT_ERR("{\"kind\":\"c\",\"feature.\":1}",
             "Unknown config option 'feature.'. Known options: 'kind', 'keys', 'tag', 'device', 'model', 'libs', "
             "'host', 'from_device', 'target_device_type', 'mcpu', 'march', 'workspace-byte-alignment', "
             "'constants-byte-alignment'" SUFFIX "{\"kind\":\"c\",\"feature.\":1}");
}

static void test_getters(void **state) {
  (void)state;
  tl_target *t = parse_ok("{\"kind\":\"llvm\",\"mattr\":[\"+avx2\",\"+fma\"],\"fast-math\":true,\"num-cores\":8,"
                          "\"mcpu\":\"skylake\"}");
  const char *s, *arr[1];
  int64_t i;
  bool b;
  assert_true(tl_target_attr_str(t, "mcpu", &s));
  assert_string_equal(s, "skylake");
  assert_true(tl_target_attr_int(t, "num-cores", &i));
  assert_int_equal(i, 8);
  assert_true(tl_target_attr_bool(t, "fast-math", &b));
  assert_true(b);
  assert_int_equal(tl_target_attr_array(t, "mattr", arr, 1), 2); /* full length, cap respected */
  assert_string_equal(arr[0], "+avx2");
  /* Wrong type or absent: false / 0. */
  assert_false(tl_target_attr_int(t, "fast-math", &i));
  assert_false(tl_target_attr_bool(t, "num-cores", &b));
  assert_false(tl_target_attr_str(t, "mattr", &s));
  assert_int_equal(tl_target_attr_array(t, "mcpu", arr, 1), 0);
  assert_false(tl_target_attr_str(t, "nope", &s));
  /* mcpu given: the llvm canonicalizer adds no triple. */
  assert_false(tl_target_has_attr(t, "mtriple"));
  assert_int_equal(tl_target_num_attrs(t), 4);
  assert_string_equal(tl_target_attr_name(t, 0), "mattr");
  assert_string_equal(tl_target_attr_name(t, 2), "num-cores"); /* schema order, not the order given */
  assert_string_equal(tl_target_attr_name(t, 3), "fast-math");
  assert_null(tl_target_attr_name(t, 4));
  tl_target_release(t);
  /* NULL-safe accessors. */
  assert_null(tl_target_kind(NULL));
  assert_null(tl_target_str(NULL));
  assert_int_equal(tl_target_num_keys(NULL), 0);
  assert_false(tl_target_attr_str(NULL, "x", &s));
  assert_null(tl_target_retain(NULL));
  tl_target_release(NULL);
}

/* ---- hosts ---- */

static void test_hosts(void **state) {
  (void)state;
  /* A host as a kind, a tag, a JSON string or an object, to any depth. */
  tl_target *t = parse_ok("{\"kind\":\"cuda\",\"host\":\"c\"}");
  assert_string_equal(tl_target_kind(tl_target_host(t)), "c");
  tl_target_release(t);
  t = parse_ok("{\"kind\":\"c\",\"host\":\"apple/m1-gpu\"}");
  assert_string_equal(tl_target_kind(tl_target_host(t)), "metal");
  assert_string_equal(tl_target_kind(tl_target_host(tl_target_host(t))), "llvm");
  tl_target_release(t);
  t = parse_ok("{\"kind\":\"cuda\",\"host\":\"{\\\"kind\\\":\\\"llvm\\\",\\\"host\\\":{\\\"kind\\\":\\\"c\\\","
               "\\\"host\\\":{\\\"kind\\\":\\\"c\\\",\\\"mcpu\\\":\\\"deep\\\"}}}\"}");
  const tl_target *h = tl_target_host(tl_target_host(tl_target_host(t)));
  const char *mcpu;
  assert_true(tl_target_attr_str(h, "mcpu", &mcpu));
  assert_string_equal(mcpu, "deep");
  assert_null(tl_target_host(h));
  assert_string_equal(tl_target_str(t),
                      "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"],\"host\":{\"kind\":\"llvm\","
                      "\"tag\":\"\",\"keys\":[\"cpu\"],\"host\":{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],"
                      "\"host\":{\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"],\"mcpu\":\"deep\"}},"
                      "\"mtriple\":\"" TL_TEST_TRIPLE "\"}," CUDA_DEFAULTS "}");
  tl_target_release(t);
}

static void test_host_depth_limit(void **state) {
  (void)state;
  /* 256 levels of hosts parse; one more is refused instead of recursing on. */
  for (int depth = 255; depth <= 257; depth++) {
    tl__sb sb = TL__SB_INIT;
    for (int i = 0; i < depth; i++) tl__sb_append(&sb, "{\"kind\":\"c\",\"host\":");
    tl__sb_append(&sb, "\"c\"");
    for (int i = 0; i < depth; i++) tl__sb_putc(&sb, '}');
    tl_target *t = NULL;
    tl_status s = tl_target_parse(tl__sb_str(&sb), &t);
    if (depth <= 256) { /* depth objects, each with a host: depth levels */
      TL_ASSERT_OK(s);
      tl_target_release(t);
    } else {
      assert_int_equal(s, TL_EINVAL);
      assert_non_null(strstr(tl_last_error(), "Target host nesting exceeds 256 levels"));
    }
    tl__sb_free(&sb);
  }
}

static void test_with_host(void **state) {
  (void)state;
  tl_target *cuda = parse_ok("{\"kind\":\"cuda\",\"arch\":\"sm_90\",\"host\":\"llvm\"}");
  tl_target *c = parse_ok("c"), *out = NULL;
  TL_ASSERT_OK(tl_target_with_host(cuda, c, &out));
  assert_string_equal(tl_target_str(out), "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"],\"host\":{"
                                          "\"kind\":\"c\",\"tag\":\"\",\"keys\":[\"cpu\"]},\"arch\":\"sm_90\","
                                          CUDA_DEFAULTS "}");
  assert_ptr_equal(tl_target_host(out), c);
  /* The original is untouched (immutable), and a copy of a copy works. */
  assert_string_equal(tl_target_kind(tl_target_host(cuda)), "llvm");
  tl_target *bare = NULL;
  TL_ASSERT_OK(tl_target_with_host(out, NULL, &bare));
  assert_null(tl_target_host(bare));
  assert_string_equal(tl_target_str(bare), "{\"kind\":\"cuda\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"],"
                                           "\"arch\":\"sm_90\"," CUDA_DEFAULTS "}");
  tl_target_release(cuda);
  tl_target_release(out);
  const char *arch;
  assert_true(tl_target_attr_str(bare, "arch", &arch)); /* data outlives the released originals */
  assert_string_equal(arch, "sm_90");
  tl_target_release(bare);
  tl_target_release(c);
  TL_ASSERT_ERR(tl_target_with_host(NULL, NULL, &out), TL_EINVAL, "target is NULL");
}

/* ---- canonicalizers ---- */

static void test_canonicalizers(void **state) {
  (void)state;
  const char *s;
  /* CUDA: arch must start with sm_; anything after it is accepted. */
  for (const char *const *a = (const char *const[]){"sm_90a", "sm_100f", "sm_", NULL}; *a; a++) {
    char spec[64];
    snprintf(spec, sizeof spec, "{\"kind\":\"cuda\",\"arch\":\"%s\"}", *a);
    tl_target *t = parse_ok(spec);
    assert_true(tl_target_attr_str(t, "arch", &s));
    assert_string_equal(s, *a);
    tl_target_release(t);
  }
  EXPECT_ERR("{\"kind\":\"cuda\",\"arch\":\"compute_90\"}",
             "CUDA target gets an invalid CUDA arch: -arch=compute_90" SUFFIX "{\"kind\":\"cuda\",\"arch\":\"compute_90\"}");
  /* An empty code list is accepted here (TileLang checks it at compile time). */
  tl_target *t = parse_ok("{\"kind\":\"cuda\",\"arch\":\"sm_100f\",\"code\":[]}");
  assert_true(tl_target_has_attr(t, "code"));
  tl_target_release(t);
  /* NVPTX: mtriple set; mcpu checked, never guessed. */
  EXPECT_STR("{\"kind\":\"nvptx\",\"mcpu\":\"sm_80\"}",
             "{\"kind\":\"nvptx\",\"tag\":\"\",\"keys\":[\"cuda\",\"gpu\"],\"mcpu\":\"sm_80\","
             "\"mtriple\":\"nvptx64-nvidia-cuda\",\"max_num_threads\":1024,\"thread_warp_size\":32}");
  EXPECT_ERR("{\"kind\":\"nvptx\",\"mcpu\":\"gfx90a\"}",
             "NVPTX target gets an invalid CUDA arch: -mcpu=gfx90a" SUFFIX "{\"kind\":\"nvptx\",\"mcpu\":\"gfx90a\"}");
  EXPECT_ERR("{\"kind\":\"nvptx\",\"mtriple\":\"x86_64\"}",
             "Expects \"mtriple\" to be \"nvptx64-nvidia-cuda\", but gets: x86_64" SUFFIX
             "{\"kind\":\"nvptx\",\"mtriple\":\"x86_64\"}");
  /* ROCm/HIP: mtriple fixed, mcpu gfx-checked but kept as given, gfx900 default. */
  EXPECT_STR("{\"kind\":\"hip\",\"mcpu\":\"gfx1151:sramecc+:xnack-\"}",
             "{\"kind\":\"hip\",\"tag\":\"\",\"keys\":[\"hip\",\"gpu\"],\"mcpu\":\"gfx1151:sramecc+:xnack-\","
             "\"mtriple\":\"amdgcn-amd-amdhsa-hcc\"}");
  EXPECT_STR("{\"kind\":\"rocm\",\"mtriple\":\"amdgcn-amd-amdhsa-hcc\",\"thread_warp_size\":32}",
             "{\"kind\":\"rocm\",\"tag\":\"\",\"keys\":[\"rocm\",\"gpu\"],\"mcpu\":\"gfx900\","
             "\"mtriple\":\"amdgcn-amd-amdhsa-hcc\",\"max_num_threads\":256,\"max_threads_per_block\":256,"
             "\"max_shared_memory_per_block\":65536,\"thread_warp_size\":32}");
  EXPECT_ERR("{\"kind\":\"hip\",\"mcpu\":\"gfx\"}",
             "ROCm target gets an invalid GFX version: -mcpu=gfx" SUFFIX "{\"kind\":\"hip\",\"mcpu\":\"gfx\"}");
  EXPECT_ERR("{\"kind\":\"rocm\",\"mcpu\":\"sm_90\"}",
             "ROCm target gets an invalid GFX version: -mcpu=sm_90" SUFFIX "{\"kind\":\"rocm\",\"mcpu\":\"sm_90\"}");
  EXPECT_ERR("{\"kind\":\"hip\",\"mtriple\":\"amdgcn\"}",
             "Expects \"mtriple\" to be \"amdgcn-amd-amdhsa-hcc\", but gets: amdgcn" SUFFIX
             "{\"kind\":\"hip\",\"mtriple\":\"amdgcn\"}");
  /* WebGPU: subgroups give warp 32; a warp above 1 needs them. */
  EXPECT_STR("{\"kind\":\"webgpu\",\"supports_subgroups\":true,\"thread_warp_size\":8}",
             "{\"kind\":\"webgpu\",\"tag\":\"\",\"keys\":[\"webgpu\",\"gpu\"],\"max_num_threads\":256,"
             "\"supports_subgroups\":true,\"thread_warp_size\":32}");
  EXPECT_ERR("{\"kind\":\"webgpu\",\"thread_warp_size\":32,\"supports_subgroups\":false}",
             "WebGPU target with thread_warp_size=32 requires supports_subgroups=true" SUFFIX
             "{\"kind\":\"webgpu\",\"thread_warp_size\":32,\"supports_subgroups\":false}");
  EXPECT_STR("{\"kind\":\"webgpu\",\"thread_warp_size\":0}",
             "{\"kind\":\"webgpu\",\"tag\":\"\",\"keys\":[\"webgpu\",\"gpu\"],\"max_num_threads\":256,"
             "\"supports_subgroups\":false,\"thread_warp_size\":0}");
  /* LLVM: the default triple only without mtriple and mcpu; c gets none. */
  EXPECT_STR("llvm", "{\"kind\":\"llvm\",\"tag\":\"\",\"keys\":[\"cpu\"],\"mtriple\":\"" TL_TEST_TRIPLE "\"}");
  EXPECT_STR("{\"kind\":\"llvm\",\"mtriple\":\"aarch64-linux-gnu\"}",
             "{\"kind\":\"llvm\",\"tag\":\"\",\"keys\":[\"cpu\"],\"mtriple\":\"aarch64-linux-gnu\"}");
}

/* ---- errors of the string and config forms ---- */

static void test_string_form_errors(void **state) {
  (void)state;
  EXPECT_ERR("foo", "Target kind \"foo\" is not defined" SUFFIX "foo");
  EXPECT_ERR("", "Target kind \"\" is not defined" SUFFIX);
  EXPECT_ERR("CUDA", "Target kind \"CUDA\" is not defined" SUFFIX "CUDA");
  EXPECT_ERR("{\"kind\":\"cuda\",",
             "Failed to parse target JSON config: string or '}' expected near end of file at line 1, column 15" SUFFIX
             "{\"kind\":\"cuda\",");
  EXPECT_ERR("{\"kind\":\"cuda\"}\n{",
             "Failed to parse target JSON config: end of file expected near '{' at line 2, column 1" SUFFIX
             "{\"kind\":\"cuda\"}\n{");
  EXPECT_ERR("{\"kind\":\"c\",\"kind\":\"c\"}",
             "Failed to parse target JSON config: duplicate object key near '\"kind\"' at line 1, column 18" SUFFIX
             "{\"kind\":\"c\",\"kind\":\"c\"}");
  EXPECT_ERR("{\"kind\":\"c\\u0000\"}",
             "Failed to parse target JSON config: \\u0000 is not allowed without JSON_ALLOW_NUL near "
             "'\"c\\u0000\"' at line 1, column 17" SUFFIX "{\"kind\":\"c\\u0000\"}");
  /* A tab is not a space: it reaches the kind lookup, as upstream. */
  EXPECT_ERR("cuda\t", "Target kind \"cuda\t\" is not defined" SUFFIX "cuda\t");
  TL_ASSERT_ERR(tl_target_parse(NULL, &(tl_target *){NULL}), TL_EINVAL, "");
  TL_ASSERT_MSG("target has to be a string or dictionary. instead get NULL");
  TL_ASSERT_ERR(tl_target_parse("c", NULL), TL_EINVAL, "out is NULL");
}

static void test_config_form_errors(void **state) {
  (void)state;
  EXPECT_ERR("{}", "Field \"kind\" is not found" SUFFIX "{}");
  EXPECT_ERR("{\"arch\":\"sm_90\"}", "Field \"kind\" is not found" SUFFIX "{\"arch\":\"sm_90\"}");
  EXPECT_ERR("{\"kind\":3}", "Expect type of field \"kind\" is String, but get type: int" SUFFIX "{\"kind\":3}");
  EXPECT_ERR("{\"kind\":[\"c\"]}",
             "Expect type of field \"kind\" is String, but get type: ffi.Array" SUFFIX "{\"kind\":[\"c\"]}");
  EXPECT_ERR("{\"kind\":\"tpu\"}", "Target kind \"tpu\" is not defined" SUFFIX "{\"kind\":\"tpu\"}");
  EXPECT_ERR("{\"tag\":\"nvidia/nope\"}", "Unknown target tag: nvidia/nope" SUFFIX "{\"tag\":\"nvidia/nope\"}");
  EXPECT_ERR("{\"tag\":true}", "Expect type of field \"tag\" is String, but get type: bool" SUFFIX "{\"tag\":true}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"foo\":1}",
             "Unknown config option 'foo'. Known options: 'kind', 'keys', 'tag', 'device', 'model', 'libs', 'host', "
             "'from_device', 'target_device_type', 'mcpu', 'arch', 'code', 'max_shared_memory_per_block', "
             "'max_threads_per_block', 'thread_warp_size', 'registers_per_block', 'l2_cache_size_bytes', "
             "'max_num_threads'" SUFFIX "{\"kind\":\"cuda\",\"foo\":1}");
  /* Options of another kind are unknown too. */
  EXPECT_ERR("{\"kind\":\"metal\",\"arch\":\"sm_90\"}",
             "Unknown config option 'arch'. Known options: 'kind', 'keys', 'tag', 'device', 'model', 'libs', 'host', "
             "'from_device', 'target_device_type', 'max_num_threads', 'max_threads_per_block', "
             "'max_shared_memory_per_block', 'thread_warp_size', 'max_function_args'" SUFFIX
             "{\"kind\":\"metal\",\"arch\":\"sm_90\"}");
}

static void test_host_errors(void **state) {
  (void)state;
  /* Host errors carry the host's own suffix, then the outer one. */
  EXPECT_ERR("{\"kind\":\"cuda\",\"host\":5}", "Cannot create target with type: int" SUFFIX "{\"kind\":\"cuda\",\"host\":5}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"host\":null}",
             "Cannot create target with type: None" SUFFIX "{\"kind\":\"cuda\",\"host\":null}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"host\":\"cpu\"}",
             "Target kind \"cpu\" is not defined" SUFFIX "cpu" SUFFIX "{\"kind\":\"cuda\",\"host\":\"cpu\"}");
  EXPECT_ERR("{\"kind\":\"cuda\",\"host\":{\"kind\":\"c\",\"mcpu\":3,\"x/y\":\"a\\\"b\"}}",
             "Option 'mcpu': expected type 'str' but got 'int'. Target creation from config dict failed: "
             "{\"kind\":\"c\",\"mcpu\":3,\"x\\/y\":\"a\\\"b\"}" SUFFIX
             "{\"kind\":\"cuda\",\"host\":{\"kind\":\"c\",\"mcpu\":3,\"x/y\":\"a\\\"b\"}}");
  /* The host is built before the outer options are resolved. */
  EXPECT_ERR("{\"kind\":\"cuda\",\"zzz\":1,\"host\":\"nope\"}",
             "Target kind \"nope\" is not defined" SUFFIX "nope" SUFFIX "{\"kind\":\"cuda\",\"zzz\":1,\"host\":\"nope\"}");
}

/* ---- the removed CLI form ---- */

#define LEGACY(s)                                                                                                   \
  "Cannot parse target string \"" s "\". CLI target string form (e.g. \"llvm -mcpu=xxx\") is no longer supported. " \
  "Please use JSON dict form (e.g. {\"kind\": \"llvm\", \"mcpu\": \"xxx\"}) instead."

static void test_legacy_strings(void **state) {
  (void)state;
  EXPECT_ERR("cuda -arch=sm_90 -max_num_threads=1024",
             LEGACY("cuda -arch=sm_90 -max_num_threads=1024")
             " Equivalent JSON: {\"kind\":\"cuda\",\"arch\":\"sm_90\",\"max_num_threads\":1024}" SUFFIX
             "cuda -arch=sm_90 -max_num_threads=1024");
  /* -k v, flags, arrays, bools and quoted values; typed by the schema. */
  EXPECT_ERR("llvm -mcpu skylake -mattr=+avx2,+fma -fast-math -opt-level=3 -keys=cpu -jit='or cjit' -fast-math-nnan=0",
             LEGACY("llvm -mcpu skylake -mattr=+avx2,+fma -fast-math -opt-level=3 -keys=cpu -jit='or cjit' "
                    "-fast-math-nnan=0")
             " Equivalent JSON: {\"kind\":\"llvm\",\"mcpu\":\"skylake\",\"mattr\":[\"+avx2\",\"+fma\"],"
             "\"fast-math\":true,\"opt-level\":3,\"keys\":[\"cpu\"],\"jit\":\"or cjit\",\"fast-math-nnan\":false}" SUFFIX
             "llvm -mcpu skylake -mattr=+avx2,+fma -fast-math -opt-level=3 -keys=cpu -jit='or cjit' -fast-math-nnan=0");
  /* A tag as the first word; options it does not declare are guessed. */
  EXPECT_ERR("nvidia/nvidia-h100 -arch=sm_90a -custom=7",
             LEGACY("nvidia/nvidia-h100 -arch=sm_90a -custom=7")
             " Equivalent JSON: {\"tag\":\"nvidia/nvidia-h100\",\"arch\":\"sm_90a\",\"custom\":7}" SUFFIX
             "nvidia/nvidia-h100 -arch=sm_90a -custom=7");
  /* Surrounding spaces around a bare kind. */
  EXPECT_ERR(" cuda ", LEGACY(" cuda ") " Equivalent JSON: {\"kind\":\"cuda\"}" SUFFIX " cuda ");
  /* No suggestion when the words do not read as kind plus options. */
  EXPECT_ERR("tpu -x=1", LEGACY("tpu -x=1") "" SUFFIX "tpu -x=1");
  EXPECT_ERR("cuda sm_90", LEGACY("cuda sm_90") "" SUFFIX "cuda sm_90");
  EXPECT_ERR("cuda -arch", LEGACY("cuda -arch") "" SUFFIX "cuda -arch");
  EXPECT_ERR("cuda -arch=a -arch=b", LEGACY("cuda -arch=a -arch=b") "" SUFFIX "cuda -arch=a -arch=b");
  EXPECT_ERR("cuda -x='unterminated", LEGACY("cuda -x='unterminated") "" SUFFIX "cuda -x='unterminated");
  EXPECT_ERR(" {\"kind\":\"c\"}", LEGACY(" {\"kind\":\"c\"}") "" SUFFIX " {\"kind\":\"c\"}");
}

/* ---- kinds and tags tables ---- */

static void test_kind_and_tag_listing(void **state) {
  (void)state;
  const char *kinds[16];
  assert_int_equal(tl_list_target_kinds(kinds, 16), 10);
  const char *expected[] = {"c", "llvm", "cuda", "hip", "rocm", "metal", "webgpu", "opencl", "vulkan", "nvptx"};
  for (int i = 0; i < 10; i++) assert_string_equal(kinds[i], expected[i]);
  tl_target_option_info opts[32];
  size_t n = tl_target_kind_options("cuda", opts, 32);
  assert_int_equal(n, 18);
  assert_string_equal(opts[0].name, "kind");
  assert_string_equal(opts[6].name, "host");
  assert_string_equal(opts[6].type, "target.Target");
  assert_string_equal(opts[11].name, "code");
  assert_string_equal(opts[11].type, "Array<str>");
  assert_null(opts[11].default_value);
  assert_string_equal(opts[14].name, "thread_warp_size");
  assert_string_equal(opts[14].default_value, "32");
  assert_int_equal(tl_target_kind_options("webgpu", opts, 32), 12);
  assert_string_equal(opts[10].default_value, "false");
  assert_int_equal(tl_target_kind_options("tpu", opts, 32), 0);
  assert_int_equal(tl_target_kind_options("cuda", NULL, 0), 18);
  const char *keys[4];
  assert_int_equal(tl_target_kind_default_keys("nvptx", keys, 4), 2);
  assert_string_equal(keys[0], "cuda");
  assert_int_equal(tl_target_kind_default_keys("tpu", keys, 4), 0);
  assert_int_equal(tl_target_kind_device_type("vulkan"), 7);
  assert_int_equal(tl_target_kind_device_type("webgpu"), 15);
  assert_int_equal(tl_target_kind_device_type("tpu"), -1);
  size_t ntags = tl_list_target_tags(NULL, 0);
  assert_true(ntags >= 50);
  assert_non_null(tl_target_tag_config("nvidia/nvidia-h200"));
  assert_null(tl_target_tag_config("nvidia/nope"));
  assert_null(tl_target_tag_config(NULL));
}

static void test_every_tag_builds(void **state) {
  (void)state;
  const char *tags[256];
  size_t n = tl_list_target_tags(tags, 256);
  for (size_t i = 0; i < n; i++) {
    tl_target *a = parse_ok(tags[i]);
    /* The tag's own configuration parses to the same target. */
    tl_target *b = parse_ok(tl_target_tag_config(tags[i]));
    assert_true(tl_target_equal(a, b));
    /* Tags are sorted for lookup, so every name must be unique. */
    for (size_t j = 0; j < i; j++) assert_string_not_equal(tags[i], tags[j]);
    tl_target_release(a);
    tl_target_release(b);
  }
  /* Spot checks of values (TVM's registry, and our additions). */
  const struct {
    const char *tag, *arch;
  } archs[] = {{"nvidia/nvidia-a100", "sm_80"},       {"nvidia/nvidia-h200", "sm_90a"},
               {"nvidia/nvidia-b200", "sm_100a"},     {"nvidia/nvidia-l4", "sm_89"},
               {"nvidia/nvidia-l40", "sm_89"},        {"nvidia/geforce-rtx-5090", "sm_120"},
               {"nvidia/geforce-rtx-3090", "sm_86"},  {"nvidia/nvidia-t4", "sm_75"},
               {"nvidia/nvidia-v100", "sm_70"},       {"nvidia/jetson-nano", "sm_53"},
               {"nvidia/jetson-agx-xavier", "sm_72"}, {"nvidia/geforce-rtx-4090", "sm_89"}};
  for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
    tl_target *t = parse_ok(archs[i].tag);
    const char *arch;
    assert_true(tl_target_attr_str(t, "arch", &arch));
    assert_string_equal(arch, archs[i].arch);
    tl_target_release(t);
  }
  tl_target *t = parse_ok("nvidia/jetson-tx2");
  int64_t regs;
  assert_true(tl_target_attr_int(t, "registers_per_block", &regs));
  assert_int_equal(regs, 32768);
  tl_target_release(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bare_kind),
    cmocka_unit_test(test_bare_kind_is_shared),
    cmocka_unit_test(test_json_specs_are_memoized),
    cmocka_unit_test(test_tag_string_does_not_record_tag),
    cmocka_unit_test(test_tag_dict_records_tag_and_overrides),
    cmocka_unit_test(test_kind_and_tag_records_without_expanding),
    cmocka_unit_test(test_jetson_and_metal_tags_have_hosts),
    cmocka_unit_test(test_keys_rule),
    cmocka_unit_test(test_coercions),
    cmocka_unit_test(test_defaults_and_schema_order),
    cmocka_unit_test(test_from_device_and_device_type),
    cmocka_unit_test(test_features),
    cmocka_unit_test(test_getters),
    cmocka_unit_test(test_hosts),
    cmocka_unit_test(test_host_depth_limit),
    cmocka_unit_test(test_with_host),
    cmocka_unit_test(test_canonicalizers),
    cmocka_unit_test(test_string_form_errors),
    cmocka_unit_test(test_config_form_errors),
    cmocka_unit_test(test_host_errors),
    cmocka_unit_test(test_legacy_strings),
    cmocka_unit_test(test_kind_and_tag_listing),
    cmocka_unit_test(test_every_tag_builds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
