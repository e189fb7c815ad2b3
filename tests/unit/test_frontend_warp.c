/* Upstream's warp-index helpers (T.get_lane_idx, T.get_warp_idx,
 * T.get_warp_idx_sync, T.get_warp_group_idx; ir/parse/elab_warp.c): the index
 * arithmetic on the block's linear thread index they become, printed, for
 * upstream's defaults and for sizes given every way upstream takes them; bad
 * arguments as errors at their line and column with a caret; and a kernel whose
 * threads write their indices, run by the interpreter against plain C and by the
 * c target (each runner here) against the interpreter. */
#include "backend_run.h"
#include "interp_util.h"
#include "runtime/exec_impls.h"

#define HEAD                                                   \
  "import tilelang.language as T\n"                            \
  "@T.prim_func\n"                                             \
  "def f(A: T.Tensor((64,), \"int32\"), n: T.int32):\n"        \
  "    with T.Kernel(1, threads=%s) as bx:\n"                  \
  "%s"

static tl_status parse_kernel(const char *threads, const char *body, tl_ir_module **m) {
  char src[2048];
  snprintf(src, sizeof src, HEAD, threads, body);
  *m = NULL;
  return tl_ir_parse(src, "t.py", NULL, m);
}

/* The kernel body as printed (the lines after `with T.Kernel(...)`) must be `want`. */
static void expect(const char *threads, const char *body, const char *want) {
  tl_ir_module *m = NULL;
  if (parse_kernel(threads, body, &m) != TL_OK) fail_msg("%s: %s", body, tl_last_error());
  TL_ASSERT_OK(tl_ir_verify_module(m));
  char *text = tl_ir_print_module(m);
  assert_non_null(text);
  const char *k = strstr(text, " as bx:\n");
  assert_non_null(k);
  if (strcmp(k + 8, want) != 0) fail_msg("%s\n---- got:\n%s---- expected:\n%s", body, k + 8, want);
  tl_free(text);
  tl_ir_module_free(m);
}

#define TX "        tx = T.get_thread_binding(0)\n"

static void test_defaults(void **state) {
  (void)state;
  /* upstream's defaults: warp size 32, 4 warps per group; the _sync variant is the same quotient */
  expect("64", "        A[T.get_thread_binding()] = T.get_lane_idx()\n", TX "        A[tx] = tx % 32\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_idx()\n", TX "        A[tx] = tx // 32\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_idx_sync()\n", TX "        A[tx] = tx // 32\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_group_idx()\n", TX "        A[tx] = tx // 128\n");
  /* None is the default, as are sizes that are not positive (upstream's helpers fall back) */
  expect("64", "        A[T.get_thread_binding()] = T.get_lane_idx(None)\n", TX "        A[tx] = tx % 32\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_lane_idx(0)\n", TX "        A[tx] = tx % 32\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_idx(-8)\n", TX "        A[tx] = tx // 32\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_group_idx(None, None)\n", TX "        A[tx] = tx // 128\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_group_idx(16, 0)\n", TX "        A[tx] = tx // 64\n");
  /* without T.get_thread_binding: the helper binds the thread index itself */
  expect("64", "        lane = T.get_lane_idx()\n        A[lane] = T.get_warp_idx()\n",
         TX "        lane = tx % 32\n        A[lane] = tx // 32\n");
}

static void test_sizes_given(void **state) {
  (void)state;
  expect("64", "        A[T.get_thread_binding()] = T.get_lane_idx(64)\n", TX "        A[tx] = tx % 64\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_lane_idx(warp_size=16)\n", TX "        A[tx] = tx % 16\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_idx_sync(T.int32(8))\n", TX "        A[tx] = tx // 8\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_idx(20)\n", TX "        A[tx] = tx // 20\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_group_idx(32, 6)\n", TX "        A[tx] = tx // 192\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_group_idx(warp_size=64)\n", TX "        A[tx] = tx // 256\n");
  expect("64", "        A[T.get_thread_binding()] = T.get_warp_group_idx(warps_per_group=2, warp_size=8)\n",
         TX "        A[tx] = tx // 16\n");
  /* compile-time values of the kernel's Python */
  expect("64", "        w = 4 * 4\n        A[T.get_thread_binding()] = T.get_lane_idx(w)\n", TX "        A[tx] = tx % 16\n");
}

/* The linear index tx + Tx * (ty + Ty * tz), as upstream's helpers compute it;
 * dimensions of extent 1 contribute nothing. */
static void test_linear_index(void **state) {
  (void)state;
  expect("(16, 4)", "        A[T.get_lane_idx()] = 1\n",
         TX "        ty = T.get_thread_binding(1)\n        A[(tx + 16 * ty) % 32] = 1\n");
  expect("(4, 2, 8)", "        A[T.get_warp_idx(8)] = 1\n",
         TX "        ty = T.get_thread_binding(1)\n        tz = T.get_thread_binding(2)\n"
            "        A[(tx + 4 * (ty + 2 * tz)) // 8] = 1\n");
  expect("(32, 1, 2)", "        A[T.get_warp_group_idx(16, 2)] = 1\n",
         TX "        tz = T.get_thread_binding(2)\n        A[(tx + 32 * tz) // 32] = 1\n");
  /* a block of one thread: every index is 0, no thread variable */
  expect("1", "        A[0] = T.get_lane_idx()\n", "        A[0] = 0\n");
  /* the thread variable T.get_thread_binding named is the one the helper uses */
  expect("(8, 8)", "        tn = T.get_thread_binding(0)\n        A[tn] = T.get_lane_idx()\n",
         "        tn = T.get_thread_binding(0)\n        ty = T.get_thread_binding(1)\n"
         "        A[tn] = (tn + 8 * ty) % 32\n");
}

static void expect_err(const char *threads, const char *body, const char *needle) {
  tl_ir_module *m = NULL;
  if (parse_kernel(threads, body, &m) != TL_EINVAL) fail_msg("%s: expected an error containing \"%s\"", body, needle);
  assert_null(m);
  if (!strstr(tl_last_error(), needle)) fail_msg("%s: message\n%s\nlacks \"%s\"", body, tl_last_error(), needle);
  assert_non_null(strchr(tl_last_error(), '^')); /* the caret under the construct */
}

static void test_bad_use(void **state) {
  (void)state;
  expect_err("64", "        A[0] = T.get_lane_idx(n)\n",
             "t.py:5:31: T.get_lane_idx's warp_size must be a compile-time integer, got");
  expect_err("64", "        A[0] = T.get_warp_idx(\"32\")\n",
             "t.py:5:31: T.get_warp_idx's warp_size must be a compile-time integer, got");
  expect_err("64", "        A[0] = T.get_warp_idx_sync(32.0)\n",
             "t.py:5:36: T.get_warp_idx_sync's warp_size must be a compile-time integer, got");
  expect_err("64", "        A[0] = T.get_warp_group_idx(32, A)\n",
             "t.py:5:41: T.get_warp_group_idx's warps_per_group must be a compile-time integer, got buffer 'A'");
  expect_err("64", "        A[0] = T.get_warp_group_idx(warps_per_group=2)\n",
             "t.py:5:53: T.get_warp_group_idx expects warp_size when warps_per_group is given");
  expect_err("64", "        A[0] = T.get_warp_group_idx(None, 2)\n",
             "t.py:5:43: T.get_warp_group_idx expects warp_size when warps_per_group is given");
  expect_err("64", "        A[0] = T.get_warp_group_idx(1 << 20, 1 << 12)\n",
             "t.py:5:16: T.get_warp_group_idx: warp_size * warps_per_group = 4294967296 does not fit int32");
  expect_err("64", "        A[0] = T.get_lane_idx(1 << 40)\n",
             "t.py:5:31: T.get_lane_idx's warp_size is 1099511627776, which does not fit int32");
  expect_err("64", "        A[0] = T.get_lane_idx(32, 2)\n", "t.py:5:16: T.get_lane_idx takes from 0 to 1 arguments but 2 were given");
  expect_err("64", "        A[0] = T.get_warp_idx(size=32)\n",
             "t.py:5:36: T.get_warp_idx got an unexpected keyword argument 'size'");
  /* per-thread code: block-wide constructs refused, naming the helper that made it so */
  expect_err("64", "        w = T.get_warp_idx()\n        for i in T.Parallel(64):\n            A[i] = w\n",
             "t.py:6:9: T.Parallel in a kernel that uses T.get_warp_idx (line 5)");
  tl_ir_module *m = NULL;
  assert_int_equal(tl_ir_parse("import tilelang.language as T\n"
                               "@T.prim_func\n"
                               "def f(A: T.Tensor((64,), \"int32\")):\n"
                               "    lane = T.get_lane_idx()\n"
                               "    with T.Kernel(1, threads=64) as bx:\n"
                               "        A[0] = lane\n",
                               "o.py", NULL, &m),
                   TL_EINVAL);
  assert_null(m);
  assert_non_null(strstr(tl_last_error(), "o.py:4:12: T.get_lane_idx must be inside a T.Kernel block"));
}

/* Every thread of a 3-D block (12 x 5 x 2: warps straddle rows and planes, the
 * last one partial) writes its indices, with the default sizes and given ones. */
#define NB 3
#define NT 120
#define NK 7
static const char k_warp_src[] =
  "import tilelang.language as T\n"
  "@T.prim_func\n"
  "def w(A: T.Tensor((360, 7), \"int32\")):\n"
  "    with T.Kernel(3, threads=(12, 5, 2)) as bx:\n"
  "        tx = T.get_thread_binding(0)\n"
  "        ty = T.get_thread_binding(1)\n"
  "        tz = T.get_thread_binding(2)\n"
  "        row = bx * 120 + (tz * 5 + ty) * 12 + tx\n"
  "        A[row, 0] = T.get_lane_idx()\n"
  "        A[row, 1] = T.get_warp_idx()\n"
  "        A[row, 2] = T.get_warp_idx_sync(20)\n"
  "        A[row, 3] = T.get_warp_group_idx()\n"
  "        A[row, 4] = T.get_warp_group_idx(16, 3)\n"
  "        A[row, 5] = T.get_lane_idx(warp_size=7)\n"
  "        A[row, 6] = T.get_warp_group_idx(8)\n";

static void test_run(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_warp_src);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  static int32_t A[NB * NT * NK];
  for (size_t i = 0; i < sizeof A / sizeof A[0]; i++) A[i] = -1;
  host_tensor h;
  tl_value arg = ht_wrap(&h, TL_DT_INT32, A, 2, NB * NT, NK);
  TL_ASSERT_OK(tl_ir_interpret(m, "w", &arg, 1));
  for (int b = 0; b < NB; b++)
    for (int z = 0; z < 2; z++)
      for (int y = 0; y < 5; y++)
        for (int x = 0; x < 12; x++) {
          int t = x + 12 * (y + 5 * z); /* upstream's linear thread index */
          int want[NK] = {t % 32, t / 32, t / 20, t / 128, t / 48, t % 7, t / 32};
          const int32_t *got = &A[(b * NT + t) * NK];
          for (int k = 0; k < NK; k++)
            if (got[k] != want[k]) fail_msg("block %d thread %d index %d: got %d, want %d", b, t, k, got[k], want[k]);
        }
  /* the c target, each runner available here, against the interpreter */
  static const char *const runners[] = {"native", "tcc"};
  bool (*const available[])(void) = {tl__native_available, tl__tcc_available};
  for (int r = 0; r < 2; r++) {
    if (!available[r]()) continue;
    tl_backend_context *ctx = NULL;
    TL_ASSERT_OK(tl_create_backend_context("c", NULL, runners[r], &ctx));
    char what[64];
    snprintf(what, sizeof what, "warp indices on c with %s", runners[r]);
    br_check(ctx, m, "w", NULL, 0, 5, what);
    tl_backend_context_release(ctx);
  }
  tl_ir_module_free(m);
}

/* Out of memory anywhere in parsing such a kernel is a clean TL_ENOMEM. */
static tl_status oom_parse(void *ctx) {
  (void)ctx;
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse(k_warp_src, "w.py", NULL, &m);
  tl_ir_module_free(m);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  assert_true(tl_oom_sweep(oom_parse, NULL, NULL) > 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_sizes_given),
    cmocka_unit_test(test_linear_index),
    cmocka_unit_test(test_bad_use),
    cmocka_unit_test(test_run),
    cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
