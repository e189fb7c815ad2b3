/* The c pipeline end to end, checked against the interpreter: a tile-level
 * function and its fully lowered module (host entry + device kernels, run through
 * the interpreter's launch support) must compute the same bytes on the same
 * seeded random inputs. The lowering keeps the interpreter's op order and
 * rounding, so the comparison is exact for every dtype. Covers hand-built
 * kernels (builder and inline source) and every example under examples/, at several sizes
 * and symbolic dims. Also: the lowered host entry's argument checks, and the
 * kernel table of lowered examples. */
#include <dirent.h>

#include "backends/cpu/pipeline.h"
#include "base/alloc.h"
#include "base/str.h"
#include "ir_fixtures.h"
#include "more_ops_src.h"
#include "pass_test.h"
#include "transform/kernel_table.h"

/* Lowers a clone of m and runs `func` both ways on seeded inputs. */
static void differential(const tl_ir_module *m, const char *func, const pt_dim *dims, size_t ndims, uint64_t seed,
                         const char *what) {
  tl_ir_module *low = NULL;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  tl_status s = pt_lower_c(low, &tl__cpu_pipeline);
  if (s != TL_OK) fail_msg("%s: lowering failed: %s", what, tl_last_error());
  const tl_ir_func *hf = tl_ir_module_find_func(low, func);
  assert_non_null(hf);
  assert_int_equal(hf->callconv, TL_CALLCONV_PACKED);
  const tl_ir_func *f = tl_ir_module_find_func(m, func);
  pt_args ref = pt_args_make(f, dims, ndims, seed);
  pt_args got = pt_args_copy(&ref);
  s = tl_ir_interpret(m, func, ref.values, (int)ref.n);
  if (s != TL_OK) fail_msg("%s: interpreting the tile-level function failed: %s", what, tl_last_error());
  s = tl_ir_interpret(low, func, got.values, (int)got.n);
  if (s != TL_OK) fail_msg("%s: interpreting the lowered module failed: %s", what, tl_last_error());
  for (uint32_t i = 0; i < ref.n; i++) {
    if (ref.values[i].kind != TL_VALUE_TENSOR) continue;
    long d = pt_first_diff(&ref, &got, i);
    if (d >= 0) fail_msg("%s: parameter '%s' differs at byte %ld", what, f->params[i].name, d);
  }
  pt_args_free(&ref);
  pt_args_free(&got);
  tl_ir_module_free(low);
}

/* ------------------------------------------------------ hand-built kernels */

static void test_builder_vadd(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  assert_non_null(fx_vadd(m, "vadd"));
  static const int64_t sizes[] = {1, 127, 128, 129, 1000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    pt_dim d[] = {{"N", sizes[i]}};
    differential(m, "vadd", d, 1, i, "builder vadd");
  }
  tl_ir_module_free(m);
}

static void test_builder_matmul(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  assert_non_null(fx_matmul(m, "mm"));
  static const int64_t sizes[][3] = {{64, 64, 32}, {70, 90, 40}, {1, 1, 1}, {130, 65, 33}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    pt_dim d[] = {{"M", sizes[i][0]}, {"N", sizes[i][1]}, {"K", sizes[i][2]}};
    differential(m, "mm", d, 3, i, "builder matmul");
  }
  tl_ir_module_free(m);
}

typedef struct src_case {
  const char *name;
  const char *func;
  const char *src;
  pt_dim dims[3];
  size_t ndims;
} src_case;

/* T.reduce_bitxor: rows of a fragment combined with its old values, columns of
 * a shared buffer, the last block partly past the end. */
#define BITXOR_SRC \
  "import tilelang.language as T\n" \
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
    {"gemm transposes, clear_accum, int8 into int32", "g",
     "import tilelang.language as T\n"
     "@T.prim_func\n"
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
     {{0}},
     0},
    {"gemm float16 into float16 (product rounded in float16), bfloat16 into float32", "g",
     "import tilelang.language as T\n"
     "@T.prim_func\n"
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
     {{0}},
     0},
    {"reductions over both dims, with and without clear", "r",
     "import tilelang.language as T\n"
     "@T.prim_func\n"
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
     {{0}},
     0},
    {"integer reductions and cumsum in both directions", "r",
     "import tilelang.language as T\n"
     "@T.prim_func\n"
     "def r(A: T.Tensor((6, 9), \"int16\"), B: T.Tensor((6, 9), \"int32\"), C: T.Tensor((6, 9), \"int32\"), M: T.Tensor((6,), \"int16\")):\n"
     "    with T.Kernel(1, threads=32) as bx:\n"
     "        a = T.alloc_fragment((6, 9), \"int16\")\n"
     "        b = T.alloc_fragment((6, 9), \"int32\")\n"
     "        m = T.alloc_fragment((6,), \"int16\")\n"
     "        T.copy(A, a)\n"
     "        T.reduce_min(a, m, dim=1)\n"
     "        T.copy(m, M)\n"
     "        T.cumsum(a, b, dim=1)\n"
     "        T.copy(b, B)\n"
     "        T.cumsum(a, b, dim=0, reverse=True)\n"
     "        T.cumsum(b, dim=1, reverse=True)\n"
     "        T.copy(b, C)\n",
     {{0}},
     0},
    {"T.cummax: fragments (int16 into int32, both directions, in place), shared lines", "cm",
     CUMMAX_SRC,
     {{0}},
     0},
    {"T.atomic_max/min: elementwise from several blocks, fragment, tile", "amm",
     ATOMIC_MINMAX_SRC,
     {{0}},
     0},
    {"T.any_of/all_of, T.atomic_addx2/x4", "aax",
     ANYALL_ADDX_SRC,
     {{0}},
     0},
    {"atomic adds: scalar and region, global and fragment", "a",
     "import tilelang.language as T\n"
     "@T.prim_func\n"
     "def a(A: T.Tensor((8, 16), \"float32\"), S: T.Tensor((16,), \"float32\"), C: T.Tensor((8, 16), \"float32\")):\n"
     "    with T.Kernel(4, threads=32) as bx:\n"
     "        f = T.alloc_fragment((8, 16), \"float32\")\n"
     "        T.copy(A, f)\n"
     "        T.atomic_add(f, 0.25)\n"
     "        T.atomic_add(C, f)\n"
     "        for i in T.Parallel(16):\n"
     "            T.atomic_add(S[i], A[bx, i])\n",
     {{0}},
     0},
    {"copy with a symbolic extent (flat pairing), conversion, and a slice", "c",
     "import tilelang.language as T\n"
     "N = T.symbolic(\"N\")\n"
     "@T.prim_func\n"
     "def c(A: T.Tensor((N, 4), \"float32\"), B: T.Tensor((N, 4), \"float16\"), D: T.Tensor((4,), \"float64\")):\n"
     "    with T.Kernel(T.ceildiv(N, 3), threads=32) as bx:\n"
     "        s = T.alloc_shared((3, 4), \"float32\")\n"
     "        T.copy(A[bx * 3:bx * 3 + 3, 0:4], s)\n"
     "        T.copy(s, B[bx * 3, 0])\n"
     "        T.copy(A[0, 0:4], D)\n",
     {{"N", 10}},
     1},
    {"copy inside one buffer (through a temporary), two kernels, host lets", "t",
     "import tilelang.language as T\n"
     "N = T.symbolic(\"N\")\n"
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
     {{"N", 40}},
     1},
    {"a composite dim checked against its binding, an int8 result", "pk",
     "import tilelang.language as T\n"
     "N = T.symbolic(\"N\")\n"
     "@T.prim_func\n"
     "def pk(A: T.Tensor((N, 2), \"float32\"), B: T.Tensor((N * 2,), \"int8\"), n: T.int32):\n"
     "    with T.Kernel(T.ceildiv(N, 4), threads=4) as bx:\n"
     "        for i, j in T.Parallel(4, 2):\n"
     "            if bx * 4 + i < N:\n"
     "                B[(bx * 4 + i) * 2 + j] = T.Cast(\"int8\", A[bx * 4 + i, j] * 10.0) + T.Cast(\"int8\", n)\n",
     {{"N", 10}, {"n", -3}},
     2},
    {"scalar parameters, a 3-d grid, local vars and serial loops", "s",
     "import tilelang.language as T\n"
     "@T.prim_func\n"
     "def s(A: T.Tensor((4, 6, 8), \"float32\"), B: T.Tensor((4, 6, 8), \"float32\"), n: T.int32):\n"
     "    with T.Kernel(2, 3, 4, threads=(4, 2)) as (bx, by, bz):\n"
     "        acc = T.alloc_var(\"float32\", 0.0)\n"
     "        for k in range(n):\n"
     "            acc = acc + 1.0\n"
     "        for i, j in T.Parallel(2, 4):\n"
     "            B[bz, by * 2 + i, bx * 4 + j] = A[bz, by * 2 + i, bx * 4 + j] * acc\n",
     {{"n", 3}},
     1},
    {"T.reduce_bitxor: rows into a fragment combined with its old values, columns of a shared buffer", "x",
     BITXOR_SRC,
     {{"N", 13}},
     1},
    {"T.reduce_bitxor on one row", "x",
     BITXOR_SRC,
     {{"N", 1}},
     1},
    {"T.reduce_bitand/bitor: rows into a fragment combined with its old values, columns of a shared buffer", "x",
     BITANDOR_SRC,
     {{"N", 13}},
     1},
    {"T.reduce_bitand/bitor on one row", "x",
     BITANDOR_SRC,
     {{"N", 1}},
     1},
};

static void test_source_kernels(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
    const src_case *c = &k_cases[i];
    tl_ir_module *m = NULL;
    tl_status s = tl_ir_parse(c->src, "k.py", NULL, &m);
    if (s != TL_OK) fail_msg("%s: %s", c->name, tl_last_error());
    for (uint64_t seed = 1; seed <= 2; seed++) differential(m, c->func, c->dims, c->ndims, seed, c->name);
    tl_ir_module_free(m);
  }
}

/* A parameter with declared strides (4 x 3 with strides 8 and 2): flattened with
 * its strides in the kernel, checked by the host entry. */
static void test_builder_strides(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_builder_set_loc(m, fx_loc(1, 1));
  tl_ir_expr *shape[2] = {tl_ir_i32(m, 4), tl_ir_i32(m, 3)}, *strides[2] = {tl_ir_i32(m, 8), tl_ir_i32(m, 2)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 2, shape, strides, TL_SCOPE_GLOBAL);
  tl_ir_buffer *b = tl_ir_buffer_new(m, "B", TL_DT_FLOAT32, 2, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_expr *idx[2] = {tl_ir_var_ref(m, bx), tl_ir_var_ref(m, i)};
  tl_ir_stmt *st = tl_ir_store(m, b, 2, idx, tl_ir_binary(m, TL_BIN_MUL, tl_ir_load(m, a, 2, idx), tl_ir_float(m, TL_DT_FLOAT32, 2)));
  tl_ir_expr *three = tl_ir_i32(m, 3), *grid[1] = {tl_ir_i32(m, 4)}, *thr[1] = {tl_ir_i32(m, 32)};
  tl_ir_stmt *k = tl_ir_kernel(m, 1, grid, 1, thr, &bx, tl_ir_for(m, TL_FOR_PARALLEL, 1, &i, NULL, &three, st));
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "s", &f));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, a, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, b, false));
  f->body = k;
  differential(m, "s", NULL, 0, 3, "declared strides");
  /* The host entry insists on the declared strides. */
  tl_ir_module *low;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_OK(pt_lower_c(low, &tl__cpu_pipeline));
  pt_args args = pt_args_make(f, NULL, 0, 1);
  args.tensors[0].strides[0] = 7;
  TL_ASSERT_ERR(tl_ir_interpret(low, "s", args.values, (int)args.n), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'A': stride of dimension 0 must be 8 but is 7");
  tl_kernel_table *t;
  TL_ASSERT_ERR(tl__kernel_table_from_module(low, "s", &t), TL_EUNSUPPORTED, "parameter 'A' declares strides");
  pt_args_free(&args);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
}

/* f(A: T.Tensor((n,), "float32"), n: T.int32): a symbolic dim that is a scalar
 * parameter, bound by the scalar (after A, which uses it). */
static void test_builder_scalar_dim(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_builder_set_loc(m, fx_loc(1, 1));
  tl_ir_var *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_expr *shape[1] = {tl_ir_var_ref(m, n)};
  tl_ir_buffer *a = tl_ir_buffer_new(m, "A", TL_DT_FLOAT32, 1, shape, NULL, TL_SCOPE_GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_expr *idx[1] = {tl_ir_var_ref(m, bx)};
  tl_ir_stmt *st = tl_ir_store(m, a, 1, idx, tl_ir_binary(m, TL_BIN_ADD, tl_ir_load(m, a, 1, idx), tl_ir_float(m, TL_DT_FLOAT32, 1)));
  tl_ir_expr *grid[1] = {tl_ir_var_ref(m, n)}, *thr[1] = {tl_ir_i32(m, 1)};
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, a, false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, n));
  f->body = tl_ir_kernel(m, 1, grid, 1, thr, &bx, st);
  pt_dim d[] = {{"n", 10}};
  differential(m, "f", d, 1, 5, "scalar-bound symbolic dim");
  tl_ir_module *low;
  TL_ASSERT_OK(tl_ir_module_clone(m, &low));
  TL_ASSERT_OK(pt_lower_c(low, &tl__cpu_pipeline));
  pt_args args = pt_args_make(f, d, 1, 1);
  args.values[1] = tl_value_int(9);
  TL_ASSERT_ERR(tl_ir_interpret(low, "f", args.values, (int)args.n), TL_EINVAL, NULL);
  TL_ASSERT_MSG("argument 'A': dimension 0 must equal n (=9 from argument 'n') but is 10");
  tl_kernel_table *t;
  TL_ASSERT_OK(tl__kernel_table_from_module(low, "f", &t));
  assert_int_equal(t->nsyms, 1);
  assert_int_equal(t->syms[0].param, 1);
  assert_int_equal(t->syms[0].dim, -1);
  assert_int_equal(t->params[0].dims[0].sym, 0);
  tl__free(t);
  pt_args_free(&args);
  tl_ir_module_free(low);
  tl_ir_module_free(m);
}

/* --------------------------------------------------------------- examples */

typedef struct example_size {
  const char *file;
  tl_ir_const_binding consts[4];
  size_t nconsts;
  pt_dim dims[2];
  size_t ndims;
} example_size;

/* Extra sizes: tiles that divide the shape and tiles that do not, empty-ish and
 * odd symbolic dims. Every example also runs with its defaults. */
static const example_size k_sizes[] = {
    {"vector_add.py", {{0}}, 0, {{"N", 1}}, 1},
    {"vector_add.py", {{0}}, 0, {{"N", 256}}, 1},
    {"vector_add.py", {{0}}, 0, {{"N", 1000}}, 1},
    {"gemm.py", {{"M", "64"}, {"N", "64"}, {"K", "64"}}, 3, {{0}}, 0},
    {"gemm.py", {{"M", "33"}, {"N", "17"}, {"K", "5"}, {"dtype", "\"float32\""}}, 4, {{0}}, 0},
    {"elementwise_add.py", {{"M", "64"}, {"N", "32"}}, 2, {{0}}, 0},
    {"row_sum.py", {{"M", "16"}}, 1, {{0}}, 0},
    {"softmax.py", {{"M", "5"}, {"N", "7"}}, 2, {{0}}, 0},
    {"cumsum.py", {{"reverse", "True"}}, 1, {{0}}, 0},
    {"rms_norm.py", {{"M", "8"}}, 1, {{0}}, 0},
    {"row_max.py", {{0}}, 0, {{"M", 20}, {"N", 50}}, 2},
    {"row_max.py", {{0}}, 0, {{"M", 1}, {"N", 1}}, 2},
    {"row_max.py", {{0}}, 0, {{"M", 33}, {"N", 64}}, 2},
    {"transpose.py", {{0}}, 0, {{"M", 70}, {"N", 45}}, 2},
    {"transpose.py", {{0}}, 0, {{"M", 32}, {"N", 64}}, 2},
    {"col_extrema.py", {{"M", "33"}, {"block_M", "8"}}, 2, {{0}}, 0},
};

static void run_example(const char *file, const tl_ir_const_binding *consts, size_t nconsts, const pt_dim *dims,
                        size_t ndims) {
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
    differential(m, fn, ndims ? dims : deflt, ndims ? ndims : 3, 7, what);
  }
  tl_ir_module_free(m);
}

static void test_examples(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/examples", TL_SOURCE_DIR);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!tl__str_ends_with(e->d_name, ".py")) continue;
    run_example(e->d_name, NULL, 0, NULL, 0);
    n++;
  }
  closedir(d);
  assert_true(n >= 9);
  for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; i++)
    run_example(k_sizes[i].file, k_sizes[i].consts, k_sizes[i].nconsts, k_sizes[i].dims, k_sizes[i].ndims);
}

/* ------------------------------------------------------------ host checks */

static const char *k_vadd_src = "import tilelang.language as T\n"
                                "N = T.symbolic(\"N\")\n"
                                "@T.prim_func\n"
                                "def vadd(A: T.Tensor((N, 4), \"float32\"), B: T.Tensor((N, 4), \"float32\"), n: T.int16):\n"
                                "    with T.Kernel(T.ceildiv(N, 8), threads=8) as bx:\n"
                                "        for i, j in T.Parallel(8, 4):\n"
                                "            if bx * 8 + i < N:\n"
                                "                B[bx * 8 + i, j] = A[bx * 8 + i, j] + T.Cast(\"float32\", n)\n";

/* One call of the lowered host entry with the arguments tweaked by `edit`. */
typedef void (*arg_edit)(tl_value *v, DLTensor *t, int *nargs);

static void expect_arg_error(const tl_ir_module *low, arg_edit edit, const char *msg) {
  int64_t sa[2] = {10, 4}, sb[2] = {10, 4};
  float a[40] = {0}, b[40] = {0};
  DLTensor t[2] = {{a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sa, NULL, 0}, {b, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sb, NULL, 0}};
  tl_value v[3] = {tl_value_tensor((struct DLTensor *)&t[0]), tl_value_tensor((struct DLTensor *)&t[1]), tl_value_int(3)};
  int nargs = 3;
  edit(v, t, &nargs);
  TL_ASSERT_ERR(tl_ir_interpret(low, "vadd", v, nargs), TL_EINVAL, NULL);
  TL_ASSERT_MSG(msg);
}

static void e_count(tl_value *v, DLTensor *t, int *n) { (void)v, (void)t, *n = 2; }
static void e_kind(tl_value *v, DLTensor *t, int *n) { (void)t, (void)n, v[1] = tl_value_float(1.0); }
static void e_dtype(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].dtype = (DLDataType){kDLFloat, 16, 1}; }
static void e_ndim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].ndim = 1; }
static void e_device(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].device.device_type = kDLCUDA; }
static void e_null(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].data = NULL; }
static void e_const_dim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].shape[1] = 5; }
static void e_sym_dim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].shape[0] = 9; }
static void e_scalar_kind(tl_value *v, DLTensor *t, int *n) { (void)t, (void)n, v[2] = tl_value_float(2.5); }
static void e_scalar_range(tl_value *v, DLTensor *t, int *n) { (void)t, (void)n, v[2] = tl_value_int(40000); }
static int64_t g_strides[2] = {8, 1};
static void e_strides(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[1].strides = g_strides; }
static void e_big_dim(tl_value *v, DLTensor *t, int *n) { (void)v, (void)n, t[0].shape[0] = 3000000000LL; }

static void test_host_argument_checks(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_vadd_src);
  TL_ASSERT_OK(pt_lower_c(m, &tl__cpu_pipeline));
  expect_arg_error(m, e_count, "function 'vadd' takes 3 arguments but got 2");
  expect_arg_error(m, e_kind, "argument 'B': expected a tensor but got a float");
  expect_arg_error(m, e_dtype, "argument 'B': expected float32 but got float16");
  expect_arg_error(m, e_ndim, "argument 'A': expected 2 dimensions but got 1");
  expect_arg_error(m, e_device, "argument 'B': expected a CPU tensor (kDLCPU) but got device type 2");
  expect_arg_error(m, e_null, "argument 'A': the tensor's data is NULL");
  expect_arg_error(m, e_const_dim, "argument 'A': dimension 1 must be 4 but is 5");
  expect_arg_error(m, e_sym_dim, "argument 'B': dimension 0 must equal N (=10 from argument 'A') but is 9");
  expect_arg_error(m, e_scalar_kind, "argument 'n': expected a scalar int16 but got a float");
  expect_arg_error(m, e_scalar_range, "argument 'n': 40000 does not fit int16");
  expect_arg_error(m, e_strides, "argument 'B': the tensor must be compact (row-major contiguous)");
  expect_arg_error(m, e_big_dim, "argument 'A': dimension 0 (N = 3000000000) does not fit int32");
  /* And a good call runs. */
  int64_t sa[2] = {10, 4};
  float a[40], b[40];
  for (int i = 0; i < 40; i++) a[i] = (float)i;
  DLTensor t[2] = {{a, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sa, NULL, 0}, {b, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, sa, NULL, 0}};
  tl_value v[3] = {tl_value_tensor((struct DLTensor *)&t[0]), tl_value_tensor((struct DLTensor *)&t[1]), tl_value_int(3)};
  TL_ASSERT_OK(tl_ir_interpret(m, "vadd", v, 3));
  for (int i = 0; i < 40; i++) assert_true(b[i] == (float)i + 3.0f);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------ kernel table */

static void test_kernel_table(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_vadd_src);
  TL_ASSERT_OK(pt_lower_c(m, &tl__cpu_pipeline));
  tl_kernel_table *t = NULL;
  TL_ASSERT_OK(tl__kernel_table_from_module(m, "vadd", &t));
  assert_string_equal(t->entry, "vadd");
  assert_int_equal(t->nparams, 3);
  assert_string_equal(t->params[0].name, "A");
  assert_true(t->params[0].is_tensor);
  assert_int_equal(t->params[0].ndim, 2);
  assert_int_equal(t->params[0].dims[0].sym, 0);
  assert_int_equal(t->params[0].dims[1].sym, -1);
  assert_int_equal(t->params[0].dims[1].value, 4);
  assert_false(t->params[2].is_tensor);
  assert_true(tl_dtype_eq(t->params[2].dtype, TL_DT_INT16));
  assert_int_equal(t->nsyms, 1);
  assert_string_equal(t->syms[0].name, "N");
  assert_int_equal(t->syms[0].param, 0);
  assert_int_equal(t->syms[0].dim, 0);
  assert_int_equal(t->nlaunches, 1);
  const tl_kernel_launch *l = &t->launches[0];
  assert_string_equal(l->symbol, "vadd_kernel");
  /* A, B, n, N */
  assert_int_equal(l->nargs, 4);
  assert_int_equal(l->args[0].kind, TL_KARG_TENSOR);
  assert_int_equal(l->args[1].index, 1);
  assert_int_equal(l->args[2].kind, TL_KARG_SCALAR);
  assert_int_equal(l->args[2].index, 2);
  assert_int_equal(l->args[3].kind, TL_KARG_SYM);
  assert_int_equal(l->args[3].index, 0);
  assert_true(tl_dtype_eq(l->args[3].dtype, TL_DT_INT32));
  assert_int_equal(l->grid[0].n, 1);
  assert_int_equal(l->grid[0].code[0].op, TL_LX_CONST);
  assert_int_equal(l->grid[0].code[0].value, 1);
  assert_int_equal(l->dyn_shared_bytes.code[0].value, 0);
  /* One block: pointers into it, freed with one tl__free (tl_kernel_table_free). */
  assert_true((const char *)t->params > (const char *)t && (const char *)t->launches[0].symbol > (const char *)t);
  tl__free(t);
  tl_ir_module_free(m);
}

/* A GPU-style split (grid extents from symbolic dims) compiles to postfix code. */
static void test_kernel_table_launch_exprs(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "N = T.symbolic(\"N\")\n"
                             "M = T.symbolic(\"M\")\n"
                             "@T.prim_func\n"
                             "def k(A: T.Tensor((M, N), \"float32\")):\n"
                             "    with T.Kernel(T.ceildiv(N, 32), T.max(M, 2) - 1, threads=128) as (bx, by):\n"
                             "        A[by, bx] = 0.0\n");
  TL_ASSERT_OK(tl__pass_split_host_device(m, NULL));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl__pass_make_packed_api(m, NULL));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  tl_kernel_table *t = NULL;
  TL_ASSERT_OK(tl__kernel_table_from_module(m, "k", &t));
  assert_int_equal(t->nsyms, 2);
  assert_string_equal(t->syms[0].name, "M");
  assert_string_equal(t->syms[1].name, "N");
  const tl_kernel_launch *l = &t->launches[0];
  int64_t syms[2] = {5, 100};
  /* Evaluated by hand: tl_launch_expr_eval belongs to the runtime. */
  int64_t stack[16];
  int sp = 0;
  for (uint32_t i = 0; i < l->grid[0].n; i++) {
    tl_lexpr_insn in = l->grid[0].code[i];
    if (in.op == TL_LX_CONST) stack[sp++] = in.value;
    else if (in.op == TL_LX_SYM) stack[sp++] = syms[in.value];
    else {
      int64_t b = stack[--sp], a = stack[--sp];
      stack[sp++] = in.op == TL_LX_ADD ? a + b : in.op == TL_LX_SUB ? a - b : in.op == TL_LX_MUL ? a * b
                    : in.op == TL_LX_FLOORDIV ? a / b : in.op == TL_LX_MAX ? (a > b ? a : b) : -999;
    }
  }
  assert_int_equal(sp, 1);
  assert_int_equal(stack[0], 4); /* ceildiv(100, 32) */
  assert_int_equal(l->block[0].code[0].value, 128);
  tl__free(t);
  TL_ASSERT_ERR(tl__kernel_table_from_module(m, "k_kernel", &t), TL_EINVAL, "not a lowered host entry");
  TL_ASSERT_ERR(tl__kernel_table_from_module(m, "nope", &t), TL_EINVAL, "no function 'nope'");
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builder_vadd),
      cmocka_unit_test(test_builder_matmul),
      cmocka_unit_test(test_builder_strides),
      cmocka_unit_test(test_builder_scalar_dim),
      cmocka_unit_test(test_source_kernels),
      cmocka_unit_test(test_examples),
      cmocka_unit_test(test_host_argument_checks),
      cmocka_unit_test(test_kernel_table),
      cmocka_unit_test(test_kernel_table_launch_exprs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
