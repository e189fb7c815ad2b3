/* Argument checking end to end: a compiled kernel called with a wrong argument count,
 * kind, dtype, rank, shape, device, NULL data, strides or scalar fails with
 * TL_EINVAL naming the parameter, through every CPU execution backend that runs,
 * and nothing is written. Valid calls keep working afterwards. */
#include "base/alloc.h"
#include "e2e_util.h"

static const char k_scale_src[] =
    "import tilelang.language as T\n"
    "\n"
    "@T.prim_func\n"
    "def scale(A: T.Tensor((64, 32), \"float32\"), B: T.Tensor((64, 32), \"float32\"), alpha: T.float32, n: T.int32):\n"
    "    with T.Kernel(2, threads=32) as bx:\n"
    "        for i, j in T.Parallel(32, 32):\n"
    "            B[bx * 32 + i, j] = A[bx * 32 + i, j] * alpha + T.Cast(\"float32\", n)\n";

typedef struct tensor {
  DLTensor t;
  int64_t shape[4];
  int64_t strides[4];
  float *data;
} tensor;

static void tensor_init(tensor *x, DLDataType dt, int ndim, const int64_t *shape) {
  memset(x, 0, sizeof *x);
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= (x->shape[i] = shape[i]);
  x->data = calloc((size_t)(n ? n : 1), 8);
  x->t.data = x->data;
  x->t.device = (DLDevice){kDLCPU, 0};
  x->t.ndim = ndim;
  x->t.dtype = dt;
  x->t.shape = x->shape;
}

static const DLDataType F32 = {kDLFloat, 32, 1}, F16 = {kDLFloat, 16, 1};

typedef struct fixture {
  tensor A, B;
  tl_value args[4];
} fixture;

static void valid_args(fixture *fx) {
  static const int64_t shape[2] = {64, 32};
  tensor_init(&fx->A, F32, 2, shape);
  tensor_init(&fx->B, F32, 2, shape);
  for (int i = 0; i < 64 * 32; i++) fx->A.data[i] = (float)i;
  fx->args[0] = e2e_tensor(&fx->A.t);
  fx->args[1] = e2e_tensor(&fx->B.t);
  fx->args[2] = (tl_value){.kind = TL_VALUE_FLOAT, .v.f = 2.0};
  fx->args[3] = (tl_value){.kind = TL_VALUE_INT, .v.i = 1};
}

static void free_args(fixture *fx) {
  free(fx->A.data);
  free(fx->B.data);
}

/* Calls k with fx's arguments and expects TL_EINVAL containing `needle`, and B
 * untouched. */
static void expect_einval(tl_kernel *k, fixture *fx, int nargs, const char *needle) {
  fx->B.data[0] = 12345.0f;
  TL_ASSERT_ERR(tl_kernel_call(k, fx->args, nargs, NULL), TL_EINVAL, needle);
  if (fx->B.t.data == fx->B.data) assert_true(fx->B.data[0] == 12345.0f);
}

static void check_scale(const char *exec) {
  if (!e2e_exec_available(exec)) {
    skip();
    return;
  }
  tl_compile_options o = e2e_options(exec);
  o.disable_cache = true;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(k_scale_src, "scale.py", NULL, &m));
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(m, "scale", &o, &k));
  fixture fx;

  /* A valid call first. */
  valid_args(&fx);
  TL_ASSERT_OK(tl_kernel_call(k, fx.args, 4, NULL));
  assert_true(fx.B.data[5] == 5.0f * 2.0f + 1.0f);

  expect_einval(k, &fx, 3, "function 'scale' takes 4 arguments but got 3");
  expect_einval(k, &fx, 0, "takes 4 arguments but got 0");

  fx.args[0] = (tl_value){.kind = TL_VALUE_INT, .v.i = 3};
  expect_einval(k, &fx, 4, "argument 'A': expected a tensor but got an int");
  fx.args[0] = e2e_tensor(&fx.A.t);

  fx.A.t.dtype = F16;
  expect_einval(k, &fx, 4, "argument 'A': expected float32 but got float16");
  fx.A.t.dtype = F32;

  fx.A.t.ndim = 1;
  expect_einval(k, &fx, 4, "argument 'A': expected 2 dimensions but got 1");
  fx.A.t.ndim = 2;

  fx.A.shape[1] = 31;
  expect_einval(k, &fx, 4, "argument 'A': dimension 1 must be 32 but is 31");
  fx.A.shape[1] = 32;
  fx.B.shape[0] = 65;
  expect_einval(k, &fx, 4, "argument 'B': dimension 0 must be 64 but is 65");
  fx.B.shape[0] = 64;

  fx.A.t.device.device_type = kDLCUDA;
  expect_einval(k, &fx, 4, "argument 'A': expected a CPU tensor (kDLCPU) but got device type 2");
  fx.A.t.device.device_type = kDLCPU;

  fx.B.t.data = NULL;
  expect_einval(k, &fx, 4, "argument 'B': the tensor's data is NULL");
  fx.B.t.data = fx.B.data;

  fx.A.strides[0] = 1;
  fx.A.strides[1] = 64; /* column-major */
  fx.A.t.strides = fx.A.strides;
  expect_einval(k, &fx, 4, "argument 'A': the tensor must be compact");
  fx.A.strides[0] = 32;
  fx.A.strides[1] = 1; /* explicit row-major strides are fine */
  TL_ASSERT_OK(tl_kernel_call(k, fx.args, 4, NULL));
  fx.A.t.strides = NULL;

  fx.args[2] = e2e_tensor(&fx.A.t);
  expect_einval(k, &fx, 4, "argument 'alpha': expected a scalar float32 but got a tensor");
  fx.args[2] = (tl_value){.kind = TL_VALUE_INT, .v.i = 3}; /* an int for a float: accepted */
  TL_ASSERT_OK(tl_kernel_call(k, fx.args, 4, NULL));
  assert_true(fx.B.data[5] == 5.0f * 3.0f + 1.0f);
  fx.args[2] = (tl_value){.kind = TL_VALUE_FLOAT, .v.f = 2.0};

  fx.args[3] = (tl_value){.kind = TL_VALUE_INT, .v.i = (int64_t)1 << 40};
  expect_einval(k, &fx, 4, "argument 'n': 1099511627776 does not fit int32");
  fx.args[3] = (tl_value){.kind = TL_VALUE_FLOAT, .v.f = 1.5};
  expect_einval(k, &fx, 4, "argument 'n': expected a scalar int32 but got a float");
  fx.args[3] = (tl_value){.kind = TL_VALUE_INT, .v.i = 1};

  /* Still fine after all that. */
  TL_ASSERT_OK(tl_kernel_call(k, fx.args, 4, NULL));
  assert_true(fx.B.data[5] == 11.0f);

  /* The call's own checks. */
  TL_ASSERT_ERR(tl_kernel_call(NULL, fx.args, 4, NULL), TL_EINVAL, "kernel");
  TL_ASSERT_ERR(tl_kernel_call(k, NULL, 4, NULL), TL_EINVAL, NULL);
  TL_ASSERT_ERR(tl_kernel_call(k, fx.args, -1, NULL), TL_EINVAL, NULL);

  free_args(&fx);
  tl_kernel_release(k);
  tl_ir_module_free(m);
}

/* A symbolic dim bound by A and used by B and C. */
static void check_symbolic(const char *exec) {
  if (!e2e_exec_available(exec)) {
    skip();
    return;
  }
  tl_compile_options o = e2e_options(exec);
  o.disable_cache = true;
  tl_ir_module *m = e2e_parse_file(e2e_example("vector_add"), NULL);
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  tensor A, B, C;
  int64_t n100[1] = {100}, n99[1] = {99};
  tensor_init(&A, F32, 1, n100);
  tensor_init(&B, F32, 1, n99);
  tensor_init(&C, F32, 1, n100);
  tl_value args[3] = {e2e_tensor(&A.t), e2e_tensor(&B.t), e2e_tensor(&C.t)};
  TL_ASSERT_ERR(tl_kernel_call(k, args, 3, NULL), TL_EINVAL,
                "argument 'B': dimension 0 must equal N (=100 from argument 'A') but is 99");
  B.shape[0] = 100;
  C.shape[0] = 101;
  TL_ASSERT_ERR(tl_kernel_call(k, args, 3, NULL), TL_EINVAL, "argument 'C': dimension 0 must equal N");
  C.shape[0] = 100;
  TL_ASSERT_OK(tl_kernel_call(k, args, 3, NULL));
  free(A.data);
  free(B.data);
  free(C.data);
  tl_kernel_release(k);
  tl_ir_module_free(m);
}

static void test_native(void **state) {
  (void)state;
  check_scale("native");
  check_symbolic("native");
}

static void test_tcc(void **state) {
  (void)state;
  check_scale("tcc");
  check_symbolic("tcc");
}

/* The `source` execution backend builds but cannot run: the call says why. */
static void test_source_cannot_run(void **state) {
  (void)state;
  tl_compile_options o = e2e_options("source");
  o.disable_cache = true;
  tl_ir_module *m = e2e_parse_file(e2e_example("vector_add"), NULL);
  tl_kernel *k = NULL;
  TL_ASSERT_OK(tl_compile(m, NULL, &o, &k));
  assert_true(strstr(tl_kernel_device_source(k), "vector_add_kernel") != NULL);
  tl_value none[1] = {{.kind = TL_VALUE_NONE}};
  TL_ASSERT_ERR(tl_kernel_call(k, none, 1, NULL), TL_EUNSUPPORTED, NULL);
  tl_kernel_release(k);
  tl_ir_module_free(m);
}

/* tl_compile's own argument errors. */
static void test_compile_errors(void **state) {
  (void)state;
  tl_compile_options o = e2e_options("native");
  o.disable_cache = true;
  tl_ir_module *m = e2e_parse_file(e2e_example("vector_add"), NULL);
  tl_kernel *k = (tl_kernel *)&o; /* must be reset to NULL on failure */
  TL_ASSERT_ERR(tl_compile(NULL, NULL, &o, &k), TL_EINVAL, NULL);
  assert_null(k);
  TL_ASSERT_ERR(tl_compile(m, "nope", &o, &k), TL_ENOTFOUND, "'nope'");
  o.target = "no-such-target";
  TL_ASSERT_ERR(tl_compile(m, NULL, &o, &k), TL_EINVAL, NULL);
  o.target = "c";
  o.execution_backend = "nvrtc";
  TL_ASSERT_ERR(tl_compile(m, NULL, &o, &k), TL_EINVAL, "Invalid execution backend 'nvrtc' for target 'c'");
  o.execution_backend = "native";
  const char *bad_cfg[] = {"novalue", NULL};
  o.pass_configs = bad_cfg;
  o.disable_cache = false;
  TL_ASSERT_ERR(tl_compile(m, NULL, &o, &k), TL_EINVAL, "pass config 'novalue'");
  o.pass_configs = NULL;
  o.struct_size = 8;
  TL_ASSERT_ERR(tl_compile(m, NULL, &o, &k), TL_EINVAL, "struct_size");
  assert_null(k);
  tl_ir_module_free(m);
}

int main(void) {
  char *cache = NULL;
  TL_ASSERT_OK(tl__make_scratch_dir("tl-e2e-cache-", &cache));
  setenv("TILELANG_CACHE_DIR", cache, 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_native),
      cmocka_unit_test(test_tcc),
      cmocka_unit_test(test_source_cannot_run),
      cmocka_unit_test(test_compile_errors),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  tl_kernel_cache_clear_memory();
  (void)tl__remove_tree(cache);
  tl__free(cache);
  return rc;
}
