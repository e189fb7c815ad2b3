/* Compile-time constants: module constants, factory parameters (defaults and
 * caller bindings), @tilelang.jit functions (constant parameters, T.const
 * dimensions, tensor declarations, T.empty outputs), symbolic dimensions, the top
 * level's rules (imports, skipped helpers and __main__ block), and the errors. */
#include "frontend_test.h"

#define IMPORTS "import tilelang\nimport tilelang.language as T\n\n\n"

static const char *const FACTORY = IMPORTS
  "SCALE = 2\n"
  "\n"
  "\n"
  "def scale(N, block=64, dtype=\"float32\", factor=1.5 * SCALE):\n"
  "    half = block // 2\n"
  "\n"
  "    @T.prim_func\n"
  "    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):\n"
  "        with T.Kernel(T.ceildiv(N, block), threads=half) as bx:\n"
  "            for i in T.Parallel(block):\n"
  "                B[bx * block + i] = A[bx * block + i] * factor\n"
  "\n"
  "    return main\n";

static char *print_with(const char *src, const char *const *kv) {
  tl_ir_module *m = NULL;
  tl_status s = ft_parse(src, kv, &m);
  if (s != TL_OK) fail_msg("parse failed: %s", tl_last_error());
  TL_ASSERT_OK(tl_ir_verify_module(m));
  char *text = tl_ir_print_module(m);
  tl_ir_module_free(m);
  return text;
}

static void expect_err(const char *src, const char *const *kv, const char *needle) {
  tl_ir_module *m = NULL;
  tl_status s = ft_parse(src, kv, &m);
  if (s != TL_EINVAL) fail_msg("expected an error containing \"%s\"", needle);
  assert_null(m);
  if (!strstr(tl_last_error(), needle)) fail_msg("message\n%s\nlacks \"%s\"", tl_last_error(), needle);
}

static void test_factory(void **state) {
  (void)state;
  const char *kv[] = {"N=1000", NULL};
  char *text = print_with(FACTORY, kv);
  assert_string_equal(text, IMPORTS
    "@T.prim_func\n"
    "def scale(A: T.Tensor((1000,), \"float32\"), B: T.Tensor((1000,), \"float32\")):\n"
    "    with T.Kernel(16, threads=32) as bx:\n"
    "        for i in T.Parallel(64):\n"
    "            B[bx * 64 + i] = A[bx * 64 + i] * 3.0\n");
  tl_free(text);
  /* Bindings override defaults; dtype names and literals of every kind. */
  const char *kv2[] = {"N=256", "block=128", "dtype=float16", "factor=-0.5", NULL};
  text = print_with(FACTORY, kv2);
  assert_non_null(strstr(text, "def scale(A: T.Tensor((256,), \"float16\"), B: T.Tensor((256,), \"float16\")):"));
  assert_non_null(strstr(text, "with T.Kernel(2, threads=64) as bx:"));
  assert_non_null(strstr(text, "* -0.5"));
  tl_free(text);
  const char *kv3[] = {"N=8", "dtype='bfloat16'", NULL};
  text = print_with(FACTORY, kv3);
  assert_non_null(strstr(text, "\"bfloat16\""));
  tl_free(text);
}

static void test_factory_errors(void **state) {
  (void)state;
  expect_err(FACTORY, NULL, "t.py:8:11: factory 'scale': parameter 'N' has no default and no value was given for it");
  const char *typo[] = {"N=8", "blok=32", NULL};
  expect_err(FACTORY, typo, "t.py: nothing named 'blok' to bind");
  const char *bad[] = {"N=foo", NULL};
  expect_err(FACTORY, bad, "invalid value 'foo' bound to 'N': expected a Python literal");
  const char *bad2[] = {"N=1 +", NULL};
  expect_err(FACTORY, bad2, "invalid value '1 +' bound to 'N'");
  const char *ty[] = {"N=8.5", NULL};
  expect_err(FACTORY, ty, "t.py:12:26: a dimension must be an integer, got float32");
  expect_err(IMPORTS "def f(n=4):\n    x = 1\n\n    @T.prim_func\n    def main(A: T.Tensor((n,), \"float32\")):\n"
                     "        pass\n",
             NULL, "factory 'f' does not return its @T.prim_func");
  expect_err(IMPORTS "def f(n=4):\n    @T.prim_func\n    def main(A: T.Tensor((n,), \"float32\")):\n"
                     "        pass\n\n    return n\n",
             NULL, "a factory must return its @T.prim_func, not an integer");
  expect_err(IMPORTS "def f(n=4):\n    while n:\n        n = n + 0\n\n    @T.prim_func\n"
                     "    def main(A: T.Tensor((n,), \"float32\")):\n        pass\n\n    return main\n",
             NULL, "this while loop ran 100000 times without ending");
  expect_err(IMPORTS "def f(n=4):\n    with open('x') as fh:\n        pass\n\n    @T.prim_func\n"
                     "    def main(A: T.Tensor((n,), \"float32\")):\n        pass\n\n    return main\n",
             NULL, "a factory function may only assign compile-time values");
  /* a nested helper is fine (tests/unit/test_frontend_helpers.c); one that does not return is None */
  expect_err(IMPORTS "def f(n=4):\n    def g():\n        pass\n\n    @T.prim_func\n"
                     "    def main(A: T.Tensor((g(),), \"float32\")):\n        pass\n\n    return main\n",
             NULL, "None cannot be used as a value here");
  /* Compile-time asserts in factories and at the top level. */
  expect_err(IMPORTS "def f(n=4, block=3):\n    assert n % block == 0, f\"{n} % {block}\"\n\n    @T.prim_func\n"
                     "    def main(A: T.Tensor((n,), \"float32\")):\n        pass\n\n    return main\n",
             NULL, "t.py:6:5: assertion failed: f\"{n} % {block}\"");
  expect_err(IMPORTS "def f(n=4, block=3):\n    assert n % block == 0, \"block must divide n\"\n\n    @T.prim_func\n"
                     "    def main(A: T.Tensor((n,), \"float32\")):\n        pass\n\n    return main\n",
             NULL, "t.py:6:5: assertion failed: block must divide n");
  expect_err(IMPORTS "N = 3\nassert N > 4\n", NULL, "t.py:6:1: assertion failed");
  const char *div[] = {"block=2", NULL};
  tl_ir_module *am = NULL;
  TL_ASSERT_OK(ft_parse(IMPORTS "def f(n=4, block=3):\n    assert n % block == 0, \"block must divide n\"\n\n    @T.prim_func\n"
                        "    def main(A: T.Tensor((n,), \"float32\")):\n        pass\n\n    return main\n", div, &am));
  tl_ir_module_free(am);
  /* A factory's static if chooses the kernel. */
  char *text = print_with(IMPORTS
    "def f(n=4, twice=False):\n"
    "    if twice:\n"
    "        k = 2.0\n"
    "    else:\n"
    "        k = 1.0\n"
    "\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((n,), \"float32\")):\n"
    "        with T.Kernel(1, threads=32) as bx:\n"
    "            A[0] = A[0] * k\n"
    "\n"
    "    return main\n", NULL);
  assert_non_null(strstr(text, "A[0] = A[0] * 1.0"));
  tl_free(text);
}

static const char *const JIT = IMPORTS
  "@tilelang.jit\n"
  "def add(A, B, block: int = 32, dtype: str = \"float32\"):\n"
  "    M, N = T.const(\"M, N\")\n"
  "    A: T.Tensor((M, N), dtype)\n"
  "    B: T.Tensor((M, N), dtype)\n"
  "    C = T.empty((M, N), dtype)\n"
  "    D = T.empty((M,), dtype)\n"
  "    with T.Kernel(T.ceildiv(M, block), threads=128) as bx:\n"
  "        for i, j in T.Parallel(block, N):\n"
  "            C[bx * block + i, j] = A[bx * block + i, j] + B[bx * block + i, j]\n"
  "        for i in T.Parallel(block):\n"
  "            D[bx * block + i] = A[bx * block + i, 0]\n"
  "    return D, C\n";

static void test_jit(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  const char *kv[] = {"block=16", NULL};
  TL_ASSERT_OK(ft_parse(JIT, kv, &m));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  const tl_ir_func *f = tl_ir_module_find_func(m, "add");
  assert_non_null(f);
  /* Inputs in signature order, then outputs in return order. */
  assert_int_equal(f->nparams, 4);
  assert_string_equal(f->params[0].name, "A");
  assert_string_equal(f->params[1].name, "B");
  assert_string_equal(f->params[2].name, "D");
  assert_string_equal(f->params[3].name, "C");
  assert_false(f->params[0].is_output);
  assert_true(f->params[2].is_output);
  assert_true(f->params[3].is_output);
  /* M and N are symbolic: int32 variables shared by the shapes. */
  const tl_ir_expr *m0 = f->params[0].buffer->shape[0];
  assert_int_equal(m0->kind, TL_EXPR_VAR);
  assert_string_equal(m0->u.var->name, "M");
  assert_ptr_equal(m0->u.var, f->params[2].buffer->shape[0]->u.var);
  char *text = tl_ir_print_module(m);
  assert_string_equal(text, IMPORTS
    "M = T.symbolic(\"M\")\n"
    "N = T.symbolic(\"N\")\n"
    "\n"
    "\n"
    "@tilelang.jit(out_idx=[2, 3])\n"
    "def add():\n"
    "    @T.prim_func\n"
    "    def add(A: T.Tensor((M, N), \"float32\"), B: T.Tensor((M, N), \"float32\"), D: T.Tensor((M,), \"float32\"), "
    "C: T.Tensor((M, N), \"float32\")):\n"
    "        with T.Kernel(T.ceildiv(M, 16), threads=128) as bx:\n"
    "            for i, j in T.Parallel(16, N):\n"
    "                C[bx * 16 + i, j] = A[bx * 16 + i, j] + B[bx * 16 + i, j]\n"
    "            for i in T.Parallel(16):\n"
    "                D[bx * 16 + i] = A[bx * 16 + i, 0]\n"
    "    return add\n");
  /* The printed factory form reads back to the same function, outputs included. */
  tl_ir_module *m2 = NULL;
  TL_ASSERT_OK(tl_ir_parse(text, "printed.py", NULL, &m2));
  assert_true(tl_ir_module_equal(m, m2));
  tl_ir_module_free(m2);
  tl_free(text);
  tl_ir_module_free(m);
}

static void test_jit_errors(void **state) {
  (void)state;
  expect_err(IMPORTS "@tilelang.jit\ndef f(A, block):\n    N = T.const(\"N\")\n    A: T.Tensor((N,), \"float32\")\n",
             NULL, "jit function 'f': parameter 'block' has no default and no value was given for it");
  expect_err(IMPORTS "@tilelang.jit\ndef f(A):\n    M, N = T.const(\"M, N\")\n    A: T.Tensor((M,), \"float32\")\n",
             NULL, "symbolic dimension 'N' does not appear in any parameter's shape");
  expect_err(IMPORTS "@tilelang.jit\ndef f(A):\n    M = T.const(\"M, N\")\n    A: T.Tensor((M,), \"float32\")\n",
             NULL, "T.const names more dimensions than the assignment binds");
  expect_err(IMPORTS "@tilelang.jit\ndef f(A):\n    N = T.const(\"N\")\n    A: T.Tensor((N,), \"float32\")\n"
                     "    B = T.empty((N,), \"float32\")\n    return A\n",
             NULL, "a @tilelang.jit function returns tensors made by T.empty, not buffer 'A'");
  expect_err(IMPORTS "@tilelang.jit\ndef f(A):\n    N = T.const(\"N\")\n    A: T.Tensor((N,), \"float32\")\n"
                     "    A: T.Tensor((N,), \"float32\")\n",
             NULL, "tensor parameter 'A' is annotated twice");
  expect_err(IMPORTS "@tilelang.jit\ndef f(A):\n    N = T.const(\"N\")\n    A: T.Tensor((N,), \"float32\")\n"
                     "    B = T.empty((N,), \"float32\")\n    return B\n    x = 1\n",
             NULL, "'return' must be the last statement of a @tilelang.jit function");
  expect_err(IMPORTS "@tilelang.jit\ndef f(A):\n    N = T.const(\"N\")\n    A: T.Tensor((N,), \"float32\")\n"
                     "    with T.Kernel(1, threads=32) as bx:\n        B = T.empty((N,), \"float32\")\n",
             NULL, "T.empty can only be used at the top of a @tilelang.jit function");
  expect_err(IMPORTS "@T.prim_func\ndef f(A: T.Tensor((4,), \"float32\")):\n    N = T.const(\"N\")\n", NULL,
             "T.const can only be used at the top of a @tilelang.jit function");
  expect_err(IMPORTS "@tilelang.jit(out_idx=[5])\ndef f(n=4):\n    @T.prim_func\n"
                     "    def main(A: T.Tensor((n,), \"float32\")):\n        pass\n\n    return main\n",
             NULL, "out_idx 5 is out of range for 1 parameters");
}

/* @tilelang.jit(out_idx=...) on a factory marks outputs; on a prim_func too. */
static void test_out_idx(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(ft_parse(IMPORTS
    "@tilelang.jit(out_idx=[-1], pass_configs={\"tl.disable_tma_lower\": True})\n"
    "def copy(n=8):\n"
    "    @T.prim_func\n"
    "    def main(A: T.Tensor((n,), \"float32\"), B: T.Tensor((n,), \"float32\")):\n"
    "        with T.Kernel(1, threads=32) as bx:\n"
    "            T.copy(A, B)\n"
    "\n"
    "    return main\n"
    "\n"
    "\n"
    "@tilelang.jit(out_idx=0)\n"
    "@T.prim_func\n"
    "def fill(A: T.Tensor((4,), \"float32\")):\n"
    "    with T.Kernel(1, threads=32) as bx:\n"
    "        T.fill(A, 1)\n", NULL, &m));
  const tl_ir_func *f = tl_ir_module_find_func(m, "copy");
  assert_false(f->params[0].is_output);
  assert_true(f->params[1].is_output);
  assert_true(tl_ir_module_find_func(m, "fill")->params[0].is_output);
  tl_ir_module_free(m);
}

static void test_top_level(void **state) {
  (void)state;
  const char *src =
    "\"\"\"Module docstring.\"\"\"\n"
    "import torch\n"
    "import tilelang as tl\n"
    "from tilelang import language as L, jit\n"
    "from tilelang.language import Tensor, Kernel, Parallel, float16\n"
    "from tilelang.autotuner import AutoTuner\n"
    "\n"
    "N, BLOCK = 64, 32\n"
    "BLOCK += 0\n"
    "DT: str = \"float32\"\n"
    "S = L.symbolic(\"S\")\n"
    "\n"
    "\n"
    "def ref_program(a, b):\n"
    "    return [x for x in (lambda: a)()]\n"
    "\n"
    "\n"
    "@L.prim_func\n"
    "def k1(A: Tensor((N,), DT), H: Tensor((S,), float16)):\n"
    "    with Kernel(N // BLOCK, threads=BLOCK) as bx:\n"
    "        for i in Parallel(BLOCK):\n"
    "            A[bx * BLOCK + i] = 0.0\n"
    "\n"
    "\n"
    "N = 128\n"
    "\n"
    "\n"
    "@jit\n"
    "def k2(A, opt: Optional[int] = None):\n"
    "    M = L.const(\"M\")\n"
    "    A: L.Tensor((M, N), DT)\n"
    "    with L.Kernel(M, threads=32) as bx:\n"
    "        A[bx, 0] = 1.0\n"
    "\n"
    "\n"
    "@torch.no_grad()\n"
    "def helper(x):\n"
    "    return x ** 2 if x else lambda y: y\n"
    "\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    while True:\n"
    "        print(f\"{N=}\")\n";
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(src, "t.py", NULL, &m));
  assert_int_equal(tl_ir_module_num_funcs(m), 2);
  /* k1 saw N as it was when it was defined (64); k2, called later, sees 128. */
  assert_int_equal(tl_ir_module_find_func(m, "k1")->params[0].buffer->shape[0]->u.int_value, 64);
  assert_int_equal(tl_ir_module_find_func(m, "k2")->params[0].buffer->shape[1]->u.int_value, 128);
  tl_ir_module_free(m);
  /* Module constants can be bound too. */
  const char *kv[] = {"BLOCK=16", NULL};
  TL_ASSERT_OK(ft_parse(src, kv, &m));
  const tl_ir_stmt *k = tl_ir_module_find_func(m, "k1")->body->u.seq.stmts[0];
  assert_int_equal(k->u.kernel.grid[0]->u.int_value, 4);
  tl_ir_module_free(m);

  /* Script code at the top level is not run (docs/frontend.md, "Unread code"). */
  const char *script[] = {"print(1)\n", "for i in range(3):\n    pass\n", "if True:\n    x = 1\n",
                          "class C:\n    pass\n", "from tilelang.language import *\n",
                          "N = T.symbolic(\"N\")\nM = N * 2\n"};
  for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
    char text[256];
    snprintf(text, sizeof text, "%s%s", IMPORTS, script[i]);
    TL_ASSERT_OK(ft_parse(text, NULL, &m));
    tl_ir_module_free(m);
  }
  expect_err(IMPORTS "return 1\n", NULL, "'return' outside function");
  expect_err(IMPORTS "x = torch.float16\n", NULL, "name 'torch' is not defined");
  expect_err("import torch\nimport tilelang.language as T\n\n\n@T.prim_func\ndef f(A: T.Tensor((4,), torch.float16)):\n    pass\n",
             NULL, "expected a dtype (such as \"float16\" or T.float16), got torch.float16");
  expect_err(IMPORTS "def helper():\n    return {i: i for i in range(2)}[0]\n\n\n@T.prim_func\ndef f(A: T.Tensor((helper(),), \"float32\")):\n    pass\n",
             NULL, "helper function 'helper' (not read: dictionary comprehensions are not supported) cannot be used in a kernel");
  expect_err(IMPORTS "@T.prim_func\ndef f(A: T.Tensor((4,), \"float32\")):\n    pass\n\n\n@T.prim_func\n"
                     "def f(A: T.Tensor((4,), \"float32\")):\n    pass\n",
             NULL, "function 'f' is defined twice");
  /* Other libraries' decorators on a kernel are accepted and have no effect. */
  TL_ASSERT_OK(ft_parse("import functools\nimport tilelang.language as T\n\n\n@functools.lru_cache\ndef f(n=4):\n"
                        "    @T.prim_func\n    def main(A: T.Tensor((n,), \"float32\")):\n        pass\n\n    return main\n",
                        NULL, &m));
  assert_int_equal(tl_ir_module_num_funcs(m), 1);
  tl_ir_module_free(m);
  expect_err(IMPORTS "@T.prim_func(private=True)\ndef f(A: T.Tensor((4,), \"float32\")):\n    pass\n", NULL,
             "arguments of T.prim_func are not supported");
}

static void test_symbolic(void **state) {
  (void)state;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(IMPORTS
    "N = T.symbolic(\"N\")\n"
    "K = T.dynamic(\"K\", \"int32\")\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def f(A: T.Tensor((N, K), \"float32\"), B: T.Tensor((N * 2,), \"float32\")):\n"
    "    with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:\n"
    "        A[bx, K - 1] = 0.0\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def g(A: T.Tensor((N,), \"float32\"), n: T.int32):\n"
    "    with T.Kernel(1, threads=32) as bx:\n"
    "        A[n] = 0.0\n", "t.py", NULL, &m));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  const tl_ir_func *f = tl_ir_module_func(m, 0), *g = tl_ir_module_func(m, 1);
  /* One variable per function and name. */
  const tl_ir_var *n_f = f->params[0].buffer->shape[0]->u.var;
  assert_ptr_equal(n_f, f->params[1].buffer->shape[0]->u.binary.a->u.var);
  assert_true(n_f != g->params[0].buffer->shape[0]->u.var);
  assert_true(tl_dtype_eq(n_f->dtype, TL_DT_INT32));
  char *text = tl_ir_print_module(m);
  assert_non_null(strstr(text, "N = T.symbolic(\"N\")\nK = T.symbolic(\"K\")\n\n\n@T.prim_func\ndef f("));
  /* The second function's N is declared once in the module text. */
  assert_null(strstr(strstr(text, "def g"), "T.symbolic"));
  tl_free(text);
  tl_ir_module_free(m);
}

/* ignore_unused_consts: bindings nothing reads are dropped, the others still apply. */
static void test_ignore_unused_consts(void **state) {
  (void)state;
  tl_ir_const_binding b[] = {{"N", "1000"}, {"blok", "32"}, {"np", "'numpy'"}};
  tl_ir_parse_options opts;
  memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.consts = b;
  opts.nconsts = 3;
  opts.ignore_unused_consts = true;
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(tl_ir_parse(FACTORY, "t.py", &opts, &m));
  char *text = tl_ir_print_module(m);
  assert_non_null(strstr(text, "T.Tensor((1000,), \"float32\")"));
  tl_free(text);
  tl_ir_module_free(m);
  /* An options struct from before the field: unused bindings are still an error. */
  opts.struct_size = offsetof(tl_ir_parse_options, ignore_unused_consts);
  assert_int_equal(tl_ir_parse(FACTORY, "t.py", &opts, &m), TL_EINVAL);
  assert_non_null(strstr(tl_last_error(), "nothing named 'blok' to bind"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_factory), cmocka_unit_test(test_factory_errors), cmocka_unit_test(test_jit),
    cmocka_unit_test(test_jit_errors), cmocka_unit_test(test_out_idx), cmocka_unit_test(test_top_level),
    cmocka_unit_test(test_symbolic), cmocka_unit_test(test_ignore_unused_consts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
