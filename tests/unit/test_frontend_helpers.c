/* Helper functions of a kernel file: plain `def`s and @T.macro functions called
 * from kernels and factories are inlined at the call site (elab_helper.c):
 * values in expressions, statements where the call stands as a statement, names
 * resolved in the helper's own scope, errors located in the helper with a note
 * naming the call site. Also keyword-only and *args parameters, isinstance(),
 * and compile-time sequences: comprehensions, generator expressions and the
 * builtins over them (elab_pyseq.c). */
#include <stdlib.h>

#include "frontend_test.h"

#define HDR "import tilelang\nimport tilelang.language as T\n"
#define KHEAD "@T.prim_func\ndef k(A: T.Tensor((16,), \"float32\")):\n    with T.Kernel(1, threads=32) as bx:\n"

static void expect_error(const char *text, const char *const *kv, const char *needle) {
  tl_ir_module *m = NULL;
  assert_int_equal(ft_parse(text, kv, &m), TL_EINVAL);
  assert_null(m);
  if (!strstr(tl_last_error(), needle)) fail_msg("expected '%s' in: %s", needle, tl_last_error());
}

/* Parses text and checks that the printed IR holds `needle`. */
static void expect_ir(const char *text, const char *const *kv, const char *needle) {
  tl_ir_module *m = NULL;
  tl_status st = ft_parse(text, kv, &m);
  if (st != TL_OK) fail_msg("parse failed: %s", tl_last_error());
  char *s = tl_ir_print_module(m);
  assert_non_null(s);
  if (!strstr(s, needle)) fail_msg("expected '%s' in:\n%s", needle, s);
  free(s);
  tl_ir_module_free(m);
}

static void test_values(void **state) {
  (void)state;
  /* a compile-time helper in a shape, with a default and a keyword */
  expect_ir(HDR "def align(x, a=16):\n    return (x + a - 1) // a * a\n"
                "@T.prim_func\ndef k(A: T.Tensor((align(5, a=8), align(17)), \"float32\")):\n"
                "    with T.Kernel(1, threads=32) as bx:\n        A[0, 0] = 1.0\n",
            NULL, "T.Tensor((8, 32), \"float32\")");
  /* an expression-building helper: its locals are substituted into the result */
  expect_ir(HDR "def m(i, b: int):\n    q = i // b\n    return T.if_then_else(q > 0, 1.0, 0.0)\n" KHEAD
                "        for i in T.Parallel(16):\n            A[i] = A[i] * m(i, 4)\n",
            NULL, "A[i] = A[i] * T.if_then_else(i // 4 > 0, 1.0, 0.0)");
  /* the whole value of an assignment: the helper's locals become the caller's LETs */
  expect_ir(HDR "def m(i, b: int):\n    q = i // b\n    return T.if_then_else(q > 0, 1.0, 0.0)\n" KHEAD
                "        for i in T.Parallel(16):\n            w = m(i, 4)\n            A[i] = A[i] * w\n",
            NULL, "q = i // 4\n            w = T.if_then_else(q > 0, 1.0, 0.0)");
  /* compile-time branches and loops in a helper; return in a taken branch */
  expect_ir(HDR "def pick(n):\n    t = 0\n    for v in range(n):\n        t += v\n    if t > 5:\n        return t\n"
                "    return -1\n" KHEAD "        A[0] = pick(4) + pick(2)\n",
            NULL, "A[0] = 5.0");
  /* isinstance on compile-time values; an IR value is not an int */
  expect_ir(HDR "def f(x):\n    return 1 if isinstance(x, (int, float)) else 2\n" KHEAD
                "        for i in T.serial(4):\n            A[i] = f(3) * 10 + f(i)\n",
            NULL, "A[i] = 12.0");
  /* x.dtype of an IR value */
  expect_ir(HDR "def w(x):\n    return x if x.dtype == T.float32 else T.Cast(T.float32, x)\n" KHEAD
                "        A[0] = w(A[1])\n",
            NULL, "A[0] = A[1]");
}

static void test_macros(void **state) {
  (void)state;
  /* a top-level macro with a loop, taking a buffer, an expression and a constant */
  expect_ir(HDR "@T.macro\ndef fill_from(buf, base, n):\n    for i in T.serial(n):\n        buf[i] = base + i\n"
                KHEAD "        fill_from(A, bx * 2, 16)\n",
            NULL, "for i in T.serial(16):\n            A[i] = T.Cast(\"float32\", bx * 2 + i)");
  /* a macro defined in the kernel sees the kernel's names; one in a factory the factory's */
  expect_ir(HDR KHEAD "        s = bx + 1\n        @T.macro\n        def put(j):\n            A[j] = s\n"
                "        put(3)\n",
            NULL, "A[3] = T.Cast(\"float32\", s)");
  expect_ir(HDR "def fac(N, *rest, scale=2.0):\n    @T.macro\n    def put(buf, j):\n        buf[j] = scale * len(rest)\n"
                "    @T.prim_func\n    def k(A: T.Tensor((N,), \"float32\")):\n"
                "        with T.Kernel(1, threads=32) as bx:\n            put(A, 0)\n    return k\n",
            (const char *const[]){"N=8", "scale=3.0", NULL}, "A[0] = 0.0");
  /* a macro's return value, and names it binds do not leak into the caller */
  expect_ir(HDR "@T.macro\ndef twice(buf, j):\n    v = buf[j] * 2.0\n    buf[j] = v\n    return v + 1.0\n" KHEAD
                "        r = twice(A, 1)\n        A[2] = r\n",
            NULL, "r = v + 1.0");
  expect_error(HDR "@T.macro\ndef twice(buf, j):\n    v = buf[j] * 2.0\n    buf[j] = v\n" KHEAD
                   "        twice(A, 1)\n        A[2] = v\n",
               NULL, "t.py:11:16: name 'v' is not defined");
}

static void test_scoping(void **state) {
  (void)state;
  /* a top-level helper sees the module's names, not the caller's locals */
  expect_ir(HDR "S = 3\ndef f():\n    return S\n" KHEAD "        S = 7\n        A[0] = f() + S\n", NULL, "A[0] = 1e+01");
  expect_error(HDR "def f():\n    return local_only\n" KHEAD "        local_only = 1\n        A[0] = f()\n", NULL,
               "local_only");
}

static void test_errors(void **state) {
  (void)state;
  /* an error in the body is located there, with the call site noted */
  expect_error(HDR "def f(x):\n    return x + undefined_name\n" KHEAD "        A[0] = A[1] * f(2)\n", NULL,
               "t.py:4:16:");
  expect_error(HDR "def f(x):\n    return x + undefined_name\n" KHEAD "        A[0] = A[1] * f(2)\n", NULL,
               "t.py:8:23: note: in helper function 'f', called here");
  /* a helper that builds statements, called inside an expression */
  expect_error(HDR "@T.macro\ndef g(buf):\n    for i in T.serial(4):\n        buf[i] = 0.0\n" KHEAD
                   "        A[0] = g(A) + 1.0\n",
               NULL, "macro 'g' has a kernel loop, so it can be called only as a statement in a kernel");
  expect_error(HDR "def g(c):\n    if c > 0:\n        return 1\n    return 2\n" KHEAD
                   "        A[0] = g(A[1]) + 1.0\n",
               NULL, "branches on a run-time condition");
  /* return inside a kernel loop of an inlined macro */
  expect_error(HDR "@T.macro\ndef g(buf):\n    for i in T.serial(4):\n        return buf[i]\n" KHEAD "        g(A)\n", NULL,
               "'return' inside a loop or a run-time 'if' of macro 'g' is not supported");
  /* arguments */
  expect_error(HDR "def g(a, b):\n    return a\n" KHEAD "        A[0] = g(1)\n", NULL,
               "helper function 'g' missing required argument 'b'");
  expect_error(HDR "def g(a):\n    return a\n" KHEAD "        A[0] = g(1, 2)\n", NULL,
               "helper function 'g' takes 1 positional argument but 2 were given");
  expect_error(HDR "def g(a):\n    return a\n" KHEAD "        A[0] = g(a=1, c=2)\n", NULL,
               "got an unexpected keyword argument 'c'");
  expect_error(HDR "def g(a):\n    return a\n" KHEAD "        A[0] = g(1, a=2)\n", NULL,
               "got multiple values for argument 'a'");
  /* recursion is bounded */
  expect_error(HDR "def g(n):\n    return g(n + 1)\n" KHEAD "        A[0] = g(0)\n", NULL,
               "helper calls nest more than 64 deep");
  /* a helper outside the subset stays unread and says why where it is used */
  expect_error(HDR "def g(n):\n    return sum({i: i for i in range(n)})\n" KHEAD "        A[0] = g(3)\n", NULL,
               "helper function 'g' (not read: dictionary comprehensions are not supported) cannot be used in a kernel");
  /* a kernel's parameters are plain */
  expect_error(HDR "@T.prim_func\ndef k(*A):\n    with T.Kernel(1, threads=32) as bx:\n        pass\n", NULL,
               "a T.prim_func cannot take *args parameters");
  expect_error(HDR "def f(x):\n    return isinstance(x, dict)\n" KHEAD "        A[0] = f(1)\n", NULL,
               "isinstance() is evaluated here only against");
}

static void test_sequences(void **state) {
  (void)state;
  /* comprehensions (nested clauses, conditions, unpacking) and generator expressions */
  expect_ir(HDR "S = [x * y for x in range(1, 3) for y in (10, 20) if x * y != 20]\n"
                "@T.prim_func\ndef k(A: T.Tensor((len(S), sum(v // 10 for v in S)), \"float32\")):\n"
                "    with T.Kernel(1, threads=32) as bx:\n        A[0, 0] = 1.0\n",
            NULL, "T.Tensor((2, 5), \"float32\")"); /* S = [10, 40] */
  /* run-time items: sum builds the expression */
  expect_ir(HDR KHEAD "        A[0] = sum(A[i] for i in range(1, 3))\n", NULL, "A[0] = 0.0 + A[1] + A[2]");
  /* enumerate, zip, sorted, reversed, any, all, list, tuple; the comprehension's names stay inside */
  expect_ir(HDR "P = list(zip((1, 2, 3), (4, 5)))\nQ = [i + v for i, v in enumerate(sorted((3, 1, 2), reverse=True), 10)]\n"
                "R = tuple(reversed(range(3)))\nB = any(x > 2 for x in R) + 2 * all(x >= 0 for x in R)\n"
                "i = 100\nZ = [i for i in range(2)]\n"
                "@T.prim_func\ndef k(A: T.Tensor((len(P), P[1][1], Q[0], Q[2], R[0], B, i), \"float32\")):\n"
                "    with T.Kernel(1, threads=32) as bx:\n        A[0, 0, 0, 0, 0, 0, 0] = 1.0\n",
            NULL, "T.Tensor((2, 5, 13, 13, 2, 2, 100), \"float32\")");
  /* what is iterated must be known at compile time */
  expect_error(HDR KHEAD "        A[0] = sum([x for x in A])\n", NULL,
               "a comprehension runs over a compile-time sequence (a tuple, a list, range()), not buffer 'A'");
  expect_error(HDR KHEAD "        for i in T.serial(4):\n            A[i] = sum(range(i))\n", NULL,
               "range can only be used as the iterable of a for loop (its bounds are run-time values)");
  expect_error(HDR KHEAD "        A[0] = [x for x in range(3) if A[x] > 0][0]\n", NULL,
               "a comprehension's condition must be a compile-time value");
  expect_error(HDR KHEAD "        A[0] = f(x for x in range(3), 1)\n", NULL, "Generator expression must be parenthesized");
  expect_error(HDR "X = len([v for v in range(200000)])\n" KHEAD "        A[0] = X\n", NULL,
               "'X', set at line 3 by code the front end does not evaluate (range() here would make 200000 items");
  expect_error(HDR "X = {k: 1 for k in range(2)}\n" KHEAD "        A[0] = X\n", NULL,
               "(dictionary comprehensions are not supported)");
}

static void test_forms(void **state) {
  (void)state;
  /* print() in a kernel body runs at trace time upstream: no kernel code */
  expect_ir(HDR KHEAD "        print(\"tracing\", bx)\n        A[0] = 1.0\n", NULL, "    with T.Kernel(1, threads=32) as bx:\n        A[0] = 1.0");
  /* several dimensions from one T.dynamic */
  expect_ir(HDR "M, N = T.dynamic(\"M, N\")\n@T.prim_func\ndef k(A: T.Tensor((M, N), \"float32\")):\n"
                "    with T.Kernel(1, threads=32) as bx:\n        A[0, 0] = 1.0\n",
            NULL, "A: T.Tensor((M, N), \"float32\")");
  expect_ir(HDR "@tilelang.jit\ndef k(A):\n    M, N = T.dynamic(\"M N\")\n    A: T.Tensor((M, N), \"float32\")\n"
                "    with T.Kernel(1, threads=32) as bx:\n        A[0, 0] = 1.0\n",
            NULL, "A: T.Tensor((M, N), \"float32\")");
  expect_error(HDR "@T.prim_func\ndef k(A: T.Tensor((4,), \"float32\")):\n    M = T.dynamic(\"M N\")\n"
                   "    with T.Kernel(1, threads=32) as bx:\n        A[0] = 1.0\n",
               NULL, "T.dynamic makes 2 dimensions here, assigned to 1 name");
  /* & | ^ on booleans are the logical operations */
  expect_ir(HDR KHEAD "        for i in T.Parallel(16):\n            A[i] = T.if_then_else((A[i] > 0) & (i < 8), 1.0, 0.0)\n",
            NULL, "T.if_then_else(A[i] > 0.0 and i < 8, 1.0, 0.0)");
  /* a kernel built by a helper the factory calls; a helper's kernel elsewhere is an error */
  expect_ir(HDR "def fac(N):\n    def build(n):\n        @T.prim_func\n        def k(A: T.Tensor((n,), \"float32\")):\n"
                "            with T.Kernel(1, threads=32) as bx:\n                A[0] = 1.0\n        return k\n"
                "    unused = build(4)\n    build(2)\n    return build(N)\n",
            (const char *const[]){"N=8", NULL}, "T.Tensor((8,), \"float32\")");
  expect_error(HDR "def fac(N=4):\n    def build():\n        @T.prim_func\n        def inner(B: T.Tensor((N,), \"float32\")):\n"
                   "            pass\n        return inner\n"
                   "    @T.prim_func\n    def k(A: T.Tensor((N,), \"float32\")):\n        with T.Kernel(1, threads=32) as bx:\n"
                   "            A[0] = build() + 1\n    return k\n",
               NULL, "a @T.prim_func can be defined in a helper only when a factory calls it");
}

static void test_loops(void **state) {
  (void)state;
  /* while, break and continue in factory code and in helpers, on compile-time values */
  expect_ir(HDR "def fac(N):\n    b = 1\n    while b * 2 <= N:\n        b *= 2\n    t = 0\n"
                "    for v in range(100):\n        if v % 2:\n            continue\n        if v > 6:\n            break\n"
                "        t += v\n"
                "    @T.prim_func\n    def k(A: T.Tensor((b, t), \"float32\")):\n"
                "        with T.Kernel(1, threads=32) as bx:\n            A[0, 0] = 1.0\n    return k\n",
            (const char *const[]){"N=100", NULL}, "T.Tensor((64, 12), \"float32\")");
  expect_ir(HDR "def log2(n):\n    r = 0\n    while True:\n        if n <= 1:\n            break\n        n //= 2\n"
                "        r += 1\n    return r\n" KHEAD "        A[0] = log2(1024)\n",
            NULL, "A[0] = 1e+01");
  /* in kernel code they are errors (the IR has no while loop yet) */
  expect_error(HDR KHEAD "        i = 0\n        while i < 4:\n            A[i] = 0.0\n", NULL,
               "t.py:7:9: 'while' loops in kernel code are not supported yet");
  expect_error(HDR "@T.macro\ndef g(buf):\n    while buf[0] > 0:\n        buf[0] = 0.0\n" KHEAD "        A[1] = g(A) + 1.0\n",
               NULL, "macro 'g' loops while a run-time condition holds");
  /* Python's own rules */
  expect_error(HDR "def f():\n    break\n" KHEAD "        A[0] = f()\n", NULL,
               "helper function 'f' (not read: 'break' outside loop) cannot be used in a kernel");
  expect_error(HDR "def fac():\n    for i in range(2):\n        def f():\n            continue\n"
                   "    @T.prim_func\n    def k(A: T.Tensor((4,), \"float32\")):\n        pass\n    return k\n", NULL,
               "'continue' not properly in loop");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_macros),
    cmocka_unit_test(test_scoping),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_sequences),
    cmocka_unit_test(test_forms),
    cmocka_unit_test(test_loops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
