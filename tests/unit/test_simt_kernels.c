/* Per-thread kernels (T.get_thread_binding and its siblings, ir/parse/elab_simt.c):
 * the interpreter runs every thread of the block with its own thread index
 * (against plain C), reports races and barriers not every thread reaches; the
 * front end refuses block-wide tile operations in such a kernel at their line
 * and column; the c target refuses a barrier under control that differs between
 * threads. The CPU and GPU paths against the interpreter are in
 * test_cpu_backend, test_gpu_pipeline and test_cuda_emulated (simt_src.h). */
#include <stdlib.h>

#include "backends/cpu/pipeline.h"
#include "interp_util.h"
#include "simt_src.h"
#include "tilelang/target.h"
#include "transform/pass.h"
#include "transform/session.h"

/* The c pipeline on m (after the semantic check), as tl_compile runs it. */
static tl_status lower_c(tl_ir_module *m) {
  tl_target *t = NULL;
  tl_status s = tl_target_parse("c", &t);
  if (s != TL_OK) return s;
  tl__session ses;
  tl__session_init(&ses);
  tl__session *prev = tl__session_enter(&ses);
  s = tl__pass_semantic_check(m, t);
  if (s == TL_OK) s = tl__cpu_pipeline.lower(m, t, tl__cpu_pipeline.user_data);
  tl__session_exit(prev);
  tl__session_free(&ses);
  tl_target_release(t);
  return s;
}

static void test_interp_reference(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(SIMT_KERNEL_SRC, "st.py", NULL, &m));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  uint64_t seed = 11;
  static float A[SIMT_ROWS * 16], S[SIMT_ROWS], P[SIMT_ROWS * 16];
  int32_t C[SIMT_BLOCKS], W[SIMT_ROWS * 8], Q[8 * 2] = {0}, qw[8 * 2] = {0};
  for (int i = 0; i < SIMT_ROWS * 8; i++) W[i] = (int32_t)(test_uniform(&seed) * 1000.0);
  /* quarters: sums of 4 in any association are exact */
  for (int i = 0; i < SIMT_ROWS * 16; i++) A[i] = (float)(int)(test_uniform(&seed) * 16.0 - 8.0) * 0.25f;
  host_tensor h[6];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_FLOAT32, A, 2, SIMT_ROWS, 16), ht_wrap(&h[1], TL_DT_FLOAT32, S, 1, SIMT_ROWS, 0),
                     ht_wrap(&h[2], TL_DT_FLOAT32, P, 2, SIMT_ROWS, 16), ht_wrap(&h[3], TL_DT_INT32, C, 1, SIMT_BLOCKS, 0),
                     ht_wrap(&h[4], TL_DT_INT32, W, 2, SIMT_ROWS, 8),     ht_wrap(&h[5], TL_DT_INT32, Q, 2, 8, 2)};
  TL_ASSERT_OK(tl_ir_interpret(m, "st", args, 6));
  for (int r = 0; r < SIMT_ROWS; r++)
    for (int k = 0; k < 8; k++) qw[(r % 8) * 2 + k % 2] += W[r * 8 + k];
  for (int i = 0; i < 16; i++)
    if (Q[i] != qw[i]) fail_msg("Q[%d]: got %d, want %d", i, Q[i], qw[i]);
  int32_t cw[SIMT_BLOCKS] = {0};
  for (int r = 0; r < SIMT_ROWS; r++) {
    float part[4];
    for (int tk = 0; tk < 4; tk++) {
      part[tk] = 0;
      for (int j = 0; j < 4; j++) {
        float v = A[r * 16 + tk * 4 + j];
        part[tk] += v;
        cw[r / 8] += v > 0.0f;
        if (P[r * 16 + tk * 4 + j] != v * (float)(tk + 1))
          fail_msg("P[%d, %d]: got %g, want %g", r, tk * 4 + j, P[r * 16 + tk * 4 + j], v * (float)(tk + 1));
      }
    }
    float want = (part[0] + part[2]) + (part[1] + part[3]);
    if (S[r] != want) fail_msg("S[%d]: got %g, want %g", r, S[r], want);
  }
  for (int b = 0; b < SIMT_BLOCKS; b++)
    if (C[b] != cw[b]) fail_msg("C[%d]: got %d, want %d", b, C[b], cw[b]);
  tl_ir_module_free(m);
}

/* Thread and block extents and bindings past the dimensions given: extent 1, index 0. */
static void test_bindings(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse("import tilelang.language as T\n"
                           "@T.prim_func\n"
                           "def f(O: T.Tensor((3, 16, 8), \"int32\")):\n"
                           "    with T.Kernel(3, threads=16) as bx:\n"
                           "        tx = T.get_thread_binding()\n"
                           "        ty = T.get_thread_binding(1)\n"
                           "        O[T.get_block_binding(0), tx, 0] = tx\n"
                           "        O[bx, tx, 1] = ty\n"
                           "        O[bx, tx, 2] = T.get_thread_extent(0)\n"
                           "        O[bx, tx, 3] = T.get_thread_extent(1)\n"
                           "        O[bx, tx, 4] = T.get_block_extent(0)\n"
                           "        O[bx, tx, 5] = T.get_block_extent(2)\n"
                           "        O[bx, tx, 6] = T.get_block_binding(1)\n"
                           "        O[bx, tx, 7] = bx\n",
                           "b.py", NULL, &m));
  int32_t O[3 * 16 * 8];
  host_tensor h[1];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_INT32, O, 2, 3, 16 * 8)};
  h[0].shape[0] = 3, h[0].shape[1] = 16, h[0].shape[2] = 8, h[0].t.ndim = 3;
  TL_ASSERT_OK(tl_ir_interpret(m, "f", args, 1));
  for (int b = 0; b < 3; b++)
    for (int t = 0; t < 16; t++) {
      int32_t want[8] = {t, 0, 16, 1, 3, 1, 0, b};
      for (int k = 0; k < 8; k++)
        if (O[(b * 16 + t) * 8 + k] != want[k]) fail_msg("O[%d, %d, %d]: got %d, want %d", b, t, k, O[(b * 16 + t) * 8 + k], want[k]);
    }
  tl_ir_module_free(m);
}

static tl_status parse_kernel(const char *body, tl_ir_module **m) {
  char src[2048];
  snprintf(src, sizeof src,
           "import tilelang.language as T\n"
           "@T.prim_func\n"
           "def f(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
           "    with T.Kernel(1, threads=64) as bx:\n"
           "        tx = T.get_thread_binding()\n"
           "%s",
           body);
  *m = NULL;
  return tl_ir_parse(src, "k.py", NULL, m);
}

/* Block-wide tile operations mixed with per-thread code: refused at the construct. */
static void test_refused(void **state) {
  (void)state;
  static const struct { const char *body, *needle; } bad[] = {
    {"        for i in T.Parallel(64):\n            B[i] = A[i]\n",
     "k.py:6:9: T.Parallel in a kernel that uses T.get_thread_binding (line 5)"},
    {"        s = T.alloc_shared((64,), \"float32\")\n        T.copy(A, s)\n",
     "k.py:7:9: T.copy of a tile in a kernel that uses T.get_thread_binding"},
    {"        f = T.alloc_fragment((64,), \"float32\")\n", "k.py:6:13: T.alloc_fragment in a kernel"},
    {"        s = T.alloc_shared((64,), \"float32\")\n        T.clear(s)\n", "k.py:7:9: T.clear of a tile"},
    {"        T.fill(B, 0.0)\n", "k.py:6:9: T.fill of a tile in a kernel"},
    {"        T.atomic_add(B[0:4], A[0:4])\n", "k.py:6:9: T.atomic_add of a tile in a kernel"},
    {"        t = T.thread_binding(0, 32, thread=\"threadIdx.x\")\n",
     "k.py:6:13: T.thread_binding(0, 32, thread=\"threadIdx.x\") does not cover T.Kernel's range of threadIdx.x (0 to 64)"},
    {"        t = T.thread_binding(64, thread=\"warp\")\n", "k.py:6:41: T.thread_binding: thread must be one of"},
    {"        B[tx] = T.get_thread_binding(3)\n", "k.py:6:38: T.get_thread_binding takes a dimension 0, 1 or 2, got 3"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    tl_ir_module *m;
    assert_int_equal(parse_kernel(bad[k].body, &m), TL_EINVAL);
    assert_null(m);
    if (!strstr(tl_last_error(), bad[k].needle)) fail_msg("message\n%s\nlacks \"%s\"", tl_last_error(), bad[k].needle);
    assert_non_null(strstr(tl_last_error(), "^")); /* the caret under the construct */
  }
  tl_ir_module *m = NULL;
  assert_int_equal(tl_ir_parse("import tilelang.language as T\n"
                               "@T.prim_func\n"
                               "def f(A: T.Tensor((64,), \"float32\")):\n"
                               "    tx = T.get_thread_binding()\n"
                               "    with T.Kernel(1, threads=64) as bx:\n"
                               "        A[tx] = 0.0\n",
                               "o.py", NULL, &m),
                   TL_EINVAL);
  assert_non_null(strstr(tl_last_error(), "o.py:4:10: T.get_thread_binding must be inside a T.Kernel block"));
}

static float A[64], B[64];

static tl_status run_f(tl_ir_module *m) {
  for (int i = 0; i < 64; i++) A[i] = (float)i, B[i] = -1.0f;
  host_tensor h[2];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_FLOAT32, A, 1, 64, 0), ht_wrap(&h[1], TL_DT_FLOAT32, B, 1, 64, 0)};
  return tl_ir_interpret(m, "f", args, 2);
}

/* What the hardware would make of it: a race without a barrier is reported, a
 * barrier under a thread-dependent branch is divergence; with the barrier the
 * kernel runs (the neighbour's element after the barrier). */
static void test_races_and_barriers(void **state) {
  (void)state;
  tl_ir_module *m;
  const char *racy = "        s = T.alloc_shared((64,), \"float32\")\n"
                     "        s[tx] = A[tx]\n"
                     "        B[tx] = s[(tx + 1) % 64]\n";
  TL_ASSERT_OK(parse_kernel(racy, &m));
  TL_ASSERT_ERR(run_f(m), TL_ERUNTIME, "data race on shared buffer 's'");
  tl_ir_module_free(m);
  const char *synced = "        s = T.alloc_shared((64,), \"float32\")\n"
                       "        s[tx] = A[tx]\n"
                       "        T.sync_threads()\n"
                       "        B[tx] = s[(tx + 1) % 64]\n";
  TL_ASSERT_OK(parse_kernel(synced, &m));
  TL_ASSERT_OK(run_f(m));
  for (int u = 0; u < 64; u++) assert_true(B[u] == (float)((u + 1) % 64));
  tl_ir_module_free(m);
  /* the same through T.thread_binding (a value, and a loop whose body runs once per
   * thread) and a T.Pipelined loop, which is serial here */
  const char *bound = "        s = T.alloc_shared((64,), \"float32\")\n"
                      "        t = T.thread_binding(0, 64, thread=\"threadIdx.x\")\n"
                      "        for k in T.Pipelined(2, num_stages=2):\n"
                      "            s[t] = A[t] + k\n"
                      "            T.sync_threads()\n"
                      "            for u in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                      "                B[u] = s[(u + 1) % 64]\n"
                      "            T.sync_threads()\n";
  TL_ASSERT_OK(parse_kernel(bound, &m));
  TL_ASSERT_OK(run_f(m));
  for (int u = 0; u < 64; u++) assert_true(B[u] == (float)((u + 1) % 64 + 1));
  TL_ASSERT_OK(lower_c(m)); /* the c target splits the pipelined loop's body at its barriers */
  tl_ir_module_free(m);
  const char *divergent = "        if tx < 32:\n"
                          "            T.sync_threads()\n"
                          "        B[tx] = A[tx]\n";
  TL_ASSERT_OK(parse_kernel(divergent, &m));
  assert_int_not_equal(run_f(m), TL_OK);
  /* the c target cannot run the threads of a divergent barrier one after another */
  TL_ASSERT_ERR(lower_c(m), TL_EUNSUPPORTED,
                "k.py:6:9: T.sync_threads under a condition that differs between threads");
  tl_ir_module_free(m);
  /* a let of a value read from memory that differs between threads, live across a barrier */
  const char *live = "        v = A[tx]\n"
                     "        T.sync_threads()\n"
                     "        B[tx] = v\n";
  TL_ASSERT_OK(parse_kernel(live, &m));
  TL_ASSERT_OK(run_f(m));
  TL_ASSERT_ERR(lower_c(m), TL_EUNSUPPORTED, "under a let whose value (read from memory)");
  tl_ir_module_free(m);
}

/* T.assume(cond): the interpreter checks the fact in every thread (an error at the
 * call when one thread's does not hold); the compiled code has no check. */
static void test_assume(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(parse_kernel("        T.assume(tx < 64 and tx >= 0)\n        B[tx] = A[tx] * 2.0\n", &m));
  TL_ASSERT_OK(run_f(m));
  for (int u = 0; u < 64; u++) assert_true(B[u] == 2.0f * (float)u);
  TL_ASSERT_OK(lower_c(m));
  tl_ir_module_free(m);
  TL_ASSERT_OK(parse_kernel("        T.assume(tx < 63)\n        B[tx] = A[tx]\n", &m));
  TL_ASSERT_ERR(run_f(m), TL_ERUNTIME, "k.py:6:9: T.assume: the assumed condition does not hold");
  tl_ir_module_free(m);
  assert_int_equal(parse_kernel("        B[tx] = T.assume(tx < 63)\n", &m), TL_EINVAL);
  assert_non_null(strstr(tl_last_error(), "k.py:6:17: T.assume is a statement; it has no value"));
  assert_int_equal(parse_kernel("        T.assume(A)\n", &m), TL_EINVAL);
}

/* Out of memory anywhere in parsing a per-thread kernel and lowering it for the c
 * target (the phase split's vectors, the expanded buffers) is a clean TL_ENOMEM. */
static tl_status oom_lower(void *ctx) {
  (void)ctx;
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse(SIMT_KERNEL_SRC, "st.py", NULL, &m);
  if (s == TL_OK) s = lower_c(m);
  tl_ir_module_free(m);
  return s;
}

static void test_oom(void **state) {
  (void)state;
  assert_true(tl_oom_sweep(oom_lower, NULL, NULL) > 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_interp_reference),
    cmocka_unit_test(test_bindings),
    cmocka_unit_test(test_refused),
    cmocka_unit_test(test_races_and_barriers),
    cmocka_unit_test(test_assume),
    cmocka_unit_test(test_oom),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
