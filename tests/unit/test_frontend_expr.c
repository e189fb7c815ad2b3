/* The front end's expressions: Python precedence, constant folding with Python's
 * semantics, dtype adoption and promotion, T.* expression builtins, errors. Each
 * case is the value stored by `TARGET = EXPR` in a kernel loop, printed back. */
#include "frontend_test.h"

#define HEAD \
  "import tilelang\n" \
  "import tilelang.language as T\n" \
  "\n" \
  "\n" \
  "@T.prim_func\n" \
  "def f(A: T.Tensor((16,), \"float32\"), I: T.Tensor((16,), \"int32\"), B: T.Tensor((16,), \"bool\"),\n" \
  "      H: T.Tensor((16,), \"float16\"), L: T.Tensor((16,), \"int64\"), n: T.int32, x: T.float32, h: T.float16):\n" \
  "    with T.Kernel(1, threads=32) as bx:\n" \
  "        for i in T.serial(16):\n" \
  "            %s = %s\n"

static tl_status parse_store(const char *target, const char *expr, tl_ir_module **m) {
  char src[4096];
  snprintf(src, sizeof src, HEAD, target, expr);
  return tl_ir_parse(src, "t.py", NULL, m);
}

/* The STORE of the template's loop body. */
static const tl_ir_stmt *the_store(const tl_ir_module *m) {
  const tl_ir_func *f = tl_ir_module_func(m, 0);
  const tl_ir_stmt *k = f->body->u.seq.stmts[0];
  assert_int_equal(k->kind, TL_STMT_KERNEL);
  const tl_ir_stmt *loop = k->u.kernel.body->u.seq.stmts[0];
  assert_int_equal(loop->kind, TL_STMT_FOR);
  const tl_ir_stmt *s = loop->u.loop.body->u.seq.stmts[0];
  assert_int_equal(s->kind, TL_STMT_STORE);
  return s;
}

static void expect(const char *target, const char *expr, const char *printed, const char *dtype) {
  tl_ir_module *m = NULL;
  tl_status s = parse_store(target, expr, &m);
  if (s != TL_OK) fail_msg("%s = %s: %s", target, expr, tl_last_error());
  const tl_ir_expr *v = the_store(m)->u.store.value;
  char *text = tl_ir_print_expr(v);
  assert_non_null(text);
  if (strcmp(text, printed) != 0) fail_msg("%s = %s\n  got:      %s\n  expected: %s", target, expr, text, printed);
  char buf[32];
  if (dtype && strcmp(tl_dtype_name(v->dtype, buf, sizeof buf), dtype) != 0)
    fail_msg("%s = %s: dtype %s, expected %s", target, expr, buf, dtype);
  if (tl_ir_verify_module(m) != TL_OK) fail_msg("%s = %s does not verify: %s", target, expr, tl_last_error());
  tl_free(text);
  tl_ir_module_free(m);
}

static void expect_err(const char *target, const char *expr, const char *needle) {
  tl_ir_module *m = NULL;
  tl_status s = parse_store(target, expr, &m);
  if (s != TL_EINVAL) fail_msg("%s = %s: expected an error containing \"%s\"", target, expr, needle);
  assert_null(m);
  if (!strstr(tl_last_error(), needle)) fail_msg("%s = %s: message\n%s\nlacks \"%s\"", target, expr, tl_last_error(), needle);
  /* Located on the expression's line, with the caret line. */
  assert_non_null(strstr(tl_last_error(), "t.py:10:"));
  assert_non_null(strchr(tl_last_error(), '^'));
}

static void test_precedence(void **state) {
  (void)state;
  expect("I[i]", "n + 2 * n", "n + 2 * n", "int32");
  expect("I[i]", "(n + 2) * n", "(n + 2) * n", "int32");
  expect("I[i]", "n - (n - 1)", "n - (n - 1)", "int32");
  expect("I[i]", "n - n - 1", "n - n - 1", "int32");
  expect("I[i]", "n // 2 % 3", "n // 2 % 3", "int32");
  expect("I[i]", "n // (2 % n)", "n // (2 % n)", "int32");
  expect("I[i]", "-n * 2", "-n * 2", "int32");
  expect("I[i]", "-(n * 2)", "-(n * 2)", "int32");
  expect("I[i]", "n << 1 | 3", "n << 1 | 3", "int32");
  expect("I[i]", "n & 7 ^ 1", "n & 7 ^ 1", "int32");
  expect("I[i]", "n & (7 ^ 1)", "n & 6", "int32");
  expect("I[i]", "~n + 1", "~n + 1", "int32");
  expect("B[i]", "n < 3 and n > 1 or not n == 2", "n < 3 and n > 1 or not n == 2", "bool");
  expect("B[i]", "n < 3 and (n > 1 or n == 2)", "n < 3 and (n > 1 or n == 2)", "bool");
  expect("B[i]", "0 <= n < 16", "0 <= n and n < 16", "bool");
  expect("B[i]", "(n < 3) == (x > 1.5)", "(n < 3) == (x > 1.5)", "bool");
  expect("I[i]", "n if x > 0 else 2", "T.if_then_else(x > 0.0, n, 2)", "int32");
  expect("A[i]", "x * (x + 1) / (x - 1)", "x * (x + 1.0) / (x - 1.0)", "float32");
}

static void test_folding(void **state) {
  (void)state;
  expect("I[i]", "2 ** 10 + 7 // 2 - (-7 % 3)", "1025", "int32");
  expect("I[i]", "-7 // 2", "-4", "int32");
  expect("I[i]", "7 % -3", "-2", "int32");
  expect("A[i]", "1 / 4", "0.25", "float32");
  expect("A[i]", "-7.5 // 2", "-4.0", "float32");
  expect("A[i]", "7.5 % -2", "-0.5", "float32");
  expect("I[i]", "T.ceildiv(100, 32)", "4", "int32");
  expect("I[i]", "T.truncdiv(-7, 2)", "-3", "int32");
  expect("A[i]", "(1 + 2) * x", "3.0 * x", "float32");
  expect("I[i]", "min(3, 5) + max(1, 2) + len((1, 2, 3)) + abs(-4) + int(2.7)", "14", "int32");
  expect("I[i]", "5 if 3 > 2 else n", "5", "int32");
  expect("I[i]", "(1 << 40) >> 38", "4", "int32");
  expect("B[i]", "(1, 2) == (1, 2) and 'a' + 'b' == 'ab' and 2 in (1, 2) and None is None", "True", "bool");
  expect("B[i]", "True and n > 0", "n > 0", "bool");
  expect("B[i]", "n > 0 and False", "False", "bool");
  expect("A[i]", "float('inf')", "T.infinity(\"float32\")", "float32");
  /* Big values become int64 constants (printed alone, a constant shows its dtype). */
  expect("L[i]", "2 ** 40", "T.int64(1099511627776)", "int64");
}

static void test_dtypes(void **state) {
  (void)state;
  expect("H[i]", "h + 1", "h + 1.0", "float16");
  expect("H[i]", "h * 0.5", "h * 0.5", "float16");
  expect("A[i]", "h + x", "T.Cast(\"float32\", h) + x", "float32");
  expect("A[i]", "n + 0.5", "T.Cast(\"float32\", n) + 0.5", "float32");
  expect("L[i]", "n + L[i]", "T.Cast(\"int64\", n) + L[i]", "int64");
  expect("L[i]", "L[i] + 1", "L[i] + 1", "int64");
  expect("A[i]", "T.float32(0)", "0.0", "float32");
  expect("H[i]", "T.float16(1.5)", "T.float16(1.5)", "float16");
  expect("H[i]", "1.5", "T.float16(1.5)", "float16");
  expect("A[i]", "H[i]", "T.Cast(\"float32\", H[i])", "float32");
  expect("H[i]", "x", "T.Cast(\"float16\", x)", "float16");
  expect("A[i]", "x > 0", "T.Cast(\"float32\", x > 0.0)", "float32");
  expect("A[i]", "T.float32(n)", "T.Cast(\"float32\", n)", "float32");
  expect("A[i]", "n", "T.Cast(\"float32\", n)", "float32");
  expect("I[i]", "T.int32(7)", "7", "int32");
  expect("B[i]", "True", "True", "bool");
}

static void test_builtins(void **state) {
  (void)state;
  expect("A[i]", "-T.infinity(\"float32\")", "-T.infinity(\"float32\")", "float32");
  expect("A[i]", "T.infinity(T.float32)", "T.infinity(\"float32\")", "float32");
  expect("A[i]", "T.max(x, 0)", "T.max(x, 0.0)", "float32");
  expect("I[i]", "T.min(n, 4)", "T.min(n, 4)", "int32");
  expect("A[i]", "T.exp(x) + T.log2(x) * T.sqrt(x)", "T.exp(x) + T.log2(x) * T.sqrt(x)", "float32");
  expect("A[i]", "T.exp2(x) - T.log(x) + T.rsqrt(x) + T.tanh(x) + T.sigmoid(x)",
         "T.exp2(x) - T.log(x) + T.rsqrt(x) + T.tanh(x) + T.sigmoid(x)", "float32");
  expect("A[i]", "T.floor(x) + T.ceil(x)", "T.floor(x) + T.ceil(x)", "float32");
  expect("A[i]", "T.pow(x, 2)", "T.pow(x, 2.0)", "float32");
  expect("A[i]", "x ** 2", "T.pow(x, 2.0)", "float32");
  expect("A[i]", "T.fma(x, x, 1)", "T.fma(x, x, 1.0)", "float32");
  expect("H[i]", "T.exp(h)", "T.exp(h)", "float16");
  expect("I[i]", "T.abs(n - 3)", "T.abs(n - 3)", "int32");
  expect("A[i]", "T.Cast(\"float32\", n)", "T.Cast(\"float32\", n)", "float32");
  expect("A[i]", "T.cast(n, \"float32\")", "T.Cast(\"float32\", n)", "float32");
  expect("A[i]", "T.Cast(T.float32, n)", "T.Cast(\"float32\", n)", "float32");
  expect("A[i]", "T.if_then_else(n > 3, x, 0)", "T.if_then_else(n > 3, x, 0.0)", "float32");
  expect("I[i]", "T.ceildiv(n, 4)", "T.ceildiv(n, 4)", "int32");
  expect("I[i]", "T.truncdiv(n, 4)", "T.truncdiv(n, 4)", "int32");
  expect("I[i]", "n * bx + i", "n * bx + i", "int32");
  expect("A[i]", "A[i] / 2", "A[i] / 2.0", "float32");
  expect("I[i]", "I[T.min(i + 1, 15)]", "I[T.min(i + 1, 15)]", "int32");
  expect("I[i]", "A.shape[0] // 2 + len(A.shape)", "9", "int32");
}

/* tvm.tir's operators by name: the Python operator of the same meaning (and its
 * folding), variadic T.max/T.min, T.clamp, T.Select, dtype limits, new math. */
static void test_tir_operators(void **state) {
  (void)state;
  expect("I[i]", "T.floordiv(n, 4)", "n // 4", "int32");
  expect("I[i]", "T.floordiv(-7, 2)", "-4", "int32");
  expect("I[i]", "T.floormod(n, 4)", "n % 4", "int32");
  expect("I[i]", "T.floormod(-7, 2)", "1", "int32");
  expect("I[i]", "T.truncmod(n, 4)", "n - T.truncdiv(n, 4) * 4", "int32");
  expect("I[i]", "T.truncmod(-7, 2)", "-1", "int32");
  expect("I[i]", "T.shift_left(n, 2)", "n << 2", "int32");
  expect("I[i]", "T.shift_right(n, 1)", "n >> 1", "int32");
  expect("I[i]", "T.bitwise_and(n, 6)", "n & 6", "int32");
  expect("I[i]", "T.bitwise_or(n, 6)", "n | 6", "int32");
  expect("I[i]", "T.bitwise_xor(n, 6)", "n ^ 6", "int32");
  expect("I[i]", "T.bitwise_not(n)", "~n", "int32");
  expect("I[i]", "T.bitwise_not(5)", "-6", "int32");
  expect("A[i]", "T.max(x, 1, 2)", "T.max(T.max(x, 1.0), 2.0)", "float32");
  expect("I[i]", "T.min(n, i, 3, 4)", "T.min(T.min(T.min(n, i), 3), 4)", "int32");
  expect("A[i]", "T.clamp(x, 0, 1)", "T.min(T.max(x, 0.0), 1.0)", "float32");
  expect("A[i]", "T.clamp(x, min_val=0.5)", "T.max(x, 0.5)", "float32");
  expect("A[i]", "T.clamp(x, max_val=0.5)", "T.min(x, 0.5)", "float32");
  expect("A[i]", "T.Select(n > 3, x, 0)", "T.if_then_else(n > 3, x, 0.0)", "float32");
  expect("I[i]", "T.max_value(\"int32\")", "2147483647", "int32");
  expect("I[i]", "T.min_value(\"int32\")", "-2147483648", "int32");
  expect("A[i]", "T.erf(x)", "T.erf(x)", "float32");
  expect("A[i]", "T.fmod(x, 2)", "T.fmod(x, 2.0)", "float32");
  expect("H[i]", "T.log1p(h)", "T.log1p(h)", "float16");
  expect("A[i]", "T.log10(x) + T.expm1(x) + T.tan(x)", "T.log10(x) + T.expm1(x) + T.tan(x)", "float32");
  expect_err("I[i]", "T.shift_left(x, 1)", "needs integer");
  expect_err("I[i]", "T.floordiv(7, 0)", "integer division or modulo by zero");
  /* a scalar dtype names itself in the message (tl_dtype_name returns a static name for it) */
  expect_err("F[i]", "T.float16(x, y)", "T.float16 takes one argument");
  expect_err("A[i]", "T.bitwise_not(x)", "T.bitwise_not needs an integer argument, got float32");
  expect_err("A[i]", "T.max_value(\"bool\")", "T.max_value needs a numeric dtype, got bool");
  expect_err("A[i]", "T.fmod(x)", "T.fmod takes 2 arguments");
}

static void test_errors(void **state) {
  (void)state;
  expect_err("I[i]", "n / 2", "'/' on integer expressions is ambiguous");
  expect_err("I[i]", "1 // 0", "integer division or modulo by zero");
  expect_err("I[i]", "2 ** 64", "integer overflow in a constant expression");
  expect_err("I[i]", "n ** 2", "'**' on int32 expressions is not supported");
  expect_err("A[i]", "A", "buffer 'A' is not a scalar value");
  expect_err("A[i]", "A[0, 1]", "buffer 'A' has 1 dimension but 2 indices were given");
  expect_err("A[i]", "A[0:2]", "a buffer slice (A[a:b]) is only allowed as an argument of a tile operation");
  expect_err("A[i]", "T.exp(n)", "T.exp needs a floating-point argument, got int32");
  expect_err("A[i]", "unknown_name", "name 'unknown_name' is not defined");
  expect_err("A[i]", "T.copy(A, A)", "T.copy is a statement; it has no value");
  expect_err("A[i]", "T.alloc_shared((4,), \"float32\")", "must be assigned to a single name");
  expect_err("A[i]", "\"abc\"", "cannot be used as a value");
  expect_err("A[i]", "[v for v in A]", "a comprehension runs over a compile-time sequence (a tuple, a list, range()), not buffer 'A'");
  expect_err("A[i]", "f\"{n}\"", "f-strings are not supported");
  expect_err("A[i]", "x & 1", "needs integer or boolean operands");
  expect_err("A[i]", "T.foo(x)", "T.foo is not supported");
  expect_err("A[i]", "T.float32", "dtype float32 is not a value");
  expect_err("A[i]", "T.exp(x, x)", "T.exp takes 1 argument");
  expect_err("A[i]", "T.max(x)", "T.max is missing its required argument 'b'");
  expect_err("A[i]", "T.Cast(\"float99\", x)", "unknown dtype 'float99'");
  expect_err("A[i]", "T.infinity(\"int32\")", "needs a floating-point dtype");
  expect_err("I[i]", "T.int8(300)", "constant 300 does not fit in int8");
  expect_err("A[i]", "x if n in (1, 2) else 0.0", "'in' is not supported on run-time values");
  expect_err("A[i]", "min(x, 1.0)", "min() is evaluated at compile time and cannot take variable 'x' (use T.min)");
  expect_err("A[i]", "A[i](1)", "is not callable");
  expect_err("A[i]", "{1: 2}", "dictionaries are not supported here");
  expect_err("A[i]", "x(", "'(' was never closed");
  expect_err("I[i]", "int(x)", "use T.Cast");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_precedence), cmocka_unit_test(test_folding), cmocka_unit_test(test_dtypes),
    cmocka_unit_test(test_builtins), cmocka_unit_test(test_tir_operators), cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
