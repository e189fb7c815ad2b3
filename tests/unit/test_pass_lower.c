/* The lowering passes one at a time on small hand-built IR, with the exact IR
 * each leaves (printed), and their errors (with file:line:col): lower_tile_ops,
 * lower_kernel_cpu, flatten, split_host_device, make_packed_api. */
#include "ir_fixtures.h"
#include "pass_test.h"

/* --------------------------------------------------------- lower_tile_ops */

/* Guards only where a region may run past a global buffer's edge: A's tiles
 * divide 64 (none), B has 60 rows (rows guarded), C has N rows (guarded reads). */
static void test_copy_guards(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "N = T.symbolic(\"N\")\n"
                             "@T.prim_func\n"
                             "def copy(A: T.Tensor((64, 64), \"float32\"), B: T.Tensor((60, 64), \"float16\"), C: T.Tensor((N, 8), \"float32\")):\n"
                             "    with T.Kernel(2, 2, threads=128) as (bx, by):\n"
                             "        s = T.alloc_shared((32, 32), \"float32\")\n"
                             "        T.copy(A[by * 32, bx * 32], s)\n"
                             "        T.copy(s, B[by * 32, bx * 32])\n"
                             "        T.copy(C[bx * 4:bx * 4 + 4, 0:8], s[0:4, 0:8])\n"
                             "        T.copy(s, s)\n");
  pt_run(m, tl__pass_lower_tile_ops);
  PT_ASSERT_PRINTS(m, "copy",
                   "N = T.symbolic(\"N\")\n\n\n"
                   "@T.prim_func\n"
                   "def copy(A: T.Tensor((64, 64), \"float32\"), B: T.Tensor((60, 64), \"float16\"), C: T.Tensor((N, 8), \"float32\")):\n"
                   "    with T.Kernel(2, 2, threads=128) as (bx, by):\n"
                   "        s = T.alloc_shared((32, 32), \"float32\")\n"
                   "        for i in T.serial(32):\n"
                   "            for j in T.serial(32):\n"
                   "                s[i, j] = A[by * 32 + i, bx * 32 + j]\n"
                   "        for i in T.serial(32):\n"
                   "            if by * 32 + i < 60:\n"
                   "                for j in T.serial(32):\n"
                   "                    B[by * 32 + i, bx * 32 + j] = T.Cast(\"float16\", s[i, j])\n"
                   "        for i in T.serial(4):\n"
                   "            for j in T.serial(8):\n"
                   "                s[i, j] = T.if_then_else(bx * 4 + i < N, C[bx * 4 + i, j], 0.0)\n");
  tl_ir_module_free(m);
}

static void test_tile_ops(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "@T.prim_func\n"
                             "def ops(A: T.Tensor((8, 4), \"float16\"), S: T.Tensor((4,), \"float32\")):\n"
                             "    with T.Kernel(1, threads=32) as bx:\n"
                             "        a = T.alloc_shared((8, 4), \"float16\")\n"
                             "        b = T.alloc_shared((8, 4), \"float16\")\n"
                             "        c = T.alloc_fragment((4, 4), \"float32\")\n"
                             "        r = T.alloc_fragment((4,), \"float32\")\n"
                             "        T.fill(a, S[0] * 2.0)\n"
                             "        T.copy(A, b)\n"
                             "        T.gemm(a, b, c, transpose_A=True, clear_accum=True)\n"
                             "        T.reduce_absmax(c, r, dim=0, clear=False)\n"
                             "        T.cumsum(c, dim=1, reverse=True)\n"
                             "        T.atomic_add(S, r)\n"
                             "        T.atomic_add(r, 1.0)\n");
  pt_run(m, tl__pass_lower_tile_ops);
  PT_ASSERT_PRINTS(m, "ops",
                   "@T.prim_func\n"
                   "def ops(A: T.Tensor((8, 4), \"float16\"), S: T.Tensor((4,), \"float32\")):\n"
                   "    with T.Kernel(1, threads=32) as bx:\n"
                   "        a = T.alloc_shared((8, 4), \"float16\")\n"
                   "        b = T.alloc_shared((8, 4), \"float16\")\n"
                   "        c = T.alloc_fragment((4, 4), \"float32\")\n"
                   "        r = T.alloc_fragment((4,), \"float32\")\n"
                   "        fill_value = T.Cast(\"float16\", S[0] * 2.0)\n"
                   "        for i in T.serial(8):\n"
                   "            for j in T.serial(4):\n"
                   "                a[i, j] = fill_value\n"
                   "        for i in T.serial(8):\n"
                   "            for j in T.serial(4):\n"
                   "                b[i, j] = A[i, j]\n"
                   "        for i in T.serial(4):\n"
                   "            for j in T.serial(4):\n"
                   "                c[i, j] = 0.0\n"
                   "        for i in T.serial(4):\n"
                   "            for k in T.serial(8):\n"
                   "                for j in T.serial(4):\n"
                   "                    c[i, j] = c[i, j] + T.Cast(\"float32\", a[k, i]) * T.Cast(\"float32\", b[k, j])\n"
                   "        for i in T.serial(4):\n"
                   "            acc = T.alloc_var(\"float32\")\n"
                   "            acc = 0.0\n"
                   "            for r_1 in T.serial(4):\n"
                   "                acc = T.max(acc, T.abs(c[r_1, i]))\n"
                   "            r[i] = T.max(r[i], acc)\n"
                   "        for i in T.serial(4):\n"
                   "            acc = T.alloc_var(\"float32\")\n"
                   "            acc = 0.0\n"
                   "            for j in T.serial(4):\n"
                   "                acc = acc + c[i, 3 - j]\n"
                   "                c[i, 3 - j] = acc\n"
                   "        for i in T.serial(4):\n"
                   "            T.atomic_add_elem(S[i], r[i])\n"
                   "        for i in T.serial(4):\n"
                   "            r[i] = r[i] + 1.0\n");
  tl_ir_module_free(m);
}

/* The product dtype of T.gemm: C's when exact (float16 x float16 into float32),
 * float64 otherwise (float32 x float16 into float32), as the interpreter rounds. */
static void test_gemm_product_dtype(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "@T.prim_func\n"
                             "def g(A: T.Tensor((2, 2), \"float32\")):\n"
                             "    with T.Kernel(1, threads=32) as bx:\n"
                             "        a = T.alloc_shared((2, 2), \"float32\")\n"
                             "        b = T.alloc_shared((2, 2), \"float16\")\n"
                             "        c = T.alloc_fragment((2, 2), \"float32\")\n"
                             "        T.gemm(a, b, c, transpose_B=True)\n");
  pt_run(m, tl__pass_lower_tile_ops);
  PT_ASSERT_PRINTS(m, "g",
                   "@T.prim_func\n"
                   "def g(A: T.Tensor((2, 2), \"float32\")):\n"
                   "    with T.Kernel(1, threads=32) as bx:\n"
                   "        a = T.alloc_shared((2, 2), \"float32\")\n"
                   "        b = T.alloc_shared((2, 2), \"float16\")\n"
                   "        c = T.alloc_fragment((2, 2), \"float32\")\n"
                   "        for i in T.serial(2):\n"
                   "            for k in T.serial(2):\n"
                   "                for j in T.serial(2):\n"
                   "                    c[i, j] = c[i, j] + T.Cast(\"float32\", T.Cast(\"float64\", a[i, k]) * T.Cast(\"float64\", b[j, k]))\n");
  tl_ir_module_free(m);
}

static void test_tile_op_errors(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "@T.prim_func\n"
                             "def e(A: T.Tensor((8, 8), \"float32\")):\n"
                             "    with T.Kernel(1, threads=32) as bx:\n"
                             "        s = T.alloc_shared((8, 8), \"float32\")\n"
                             "        T.cumsum(s[0:4, 0:8], s[4:8, 0:8], dim=1)\n");
  TL_ASSERT_ERR(tl__pass_lower_tile_ops(m, NULL), TL_EUNSUPPORTED, NULL);
  TL_ASSERT_MSG("k.py:6:9: T.cumsum from one region of buffer 's' into another is not supported; use the same region "
                "or another buffer");
  tl_ir_module_free(m);
}

/* ------------------------------------------------------- lower_kernel_cpu */

static void test_lower_kernel_cpu(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  assert_non_null(fx_vadd(m, "vadd"));
  pt_run(m, tl__pass_lower_kernel_cpu);
  PT_ASSERT_PRINTS(m, "vadd",
                   "N = T.symbolic(\"N\")\n\n\n"
                   "@T.prim_func\n"
                   "def vadd(A: T.Tensor((N,), \"float32\"), B: T.Tensor((N,), \"float32\"), C: T.Tensor((N,), \"float32\")):\n"
                   "    with T.Kernel(1, threads=1) as bx:\n"
                   "        for bx_1 in T.Parallel(T.ceildiv(N, 128)):\n"
                   "            for i in T.serial(128):\n"
                   "                if bx_1 * 128 + i < N:\n"
                   "                    C[bx_1 * 128 + i] = A[bx_1 * 128 + i] + B[bx_1 * 128 + i]\n");
  /* The kernel statement is only a marker now: no block indices of its own (the
   * printer names the unbound index `bx`, as the front end would). */
  const tl_ir_stmt *k = tl_ir_module_find_func(m, "vadd")->body;
  assert_int_equal(k->kind, TL_STMT_KERNEL);
  assert_null(k->u.kernel.block_vars[0]);
  assert_int_equal(k->u.kernel.body->u.loop.kind, TL_FOR_PARALLEL);
  tl_ir_module_free(m);
  /* Three grid dims: one loop, bz outermost; barriers dropped; pipelined -> serial. */
  m = pt_parse("import tilelang.language as T\n"
               "@T.prim_func\n"
               "def g(A: T.Tensor((2, 3, 4), \"float32\")):\n"
               "    with T.Kernel(4, 3, 2, threads=32) as (bx, by, bz):\n"
               "        for k in T.Pipelined(2, num_stages=2):\n"
               "            A[bz, by, bx] = 1.0\n"
               "            T.sync_threads()\n"
               "        for v in T.vectorized(4):\n"
               "            A[bz, by, v] = 2.0\n");
  pt_run(m, tl__pass_lower_kernel_cpu);
  PT_ASSERT_PRINTS(m, "g",
                   "@T.prim_func\n"
                   "def g(A: T.Tensor((2, 3, 4), \"float32\")):\n"
                   "    with T.Kernel(1, threads=1) as bx:\n"
                   "        for bz, by, bx_1 in T.Parallel(2, 3, 4):\n"
                   "            for k in T.serial(2):\n"
                   "                A[bz, by, bx_1] = 1.0\n"
                   "            for v in T.vectorized(4):\n"
                   "                A[bz, by, v] = 2.0\n");
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------------ flatten */

static void test_flatten(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse("import tilelang.language as T\n"
                             "@T.prim_func\n"
                             "def f(A: T.Tensor((4, 8), \"float32\")):\n"
                             "    with T.Kernel(1, threads=32) as bx:\n"
                             "        s = T.alloc_shared((2, 4, 8), \"float32\")\n"
                             "        v = T.alloc_var(\"float32\")\n"
                             "        l = T.alloc_local((8,), \"float32\")\n"
                             "        for i, j in T.Parallel(4, 8):\n"
                             "            s[1, i, j] = A[i, j]\n"
                             "            l[j] = s[1, i, j]\n"
                             "            v = l[j]\n"
                             "            A[i, j] = v\n");
  pt_run(m, tl__pass_flatten);
  PT_ASSERT_PRINTS(m, "f",
                   "@T.prim_func\n"
                   "def f(A: T.Tensor((4, 8), \"float32\")):\n"
                   "    with T.Kernel(1, threads=32) as bx:\n"
                   "        s = T.alloc_shared((64,), \"float32\")\n"
                   "        v = T.alloc_var(\"float32\")\n"
                   "        l = T.alloc_local((8,), \"float32\")\n"
                   "        for i, j in T.Parallel(4, 8):\n"
                   "            s[(i + 4) * 8 + j] = A[i, j]\n"
                   "            l[j] = s[(i + 4) * 8 + j]\n"
                   "            v = l[j]\n"
                   "            A[i, j] = v\n");
  tl_ir_module_free(m);
  /* A symbolic allocation cannot be a local array: refused where it is made. */
  m = pt_parse("import tilelang.language as T\n"
               "N = T.symbolic(\"N\")\n"
               "@T.prim_func\n"
               "def f(A: T.Tensor((N, 8), \"float32\")):\n"
               "    with T.Kernel(1, threads=32) as bx:\n"
               "        s = T.alloc_shared((N, 8), \"float32\")\n"
               "        T.copy(A, s)\n");
  TL_ASSERT_ERR(tl__pass_flatten(m, NULL), TL_EUNSUPPORTED, NULL);
  TL_ASSERT_MSG("k.py:6:13: buffer 's' (shared) has a shape that is not constant; the c target allocates it as a local "
                "array of constant size");
  tl_ir_module_free(m);
}

/* ------------------------------------------------ split, make_packed_api */

static const char *k_split_src = "import tilelang.language as T\n"
                                 "N = T.symbolic(\"N\")\n"
                                 "@T.prim_func\n"
                                 "def pk(A: T.Tensor((N, 2), \"float32\"), B: T.Tensor((N * 2,), \"int8\"), n: T.int32, m: T.float32):\n"
                                 "    q = n + 1\n"
                                 "    with T.Kernel(T.ceildiv(N, 4), threads=4) as bx:\n"
                                 "        for i in T.Parallel(4):\n"
                                 "            if bx * 4 + i < N:\n"
                                 "                B[bx * 4 + i] = T.Cast(\"int8\", A[bx * 4 + i, 0]) + T.Cast(\"int8\", q)\n";

static void test_split_host_device(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_split_src);
  pt_run(m, tl__pass_lower_kernel_cpu);
  pt_run(m, tl__pass_split_host_device);
  assert_int_equal(tl_ir_module_num_funcs(m), 2);
  PT_ASSERT_PRINTS(m, "pk",
                   "N = T.symbolic(\"N\")\n\n\n"
                   "# host entry (packed calling convention): checks arguments, launches kernels\n"
                   "@T.prim_func\n"
                   "def pk(A: T.Tensor((N, 2), \"float32\"), B: T.Tensor((N * 2,), \"int8\"), n: T.int32, m: T.float32):\n"
                   "    T.launch(\"pk_kernel\", A, B, n, N, grid=(1, 1, 1), block=(1, 1, 1))\n");
  PT_ASSERT_PRINTS(m, "pk_kernel",
                   "# device kernel (launched by a host entry)\n"
                   "@T.prim_func\n"
                   "def pk_kernel(A: T.Tensor((T.Cast(\"int64\", N) * 2,), \"float32\"), B: T.Tensor((T.Cast(\"int64\", N * 2),), \"int8\"), n: T.int32, N: T.int32):\n"
                   "    for bx in T.Parallel(T.ceildiv(N, 4)):\n"
                   "        for i in T.serial(4):\n"
                   "            if bx * 4 + i < N:\n"
                   "                B[T.Cast(\"int64\", bx * 4 + i)] = T.Cast(\"int8\", A[T.Cast(\"int64\", bx * 4 + i) * 2]) + T.Cast(\"int8\", n + 1)\n");
  tl_ir_module_free(m);
  /* Host code may not touch memory. */
  m = pt_parse("import tilelang.language as T\n"
               "@T.prim_func\n"
               "def h(A: T.Tensor((4,), \"float32\")):\n"
               "    with T.Kernel(1, threads=4) as bx:\n"
               "        A[0] = 1.0\n"
               "    A[1] = 2.0\n");
  TL_ASSERT_ERR(tl__pass_split_host_device(m, NULL), TL_EUNSUPPORTED, NULL);
  TL_ASSERT_MSG("k.py:6:5: only T.Kernel blocks and let bindings may appear outside T.Kernel; move this statement into "
                "a kernel");
  tl_ir_module_free(m);
}

static void test_make_packed_api(void **state) {
  (void)state;
  tl_ir_module *m = pt_parse(k_split_src);
  pt_run(m, tl__pass_lower_kernel_cpu);
  pt_run(m, tl__pass_split_host_device);
  pt_run(m, tl__pass_make_packed_api);
  PT_ASSERT_PRINTS(
      m, "pk",
      "N = T.symbolic(\"N\")\n\n\n"
      "# host entry (packed calling convention): checks arguments, launches kernels\n"
      "@T.prim_func\n"
      "def pk(A: T.Tensor((N, 2), \"float32\"), B: T.Tensor((N * 2,), \"int8\"), n: T.int32, m: T.float32):\n"
      "    T.assert_(T.arg_num() == 4, \"function 'pk' takes 4 arguments but got {nargs}\")\n"
      "    T.assert_(T.arg_kind(0) == 10, \"argument 'A': expected a tensor but got {kind(0)}\")\n"
      "    T.assert_(T.arg_dtype_code(0) == 2 and T.arg_dtype_bits(0) == 32 and T.arg_dtype_lanes(0) == 1, \"argument 'A': expected float32 but got {dtype(0)}\")\n"
      "    T.assert_(T.arg_ndim(0) == 2, \"argument 'A': expected 2 dimensions but got {ndim(0)}\")\n"
      "    T.assert_(T.arg_device_type(0) == 1, \"argument 'A': expected a CPU tensor (kDLCPU) but got device type {device(0)}\")\n"
      "    T.assert_(not T.arg_data_is_null(0) or T.arg_shape(0, 0) == 0 or T.arg_shape(0, 1) == 0, \"argument 'A': the tensor's data is NULL\")\n"
      "    T.assert_(T.arg_shape(0, 1) == 2, \"argument 'A': dimension 1 must be 2 but is {shape(0,1)}\")\n"
      "    T.assert_(T.arg_kind(1) == 10, \"argument 'B': expected a tensor but got {kind(1)}\")\n"
      "    T.assert_(T.arg_dtype_code(1) == 0 and T.arg_dtype_bits(1) == 8 and T.arg_dtype_lanes(1) == 1, \"argument 'B': expected int8 but got {dtype(1)}\")\n"
      "    T.assert_(T.arg_ndim(1) == 1, \"argument 'B': expected 1 dimension but got {ndim(1)}\")\n"
      "    T.assert_(T.arg_device_type(1) == 1, \"argument 'B': expected a CPU tensor (kDLCPU) but got device type {device(1)}\")\n"
      "    T.assert_(not T.arg_data_is_null(1) or T.arg_shape(1, 0) == 0, \"argument 'B': the tensor's data is NULL\")\n"
      "    T.assert_(T.arg_kind(2) == 1 or T.arg_kind(2) == 3, \"argument 'n': expected a scalar int32 but got {kind(2)}\")\n"
      "    T.assert_(T.arg_int(2) >= -2147483648 and T.arg_int(2) <= 2147483647, \"argument 'n': {int(2)} does not fit int32\")\n"
      "    T.assert_(T.arg_kind(3) == 2 or (T.arg_kind(3) == 1 or T.arg_kind(3) == 3), \"argument 'm': expected a scalar float32 but got {kind(3)}\")\n"
      "    T.assert_(T.arg_shape(0, 0) >= 0 and T.arg_shape(0, 0) <= 2147483647, \"argument 'A': dimension 0 (N = {shape(0,0)}) does not fit int32\")\n"
      "    T.assert_(T.arg_shape(1, 0) == T.arg_shape(0, 0) * 2, \"argument 'B': dimension 0 must be N * 2 but is {shape(1,0)}\")\n"
      "    T.assert_(T.arg_strides_compact(0), \"argument 'A': the tensor must be compact (row-major contiguous)\")\n"
      "    T.assert_(T.arg_strides_compact(1), \"argument 'B': the tensor must be compact (row-major contiguous)\")\n"
      "    N_1 = T.Cast(\"int32\", T.arg_shape(0, 0))\n"
      "    T.launch(\"pk_kernel\", A, B, n, N_1, grid=(1, 1, 1), block=(1, 1, 1))\n");
  tl_ir_module_free(m);
  /* A symbolic dim only inside an expression cannot be bound by a call. */
  m = pt_parse("import tilelang.language as T\n"
               "N = T.symbolic(\"N\")\n"
               "@T.prim_func\n"
               "def h(A: T.Tensor((N * 2,), \"float32\")):\n"
               "    with T.Kernel(1, threads=4) as bx:\n"
               "        A[0] = 1.0\n");
  pt_run(m, tl__pass_split_host_device);
  TL_ASSERT_ERR(tl__pass_make_packed_api(m, NULL), TL_EUNSUPPORTED, "symbolic dim 'N' of parameter 'A'");
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_copy_guards),       cmocka_unit_test(test_tile_ops),
      cmocka_unit_test(test_gemm_product_dtype), cmocka_unit_test(test_tile_op_errors),
      cmocka_unit_test(test_lower_kernel_cpu),  cmocka_unit_test(test_flatten),
      cmocka_unit_test(test_split_host_device), cmocka_unit_test(test_make_packed_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
