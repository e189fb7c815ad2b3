/* The kernels the CUDA tests compile (tests/unit/test_codegen_cuda.c, without a
 * GPU) and run (tests/device/test_cuda_examples.c, on one): every example with
 * several parameterizations, and focused kernels for what the examples do not
 * reach (atomics of every width, dynamic shared memory, int8 arithmetic that
 * wraps, math functions, scalar parameters, 2-d thread blocks, names that are C++
 * keywords). Plain data, no test framework. */
#ifndef TL_CUDA_CASES_H
#define TL_CUDA_CASES_H

#include <stddef.h>
#include <stdio.h>

#include "more_ops_src.h"
#include "simt_src.h"
#include "tilelang/ir.h"

/* One example with constants bound (a parameterization). Symbolic dims get
 * `dims` when the device test runs it (NULL: its own choice). */
typedef struct cuda_example {
  const char *file;
  const char *label; /* names the parameterization in goldens and reports */
  tl_ir_const_binding consts[5];
  size_t nconsts;
  double tol; /* float sums across threads, or fast CUDA math: relative tolerance */
  double device_tol; /* on the GPU only (tensor cores round within a step): at least this */
} cuda_example;

/* Every example at its defaults, and other parameterizations: tiles that do not
 * divide, float16 and bfloat16 data, a larger GEMM tile; FlashAttention (MHA and
 * GQA) causal with seq_q != seq_kv and sequences the tiles do not divide. The
 * 64x64 GEMM runs on the tensor cores (mma.sync), whose rounding within a step
 * differs from the interpreter's: its device_tol covers that on the GPU (the CPU
 * stand-in must still match bit for bit). */
static const cuda_example k_cuda_examples[] = {
    {"vector_add.py", "default", {{0}}, 0, 0, 0},
    {"elementwise_add.py", "default", {{0}}, 0, 0, 0},
    {"elementwise_add.py", "float16", {{"M", "7"}, {"N", "9"}, {"in_dtype", "\"float16\""}, {"out_dtype", "\"float16\""}}, 4, 0, 0},
    {"elementwise_add.py", "bfloat16_in", {{"in_dtype", "\"bfloat16\""}}, 1, 0, 0},
    {"transpose.py", "default", {{0}}, 0, 0, 0},
    {"gemm.py", "default_float16", {{0}}, 0, 0, 2e-3},
    {"gemm.py", "float32_odd", {{"M", "33"}, {"N", "17"}, {"K", "5"}, {"dtype", "\"float32\""}}, 4, 0, 0},
    {"gemm.py", "float16_64x64", {{"M", "256"}, {"N", "256"}, {"K", "128"}, {"block_M", "64"}, {"block_N", "64"}}, 5, 0, 2e-3},
    {"gemm.py", "float16_128x128", {{"M", "256"}, {"N", "256"}, {"K", "96"}, {"block_M", "128"}, {"block_N", "128"}}, 5, 0, 2e-3},
    {"gemm.py", "bfloat16_64x64", {{"M", "130"}, {"N", "192"}, {"block_M", "64"}, {"block_N", "64"}, {"dtype", "\"bfloat16\""}}, 5, 0, 1e-2},
    {"row_sum.py", "default", {{0}}, 0, 1e-5, 0},
    {"row_max.py", "default", {{0}}, 0, 0, 0},
    {"softmax.py", "default", {{0}}, 0, 1e-5, 0},
    {"softmax.py", "float16", {{"M", "32"}, {"N", "256"}, {"dtype", "\"float16\""}}, 3, 2e-3, 0},
    {"cumsum.py", "default", {{0}}, 0, 0, 0},
    {"cumsum.py", "reverse", {{"reverse", "True"}}, 1, 0, 0},
    {"rms_norm.py", "default", {{0}}, 0, 1e-5, 0},
    {"flash_attention.py", "default", {{0}}, 0, 2e-3, 0},
    {"flash_attention.py", "causal_q48_kv80", {{"is_causal", "True"}, {"seq_q", "48"}, {"seq_kv", "80"}}, 3, 2e-3, 0},
    {"flash_attention.py", "mma_64x64", {{"is_causal", "True"}, {"seq_q", "100"}, {"block_M", "64"}, {"block_N", "64"}}, 4, 2e-3, 0},
    {"flash_attention.py", "stages2_64x64", {{"is_causal", "True"}, {"seq_q", "100"}, {"block_M", "64"}, {"block_N", "64"}, {"num_stages", "2"}}, 5, 2e-3, 0},
    {"flash_attention_gqa.py", "default", {{0}}, 0, 2e-3, 0},
    {"flash_attention_gqa.py", "causal_q33_kv50", {{"is_causal", "True"}, {"seq_q", "33"}, {"seq_kv", "50"}}, 3, 2e-3, 0},
    {"flash_decoding.py", "default", {{0}}, 0, 2e-3, 0},
    {"flash_decoding.py", "split4_kv77", {{"num_split", "4"}, {"seqlen_kv", "77"}, {"block_N", "16"}}, 3, 2e-3, 0},
};
#define CUDA_NEXAMPLES (sizeof k_cuda_examples / sizeof k_cuda_examples[0])

/* Parses an example with its constants. */
static inline tl_status cuda_parse_example_file(const char *source_dir, const cuda_example *ex, tl_ir_module **out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/examples/%s", source_dir, ex->file);
  tl_ir_parse_options opts = {sizeof opts, ex->consts, ex->nconsts, NULL, false};
  return tl_ir_parse_file(path, &opts, out);
}

/* A focused kernel in TileLang script. */
typedef struct cuda_case {
  const char *name;
  const char *func;
  const char *src;
  double tol;          /* see cuda_example */
  const char *expect;  /* a text the CUDA source must contain (NULL: none) */
} cuda_case;

#define CUDA_HDR "import tilelang.language as T\n"

/* A kernel `twice` scaling 256 floats by FACTOR (a string literal): two compilations
 * with different factors have same-named device functions (the aliasing tests). */
#define CUDA_TWICE_SRC(FACTOR)                                                                   \
  CUDA_HDR "@T.prim_func\n"                                                                      \
           "def twice(A: T.Tensor((256,), \"float32\"), B: T.Tensor((256,), \"float32\")):\n" \
           "    with T.Kernel(2, threads=128) as bx:\n"                                          \
           "        for i in T.Parallel(128):\n"                                                 \
           "            B[bx * 128 + i] = A[bx * 128 + i] * " FACTOR "\n"

static const cuda_case k_cuda_cases[] = {
    {"tensor-core gemms: transpose_B (ldmatrix rows of B[N, K]), transpose_A (A element by element), bfloat16, clear_accum",
     "mma",
     CUDA_MMA_SRC,
     1e-5 /* the GPU rounds within a tensor-core step; the interpreter differential (test_gpu_pipeline) is exact */,
     "tl_mma_m16n8k16_bf16(&"},
    {"tensor-core warp grids (Square, FullCol) under a cross-warp row max, a T.Parallel and an owner's store", "grids",
     CUDA_MMA_GRIDS_SRC, 1e-5, "tl_mma_m16n8k16_f16(&"},
    {"row statistics as projections of the mma accumulators, P @ V with P in registers", "rows", CUDA_ROWS_SRC, 1e-3,
     "tl_mma_m16n8k16_f16(&"},
    {"P @ V with P staged through shared memory, in a loop", "staged", CUDA_RS_STAGED_SRC, 1e-3, "p_stage"},
    {"atomic adds of 16-bit floats, float64, int8 (wrapping), int16 and int64 from several blocks", "atom",
     CUDA_HDR "@T.prim_func\n"
              "def atom(A: T.Tensor((8, 16), \"float16\"), S: T.Tensor((16,), \"float16\"),\n"
              "         B: T.Tensor((8, 16), \"bfloat16\"), SB: T.Tensor((16,), \"bfloat16\"),\n"
              "         D: T.Tensor((8, 16), \"float64\"), SD: T.Tensor((16,), \"float64\"),\n"
              "         I: T.Tensor((8, 16), \"int8\"), SI: T.Tensor((16,), \"int8\"),\n"
              "         H: T.Tensor((8, 16), \"int16\"), SH: T.Tensor((16,), \"int16\"),\n"
              "         L: T.Tensor((8, 16), \"int64\"), SL: T.Tensor((16,), \"int64\")):\n"
              "    with T.Kernel(8, threads=16) as bx:\n"
              "        T.atomic_add(S, A[bx, 0:16])\n"
              "        T.atomic_add(SB, B[bx, 0:16])\n"
              "        T.atomic_add(SD, D[bx, 0:16])\n"
              "        T.atomic_add(SI, I[bx, 0:16])\n"
              "        T.atomic_add(SH, H[bx, 0:16])\n"
              "        T.atomic_add(SL, L[bx, 0:16])\n",
     2e-2, "tl_atomic_add_bits"},
    {"float32 and int32 atomic adds, scalar and region, global", "a",
     CUDA_HDR "@T.prim_func\n"
              "def a(A: T.Tensor((8, 16), \"float32\"), S: T.Tensor((16,), \"float32\"), C: T.Tensor((8, 16), \"int32\"),\n"
              "      T0: T.Tensor((1,), \"int32\")):\n"
              "    with T.Kernel(8, threads=16) as bx:\n"
              "        f = T.alloc_fragment((16,), \"float32\")\n"
              "        T.copy(A[bx, 0:16], f)\n"
              "        T.atomic_add(S, f)\n"
              "        T.atomic_add(T0[0], bx)\n"
              "        for i in T.Parallel(16):\n"
              "            T.atomic_add(C[bx, i], i)\n",
     1e-5, "atomicAdd("},
    {"64 KB of shared memory: dynamic, with the limit raised at load", "big",
     CUDA_HDR "@T.prim_func\n"
              "def big(A: T.Tensor((128, 64), \"float32\"), B: T.Tensor((128, 64), \"float32\")):\n"
              "    with T.Kernel(1, threads=128) as bx:\n"
              "        s = T.alloc_shared((128, 64), \"float32\")\n"
              "        t = T.alloc_shared((128, 64), \"float32\")\n"
              "        T.copy(A, s)\n"
              "        for i, j in T.Parallel(128, 64):\n"
              "            t[i, j] = s[127 - i, j] * 2.0\n"
              "        T.copy(t, B)\n",
     0, "extern __shared__ __align__(16) unsigned char dyn_smem[];"},
    {"int8 GEMM into int32 that overflows on purpose (wrapping arithmetic)", "g",
     CUDA_HDR "@T.prim_func\n"
              "def g(A: T.Tensor((24, 40), \"int8\"), B: T.Tensor((16, 24), \"int8\"), C: T.Tensor((40, 16), \"int32\")):\n"
              "    with T.Kernel(1, threads=32) as bx:\n"
              "        a = T.alloc_shared((24, 40), \"int8\")\n"
              "        b = T.alloc_shared((16, 24), \"int8\")\n"
              "        c = T.alloc_fragment((40, 16), \"int32\")\n"
              "        T.fill(c, 2147483000)\n"
              "        T.copy(A, a)\n"
              "        T.copy(B, b)\n"
              "        T.gemm(a, b, c, transpose_A=True, transpose_B=True)\n"
              "        T.copy(c, C)\n",
     0, "(int)((unsigned int)"},
    {"math functions, NaN-propagating max, a select, names that are C++ keywords", "fm",
     CUDA_HDR "N = T.symbolic(\"N\")\n"
              "@T.prim_func\n"
              "def fm(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\"), alpha: T.float32, k: T.int8):\n"
              "    with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:\n"
              "        for i in T.Parallel(128):\n"
              "            new = bx * 128 + i\n"
              "            if new < N:\n"
              "                this = A[new]\n"
              "                B[new] = T.max(T.exp(this) * alpha + T.log(T.abs(this) + 1.0), T.sqrt(T.abs(this))) + "
              "T.if_then_else(this > 0.5, T.Cast(\"float32\", k), 0.0)\n",
     1e-5, "expf("},
    {"2-d thread blocks: reductions and shuffles over the linear thread index", "r",
     CUDA_HDR "@T.prim_func\n"
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
     1e-5, "__shfl_xor_sync(0xffffffffu"},
    {"tvm.tir's operators by name, T.erf/log10/log1p/expm1/tan/fmod", "ops", TIR_OPS_SRC, 1e-5, "erff("},
    {"T.cummax: fragments, shared lines over threads, in place", "cm", CUMMAX_SRC, 0, NULL},
    {"T.reduce_bitand/bitor: warp folds of a fragment, shared columns", "x", BITANDOR_SRC, 0, NULL},
    {"T.atomic_max/min: float32/64 loops, 32/64-bit integer builtins, a tile", "amm", ATOMIC_MINMAX_SRC, 0,
     "tl_atomic_max_f64("},
    {"T.any_of/all_of, T.atomic_addx2/x4 (float16 at block level)", "aax", ANYALL_ADDX_SRC, 1e-2, "tl_atomic_add_f16("},
    {"per-thread code: T.get_thread_binding, barriers between phases, a shared atomic", "st", SIMT_KERNEL_SRC, 0,
     "__syncthreads()"},
    {"T.reshape / T.view of a global parameter, shared memory and a fragment", "rv",
     CUDA_HDR "@T.prim_func\n"
              "def rv(A: T.Tensor((96,), \"float32\"), B: T.Tensor((8, 12), \"float32\"), C: T.Tensor((4, 24), \"float32\"),\n"
              "       D: T.Tensor((12,), \"float32\")):\n"
              "    with T.Kernel(2, threads=32) as bx:\n"
              "        A2 = T.reshape(A, (8, 12))\n"
              "        S = T.alloc_shared((8, 12), \"float32\")\n"
              "        T.copy(A2, S)\n"
              "        S1 = T.view(S, (2, 48))\n"
              "        for i, j in T.Parallel(2, 48):\n"
              "            S1[i, j] = S1[i, j] * (i + 2.0)\n"
              "        T.copy(S, B)\n"
              "        F = T.alloc_fragment((96,), \"float32\")\n"
              "        T.copy(A, F)\n"
              "        F2 = T.reshape(F, (4, 24))\n"
              "        for i, j in T.Parallel(4, 24):\n"
              "            F2[i, j] = F2[i, j] - j\n"
              "        T.copy(F2, C)\n"
              "        for i in T.Parallel(12):\n"
              "            D[i] = F[i * 8] + A2[i % 8, i]\n",
     0, NULL},
};
#define CUDA_NCASES (sizeof k_cuda_cases / sizeof k_cuda_cases[0])

#endif
