/* The front end reading TileLang's Python as its users write it: script code at the
 * top level left unread, one function elaborated at a time (opts.func), the
 * compile-time Python of factories (loops, lambdas, raise, math, dtype bits),
 * shape specialization of T.const dims, and hints recorded as attributes. */
#include <stddef.h>

#include "frontend_test.h"

#define HDR "import tilelang\nimport tilelang.language as T\n"
#define KERNEL(name, n) \
  "@T.prim_func\ndef " name "(A: T.Tensor((" n ",), \"float32\")):\n    with T.Kernel(1, threads=32) as bx:\n" \
  "        A[0] = 1.0\n"

/* Parses with bindings and, when func is not NULL, only that function. */
static tl_status parse_func(const char *text, const char *func, const char *const *kv, tl_ir_module **out) {
  tl_ir_const_binding b[8];
  char names[8][64];
  size_t n = 0;
  for (; kv && kv[n]; n++) {
    const char *eq = strchr(kv[n], '=');
    snprintf(names[n], sizeof names[n], "%.*s", (int)(eq - kv[n]), kv[n]);
    b[n].name = names[n];
    b[n].value = eq + 1;
  }
  tl_ir_parse_options opts = {sizeof opts, b, n, func, false};
  return tl_ir_parse(text, "t.py", &opts, out);
}

static void expect_error(const char *text, const char *const *kv, const char *needle) {
  tl_ir_module *m = NULL;
  assert_int_equal(ft_parse(text, kv, &m), TL_EINVAL);
  assert_null(m);
  if (!strstr(tl_last_error(), needle)) fail_msg("expected '%s' in: %s", needle, tl_last_error());
}

static const char *attr_str(const tl_ir_func *f, const char *key) {
  const tl_ir_attr *a = tl_ir_func_attr(f, key);
  return a && a->kind == TL_ATTR_STR ? a->s : NULL;
}

static void test_unread_top_level(void **state) {
  (void)state;
  const char *src =
      HDR "import torch\nfrom tilelang.autotuner import *\nfrom .utils import helper\n"
      "try:\n    import triton\nexcept ImportError:\n    triton = None\n"
      "torch.manual_seed(0)\nDEVICE = torch.device('cuda')\nCONFIGS = {b: b for b in (1, 2)}\n"
      "class Ref:\n    x = 1\n"
      "ref = torch.randn(4, 4) @ torch.randn(4, 4)\n"
      "for i in range(3):\n    LAST = i\n"
      "M = N = 8\n"
      "if M == 8:\n    K = 4\nelse:\n    K = 5\n"
      "@triton.jit\ndef tri(x):\n    y = [v for v in x]\n"
      KERNEL("k", "M + N + K");
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(ft_parse(src, NULL, &m));
  assert_int_equal(tl_ir_module_num_funcs(m), 1);
  tl_ir_func *f = tl_ir_module_func(m, 0);
  assert_int_equal(f->params[0].buffer->shape[0]->u.int_value, 20);
  tl_ir_module_free(m);
  /* a kernel using a name that unread code set fails naming it and why */
  expect_error(HDR "CONFIGS = {b: b for b in (1, 2)}\n"
                   "@T.prim_func\ndef k(A: T.Tensor((4,), \"float32\")):\n    with T.Kernel(1, threads=32) as bx:\n"
                   "        A[0] = CONFIGS\n",
               NULL, "'CONFIGS', set at line 3 by code the front end does not evaluate (dictionary comprehensions are not supported)");
  expect_error(HDR "import torch\nX = 2\nX.append(3)\n" KERNEL("k", "X"), NULL, "a method call may change it");
  /* a syntax error stays an error at the top level */
  expect_error(HDR "x = 1 +* 2\n" KERNEL("k", "4"), NULL, "t.py:3:8: expected an expression, found '*'");
  /* a kernel-like definition outside the subset reports its error */
  expect_error(HDR "@T.prim_func\ndef k(A: T.Tensor((4,), \"float32\")):\n    with T.Kernel(1, threads=32) as bx:\n"
                   "        A[0] = sum({i: A[i] for i in range(4)})\n",
               NULL, "t.py:6:29: dictionary comprehensions are not supported");
}

static void test_one_function(void **state) {
  (void)state;
  const char *src = HDR "def needs(N):\n    @T.prim_func\n    def main(A: T.Tensor((N,), \"float32\")):\n"
                        "        with T.Kernel(1, threads=32) as bx:\n            A[0] = 1.0\n    return main\n"
                        "def broken(N=4):\n    x = {i: i for i in range(N)}\n    @T.prim_func\n"
                        "    def main(A: T.Tensor((N,), \"float32\")):\n        with T.Kernel(1, threads=32) as bx:\n"
                        "            A[0] = 1.0\n    return main\n" KERNEL("plain", "16");
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(parse_func(src, "plain", NULL, &m));
  assert_int_equal(tl_ir_module_num_funcs(m), 1);
  assert_string_equal(tl_ir_module_func(m, 0)->name, "plain");
  tl_ir_module_free(m);
  const char *kv[] = {"N=8", NULL};
  TL_ASSERT_OK(parse_func(src, "needs", kv, &m));
  assert_int_equal(tl_ir_module_num_funcs(m), 1);
  tl_ir_module_free(m);
  m = NULL;
  assert_int_equal(parse_func(src, "broken", NULL, &m), TL_EINVAL);
  assert_non_null(strstr(tl_last_error(), "dictionary comprehensions are not supported"));
  /* without func every function is elaborated: the first one needs N */
  expect_error(src, NULL, "factory 'needs': parameter 'N' has no default");
  /* a caller built before the field existed: all of them too */
  tl_ir_parse_options old = {offsetof(tl_ir_parse_options, func), NULL, 0, "plain", false};
  assert_int_equal(tl_ir_parse(src, "t.py", &old, &m), TL_EINVAL);
}

static void test_factory_python(void **state) {
  (void)state;
  const char *src =
      HDR "import math\nfrom tilelang import tvm\n"
      "def f(N, block=None, dtype=T.float16, mode='mean'):\n"
      "    import tilelang.language as T\n"
      "    if block is None:\n        block = min(tilelang.math.next_power_of_2(N // 3), 64)\n"
      "    elif block > 64:\n        raise ValueError('block too large')\n"
      "    lanes = 128 // tvm.DataType(dtype).bits + T.float32.bits // 32 + T.dtype('int8').bits\n"
      "    acc = first = 0\n"
      "    for i in range(1, 4):\n        acc += i\n"
      "    for w in (1, 2):\n        acc = acc * w\n"
      "    sq = (lambda x, y=1: x * x + y)(acc)\n"
      "    g = math.gcd(N, 12) + math.ceil(2.5) + int(math.pi)\n"
      "    print(f'N={N}')\n"
      "    @T.prim_func\n    def main(A: T.Tensor((block, lanes, sq, g), dtype)):\n"
      "        with T.Kernel(threads=32):\n            A[0, 0, 0, 0] = first\n"
      "    return main\n";
  const char *kv[] = {"N=100", NULL};
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(ft_parse(src, kv, &m));
  const tl_ir_buffer *b = tl_ir_module_func(m, 0)->params[0].buffer;
  assert_int_equal(b->shape[0]->u.int_value, 64);           /* min(next_power_of_2(100 // 3), 64) */
  assert_int_equal(b->shape[1]->u.int_value, 8 + 1 + 8);      /* 128 // 16 + 32 // 32 + 8 */
  assert_int_equal(b->shape[2]->u.int_value, 12 * 12 + 1);    /* acc = (1 + 2 + 3) * 1 * 2 */
  assert_int_equal(b->shape[3]->u.int_value, 4 + 3 + 3);      /* gcd(100, 12) + ceil(2.5) + int(pi) */
  tl_ir_module_free(m);
  const char *big[] = {"N=100", "block=128", NULL};
  expect_error(src, big, "t.py:10:9: raise ValueError: block too large");
}

static void test_const_dims(void **state) {
  (void)state;
  const char *src = HDR "@tilelang.jit\ndef k(A, block: int = 16):\n    M, N = T.const('M, N')\n"
                        "    nb = T.ceildiv(M, block)\n    A: T.Tensor((M, N), 'float32')\n"
                        "    B = T.empty((M, N), 'float32')\n"
                        "    with T.Kernel(nb, threads=128) as bx:\n        frag = T.alloc_fragment((N,), 'float32')\n"
                        "        T.copy(A[bx * block, 0], frag)\n        T.copy(frag, B[bx * block, 0])\n    return B\n";
  const char *kv[] = {"M=40", "N=24", NULL};
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(ft_parse(src, kv, &m));
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  assert_int_equal(f->params[0].buffer->shape[0]->u.int_value, 40);
  assert_int_equal(f->params[0].buffer->shape[1]->u.int_value, 24);
  assert_int_equal(f->body->u.seq.stmts[0]->u.kernel.grid[0]->u.int_value, 3);
  tl_ir_module_free(m);
  const char *neg[] = {"M=-1", "N=24", NULL};
  expect_error(src, neg, "T.const dimension 'M' is bound to -1");
}

static void test_hints(void **state) {
  (void)state;
  const char *src =
      HDR "@T.prim_func\ndef k(A: T.Tensor((64, 64), 'float16'), C: T.Tensor((64, 64), 'float32')):\n"
      "    with T.Kernel(1, threads=128) as bx:\n        S = T.alloc_shared((64, 64), 'float16')\n"
      "        T.annotate_layout({S: T.Layout((64, 64), lambda i, j: (j, i))})\n"
      "        T.use_swizzle(panel_size=10, enable=True)\n        T.use_swizzle(4)\n"
      "        T.copy(A, S, disable_tma=True)\n"
      "        T.gemm(S, S, C, policy=T.GemmWarpPolicy.FullCol, k_pack=2)\n"
      "        T.func_attr({'my.key': 3, 'my.name': 'x'})\n";
  tl_ir_module *m = NULL;
  TL_ASSERT_OK(ft_parse(src, NULL, &m));
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  assert_string_equal(attr_str(f, "tl.hint.annotate_layout"), "line 7: S");
  assert_string_equal(attr_str(f, "tl.hint.use_swizzle"), "line 8: panel_size=10, enable=True; line 9: 4");
  assert_string_equal(attr_str(f, "tl.hint.copy"), "line 10: disable_tma=True");
  assert_string_equal(attr_str(f, "tl.hint.gemm"), "line 11: k_pack=2"); /* policy= is T.gemm's argument */
  const tl_ir_stmt *kb = f->body->u.seq.stmts[0]->u.kernel.body;
  bool policy_seen = false;
  for (uint32_t i = 0; kb->kind == TL_STMT_SEQ && i < kb->u.seq.n; i++) {
    const tl_ir_stmt *st = kb->u.seq.stmts[i];
    if (st->kind == TL_STMT_EVAL && st->u.eval.expr->u.call.op == TL_OP_GEMM) {
      assert_int_equal(st->u.eval.expr->u.call.args[6]->u.int_value, 2); /* FullCol */
      policy_seen = true;
    }
  }
  assert_true(policy_seen);
  assert_int_equal(tl_ir_func_attr(f, "my.key")->i, 3);
  assert_string_equal(attr_str(f, "my.name"), "x");
  /* the printed attributes read back */
  char *text = tl_ir_print_module(m);
  tl_ir_module *m2 = NULL;
  TL_ASSERT_OK(tl_ir_parse(text, "p.py", NULL, &m2));
  assert_true(tl_ir_module_equal(m, m2));
  tl_free(text);
  tl_ir_module_free(m2);
  tl_ir_module_free(m);
  expect_error(HDR "@T.prim_func\ndef k(A: T.Tensor((64, 64), 'float16'), C: T.Tensor((64, 64), 'float32')):\n"
                   "    with T.Kernel(1, threads=128) as bx:\n        T.gemm(A, A, C, policy=T.GemmWarpPolicy.Diag)\n",
               NULL, "T.GemmWarpPolicy has no member 'Diag'");
  expect_error(HDR "@T.prim_func\ndef k(A: T.Tensor((64,), 'float16')):\n    with T.Kernel(1, threads=128) as bx:\n"
                   "        T.annotate_layout({1: 2})\n",
               NULL, "T.annotate_layout: a key must be a buffer");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unread_top_level), cmocka_unit_test(test_one_function),
    cmocka_unit_test(test_factory_python), cmocka_unit_test(test_const_dims), cmocka_unit_test(test_hints),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
