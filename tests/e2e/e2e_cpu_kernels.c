/* The CPU code paths of docs/codegen.md against the interpreter, through native
 * and tcc:
 *  - T.gemm as the blocked tl_gemm (lower_gemm_cpu): sizes that are not
 *    multiples of the 6x16 register tile or of the k chunk, transposed operands,
 *    float32 / float16 / bfloat16 inputs, clear_accum; the path is checked to be
 *    taken (tl_gemm in the device source), float16/bfloat16 results bit for bit;
 *  - tl_exp2f and tl_expf: within 1.2e-7 relative of exp2 / exp in double over
 *    the whole float range, specials exact;
 *  - the parallel-for decision: no team for a small constant grid, a work
 *    threshold for a symbolic one, the team's size (work, tl.cpu.num_threads). */
#include <math.h>

#include "e2e_util.h"

static const char *const k_execs[] = {"native", "tcc"};

static tl_kernel *compile_text(const char *src, const char *exec, tl_ir_module **mod) {
  TL_ASSERT_OK(tl_ir_parse(src, "cpu_kernels.py", NULL, mod));
  tl_compile_options o = e2e_options(exec);
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(*mod, NULL, &o, &k));
  return k;
}

/* A tiled GEMM with the given sizes, tiles, dtype and flags. */
static void gemm_case(const char *exec, int M, int N, int K, int bm, int bn, int bk, const char *dtype, int ta, int tb,
                      int clear) {
  char src[4096];
  snprintf(src, sizeof src,
           "import tilelang.language as T\n"
           "@T.prim_func\n"
           "def g(A: T.Tensor((%d, %d), \"%s\"), B: T.Tensor((%d, %d), \"%s\"), C: T.Tensor((%d, %d), \"float32\")):\n"
           "    with T.Kernel(T.ceildiv(%d, %d), T.ceildiv(%d, %d), threads=128) as (bx, by):\n"
           "        A_s = T.alloc_shared((%d, %d), \"%s\")\n"
           "        B_s = T.alloc_shared((%d, %d), \"%s\")\n"
           "        C_l = T.alloc_fragment((%d, %d), \"float32\")\n"
           "        T.fill(C_l, 0.5)\n"
           "        for k in T.Pipelined(T.ceildiv(%d, %d), num_stages=2):\n"
           "            T.copy(A[%s], A_s)\n"
           "            T.copy(B[%s], B_s)\n"
           "            T.gemm(A_s, B_s, C_l, transpose_A=%s, transpose_B=%s, clear_accum=%s)\n"
           "        T.copy(C_l, C[by * %d, bx * %d])\n",
           ta ? K : M, ta ? M : K, dtype, tb ? N : K, tb ? K : N, dtype, M, N, N, bn, M, bm, ta ? bk : bm,
           ta ? bm : bk, dtype, tb ? bn : bk, tb ? bk : bn, dtype, bm, bn, K, bk,
           ta ? "k * %BK%, by * %BM%" : "by * %BM%, k * %BK%", tb ? "bx * %BN%, k * %BK%" : "k * %BK%, bx * %BN%",
           ta ? "True" : "False", tb ? "True" : "False", clear ? "True" : "False", bm, bn);
  /* the copy offsets, spelled with the tile sizes */
  char out[4096], *o = out;
  for (const char *p = src; *p && o < out + sizeof out - 16;) {
    int v = !strncmp(p, "%BM%", 4) ? bm : !strncmp(p, "%BN%", 4) ? bn : !strncmp(p, "%BK%", 4) ? bk : -1;
    if (v >= 0) {
      o += sprintf(o, "%d", v);
      p += 4;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  tl_ir_module *m = NULL;
  tl_kernel *k = compile_text(out, exec, &m);
  assert_non_null(strstr(tl_kernel_device_source(k), "tl_gemm("));
  const tl_ir_func *f = tl_ir_module_find_func(m, "g");
  assert_non_null(f);
  for (uint64_t seed = 1; seed <= 2; seed++) assert_true(e2e_run_and_compare(m, f, k, NULL, 0, seed) > 0);
  tl_kernel_release(k);
  tl_ir_module_free(m);
}

static void test_gemm_edges(void **state) {
  (void)state;
  for (int e = 0; e < 2; e++) {
    if (!e2e_exec_available(k_execs[e])) continue;
    const char *x = k_execs[e];
    gemm_case(x, 13, 37, 19, 8, 24, 16, "float32", 0, 0, 0); /* nothing a multiple of 6, 16 */
    gemm_case(x, 70, 50, 300, 64, 48, 160, "float32", 0, 0, 0); /* k tile past the 128 chunk */
    gemm_case(x, 31, 33, 17, 31, 33, 17, "float16", 0, 0, 0);
    gemm_case(x, 40, 20, 24, 12, 20, 8, "bfloat16", 0, 1, 0);
    gemm_case(x, 26, 18, 30, 13, 18, 10, "float32", 1, 0, 1);
    gemm_case(x, 7, 100, 5, 7, 100, 5, "float16", 1, 1, 1);
    gemm_case(x, 96, 128, 256, 96, 128, 256, "float32", 0, 0, 0); /* whole tiles only */
  }
}

/* T.<op> over every float input a kernel sees in one call (a sweep of [lo, lo + 300),
 * specials) against ref in double: within 1.2e-7 relative, results that round to
 * zero, infinity or a subnormal within one subnormal step. */
static void math_accuracy(const char *op, const char *helper, double (*ref)(double), float lo) {
  char src[512];
  snprintf(src, sizeof src,
           "import tilelang.language as T\n"
           "@T.prim_func\n"
           "def e(A: T.Tensor((65536,), \"float32\"), B: T.Tensor((65536,), \"float32\")):\n"
           "    with T.Kernel(256, threads=256) as bx:\n"
           "        for i in T.Parallel(256):\n"
           "            B[bx * 256 + i] = T.%s(A[bx * 256 + i])\n",
           op);
  enum { N = 65536 };
  static float a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = lo + 300.0f * (float)i / (float)N;
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -149.0f, -149.5f, -126.0f, 127.0f, 127.99f,
                            128.0f, 0.5f, -0.5f, 88.72f, 88.73f, -87.3f, -103.28f, -103.9f, -104.0f, 89.0f};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) a[i] = specials[i];
  for (int e = 0; e < 2; e++) {
    if (!e2e_exec_available(k_execs[e])) continue;
    tl_ir_module *m = NULL;
    tl_kernel *k = compile_text(src, k_execs[e], &m);
    assert_non_null(strstr(tl_kernel_device_source(k), helper));
    int64_t n = N;
    DLTensor ta = {a, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &n, NULL, 0}, tb = {b, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &n, NULL, 0};
    tl_value args[2] = {e2e_tensor(&ta), e2e_tensor(&tb)};
    TL_ASSERT_OK(tl_kernel_call(k, args, 2, NULL));
    for (int i = 0; i < N; i++) {
      double want = ref((double)a[i]);
      float wf = (float)want;
      if (isnan(a[i])) {
        assert_true(isnan(b[i]));
      } else if (wf == 0.0f || isinf(wf) || fabs(want) < 1.2e-38) {
        if (!(fabs((double)b[i] - want) <= 1.5e-45 || b[i] == wf)) fail_msg("%s(%a) = %a, want %a", op, a[i], b[i], wf);
      } else if (fabs((double)b[i] - want) > 1.2e-7 * want) {
        fail_msg("%s(%a) = %a, want %a (relative error %g)", op, a[i], b[i], want, fabs((double)b[i] - want) / want);
      }
    }
    tl_kernel_release(k);
    tl_ir_module_free(m);
  }
}

static void test_exp2_accuracy(void **state) {
  (void)state;
  math_accuracy("exp2", "tl_exp2f(", exp2, -160.0f);
}

static void test_exp_accuracy(void **state) {
  (void)state;
  math_accuracy("exp", "tl_expf(", exp, -120.0f);
}

static void test_parallel_decision(void **state) {
  (void)state;
  if (!e2e_exec_available("native")) return;
  tl_ir_module *m = NULL;
  /* 4 blocks of 256 stores: far too little work for a team */
  static const char small[] = "import tilelang.language as T\n"
                              "@T.prim_func\n"
                              "def s(A: T.Tensor((1024,), \"float32\"), B: T.Tensor((1024,), \"float32\")):\n"
                              "    with T.Kernel(4, threads=256) as bx:\n"
                              "        for i in T.Parallel(256):\n"
                              "            B[bx * 256 + i] = A[bx * 256 + i] + 1.0\n";
  tl_kernel *k = compile_text(small, "native", &m);
  assert_null(strstr(tl_kernel_device_source(k), "omp parallel"));
  tl_kernel_release(k);
  tl_ir_module_free(m);
  /* 64 blocks of 4096 stores: a team, unconditionally */
  static const char big[] = "import tilelang.language as T\n"
                            "@T.prim_func\n"
                            "def b(A: T.Tensor((262144,), \"float32\"), B: T.Tensor((262144,), \"float32\")):\n"
                            "    with T.Kernel(64, threads=256) as bx:\n"
                            "        for i in T.Parallel(4096):\n"
                            "            B[bx * 4096 + i] = A[bx * 4096 + i] + 1.0\n";
  k = compile_text(big, "native", &m);
  /* 2^18 statements: at most 4 threads (one per 2^16), fewer where OpenMP has fewer */
  assert_non_null(strstr(tl_kernel_device_source(k), "TL_OMP(omp parallel for num_threads(TL_TEAM(4)))\n"));
  tl_kernel_release(k);
  /* tl.cpu.num_threads caps the team (1: none), and the kernel still computes the same */
  static const char *const cfg_values[][2] = {{"tl.cpu.num_threads=3", "num_threads(TL_TEAM(3))"},
                                              {"tl.cpu.num_threads=1", NULL}};
  for (int c = 0; c < 2; c++) {
    const char *cfg[] = {cfg_values[c][0], NULL};
    tl_compile_options o = e2e_options("native");
    o.pass_configs = cfg;
    k = NULL;
    TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
    const char *dev = tl_kernel_device_source(k);
    if (cfg_values[c][1]) assert_non_null(strstr(dev, cfg_values[c][1]));
    else assert_null(strstr(dev, "omp parallel"));
    assert_true(e2e_run_and_compare(m, tl_ir_module_find_func(m, "b"), k, NULL, 0, 7) > 0);
    tl_kernel_release(k);
  }
  /* anything but a positive count is refused, naming the config */
  const char *bad[] = {"tl.cpu.num_threads=zero", NULL};
  tl_compile_options o = e2e_options("native");
  o.pass_configs = bad;
  k = NULL;
  assert_int_equal(tl_compile(m, NULL, &o, &k), TL_EINVAL);
  assert_null(k);
  assert_non_null(strstr(tl_last_error(), "tl.cpu.num_threads: 'zero'"));
  tl_ir_module_free(m);
  /* symbolic N: per block 256 x (a let, an if, a store) = 768 statements, a team from
   * ceil(65536 / 768) = 86 blocks */
  k = NULL;
  tl_ir_module *v = e2e_parse_file(e2e_example("vector_add"), NULL);
  o = e2e_options("native");
  TL_ASSERT_OK(tl_compile(v, NULL, &o, &k));
  const char *src = tl_kernel_device_source(k);
  const char *p = strstr(src, "omp parallel for if(");
  if (!p) fail_msg("no conditional directive in:\n%s", src);
  assert_non_null(strstr(p, ">= 86))"));
  tl_kernel_release(k);
  tl_ir_module_free(v);
}

/* widen_index_cpu: a tensor index the loop bounds keep inside int32 is summed in
 * 64 bits (rows contiguous for the compiler); one with a scalar offset of any
 * value is not; both compute what the interpreter does. */
static void test_widen_index(void **state) {
  (void)state;
  static const char src[] = "import tilelang.language as T\n"
                            "@T.prim_func\n"
                            "def w(A: T.Tensor((64, 300), \"float32\"), B: T.Tensor((64, 300), \"float32\"),\n"
                            "      C: T.Tensor((20000,), \"float32\"), off: T.int32):\n"
                            "    with T.Kernel(8, threads=8) as bx:\n"
                            "        for i, j in T.Parallel(8, 300):\n"
                            "            B[bx * 8 + i, j] = A[bx * 8 + i, j] * 2.0\n"
                            "        for j in T.Parallel(300):\n"
                            "            C[j + off] = A[bx, j]\n";
  for (int e = 0; e < 2; e++) {
    if (!e2e_exec_available(k_execs[e])) continue;
    tl_ir_module *m = NULL;
    tl_kernel *k = compile_text(src, k_execs[e], &m);
    const char *dev = tl_kernel_device_source(k);
    const char *want[] = {"B[(int64_t)((bx * 8 + i) * 300) + (int64_t)j] = A[(int64_t)((bx * 8 + i) * 300) + (int64_t)j]",
                          "C[j_1 + off] = A[(int64_t)(bx * 300) + (int64_t)j_1]"};
    for (int w = 0; w < 2; w++)
      if (!strstr(dev, want[w])) fail_msg("no \"%s\" in:\n%s", want[w], dev);
    const tl_ir_func *f = tl_ir_module_find_func(m, "w");
    for (uint64_t seed = 1; seed <= 2; seed++) assert_true(e2e_run_and_compare(m, f, k, NULL, 0, seed) > 0);
    tl_kernel_release(k);
    tl_ir_module_free(m);
  }
}

int main(void) {
  char *cache = e2e_cache_begin();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_edges),
      cmocka_unit_test(test_exp2_accuracy),
      cmocka_unit_test(test_exp_accuracy),
      cmocka_unit_test(test_parallel_decision),
      cmocka_unit_test(test_widen_index),
  };
  int r = cmocka_run_group_tests(tests, NULL, NULL);
  e2e_cache_done(cache);
  return r;
}
