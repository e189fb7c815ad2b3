/* The shared GPU lowering end to end, checked against the interpreter: every
 * example at several sizes (tiles that do not divide, symbolic dims), lowered for
 * cuda (warp 32), hip (warp 64) and opencl (warp 1), the lowered module run by
 * the interpreter in SIMT mode (one OS thread per GPU thread, real barriers and
 * warp shuffles, shared-memory race detection) and compared with the tile-level
 * interpretation on the same seeded inputs: exactly, except float sums reduced
 * across threads (a tolerance). */
#include <dirent.h>

#include "base/str.h"
#include "gpu_test.h"
#include "more_ops_src.h"
#include "simt_src.h"

typedef struct example_size {
  const char *file;
  tl_ir_const_binding consts[4];
  size_t nconsts;
  pt_dim dims[2];
  size_t ndims;
} example_size;

/* Float sums across threads: compared within a tolerance. */
static double example_tol(const char *file) {
  if (strcmp(file, "softmax.py") == 0 || strcmp(file, "rms_norm.py") == 0 || strcmp(file, "row_sum.py") == 0)
    return 1e-5;
  /* float16 outputs of sums taken in another order (flash_decoding: float32 partial outputs) */
  if (strncmp(file, "flash_", 6) == 0) return 2e-3;
  return 0;
}

static void run_example(const char *file, const tl_ir_const_binding *consts, size_t nconsts, const pt_dim *dims,
                        size_t ndims, const gpu_target *tg) {
  char path[1024], what[1200];
  snprintf(path, sizeof path, "%s/examples/%s", TL_SOURCE_DIR, file);
  tl_ir_parse_options opts = {sizeof opts, consts, nconsts, NULL, false};
  tl_ir_module *m = NULL;
  tl_status s = tl_ir_parse_file(path, &opts, &m);
  if (s != TL_OK) fail_msg("%s: %s", file, tl_last_error());
  pt_dim deflt[4] = {{"N", 300}, {"M", 70}, {"K", 40}};
  for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++) {
    const char *fn = tl_ir_module_func(m, i)->name;
    snprintf(what, sizeof what, "%s (%s, %zu consts, %zu dims)", file, fn, nconsts, ndims);
    gpu_differential(m, fn, ndims ? dims : deflt, ndims ? ndims : 3, 7, tg, example_tol(file), what);
  }
  tl_ir_module_free(m);
}

static const char *const k_example_files[] = {"vector_add.py", "elementwise_add.py", "transpose.py"};

static void test_examples_defaults(void **state) {
  (void)state;
  const char *only = getenv("TL_GPU_EXAMPLE");
  for (size_t t = 0; t < GPU_NTARGETS; t++) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!tl__str_ends_with(e->d_name, ".py")) continue;
      n++;
      if (only && strcmp(only, e->d_name) != 0) continue;
      run_example(e->d_name, NULL, 0, NULL, 0, &k_gpu_targets[t]);
    }
    closedir(d);
    assert_true(n >= 9);
  }
  /* cuda again, every kernel in SIMT mode (vector_add has no barrier) */
  g_gpu_force_simt = true;
  for (size_t i = 0; i < sizeof k_example_files / sizeof k_example_files[0]; i++)
    if (!only || strcmp(only, k_example_files[i]) == 0) run_example(k_example_files[i], NULL, 0, NULL, 0, &k_gpu_targets[0]);
  g_gpu_force_simt = false;
}

/* Extra sizes: tiles that divide the shape and tiles that do not, tiny and odd
 * symbolic dims. Every example also runs with its defaults (above). */
static const example_size k_sizes[] = {
    {"vector_add.py", {{0}}, 0, {{"N", 1}}, 1},
    {"vector_add.py", {{0}}, 0, {{"N", 256}}, 1},
    {"vector_add.py", {{0}}, 0, {{"N", 1000}}, 1},
    {"gemm.py", {{"M", "64"}, {"N", "64"}, {"K", "64"}}, 3, {{0}}, 0},
    {"gemm.py", {{"M", "33"}, {"N", "17"}, {"K", "5"}, {"dtype", "\"float32\""}}, 4, {{0}}, 0},
    {"gemm.py", {{"M", "40"}, {"N", "48"}, {"K", "24"}, {"block_K", "8"}}, 4, {{0}}, 0},
    {"gemm.py", {{"M", "130"}, {"N", "64"}, {"block_M", "64"}, {"block_N", "64"}}, 4, {{0}}, 0},
    {"elementwise_add.py", {{"M", "64"}, {"N", "32"}}, 2, {{0}}, 0},
    {"elementwise_add.py", {{"M", "7"}, {"N", "9"}, {"in_dtype", "\"float16\""}}, 3, {{0}}, 0},
    {"row_sum.py", {{"M", "16"}}, 1, {{0}}, 0},
    {"softmax.py", {{"M", "5"}, {"N", "7"}}, 2, {{0}}, 0},
    {"softmax.py", {{"M", "32"}, {"N", "256"}}, 2, {{0}}, 0},
    {"cumsum.py", {{"reverse", "True"}}, 1, {{0}}, 0},
    {"cumsum.py", {{"M", "5"}, {"N", "33"}}, 2, {{0}}, 0},
    {"rms_norm.py", {{"M", "8"}}, 1, {{0}}, 0},
    {"row_max.py", {{0}}, 0, {{"M", 20}, {"N", 50}}, 2},
    {"row_max.py", {{0}}, 0, {{"M", 1}, {"N", 1}}, 2},
    {"row_max.py", {{0}}, 0, {{"M", 33}, {"N", 64}}, 2},
    {"transpose.py", {{0}}, 0, {{"M", 70}, {"N", 45}}, 2},
    {"transpose.py", {{0}}, 0, {{"M", 32}, {"N", 64}}, 2},
    {"col_extrema.py", {{0}}, 0, {{0}}, 0},
    {"col_extrema.py", {{"M", "1"}, {"N", "16"}, {"block_N", "16"}}, 3, {{0}}, 0},
    {"flash_attention.py", {{"is_causal", "True"}}, 1, {{0}}, 0},
    {"flash_attention.py", {{"is_causal", "True"}, {"seq_q", "40"}, {"seq_kv", "70"}}, 3, {{0}}, 0},
    {"flash_attention.py", {{"seq_q", "64"}, {"seq_kv", "64"}, {"block_N", "16"}}, 3, {{0}}, 0},
    {"flash_attention_gqa.py", {{"is_causal", "True"}, {"seq_q", "17"}, {"seq_kv", "45"}}, 3, {{0}}, 0},
    {"flash_decoding.py", {{"num_split", "4"}, {"seqlen_kv", "77"}, {"block_N", "16"}}, 3, {{0}}, 0},
};

/* Sizes for the cuda target only: S = Q K^T on the tensor cores needs 64 x 64
 * tiles over 4 warps, more shared memory than opencl's 16 KB. */
static const example_size k_cuda_sizes[] = {
    {"flash_attention.py", {{"is_causal", "True"}, {"seq_q", "100"}, {"block_M", "64"}, {"block_N", "64"}}, 4, {{0}}, 0},
};

static void test_examples_sizes(void **state) {
  (void)state;
  const char *only = getenv("TL_GPU_EXAMPLE");
  for (size_t t = 0; t < GPU_NTARGETS; t++) {
    for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; i++) {
      if (only && strcmp(only, k_sizes[i].file) != 0) continue;
      run_example(k_sizes[i].file, k_sizes[i].consts, k_sizes[i].nconsts, k_sizes[i].dims, k_sizes[i].ndims,
                  &k_gpu_targets[t]);
    }
    for (size_t i = 0; strcmp(k_gpu_targets[t].name, "cuda") == 0 && i < sizeof k_cuda_sizes / sizeof k_cuda_sizes[0]; i++) {
      if (only && strcmp(only, k_cuda_sizes[i].file) != 0) continue;
      run_example(k_cuda_sizes[i].file, k_cuda_sizes[i].consts, k_cuda_sizes[i].nconsts, k_cuda_sizes[i].dims,
                  k_cuda_sizes[i].ndims, &k_gpu_targets[t]);
    }
  }
}

/* ------------------------------------------------------- focused kernels */

typedef struct src_case {
  const char *name;
  const char *func;
  const char *src;
  pt_dim dims[3];
  size_t ndims;
  double tol; /* float sums across threads */
} src_case;

#define HDR "import tilelang.language as T\n"

/* T.reduce_bitxor: rows of a fragment combined with its old values, columns of
 * a shared buffer, the last block partly past the end. */
#define BITXOR_SRC \
  HDR \
  "N = T.symbolic(\"N\")\n" \
  "@T.prim_func\n" \
  "def x(A: T.Tensor((N, 40), \"int32\"), R: T.Tensor((N,), \"int32\"), B: T.Tensor((N, 12), \"uint8\"),\n" \
  "      C: T.Tensor((N, 12), \"uint8\")):\n" \
  "    with T.Kernel(T.ceildiv(N, 8), threads=32) as bx:\n" \
  "        a = T.alloc_fragment((8, 40), \"int32\")\n" \
  "        r = T.alloc_fragment((8,), \"int32\")\n" \
  "        b = T.alloc_shared((8, 12), \"uint8\")\n" \
  "        c = T.alloc_fragment((12,), \"uint8\")\n" \
  "        T.copy(A[bx * 8, 0], a)\n" \
  "        T.copy(R[bx * 8], r)\n" \
  "        T.reduce_bitxor(a, r, clear=False)\n" \
  "        T.copy(r, R[bx * 8])\n" \
  "        T.copy(B[bx * 8, 0], b)\n" \
  "        T.reduce_bitxor(b, c, dim=0)\n" \
  "        T.copy(c, C[bx, 0])\n"

static const src_case k_cases[] = {
    {"tensor-core gemms (cuda from sm_80 on): every operand form, bfloat16, clear_accum", "mma", CUDA_MMA_SRC, {{0}}, 0, 0},
    {"tensor-core warp grids (Square, FullCol) under a cross-warp row max, a T.Parallel and an owner's store", "grids",
     CUDA_MMA_GRIDS_SRC, {{0}}, 0, 0},
    {"row statistics as projections of the mma accumulators (across warps and within), P @ V with P in registers",
     "rows", CUDA_ROWS_SRC, {{0}}, 0, 1e-5},
    {"P @ V with P staged through shared memory (its layout not the A operand map), in a loop", "staged",
     CUDA_RS_STAGED_SRC, {{0}}, 0, 0},
    {"a per-row scale loaded into a fragment and applied beside the accumulator's rows (a projection of its reader)",
     "rowscale",
     HDR "@T.prim_func\n"
         "def rowscale(A: T.Tensor((64, 32), \"float16\"), B: T.Tensor((64, 32), \"float16\"), S: T.Tensor((64,), \"float32\"),\n"
         "             C: T.Tensor((64, 64), \"float32\")):\n"
         "    with T.Kernel(1, threads=128) as bx:\n"
         "        a = T.alloc_shared((64, 32), \"float16\")\n"
         "        b = T.alloc_shared((64, 32), \"float16\")\n"
         "        c = T.alloc_fragment((64, 64), \"float32\")\n"
         "        s = T.alloc_fragment((64,), \"float32\")\n"
         "        T.copy(A, a)\n"
         "        T.copy(B, b)\n"
         "        T.copy(S, s)\n"
         "        T.gemm(a, b, c, transpose_B=True, clear_accum=True)\n"
         "        for i in T.Parallel(64):\n"
         "            s[i] = s[i] * 2.0\n"
         "        for i, j in T.Parallel(64, 64):\n"
         "            c[i, j] = c[i, j] * s[i]\n"
         "        T.copy(c, C)\n",
     {{0}}, 0, 0},
    {"a local.var allocated inside T.Parallel: each iteration's own temporary (upstream's pdl test)", "tmp",
     HDR "@T.prim_func\n"
         "def tmp(A: T.Tensor((200,), \"float32\"), B: T.Tensor((200,), \"float32\")):\n"
         "    with T.Kernel(T.ceildiv(200, 64), threads=64) as bx:\n"
         "        for i in T.Parallel(64):\n"
         "            idx = bx * 64 + i\n"
         "            x = T.alloc_var(\"float32\", init=A[T.min(idx, 199)])\n"
         "            for _ in T.serial(3):\n"
         "                x = x * 0.5 + 1.0\n"
         "            if idx < 200:\n"
         "                B[idx] = x\n",
     {{0}}, 0, 0},
    {"a T.Parallel over memory that rewrites a replicated fragment in place (a log-sum-exp written out)", "lse",
     HDR "@T.prim_func\n"
         "def lse(A: T.Tensor((32, 32), \"float32\"), L: T.Tensor((32,), \"float32\"), B: T.Tensor((32, 32), \"float32\"),\n"
         "        F: T.Tensor((1,), \"float32\")):\n"
         "    with T.Kernel(1, threads=64) as bx:\n"
         "        x = T.alloc_fragment((32, 32), \"float32\")\n"
         "        s = T.alloc_fragment((32,), \"float32\")\n"
         "        T.copy(A, x)\n"
         "        for i, j in T.Parallel(32, 32):\n"
         "            x[i, j] = T.abs(x[i, j]) + 1.0\n"
         "        T.reduce_sum(x, s, dim=1)\n"
         "        F[0] = s[3]\n"
         "        for i in T.Parallel(32):\n"
         "            s[i] = T.log2(s[i])\n"
         "            L[i] = s[i] * 2.0\n"
         "        for i, j in T.Parallel(32, 32):\n"
         "            B[i, j] = x[i, j] - s[i]\n",
     {{0}}, 0, 1e-5},
    {"gemm transposes, clear_accum, int8 into int32", "g",
     HDR "@T.prim_func\n"
         "def g(A: T.Tensor((24, 40), \"int8\"), B: T.Tensor((16, 24), \"int8\"), C: T.Tensor((40, 16), \"int32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        a = T.alloc_shared((24, 40), \"int8\")\n"
         "        b = T.alloc_shared((16, 24), \"int8\")\n"
         "        c = T.alloc_fragment((40, 16), \"int32\")\n"
         "        T.fill(c, 7)\n"
         "        T.copy(A, a)\n"
         "        T.copy(B, b)\n"
         "        T.gemm(a, b, c, transpose_A=True, transpose_B=True)\n"
         "        T.gemm(a, b, c, transpose_A=True, transpose_B=True, clear_accum=True)\n"
         "        T.gemm(a, b, c, transpose_A=True, transpose_B=True)\n"
         "        T.copy(c, C)\n",
     {{0}}, 0, 0},
    {"gemm float16 into float16 (product rounded in float16), bfloat16 into float32", "g",
     HDR "@T.prim_func\n"
         "def g(A: T.Tensor((16, 32), \"float16\"), B: T.Tensor((32, 8), \"float16\"), C: T.Tensor((16, 8), \"float16\"),\n"
         "      D: T.Tensor((16, 32), \"bfloat16\"), E: T.Tensor((16, 8), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        a = T.alloc_shared((16, 32), \"float16\")\n"
         "        b = T.alloc_shared((32, 8), \"float16\")\n"
         "        c = T.alloc_fragment((16, 8), \"float16\")\n"
         "        d = T.alloc_shared((16, 32), \"bfloat16\")\n"
         "        e = T.alloc_fragment((16, 8), \"float32\")\n"
         "        bb = T.alloc_shared((32, 8), \"bfloat16\")\n"
         "        T.copy(A, a)\n"
         "        T.copy(B, b)\n"
         "        T.copy(C, c)\n"
         "        T.gemm(a, b, c)\n"
         "        T.copy(c, C)\n"
         "        T.copy(D, d)\n"
         "        T.copy(B, bb)\n"
         "        T.clear(e)\n"
         "        T.gemm(d, bb, e)\n"
         "        T.copy(e, E)\n",
     {{0}}, 0, 0},
    {"gemm with A from a replicated fragment, a replicated accumulator, and a partial C region", "g",
     HDR "@T.prim_func\n"
         "def g(A: T.Tensor((8, 16), \"float32\"), B: T.Tensor((16, 12), \"float32\"), C: T.Tensor((8, 12), \"float32\"),\n"
         "      D: T.Tensor((8, 12), \"float32\"), E: T.Tensor((16, 12), \"float32\")):\n"
         "    with T.Kernel(2, threads=16) as bx:\n"
         "        a = T.alloc_fragment((8, 16), \"float32\")\n"
         "        b = T.alloc_shared((16, 12), \"float32\")\n"
         "        c = T.alloc_fragment((8, 12), \"float32\")\n"
         "        d = T.alloc_fragment((8, 12), \"float32\")\n"
         "        e = T.alloc_fragment((16, 12), \"float32\")\n"
         "        T.copy(A, a)\n"
         "        T.copy(B, b)\n"
         "        T.clear(c)\n"
         "        T.gemm(a, b, c)\n"
         "        T.copy(c, C)\n"
         "        T.clear(d)\n"
         "        T.gemm(a, b, d)\n"
         "        for i, j in T.Parallel(8, 12):\n"
         "            D[i, j] = d[i, 11 - j] + bx\n"
         "        T.fill(e, 1.0)\n"
         "        T.gemm(a[0:4, 0:16], b, e[8:12, 0:12])\n"
         "        T.copy(e, E)\n",
     {{0}}, 0, 0},
    {"reductions over both dims, with and without clear", "r",
     HDR "@T.prim_func\n"
         "def r(A: T.Tensor((12, 20), \"float32\"), S: T.Tensor((5, 20), \"float32\"), R: T.Tensor((12,), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        a = T.alloc_fragment((12, 20), \"float32\")\n"
         "        cols = T.alloc_fragment((20,), \"float32\")\n"
         "        rows = T.alloc_fragment((12,), \"float32\")\n"
         "        T.copy(A, a)\n"
         "        T.reduce_sum(a, cols, dim=0)\n"
         "        T.copy(cols, S[0, 0:20])\n"
         "        T.reduce_max(a, cols, dim=0)\n"
         "        T.copy(cols, S[1, 0:20])\n"
         "        T.reduce_min(a, cols, dim=0)\n"
         "        T.copy(cols, S[2, 0:20])\n"
         "        T.reduce_abssum(a, cols, dim=0)\n"
         "        T.copy(cols, S[3, 0:20])\n"
         "        T.reduce_absmax(a, cols, dim=0)\n"
         "        T.reduce_sum(a, cols, dim=0, clear=False)\n"
         "        T.copy(cols, S[4, 0:20])\n"
         "        T.fill(rows, 1.5)\n"
         "        T.reduce_max(a, rows, dim=1, clear=False)\n"
         "        T.copy(rows, R)\n"
         "        for i, j in T.Parallel(12, 20):\n"
         "            a[i, j] = a[i, j] - 5.0\n"
         "        T.reduce_max(a, cols, dim=0)\n"
         "        T.copy(cols, S[0, 0:20])\n"
         "        T.reduce_absmax(a, cols, dim=0)\n"
         "        T.copy(cols, S[4, 0:20])\n"
         "        for i, j in T.Parallel(12, 20):\n"
         "            a[i, j] = a[i, j] + 10.0\n"
         "        T.reduce_min(a, cols, dim=0)\n"
         "        T.copy(cols, S[1, 0:20])\n",
     {{0}}, 0, 0},
    {"row reductions of every kind (shuffles, segments across warps), with and without clear", "r",
     HDR "@T.prim_func\n"
         "def r(A: T.Tensor((2, 256), \"float32\"), S: T.Tensor((7, 2), \"float32\")):\n"
         "    with T.Kernel(1, threads=128) as bx:\n"
         "        a = T.alloc_fragment((2, 256), \"float32\")\n"
         "        s = T.alloc_fragment((2,), \"float32\")\n"
         "        T.copy(A, a)\n"
         "        T.reduce_sum(a, s, dim=1)\n"
         "        T.copy(s, S[0, 0:2])\n"
         "        T.reduce_max(a, s, dim=1)\n"
         "        T.copy(s, S[1, 0:2])\n"
         "        T.reduce_min(a, s, dim=1)\n"
         "        T.copy(s, S[2, 0:2])\n"
         "        T.reduce_abssum(a, s, dim=1)\n"
         "        T.copy(s, S[3, 0:2])\n"
         "        T.reduce_absmax(a, s, dim=1)\n"
         "        T.copy(s, S[4, 0:2])\n"
         "        T.reduce_max(a, s, dim=1, clear=False)\n"
         "        T.copy(s, S[5, 0:2])\n"
         "        T.reduce_sum(a, s, dim=1, clear=False)\n"
         "        T.copy(s, S[6, 0:2])\n",
     {{0}}, 0, 1e-5},
    {"row reductions where every thread holds every row, into shared memory too", "r",
     HDR "@T.prim_func\n"
         "def r(A: T.Tensor((4, 128), \"float32\"), S: T.Tensor((4,), \"float32\"), X: T.Tensor((4,), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        a = T.alloc_fragment((4, 128), \"float32\")\n"
         "        s = T.alloc_fragment((4,), \"float32\")\n"
         "        m = T.alloc_shared((4,), \"float32\")\n"
         "        T.copy(A, a)\n"
         "        T.reduce_sum(a, s, dim=1)\n"
         "        T.copy(s, S)\n"
         "        T.reduce_max(a, m, dim=1)\n"
         "        T.copy(m, X)\n",
     {{0}}, 0, 1e-5},
    {"integer reductions and cumsum in both directions", "r",
     HDR "@T.prim_func\n"
         "def r(A: T.Tensor((6, 9), \"int16\"), B: T.Tensor((6, 9), \"int32\"), C: T.Tensor((6, 9), \"int32\"), M: T.Tensor((6,), \"int16\"),\n"
         "      S: T.Tensor((6,), \"int32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        a = T.alloc_fragment((6, 9), \"int16\")\n"
         "        b = T.alloc_fragment((6, 9), \"int32\")\n"
         "        m = T.alloc_fragment((6,), \"int16\")\n"
         "        w = T.alloc_fragment((6, 9), \"int32\")\n"
         "        s = T.alloc_fragment((6,), \"int32\")\n"
         "        T.copy(A, a)\n"
         "        T.reduce_min(a, m, dim=1)\n"
         "        T.copy(m, M)\n"
         "        T.copy(A, w)\n"
         "        T.reduce_sum(w, s, dim=1)\n"
         "        T.copy(s, S)\n"
         "        T.cumsum(a, b, dim=1)\n"
         "        T.copy(b, B)\n"
         "        T.cumsum(a, b, dim=0, reverse=True)\n"
         "        T.cumsum(b, dim=1, reverse=True)\n"
         "        T.copy(b, C)\n",
     {{0}}, 0, 0},
    {"cumsum on shared memory, lines spread over threads, and between two shared buffers", "c",
     HDR "@T.prim_func\n"
         "def c(A: T.Tensor((10, 7), \"float32\"), B: T.Tensor((10, 7), \"float32\"), C: T.Tensor((10, 7), \"float32\")):\n"
         "    with T.Kernel(1, threads=4) as bx:\n"
         "        s = T.alloc_shared((10, 7), \"float32\")\n"
         "        t = T.alloc_shared((10, 7), \"float32\")\n"
         "        T.copy(A, s)\n"
         "        T.cumsum(s, t, dim=0)\n"
         "        T.cumsum(s, dim=1, reverse=True)\n"
         "        T.copy(s, B)\n"
         "        T.copy(t, C)\n",
     {{0}}, 0, 0},
    {"T.cummax: fragments (int16 into int32, both directions, in place), shared lines over threads", "cm",
     CUMMAX_SRC, {{0}}, 0, 0},
    {"T.atomic_max/min: elementwise from several blocks, fragment, tile", "amm", ATOMIC_MINMAX_SRC, {{0}}, 0, 0},
    {"T.any_of/all_of, T.atomic_addx2/x4", "aax", ANYALL_ADDX_SRC, {{0}}, 0, 1e-2},
    {"per-thread code (T.get_thread_binding): barriers, a shared atomic", "st", SIMT_KERNEL_SRC, {{0}}, 0, 0},
    {"atomic adds: scalar and region, global and fragment", "a",
     HDR "@T.prim_func\n"
         "def a(A: T.Tensor((8, 16), \"float32\"), S: T.Tensor((16,), \"float32\"), C: T.Tensor((8, 16), \"float32\")):\n"
         "    with T.Kernel(4, threads=32) as bx:\n"
         "        f = T.alloc_fragment((8, 16), \"float32\")\n"
         "        T.copy(A, f)\n"
         "        T.atomic_add(f, 0.25)\n"
         "        T.atomic_add(C, f)\n"
         "        for i in T.Parallel(16):\n"
         "            T.atomic_add(S[i], A[bx, i])\n",
     {{0}}, 0, 0},
    {"integer atomic adds from several blocks, and a block-level one", "a",
     HDR "@T.prim_func\n"
         "def a(A: T.Tensor((8, 16), \"int32\"), S: T.Tensor((16,), \"int32\"), T0: T.Tensor((1,), \"int32\")):\n"
         "    with T.Kernel(8, threads=16) as bx:\n"
         "        T.atomic_add(S, A[bx, 0:16])\n"
         "        T.atomic_add(T0[0], bx)\n",
     {{0}}, 0, 0},
    {"copy with a symbolic extent (flat pairing), conversion, and a slice", "c",
     HDR "N = T.symbolic(\"N\")\n"
         "@T.prim_func\n"
         "def c(A: T.Tensor((N, 4), \"float32\"), B: T.Tensor((N, 4), \"float16\"), D: T.Tensor((4,), \"float64\")):\n"
         "    with T.Kernel(T.ceildiv(N, 3), threads=32) as bx:\n"
         "        s = T.alloc_shared((3, 4), \"float32\")\n"
         "        T.copy(A[bx * 3:bx * 3 + 3, 0:4], s)\n"
         "        T.copy(s, B[bx * 3, 0])\n"
         "        T.copy(A[0, 0:4], D)\n",
     {{"N", 10}}, 1, 0},
    {"copy inside one buffer (through a temporary), two kernels, host lets", "t",
     HDR "N = T.symbolic(\"N\")\n"
         "@T.prim_func\n"
         "def t(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\")):\n"
         "    half = N // 2\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        s = T.alloc_shared((16,), \"float32\")\n"
         "        T.copy(A[0:16], s)\n"
         "        T.copy(s[0:12], s[4:16])\n"
         "        T.copy(s, B[0:16])\n"
         "    with T.Kernel(T.ceildiv(half, 8), threads=8) as bx:\n"
         "        for i in T.Parallel(8):\n"
         "            if bx * 8 + i < half:\n"
         "                B[bx * 8 + i + 16] = A[bx * 8 + i] * 2.0\n",
     {{"N", 40}}, 1, 0},
    {"a composite dim checked against its binding, an int8 result", "pk",
     HDR "N = T.symbolic(\"N\")\n"
         "@T.prim_func\n"
         "def pk(A: T.Tensor((N, 2), \"float32\"), B: T.Tensor((N * 2,), \"int8\"), n: T.int32):\n"
         "    with T.Kernel(T.ceildiv(N, 4), threads=4) as bx:\n"
         "        for i, j in T.Parallel(4, 2):\n"
         "            if bx * 4 + i < N:\n"
         "                B[(bx * 4 + i) * 2 + j] = T.Cast(\"int8\", A[bx * 4 + i, j] * 10.0) + T.Cast(\"int8\", n)\n",
     {{"N", 10}, {"n", -3}}, 2, 0},
    {"scalar parameters, a 3-d grid, 2-d threads, local vars and serial loops", "s",
     HDR "@T.prim_func\n"
         "def s(A: T.Tensor((4, 6, 8), \"float32\"), B: T.Tensor((4, 6, 8), \"float32\"), n: T.int32):\n"
         "    with T.Kernel(2, 3, 4, threads=(4, 2)) as (bx, by, bz):\n"
         "        acc = T.alloc_var(\"float32\", 0.0)\n"
         "        for k in range(n):\n"
         "            acc = acc + 1.0\n"
         "        for i, j in T.Parallel(2, 4):\n"
         "            B[bz, by * 2 + i, bx * 4 + j] = A[bz, by * 2 + i, bx * 4 + j] * acc\n",
     {{"n", 3}}, 1, 0},
    {"a symbolic T.Parallel extent (iterations in rounds of the block)", "p",
     HDR "N = T.symbolic(\"N\")\n"
         "@T.prim_func\n"
         "def p(A: T.Tensor((N, 3), \"float32\"), B: T.Tensor((N, 3), \"float32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        for i, j in T.Parallel(N, 3):\n"
         "            B[i, j] = A[i, j] * 3.0 + j\n",
     {{"N", 37}}, 1, 0},
    {"replicated fragments read off their element, block-level stores and reads", "f",
     HDR "@T.prim_func\n"
         "def f(A: T.Tensor((8, 16), \"float32\"), B: T.Tensor((8, 16), \"float32\"), C: T.Tensor((4,), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        x = T.alloc_fragment((8, 16), \"float32\")\n"
         "        r = T.alloc_fragment((8, 16), \"float32\")\n"
         "        y = T.alloc_fragment((8, 16), \"float32\")\n"
         "        s = T.alloc_shared((4,), \"float32\")\n"
         "        T.copy(A, x)\n"
         "        T.copy(A, r)\n"
         "        x[3, 5] = 100.0\n"
         "        r[0, 0] = r[7, 15] + r[0, 1]\n"
         "        for i, j in T.Parallel(8, 16):\n"
         "            y[i, j] = x[i, j] + r[7 - i, 15 - j]\n"
         "        T.copy(y, B)\n"
         "        s[0] = r[0, 0]\n"
         "        s[1] = r[2, 3] * 2.0\n"
         "        for i in T.Parallel(2):\n"
         "            s[i + 2] = s[i] + 1.0\n"
         "        T.copy(s, C)\n",
     {{0}}, 0, 0},
    {"T.Parallel loops over local buffers and vars, a T.sync_threads, unroll/vectorized loops", "u",
     HDR "@T.prim_func\n"
         "def u(A: T.Tensor((64,), \"float32\"), B: T.Tensor((64,), \"float32\")):\n"
         "    with T.Kernel(2, threads=8) as bx:\n"
         "        l = T.alloc_local((4,), \"float32\")\n"
         "        s = T.alloc_shared((32,), \"float32\")\n"
         "        for i in T.Parallel(4):\n"
         "            l[i] = i * 2.0\n"
         "        for i in T.vectorized(4):\n"
         "            l[i] = l[i] + 1.0\n"
         "        for i in T.vectorized(4):\n"
         "            l[i] = l[0] + l[i]\n"
         "        T.copy(A[bx * 32:bx * 32 + 32], s)\n"
         "        T.sync_threads()\n"
         "        for i in T.Parallel(32):\n"
         "            B[bx * 32 + i] = s[31 - i] + l[i % 4]\n",
     {{0}}, 0, 0},
    {"a fragment copied to another fragment (one layout), bool and uint8 data", "b",
     HDR "@T.prim_func\n"
         "def b(A: T.Tensor((16, 8), \"uint8\"), B: T.Tensor((16, 8), \"bool\"), C: T.Tensor((16, 8), \"int32\")):\n"
         "    with T.Kernel(1, threads=16) as bx:\n"
         "        x = T.alloc_fragment((16, 8), \"uint8\")\n"
         "        y = T.alloc_fragment((16, 8), \"int32\")\n"
         "        m = T.alloc_fragment((16, 8), \"bool\")\n"
         "        T.copy(A, x)\n"
         "        T.copy(x, y)\n"
         "        T.copy(B, m)\n"
         "        for i, j in T.Parallel(16, 8):\n"
         "            if m[i, j]:\n"
         "                y[i, j] = y[i, j] * 3 - 20\n"
         "        T.copy(y, C)\n",
     {{0}}, 0, 0},
    {"2-d threads: reductions and shuffles over the linear thread index", "r",
     HDR "@T.prim_func\n"
         "def r(A: T.Tensor((4, 128), \"float32\"), S: T.Tensor((4,), \"float32\"), X: T.Tensor((4, 128), \"float32\")):\n"
         "    with T.Kernel(1, threads=(16, 4)) as bx:\n"
         "        a = T.alloc_fragment((4, 128), \"float32\")\n"
         "        s = T.alloc_fragment((4,), \"float32\")\n"
         "        T.copy(A, a)\n"
         "        T.reduce_max(a, s, dim=1)\n"
         "        for i, j in T.Parallel(4, 128):\n"
         "            a[i, j] = a[i, j] - s[i]\n"
         "        T.reduce_sum(a, s, dim=1)\n"
         "        T.copy(s, S)\n"
         "        T.copy(a, X)\n",
     {{0}}, 0, 1e-5},
    {"96 threads: three shuffle segments per row combined in shared memory", "r",
     HDR "@T.prim_func\n"
         "def r(A: T.Tensor((3, 96), \"float32\"), S: T.Tensor((3,), \"float32\"), M: T.Tensor((3,), \"int32\")):\n"
         "    with T.Kernel(1, threads=96) as bx:\n"
         "        a = T.alloc_fragment((3, 96), \"float32\")\n"
         "        b = T.alloc_fragment((3, 96), \"int32\")\n"
         "        s = T.alloc_fragment((3,), \"float32\")\n"
         "        m = T.alloc_fragment((3,), \"int32\")\n"
         "        T.copy(A, a)\n"
         "        for i, j in T.Parallel(3, 96):\n"
         "            b[i, j] = T.Cast(\"int32\", a[i, j] * 1000.0)\n"
         "        T.reduce_sum(a, s, dim=1)\n"
         "        T.reduce_max(b, m, dim=1)\n"
         "        T.reduce_sum(b, m, dim=1, clear=False)\n"
         "        T.copy(s, S)\n"
         "        T.copy(m, M)\n",
     {{0}}, 0, 1e-5},
    {"a staged reduction (over the first dim) inside a loop, and a 3-d fragment", "r",
     HDR "@T.prim_func\n"
         "def r(A: T.Tensor((4, 8, 16), \"float32\"), S: T.Tensor((8, 16), \"float32\"), R: T.Tensor((2, 16), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        a = T.alloc_fragment((8, 16), \"float32\")\n"
         "        c = T.alloc_fragment((16,), \"float32\")\n"
         "        t = T.alloc_fragment((2, 4, 16), \"float32\")\n"
         "        u = T.alloc_fragment((2, 16), \"float32\")\n"
         "        T.fill(c, -1.0)\n"
         "        for k in range(4):\n"
         "            T.copy(A[k, 0:8, 0:16], a)\n"
         "            T.reduce_max(a, c, dim=0, clear=False)\n"
         "        T.copy(c, S[0, 0:16])\n"
         "        T.copy(A[0:2, 0:4, 0:16], t)\n"
         "        T.reduce_min(t, u, dim=1)\n"
         "        T.copy(u, R)\n",
     {{0}}, 0, 0},
    {"NaN propagation through max, min and sum reductions", "n",
     HDR "@T.prim_func\n"
         "def n(A: T.Tensor((8, 64), \"float32\"), S: T.Tensor((3, 8), \"float32\")):\n"
         "    with T.Kernel(1, threads=32) as bx:\n"
         "        a = T.alloc_fragment((8, 64), \"float32\")\n"
         "        s = T.alloc_fragment((8,), \"float32\")\n"
         "        for i, j in T.Parallel(8, 64):\n"
         "            a[i, j] = T.if_then_else(A[i, j] > 0.97, T.sqrt(A[i, j] - 2.0), A[i, j])\n"
         "        T.reduce_max(a, s, dim=1)\n"
         "        T.copy(s, S[0, 0:8])\n"
         "        T.reduce_min(a, s, dim=1)\n"
         "        T.copy(s, S[1, 0:8])\n"
         "        T.reduce_sum(a, s, dim=1)\n"
         "        T.copy(s, S[2, 0:8])\n",
     {{0}}, 0, 1e-5},
    {"T.reduce_bitxor: rows of a distributed fragment, columns of a shared buffer", "x",
     BITXOR_SRC,
     {{"N", 13}}, 1, 0},
    {"T.reduce_bitxor on one row", "x",
     BITXOR_SRC,
     {{"N", 1}}, 1, 0},
    {"T.reduce_bitand/bitor: rows of a distributed fragment, columns of a shared buffer", "x",
     BITANDOR_SRC,
     {{"N", 13}}, 1, 0},
    {"T.reduce_bitand/bitor on one row", "x",
     BITANDOR_SRC,
     {{"N", 1}}, 1, 0},
    {"tvm.tir's operators by name, T.erf/log10/log1p/expm1/tan/fmod", "ops",
     TIR_OPS_SRC,
     {{"N", 70}}, 1, 1e-6},
    {"tvm.tir's operators by name on one element", "ops",
     TIR_OPS_SRC,
     {{"N", 1}}, 1, 1e-6},
};

static void test_source_kernels(void **state) {
  (void)state;
  const char *only = getenv("TL_GPU_CASE");
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
    const src_case *c = &k_cases[i];
    if (only && !strstr(c->name, only)) continue;
    tl_ir_module *m = NULL;
    tl_status s = tl_ir_parse(c->src, "k.py", NULL, &m);
    if (s != TL_OK) fail_msg("%s: %s", c->name, tl_last_error());
    for (size_t t = 0; t < GPU_NTARGETS; t++)
      for (uint64_t seed = 1; seed <= 2; seed++)
        gpu_differential(m, c->func, c->dims, c->ndims, seed, &k_gpu_targets[t], c->tol, c->name);
    tl_ir_module_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_examples_defaults),
      cmocka_unit_test(test_examples_sizes),
      cmocka_unit_test(test_source_kernels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
