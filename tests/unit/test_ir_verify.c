/* The verifier: every rule accepted when kept and rejected, with its exact
 * message, when broken. IR is built with the builder; the location of the
 * offending construct is set so messages carry "t.py:line:col: ". */
#include <math.h>
#include <stdarg.h>

#include "ir_fixtures.h"
#include "tl_test.h"

static tl_ir_module *M;
static tl_ir_func *F;

static int setup(void **state) {
  (void)state;
  if (tl_ir_module_create(&M) != TL_OK) return -1;
  tl_ir_builder_set_loc(M, (tl_ir_span){"t.py", 1, 1});
  if (tl_ir_func_new(M, "f", &F) != TL_OK) return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tl_ir_module_free(M);
  M = NULL;
  F = NULL;
  return 0;
}

static void at(uint32_t line, uint32_t col) { tl_ir_builder_set_loc(M, (tl_ir_span){"t.py", line, col}); }

static tl_ir_expr *i32(int64_t v) { return tl_ir_i32(M, v); }
static tl_ir_expr *f32(double v) { return tl_ir_float(M, TL_DT_FLOAT32, v); }
static tl_ir_expr *ref(tl_ir_var *v) { return tl_ir_var_ref(M, v); }
static tl_ir_expr *bin(tl_ir_binop op, tl_ir_expr *a, tl_ir_expr *b) { return tl_ir_binary(M, op, a, b); }
static tl_ir_var *var(const char *name) { return tl_ir_var_new(M, name, TL_DT_INT32); }

/* A buffer of constant shape. */
static tl_ir_buffer *buf(const char *name, tl_dtype dt, tl_ir_scope scope, uint32_t ndim, ...) {
  tl_ir_expr *shape[4];
  va_list ap;
  va_start(ap, ndim);
  for (uint32_t i = 0; i < ndim; i++) shape[i] = i32(va_arg(ap, int));
  va_end(ap);
  return tl_ir_buffer_new(M, name, dt, ndim, shape, NULL, scope);
}

/* A global buffer parameter of F. */
static tl_ir_buffer *param(const char *name, tl_dtype dt, uint32_t ndim, int d0, int d1) {
  tl_ir_buffer *b = buf(name, dt, TL_SCOPE_GLOBAL, ndim, d0, d1);
  if (tl_ir_func_add_buffer_param(M, F, b, false) != TL_OK) return NULL;
  return b;
}

static tl_ir_stmt *seq2(tl_ir_stmt *a, tl_ir_stmt *b) {
  tl_ir_stmt *s[2] = {a, b};
  return tl_ir_seq(M, 2, s);
}

static tl_ir_stmt *seq3(tl_ir_stmt *a, tl_ir_stmt *b, tl_ir_stmt *c) {
  tl_ir_stmt *s[3] = {a, b, c};
  return tl_ir_seq(M, 3, s);
}

/* Allocations followed by one statement, in one sequence (so they are live there). */
static tl_ir_stmt *allocs_then(tl_ir_buffer *const *bufs, uint32_t n, tl_ir_stmt *last) {
  tl_ir_stmt *s[8];
  for (uint32_t i = 0; i < n; i++) s[i] = tl_ir_alloc(M, bufs[i]);
  s[n] = last;
  return tl_ir_seq(M, n + 1, s);
}

/* with T.Kernel(1, threads=32) as bx: body */
static tl_ir_stmt *kernel(tl_ir_stmt *body) {
  tl_ir_expr *g[1] = {i32(1)}, *t[1] = {i32(32)};
  tl_ir_var *bx = var("bx");
  return tl_ir_kernel(M, 1, g, 1, t, &bx, body);
}

static tl_ir_stmt *loop(tl_ir_var *v, int64_t n, tl_ir_stmt *body) {
  tl_ir_expr *e[1] = {i32(n)};
  return tl_ir_for(M, TL_FOR_SERIAL, 1, &v, NULL, e, body);
}

static tl_ir_expr *load1(tl_ir_buffer *b, tl_ir_expr *i) { return tl_ir_load(M, b, 1, &i); }
static tl_ir_expr *load2(tl_ir_buffer *b, tl_ir_expr *i, tl_ir_expr *j) {
  tl_ir_expr *idx[2] = {i, j};
  return tl_ir_load(M, b, 2, idx);
}
static tl_ir_stmt *store1(tl_ir_buffer *b, tl_ir_expr *i, tl_ir_expr *v) { return tl_ir_store(M, b, 1, &i, v); }
static tl_ir_stmt *store2(tl_ir_buffer *b, tl_ir_expr *i, tl_ir_expr *j, tl_ir_expr *v) {
  tl_ir_expr *idx[2] = {i, j};
  return tl_ir_store(M, b, 2, idx, v);
}
static tl_ir_expr *full(tl_ir_buffer *b) { return tl_ir_region(M, b, NULL, NULL, TL_REGION_FULL); }
static tl_ir_stmt *call(tl_ir_op op, uint32_t n, ...) {
  tl_ir_expr *args[8];
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++) args[i] = va_arg(ap, tl_ir_expr *);
  va_end(ap);
  return tl_ir_eval(M, tl_ir_call(M, op, TL_DT_HANDLE, n, args));
}

/* Sets F's body and expects verification to pass. */
static void expect_ok(tl_ir_stmt *body) {
  assert_non_null(body);
  F->body = body;
  TL_ASSERT_OK(tl_ir_verify_func(F));
  TL_ASSERT_OK(tl_ir_verify_module(M));
}

/* Sets F's body and expects exactly this message from both entry points. */
static void expect_err(tl_ir_stmt *body, const char *msg) {
  assert_non_null(body);
  F->body = body;
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG(msg);
  TL_ASSERT_ERR(tl_ir_verify_func(F), TL_EINVAL, "");
  TL_ASSERT_MSG(msg);
}

/* ------------------------------------------------------------- fixtures */

static void test_fixtures_verify(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  assert_non_null(fx_vadd(m, "vadd"));
  assert_non_null(fx_matmul(m, "matmul"));
  assert_non_null(fx_host_device(m, "scale", "scale_kernel"));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  for (size_t i = 0; i < tl_ir_module_num_funcs(m); i++) TL_ASSERT_OK(tl_ir_verify_func(tl_ir_module_func(m, i)));
  tl_ir_module_free(m);
  TL_ASSERT_ERR(tl_ir_verify_module(NULL), TL_EINVAL, "module is NULL");
  TL_ASSERT_ERR(tl_ir_verify_func(NULL), TL_EINVAL, "function is NULL");
}

static void test_no_body(void **state) {
  (void)state;
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG("t.py:1:1: function 'f' has no body");
}

/* ------------------------------------------------------------------ types */

static void test_binary_operand_types(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  at(3, 4);
  expect_err(store1(a, i32(0), bin(TL_BIN_ADD, i32(1), f32(2))), "t.py:3:4: operands of + differ in type: int32 and float32");
  expect_ok(store1(a, i32(0), bin(TL_BIN_ADD, f32(1), f32(2))));
  at(4, 2);
  tl_ir_expr *cond = bin(TL_BIN_AND, i32(1), i32(0));
  expect_err(tl_ir_if(M, cond, tl_ir_barrier(M), NULL), "t.py:4:2: operands of and must be bool, not int32");
  expect_err(store1(a, i32(0), bin(TL_BIN_BITAND, f32(1), f32(2))), "t.py:4:2: operands of & must be integers, not float32");
  tl_ir_expr *b = tl_ir_bool(M, true);
  expect_err(tl_ir_if(M, bin(TL_BIN_EQ, bin(TL_BIN_ADD, b, b), b), tl_ir_seq(M, 0, NULL), NULL),
             "t.py:4:2: operands of + must be numbers, not bool");
  expect_err(tl_ir_if(M, bin(TL_BIN_LT, b, b), tl_ir_seq(M, 0, NULL), NULL), "t.py:4:2: operands of < must be numbers, not bool");
  expect_ok(tl_ir_if(M, bin(TL_BIN_OR, bin(TL_BIN_EQ, b, b), bin(TL_BIN_NE, i32(1), i32(2))), tl_ir_seq(M, 0, NULL), NULL));
  /* A node whose dtype contradicts its operator (as a broken pass might make). */
  tl_ir_expr *lt = bin(TL_BIN_LT, i32(1), i32(2));
  lt->dtype = TL_DT_INT32;
  expect_err(store1(a, lt, f32(0)), "t.py:4:2: < on int32 yields bool, but the node says int32");
  tl_ir_expr *add = bin(TL_BIN_ADD, f32(1), f32(2));
  add->dtype = TL_DT_FLOAT16;
  expect_err(store1(a, i32(0), tl_ir_cast(M, TL_DT_FLOAT32, add)), "t.py:4:2: + on float32 yields float32, but the node says float16");
}

static void test_unary_select_cast(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  at(5, 1);
  expect_err(tl_ir_if(M, tl_ir_unary(M, TL_UN_NOT, i32(1)), tl_ir_barrier(M), NULL), "t.py:5:1: operator not does not apply to int32");
  expect_err(store1(a, i32(0), tl_ir_unary(M, TL_UN_BITNOT, f32(1))), "t.py:5:1: operator ~ does not apply to float32");
  expect_ok(store1(a, tl_ir_unary(M, TL_UN_BITNOT, i32(1)), tl_ir_unary(M, TL_UN_NEG, f32(1))));
  tl_ir_expr *sel = tl_ir_select(M, i32(1), f32(1), f32(2));
  expect_err(store1(a, i32(0), sel), "t.py:5:1: condition of T.if_then_else must be bool, not int32");
  sel = tl_ir_select(M, tl_ir_bool(M, true), f32(1), i32(2));
  expect_err(store1(a, i32(0), sel), "t.py:5:1: branches of T.if_then_else differ in type: float32 and int32");
  expect_ok(store1(a, i32(0), tl_ir_select(M, tl_ir_bool(M, false), f32(1), f32(2))));
  tl_ir_var *h = tl_ir_var_new(M, "h", TL_DT_HANDLE);
  tl_ir_stmt *s = tl_ir_let(M, h, tl_ir_var_ref(M, a->data), store1(a, i32(0), tl_ir_cast(M, TL_DT_FLOAT32, ref(h))));
  expect_err(s, "t.py:5:1: cannot cast handle to float32");
  expect_ok(store1(a, tl_ir_cast(M, TL_DT_INT32, f32(1.5)), tl_ir_cast(M, TL_DT_FLOAT32, tl_ir_int(M, TL_DT_INT64, 3))));
  expect_err(store1(a, i32(0), tl_ir_cast(M, TL_DT_FLOAT32, tl_ir_broadcast(M, f32(1), 4))),
             "t.py:5:1: cannot cast float32x4 to float32");
}

static void test_constants(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_INT8, 1, 8, 0);
  at(6, 3);
  expect_err(store1(a, i32(0), tl_ir_int(M, TL_DT_INT8, 300)), "t.py:6:3: constant 300 does not fit in int8");
  expect_err(store1(a, i32(0), tl_ir_int(M, TL_DT_INT8, -129)), "t.py:6:3: constant -129 does not fit in int8");
  expect_ok(store1(a, i32(0), tl_ir_int(M, TL_DT_INT8, -128)));
  expect_err(store1(a, tl_ir_int(M, TL_DT_UINT16, -1), tl_ir_int(M, TL_DT_INT8, 1)), "t.py:6:3: constant -1 does not fit in uint16");
  expect_err(tl_ir_if(M, tl_ir_int(M, TL_DT_BOOL, 2), tl_ir_barrier(M), NULL), "t.py:6:3: constant 2 does not fit in bool");
  expect_err(store1(a, tl_ir_float(M, TL_DT_INT32, 1.0), tl_ir_int(M, TL_DT_INT8, 1)), "t.py:6:3: float constant of type int32");
  expect_err(store1(a, tl_ir_int(M, TL_DT_FLOAT32, 1), tl_ir_int(M, TL_DT_INT8, 1)), "t.py:6:3: integer constant of type float32");
  expect_err(store1(a, i32(0), tl_ir_int(M, TL_DT(TL_DTYPE_INT, 4), 1)), "t.py:6:3: invalid dtype int4");
  expect_ok(store1(a, tl_ir_int(M, TL_DT_INT64, INT64_MIN), tl_ir_int(M, TL_DT_INT8, 127)));
}

static void test_store_load_types(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 64, 0);
  at(7, 9);
  expect_err(store1(a, i32(0), tl_ir_float(M, TL_DT_FLOAT16, 1)),
             "t.py:7:9: value stored to buffer 'A' is float16; the store needs float32");
  expect_err(store1(a, f32(0), f32(1)), "t.py:7:9: index 0 of buffer 'A' is float32; indices must be integers");
  /* Vector accesses: a ramp index needs a vector value of its lanes. */
  tl_ir_expr *ramp = tl_ir_ramp(M, i32(0), 1, 4);
  expect_ok(store1(a, ramp, load1(a, ramp)));
  expect_err(store1(a, ramp, f32(1)), "t.py:7:9: value stored to buffer 'A' is float32; the store needs float32x4");
  expect_ok(store1(a, ramp, tl_ir_broadcast(M, f32(1), 4)));
  tl_ir_expr *bad = load1(a, i32(1));
  bad->dtype = TL_DT_FLOAT64;
  expect_err(store1(a, i32(0), tl_ir_cast(M, TL_DT_FLOAT32, bad)),
             "t.py:7:9: load from buffer 'A' yields float32, but the node says float64");
  expect_err(store1(a, tl_ir_ramp(M, f32(0), 1, 4), tl_ir_broadcast(M, f32(1), 4)),
             "t.py:7:9: ramp base must be a scalar integer, not float32");
  expect_err(store1(a, tl_ir_ramp(M, i32(0), 1, 1), f32(1)), "t.py:7:9: ramp of int32 must have type int32xN with N >= 2, not int32");
  tl_ir_buffer *b2 = param("B", TL_DT_FLOAT32, 2, 8, 8);
  expect_err(store2(b2, ramp, i32(0), tl_ir_broadcast(M, f32(1), 4)),
             "t.py:7:9: index 0 of buffer 'B' is a vector; only the last index may be");
}

static void test_conditions_and_loops(void **state) {
  (void)state;
  at(8, 1);
  expect_err(tl_ir_if(M, i32(1), tl_ir_barrier(M), NULL), "t.py:8:1: an if condition must be bool, not int32");
  expect_err(tl_ir_assert(M, f32(1), "m"), "t.py:8:1: an assert condition must be bool, not float32");
  expect_ok(tl_ir_assert(M, tl_ir_bool(M, true), "m"));
  tl_ir_var *i = var("i");
  tl_ir_expr *ext[1] = {f32(4)};
  expect_err(tl_ir_for(M, TL_FOR_SERIAL, 1, &i, NULL, ext, tl_ir_seq(M, 0, NULL)), "t.py:8:1: a loop extent must be an integer, not float32");
  ext[0] = i32(4);
  tl_ir_expr *mn[1] = {tl_ir_bool(M, false)};
  expect_err(tl_ir_for(M, TL_FOR_SERIAL, 1, &i, mn, ext, tl_ir_seq(M, 0, NULL)), "t.py:8:1: a loop start must be an integer, not bool");
  tl_ir_var *fv = tl_ir_var_new(M, "x", TL_DT_FLOAT32);
  expect_err(tl_ir_for(M, TL_FOR_SERIAL, 1, &fv, NULL, ext, tl_ir_seq(M, 0, NULL)), "t.py:8:1: variable 'x' must be an integer, not float32");
  tl_ir_stmt *p = tl_ir_for(M, TL_FOR_PIPELINED, 1, &i, NULL, ext, tl_ir_seq(M, 0, NULL));
  p->u.loop.num_stages = 2;
  expect_ok(p);
  p = tl_ir_for(M, TL_FOR_SERIAL, 1, &i, NULL, ext, tl_ir_seq(M, 0, NULL));
  p->u.loop.num_stages = 2;
  expect_err(p, "t.py:8:1: num_stages is only for T.Pipelined loops");
  p = tl_ir_for(M, TL_FOR_PIPELINED, 1, &i, NULL, ext, tl_ir_seq(M, 0, NULL));
  p->u.loop.num_stages = -1;
  expect_err(p, "t.py:8:1: T.Pipelined has num_stages -1");
}

static void test_let_and_var_types(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  at(9, 2);
  tl_ir_var *x = var("x");
  expect_err(tl_ir_let(M, x, f32(1), tl_ir_seq(M, 0, NULL)), "t.py:9:2: variable 'x' is int32 but is bound to a float32 value");
  expect_ok(tl_ir_let(M, x, i32(1), store1(a, ref(x), f32(0))));
  tl_ir_expr *r = ref(x);
  r->dtype = TL_DT_INT64;
  expect_err(tl_ir_let(M, x, i32(1), store1(a, tl_ir_cast(M, TL_DT_INT32, r), f32(0))),
             "t.py:9:2: variable 'x' is int32 but is used as int64");
}

static void test_math_calls(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  at(10, 5);
  tl_ir_expr *one[1] = {i32(1)};
  expect_err(store1(a, i32(0), tl_ir_call(M, TL_OP_EXP, TL_DT_INT32, 1, one)), "t.py:10:5: T.exp needs a float argument, not int32");
  tl_ir_expr *fl[2] = {f32(1), f32(2)};
  expect_ok(store1(a, i32(0), tl_ir_call(M, TL_OP_EXP, TL_DT_FLOAT32, 1, fl)));
  expect_err(store1(a, i32(0), tl_ir_call(M, TL_OP_POW, TL_DT_FLOAT32, 1, fl)), "t.py:10:5: T.pow takes 2 arguments, got 1");
  expect_ok(store1(a, i32(0), tl_ir_call(M, TL_OP_POW, TL_DT_FLOAT32, 2, fl)));
  expect_err(store1(a, i32(0), tl_ir_call(M, TL_OP_EXP, TL_DT_FLOAT16, 1, fl)),
             "t.py:10:5: T.exp of float32 yields float32, but the node says float16");
  tl_ir_expr *mixed[2] = {f32(1), tl_ir_float(M, TL_DT_FLOAT16, 2)};
  expect_err(store1(a, i32(0), tl_ir_call(M, TL_OP_POW, TL_DT_FLOAT32, 2, mixed)),
             "t.py:10:5: arguments of T.pow differ in type: float32 and float16");
  tl_ir_expr *cd[2] = {i32(7), tl_ir_int(M, TL_DT_INT64, 2)};
  expect_err(store1(a, tl_ir_call(M, TL_OP_CEILDIV, TL_DT_INT32, 2, cd), f32(0)),
             "t.py:10:5: T.ceildiv needs two integers of one type, not int32 and int64");
  expect_ok(store1(a, tl_ir_call(M, TL_OP_ABS, TL_DT_INT32, 1, one), tl_ir_call(M, TL_OP_ABS, TL_DT_FLOAT32, 1, fl)));
  tl_ir_expr *shfl[3] = {f32(1), i32(1), i32(128)};
  expect_err(store1(a, i32(0), tl_ir_call(M, TL_OP_WARP_SHFL_XOR, TL_DT_FLOAT32, 3, shfl)),
             "t.py:10:5: T.warp_shfl_xor: the width must be a power of two from 1 to 64 (a warp or wavefront)");
  shfl[2] = i32(24);
  expect_err(store1(a, i32(0), tl_ir_call(M, TL_OP_WARP_SHFL_XOR, TL_DT_FLOAT32, 3, shfl)),
             "t.py:10:5: T.warp_shfl_xor: the width must be a power of two from 1 to 64 (a warp or wavefront)");
  shfl[2] = i32(64); /* an AMD wavefront */
  expect_ok(store1(a, i32(0), tl_ir_call(M, TL_OP_WARP_SHFL_XOR, TL_DT_FLOAT32, 3, shfl)));
  shfl[2] = i32(32);
  expect_ok(store1(a, i32(0), tl_ir_call(M, TL_OP_WARP_SHFL_XOR, TL_DT_FLOAT32, 3, shfl)));
}

/* ---------------------------------------------------- definitions, ranks */

static void test_undefined_variables(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  tl_ir_var *i = var("i");
  at(11, 7);
  tl_ir_stmt *after = store1(a, ref(i), f32(0));
  expect_err(seq2(loop(i, 8, store1(a, ref(i), f32(1))), after), "t.py:11:7: use of undefined variable 'i'");
  tl_ir_var *n = var("n");
  expect_err(store1(a, ref(n), f32(0)), "t.py:11:7: use of undefined variable 'n'");
  /* A scalar parameter and a symbolic dim of a parameter's shape are defined. */
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(M, F, n));
  tl_ir_var *sym = var("S");
  tl_ir_expr *sshape[1] = {ref(sym)};
  tl_ir_buffer *b = tl_ir_buffer_new(M, "B", TL_DT_FLOAT32, 1, sshape, NULL, TL_SCOPE_GLOBAL);
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, F, b, false));
  expect_ok(store1(a, ref(n), load1(b, bin(TL_BIN_SUB, ref(sym), i32(1)))));
  /* Block variables are defined inside their kernel only. */
  tl_ir_expr *g[1] = {i32(2)}, *t[1] = {i32(32)};
  tl_ir_var *bx = var("bx");
  tl_ir_stmt *k = tl_ir_kernel(M, 1, g, 1, t, &bx, store1(a, ref(bx), f32(0)));
  expect_ok(k);
  expect_err(seq2(k, store1(a, ref(bx), f32(0))), "t.py:11:7: use of undefined variable 'bx'");
  /* Let: in its body only. */
  tl_ir_var *x = var("x");
  tl_ir_stmt *let = tl_ir_let(M, x, i32(3), store1(a, ref(x), f32(0)));
  expect_ok(let);
  expect_err(seq2(let, store1(a, ref(x), f32(0))), "t.py:11:7: use of undefined variable 'x'");
  /* A loop's extents cannot use its own variable. */
  tl_ir_expr *ext[1] = {ref(i)};
  expect_err(tl_ir_for(M, TL_FOR_SERIAL, 1, &i, NULL, ext, tl_ir_seq(M, 0, NULL)), "t.py:11:7: use of undefined variable 'i'");
}

static void test_defined_twice(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  tl_ir_var *i = var("i");
  at(12, 3);
  expect_err(loop(i, 4, loop(i, 4, store1(a, ref(i), f32(0)))), "t.py:12:3: variable 'i' is defined twice");
  /* The same variable in two sibling loops is fine. */
  expect_ok(seq2(loop(i, 4, store1(a, ref(i), f32(0))), loop(i, 4, store1(a, ref(i), f32(1)))));
  tl_ir_var *n = var("n");
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(M, F, n));
  expect_err(loop(n, 4, tl_ir_seq(M, 0, NULL)), "t.py:12:3: variable 'n' is defined twice");
  expect_err(tl_ir_let(M, i, i32(0), tl_ir_let(M, i, i32(1), tl_ir_seq(M, 0, NULL))), "t.py:12:3: variable 'i' is defined twice");
  tl_ir_var *vars[2] = {i, i};
  tl_ir_expr *ext[2] = {i32(2), i32(2)};
  expect_err(tl_ir_for(M, TL_FOR_PARALLEL, 2, vars, NULL, ext, tl_ir_seq(M, 0, NULL)), "t.py:12:3: variable 'i' is defined twice");
  tl_ir_buffer *s = buf("S", TL_DT_FLOAT32, TL_SCOPE_SHARED, 1, 4);
  tl_ir_stmt *al = tl_ir_alloc(M, s);
  expect_err(kernel(seq2(al, seq2(al, tl_ir_seq(M, 0, NULL)))), "t.py:12:3: buffer 'S' is defined twice");
  tl_ir_stmt *pa = tl_ir_alloc(M, a);
  a->scope = TL_SCOPE_SHARED; /* a parameter re-allocated inside the body */
  expect_err(kernel(seq2(pa, tl_ir_seq(M, 0, NULL))), "t.py:1:1: parameter 'A' has scope shared; buffer parameters must be global");
  a->scope = TL_SCOPE_GLOBAL;
  expect_err(kernel(seq2(pa, tl_ir_seq(M, 0, NULL))), "t.py:1:1: buffer 'A' is defined twice");
}

static void test_buffers_and_ranks(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 2, 8, 8);
  at(13, 4);
  expect_err(store1(a, i32(0), f32(0)), "t.py:13:4: store of buffer 'A' has 1 index; the buffer has 2");
  expect_err(store2(a, i32(0), i32(0), load1(a, i32(1))), "t.py:13:4: load of buffer 'A' has 1 index; the buffer has 2");
  expect_ok(store2(a, i32(0), i32(0), load2(a, i32(1), i32(1))));
  tl_ir_buffer *x = buf("X", TL_DT_FLOAT32, TL_SCOPE_GLOBAL, 1, 8);
  expect_err(store2(a, i32(0), i32(0), load1(x, i32(1))), "t.py:13:4: use of undefined buffer 'X'");
  /* An allocation lives until the end of its sequence. */
  tl_ir_buffer *s = buf("S", TL_DT_FLOAT32, TL_SCOPE_SHARED, 1, 8);
  tl_ir_stmt *inner = seq2(tl_ir_alloc(M, s), store1(s, i32(0), f32(1)));
  expect_ok(kernel(inner));
  expect_err(kernel(seq2(inner, store1(s, i32(1), f32(2)))), "t.py:13:4: use of undefined buffer 'S'");
  expect_err(kernel(seq2(store1(s, i32(1), f32(2)), inner)), "t.py:13:4: use of undefined buffer 'S'");
  /* Regions must have the buffer's rank. */
  tl_ir_buffer *f2 = buf("F", TL_DT_FLOAT32, TL_SCOPE_LOCAL_FRAGMENT, 2, 8, 8);
  tl_ir_expr *r = full(f2);
  r->u.region.ndim = 1;
  expect_err(kernel(seq2(tl_ir_alloc(M, f2), call(TL_OP_CLEAR, 1, r))), "t.py:13:4: region of buffer 'F' has 1 dimensions; the buffer has 2");
  tl_ir_expr *mins[2] = {f32(0), i32(0)}, *ext[2] = {i32(8), i32(8)};
  expect_err(kernel(seq2(tl_ir_alloc(M, f2), call(TL_OP_CLEAR, 1, tl_ir_region(M, f2, mins, ext, TL_REGION_SLICE)))),
             "t.py:13:4: a region start must be an integer, not float32");
}

/* ----------------------------------------------------------------- scopes */

static void test_scopes(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  at(14, 5);
  tl_ir_buffer *s = buf("S", TL_DT_FLOAT32, TL_SCOPE_SHARED, 1, 8);
  expect_err(tl_ir_alloc(M, s), "t.py:14:5: buffer 'S' (shared) is allocated outside T.Kernel");
  expect_ok(kernel(tl_ir_alloc(M, s)));
  static const tl_ir_scope scopes[] = {TL_SCOPE_SHARED_DYN, TL_SCOPE_LOCAL, TL_SCOPE_LOCAL_FRAGMENT};
  static const char *names[] = {"shared.dyn", "local", "local.fragment"};
  for (int i = 0; i < 3; i++) {
    tl_ir_buffer *b = buf("L", TL_DT_FLOAT32, scopes[i], 1, 8);
    char msg[128];
    snprintf(msg, sizeof msg, "t.py:14:5: buffer 'L' (%s) is allocated outside T.Kernel", names[i]);
    expect_err(tl_ir_alloc(M, b), msg);
    expect_ok(kernel(tl_ir_alloc(M, b)));
  }
  tl_ir_buffer *v = buf("v", TL_DT_FLOAT32, TL_SCOPE_LOCAL_VAR, 0);
  expect_err(tl_ir_alloc(M, v), "t.py:14:5: buffer 'v' (local.var) is allocated outside T.Kernel");
  expect_ok(kernel(seq3(tl_ir_alloc(M, v), tl_ir_store(M, v, 0, NULL, f32(1)), store1(a, i32(0), tl_ir_load(M, v, 0, NULL)))));
  tl_ir_buffer *v1 = buf("w", TL_DT_FLOAT32, TL_SCOPE_LOCAL_VAR, 1, 2);
  expect_err(kernel(tl_ir_alloc(M, v1)), "t.py:14:5: local.var buffer 'w' must have no dimensions, not 1");
  tl_ir_buffer *g = buf("G", TL_DT_FLOAT32, TL_SCOPE_GLOBAL, 1, 8);
  expect_err(kernel(tl_ir_alloc(M, g)), "t.py:14:5: buffer 'G' is allocated in global scope; global buffers can only be parameters");
  expect_err(tl_ir_barrier(M), "t.py:14:5: barrier outside T.Kernel");
  expect_ok(kernel(tl_ir_barrier(M)));
  at(15, 1);
  expect_err(kernel(kernel(tl_ir_barrier(M))), "t.py:15:1: T.Kernel cannot be nested");
  expect_err(call(TL_OP_FILL, 2, full(a), f32(0)), "t.py:15:1: T.fill outside T.Kernel");
  expect_ok(kernel(call(TL_OP_FILL, 2, full(a), f32(0))));
  tl_ir_buffer *h = buf("H", TL_DT_HANDLE, TL_SCOPE_LOCAL, 1, 8);
  expect_err(kernel(tl_ir_alloc(M, h)), "t.py:15:1: buffer 'H' has invalid element type handle");
}

static void test_param_rules(void **state) {
  (void)state;
  at(16, 1);
  tl_ir_buffer *s = buf("S", TL_DT_FLOAT32, TL_SCOPE_SHARED, 1, 8);
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, F, s, false));
  expect_err(tl_ir_seq(M, 0, NULL), "t.py:16:1: parameter 'S' has scope shared; buffer parameters must be global");
  s->scope = TL_SCOPE_GLOBAL;
  expect_ok(tl_ir_seq(M, 0, NULL));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(M, F, buf("S", TL_DT_FLOAT32, TL_SCOPE_GLOBAL, 1, 8), false));
  expect_err(tl_ir_seq(M, 0, NULL), "t.py:1:1: parameter 'S' appears twice");
  F->nparams = 1;
  tl_ir_var *fv = tl_ir_var_new(M, "v", tl_dtype_with_lanes(TL_DT_FLOAT32, 4));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(M, F, fv));
  expect_err(tl_ir_seq(M, 0, NULL), "t.py:16:1: parameter 'v' has invalid type float32x4");
}

/* -------------------------------------------------------------- tile ops */

static void test_tile_op_arguments(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 2, 64, 64);
  at(17, 9);
  tl_ir_buffer *s = buf("S", TL_DT_FLOAT32, TL_SCOPE_SHARED, 2, 64, 32);
  tl_ir_stmt *al = tl_ir_alloc(M, s);
  expect_err(kernel(seq2(al, call(TL_OP_COPY, 1, full(a)))), "t.py:17:9: T.copy takes 2 arguments, got 1");
  expect_err(kernel(seq2(al, call(TL_OP_COPY, 2, full(a), f32(0)))), "t.py:17:9: T.copy: argument 'dst' must be a buffer region");
  expect_err(kernel(seq2(al, call(TL_OP_FILL, 2, full(s), full(a)))), "t.py:17:9: T.fill: argument 'value' must be a value, not a region");
  expect_err(kernel(seq2(al, call(TL_OP_FILL, 2, full(s), tl_ir_broadcast(M, f32(0), 2)))),
             "t.py:17:9: T.fill: value must be a scalar number, not float32x2");
  expect_ok(kernel(seq2(al, call(TL_OP_FILL, 2, full(s), f32(0)))));
  expect_ok(kernel(seq2(al, call(TL_OP_CLEAR, 1, full(s)))));
  tl_ir_expr *args[1] = {full(s)};
  tl_ir_stmt *wrong = tl_ir_eval(M, tl_ir_call(M, TL_OP_CLEAR, TL_DT_FLOAT32, 1, args));
  expect_err(kernel(seq2(al, wrong)), "t.py:17:9: T.clear must have dtype handle, not float32");
  /* Tile ops and regions are not values. */
  tl_ir_expr *cargs[2] = {full(a), full(s)};
  expect_err(kernel(seq2(al, store2(a, i32(0), i32(0), tl_ir_call(M, TL_OP_COPY, TL_DT_FLOAT32, 2, cargs)))),
             "t.py:17:9: T.copy is a statement, not a value");
  expect_err(kernel(seq2(al, tl_ir_eval(M, full(s)))), "t.py:17:9: a region of buffer 'S' can only be an argument of a tile op");
  /* Atomic add takes a value or a region. */
  expect_ok(kernel(seq2(al, call(TL_OP_ATOMIC_ADD, 2, fx_region2(M, a, i32(0), i32(0), 1, 1), f32(1)))));
  expect_ok(kernel(seq2(al, call(TL_OP_ATOMIC_ADD, 2, fx_region2(M, a, i32(0), i32(0), 64, 32), full(s)))));
  expect_err(kernel(seq2(al, call(TL_OP_ATOMIC_ADD, 2, fx_region2(M, a, i32(0), i32(0), 64, 64), full(s)))),
             "t.py:17:9: T.atomic_add: region of buffer 'S' has shape [64, 32] but region of buffer 'A' has shape [64, 64]");
  expect_ok(kernel(call(TL_OP_ATOMIC_ADD_ELEM, 2, fx_region2(M, a, i32(3), i32(4), 1, 1), f32(1))));
  expect_err(kernel(call(TL_OP_ATOMIC_ADD_ELEM, 2, fx_region2(M, a, i32(3), i32(4), 1, 2), f32(1))),
             "t.py:17:9: T.atomic_add_elem: region of buffer 'A' has shape [1, 2]; it must be one element");
  /* T.atomic_max / T.atomic_min: the same rules, named. */
  expect_ok(kernel(seq2(al, call(TL_OP_ATOMIC_MAX, 2, fx_region2(M, a, i32(0), i32(0), 64, 32), full(s)))));
  expect_err(kernel(seq2(al, call(TL_OP_ATOMIC_MIN, 2, fx_region2(M, a, i32(0), i32(0), 32, 64), full(s)))),
             "t.py:17:9: T.atomic_min: region of buffer 'S' has shape [64, 32] but region of buffer 'A' has shape [32, 64]");
  expect_ok(kernel(call(TL_OP_ATOMIC_MIN_ELEM, 2, fx_region2(M, a, i32(3), i32(4), 1, 1), f32(1))));
  expect_err(kernel(call(TL_OP_ATOMIC_MAX_ELEM, 2, fx_region2(M, a, i32(3), i32(4), 2, 1), f32(1))),
             "t.py:17:9: T.atomic_max_elem: region of buffer 'A' has shape [2, 1]; it must be one element");
}

static void test_copy_shapes(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 2, 128, 128);
  at(18, 2);
  tl_ir_buffer *s = buf("S", TL_DT_FLOAT32, TL_SCOPE_SHARED, 2, 32, 32);
  tl_ir_buffer *r = buf("R", TL_DT_FLOAT32, TL_SCOPE_SHARED, 1, 64);
  tl_ir_buffer *bufs[2] = {s, r};
#define seq2(al, op) allocs_then(bufs, 2, op)
  expect_ok(kernel(seq2(al, call(TL_OP_COPY, 2, fx_region2(M, a, i32(0), i32(32), 32, 32), full(s)))));
  expect_err(kernel(seq2(al, call(TL_OP_COPY, 2, fx_region2(M, a, i32(0), i32(32), 64, 32), full(s)))),
             "t.py:18:2: T.copy: region of buffer 'A' has shape [64, 32] but region of buffer 'S' has shape [32, 32]");
  /* A row of A into a 1-D buffer: unit dimensions do not count. */
  expect_ok(kernel(seq2(al, call(TL_OP_COPY, 2, fx_region2(M, a, i32(5), i32(0), 1, 64), full(r)))));
  expect_err(kernel(seq2(al, call(TL_OP_COPY, 2, fx_region2(M, a, i32(5), i32(0), 2, 64), full(r)))),
             "t.py:18:2: T.copy: region of buffer 'A' has shape [2, 64] but region of buffer 'R' has shape [64]");
  /* Symbolic extents are not compared. */
  tl_ir_var *n = var("n");
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(M, F, n));
  tl_ir_expr *mins[2] = {i32(0), i32(0)}, *ext[2] = {ref(n), i32(64)};
  expect_ok(kernel(seq2(al, call(TL_OP_COPY, 2, tl_ir_region(M, a, mins, ext, TL_REGION_SLICE), full(r)))));
  tl_ir_expr *cum = fx_region2(M, a, i32(0), i32(0), 32, 32);
  expect_ok(kernel(seq2(al, call(TL_OP_CUMSUM, 4, cum, full(s), i32(1), i32(0)))));
  expect_err(kernel(seq2(al, call(TL_OP_CUMSUM, 4, cum, full(s), i32(2), i32(0)))),
             "t.py:18:2: T.cumsum: dim 2 is out of range for the 2-dimensional region of buffer 'A'");
  expect_err(kernel(seq2(al, call(TL_OP_CUMSUM, 4, cum, full(s), i32(0), i32(3)))),
             "t.py:18:2: T.cumsum: argument 'reverse' must be 0 or 1, not 3");
  expect_ok(kernel(seq2(al, call(TL_OP_CUMMAX, 4, cum, full(s), i32(0), i32(1)))));
  expect_err(kernel(seq2(al, call(TL_OP_CUMMAX, 4, cum, full(s), i32(2), i32(0)))),
             "t.py:18:2: T.cummax: dim 2 is out of range for the 2-dimensional region of buffer 'A'");
#undef seq2
}

static void test_gemm_shapes(void **state) {
  (void)state;
  at(19, 3);
  tl_ir_buffer *as = buf("A_s", TL_DT_FLOAT16, TL_SCOPE_SHARED, 2, 64, 32);
  tl_ir_buffer *bs = buf("B_s", TL_DT_FLOAT16, TL_SCOPE_SHARED, 2, 32, 128);
  tl_ir_buffer *bt = buf("B_t", TL_DT_FLOAT16, TL_SCOPE_SHARED, 2, 128, 32);
  tl_ir_buffer *cl = buf("C_l", TL_DT_FLOAT32, TL_SCOPE_LOCAL_FRAGMENT, 2, 64, 128);
  tl_ir_buffer *c1 = buf("C_1", TL_DT_FLOAT32, TL_SCOPE_LOCAL_FRAGMENT, 1, 64);
  tl_ir_buffer *bn = buf("B_n", TL_DT_FLOAT16, TL_SCOPE_SHARED, 2, 32, 64);
  tl_ir_buffer *bufs[6] = {as, bs, bt, cl, c1, bn};
#define seq2(al, op) allocs_then(bufs, 6, op)
#define GEMM(A, B, C, ta, tb, cl_) \
  kernel(seq2(allocs, call(TL_OP_GEMM, 7, full(A), full(B), full(C), i32(ta), i32(tb), i32(cl_), i32(0))))
  expect_ok(GEMM(as, bs, cl, 0, 0, 0));
  expect_ok(GEMM(as, bt, cl, 0, 1, 1));
  expect_err(GEMM(as, bt, cl, 0, 0, 0), "t.py:19:3: T.gemm: K of A (buffer 'A_s') is 32 but K of B (buffer 'B_t') is 128");
  expect_err(GEMM(as, bs, cl, 1, 0, 0), "t.py:19:3: T.gemm: K of A (buffer 'A_s') is 64 but K of B (buffer 'B_s') is 32");
  expect_err(GEMM(bs, bt, cl, 0, 0, 0), "t.py:19:3: T.gemm: M of A (buffer 'B_s') is 32 but M of C (buffer 'C_l') is 64");
  expect_err(GEMM(as, bn, cl, 0, 0, 0), "t.py:19:3: T.gemm: N of B (buffer 'B_n') is 64 but N of C (buffer 'C_l') is 128");
  expect_err(GEMM(as, bs, c1, 0, 0, 0), "t.py:19:3: T.gemm: C (buffer 'C_1') has 1 dimension; gemm needs 2");
  expect_err(GEMM(as, bs, cl, 2, 0, 0), "t.py:19:3: T.gemm: argument 'transpose_A' must be 0 or 1, not 2");
  expect_err(kernel(seq2(allocs, call(TL_OP_GEMM, 7, full(as), full(bs), full(cl), i32(0), f32(0), i32(0), i32(0)))),
             "t.py:19:3: T.gemm: argument 'transpose_B' must be an integer constant");
  expect_err(kernel(seq2(allocs, call(TL_OP_GEMM, 5, full(as), full(bs), full(cl), i32(0), i32(0)))),
             "t.py:19:3: T.gemm takes 7 arguments, got 5");
  expect_err(kernel(seq2(allocs, call(TL_OP_GEMM, 7, full(as), full(bs), full(cl), i32(0), i32(0), i32(0), i32(3)))),
             "t.py:19:3: T.gemm: argument 'policy' must be 0 (Square), 1 (FullRow) or 2 (FullCol), not 3");
#undef GEMM
#undef seq2
}

static void test_reduce_shapes(void **state) {
  (void)state;
  at(20, 4);
  tl_ir_buffer *src = buf("acc", TL_DT_FLOAT32, TL_SCOPE_LOCAL_FRAGMENT, 2, 64, 32);
  tl_ir_buffer *row = buf("row", TL_DT_FLOAT32, TL_SCOPE_LOCAL_FRAGMENT, 1, 64);
  tl_ir_buffer *col = buf("col", TL_DT_FLOAT32, TL_SCOPE_LOCAL_FRAGMENT, 1, 32);
  tl_ir_buffer *keep = buf("keep", TL_DT_FLOAT32, TL_SCOPE_LOCAL_FRAGMENT, 2, 64, 1);
  tl_ir_buffer *bufs[4] = {src, row, col, keep};
#define RED(op, D, dim) kernel(allocs_then(bufs, 4, call(op, 4, full(src), full(D), i32(dim), i32(1))))
  expect_ok(RED(TL_OP_REDUCE_MAX, row, 1));
  expect_ok(RED(TL_OP_REDUCE_SUM, col, 0));
  expect_ok(RED(TL_OP_REDUCE_ABSMAX, keep, 1));
  expect_err(RED(TL_OP_REDUCE_MIN, col, 1),
             "t.py:20:4: T.reduce_min: region of buffer 'col' has shape [32], which cannot hold the reduction of [64, 32] over dim 1");
  expect_err(RED(TL_OP_REDUCE_ABSSUM, keep, 0),
             "t.py:20:4: T.reduce_abssum: region of buffer 'keep' has shape [64, 1], which cannot hold the reduction of [64, 32] over dim 0");
  expect_err(RED(TL_OP_REDUCE_SUM, row, 2), "t.py:20:4: T.reduce_sum: dim 2 is out of range for the 2-dimensional region of buffer 'acc'");
  expect_err(RED(TL_OP_REDUCE_SUM, row, -1), "t.py:20:4: T.reduce_sum: dim -1 is out of range for the 2-dimensional region of buffer 'acc'");
  expect_err(RED(TL_OP_REDUCE_BITXOR, row, 1),
             "t.py:20:4: T.reduce_bitxor: buffer 'acc' holds float32; a bitwise reduction needs integers");
  tl_ir_buffer *isrc = buf("bits", TL_DT_INT32, TL_SCOPE_LOCAL_FRAGMENT, 2, 64, 32);
  tl_ir_buffer *irow = buf("xor", TL_DT_INT32, TL_SCOPE_LOCAL_FRAGMENT, 1, 64);
  tl_ir_buffer *ibufs[2] = {isrc, irow};
  expect_ok(kernel(allocs_then(ibufs, 2, call(TL_OP_REDUCE_BITXOR, 4, full(isrc), full(irow), i32(1), i32(1)))));
  expect_err(kernel(allocs_then(ibufs, 2, call(TL_OP_REDUCE_BITXOR, 4, full(isrc), full(irow), i32(0), i32(1)))),
             "t.py:20:4: T.reduce_bitxor: region of buffer 'xor' has shape [64], which cannot hold the reduction of [64, 32] over dim 0");
  expect_err(RED(TL_OP_REDUCE_BITAND, row, 1),
             "t.py:20:4: T.reduce_bitand: buffer 'acc' holds float32; a bitwise reduction needs integers");
  expect_err(RED(TL_OP_REDUCE_BITOR, row, 1),
             "t.py:20:4: T.reduce_bitor: buffer 'acc' holds float32; a bitwise reduction needs integers");
  expect_ok(kernel(allocs_then(ibufs, 2, call(TL_OP_REDUCE_BITAND, 4, full(isrc), full(irow), i32(1), i32(0)))));
  expect_err(kernel(allocs_then(ibufs, 2, call(TL_OP_REDUCE_BITOR, 4, full(isrc), full(irow), i32(0), i32(1)))),
             "t.py:20:4: T.reduce_bitor: region of buffer 'xor' has shape [64], which cannot hold the reduction of [64, 32] over dim 0");
#undef RED
}

/* ----------------------------------------------------------- lowered forms */

static void test_launch_and_device_kernels(void **state) {
  (void)state;
  tl_ir_func *h = fx_host_device(M, "scale", "scale_kernel");
  assert_non_null(h);
  tl_ir_func *k = tl_ir_module_find_func(M, "scale_kernel");
  F->body = tl_ir_seq(M, 0, NULL);
  TL_ASSERT_OK(tl_ir_verify_module(M));
  tl_ir_stmt *launch = h->body->u.seq.stmts[1];
  launch->span = (tl_ir_span){"t.py", 41, 5};
  launch->u.launch.kernel = "nope";
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG("t.py:41:5: launch of 'nope': the module has no such function");
  TL_ASSERT_OK(tl_ir_verify_func(h)); /* one function alone cannot see the others */
  launch->u.launch.kernel = "f";
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG("t.py:41:5: launch of 'f': the function is not a device kernel");
  launch->u.launch.kernel = "scale_kernel";
  launch->u.launch.nargs = 1;
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG("t.py:41:5: launch of 'scale_kernel' passes 1 arguments; the kernel takes 2");
  launch->u.launch.nargs = 2;
  tl_ir_expr *saved = launch->u.launch.args[1];
  launch->u.launch.args[1] = tl_ir_int(M, TL_DT_INT64, 5);
  launch->u.launch.args[1]->span = (tl_ir_span){"t.py", 41, 30};
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG("t.py:41:30: launch of 'scale_kernel': argument 1 is int64; parameter 'n' takes int32");
  launch->u.launch.args[1] = saved;
  TL_ASSERT_OK(tl_ir_verify_module(M));

  /* A launch inside a kernel; a kernel inside a device kernel. */
  at(50, 1);
  expect_err(kernel(launch), "t.py:41:5: launch of 'scale_kernel' inside a kernel");
  F->body = tl_ir_seq(M, 0, NULL);
  tl_ir_stmt *kbody = k->body;
  k->body = kernel(tl_ir_seq(M, 0, NULL));
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG("t.py:50:1: T.Kernel inside a device kernel");
  k->body = kbody;
  /* Thread loops: a valid tag, inside a kernel. */
  tl_ir_stmt *tloop = kbody->u.loop.body;
  tloop->u.loop.thread_tag = "threadIdx.w";
  TL_ASSERT_ERR(tl_ir_verify_module(M), TL_EINVAL, "");
  TL_ASSERT_MSG("k.py:30:1: thread loop over 'tx' has thread tag 'threadIdx.w'");
  tloop->u.loop.thread_tag = "threadIdx.x";
  tl_ir_var *tx = var("t");
  tl_ir_expr *e[1] = {i32(4)};
  tl_ir_stmt *tl = tl_ir_for(M, TL_FOR_THREAD, 1, &tx, NULL, e, tl_ir_seq(M, 0, NULL));
  tl->u.loop.thread_tag = "threadIdx.y";
  expect_err(tl, "t.py:50:1: thread loop over 't' outside a kernel");
  tl_ir_stmt *sl = loop(tx, 4, tl_ir_seq(M, 0, NULL));
  sl->u.loop.thread_tag = "threadIdx.y";
  expect_err(sl, "t.py:50:1: loop over 't' has a thread tag but is not a thread loop");
  F->body = NULL;
  tl_ir_module_remove_func(M, 0);
  TL_ASSERT_OK(tl_ir_verify_module(M));
}

static void test_kernel_forms(void **state) {
  (void)state;
  at(23, 2);
  tl_ir_expr *g[2] = {f32(2), i32(2)}, *t[1] = {i32(32)};
  tl_ir_var *bx = var("bx");
  expect_err(tl_ir_kernel(M, 1, g, 1, t, &bx, tl_ir_barrier(M)), "t.py:23:2: a grid extent must be an integer, not float32");
  tl_ir_stmt *k = tl_ir_kernel(M, 1, g + 1, 1, t, &bx, tl_ir_barrier(M));
  expect_ok(k);
  k->u.kernel.threads_ndim = 0;
  expect_err(k, "t.py:23:2: T.Kernel has 0 thread dimensions; 1 to 3 are allowed");
  k->u.kernel.threads_ndim = 1;
  k->u.kernel.grid[1] = i32(4);
  expect_err(k, "t.py:23:2: T.Kernel sets grid dimension 1 past grid_ndim 1");
  k->u.kernel.grid[1] = NULL;
  tl_ir_var *fx = tl_ir_var_new(M, "fx", TL_DT_FLOAT32);
  expect_err(tl_ir_kernel(M, 1, g + 1, 1, t, &fx, tl_ir_barrier(M)), "t.py:23:2: variable 'fx' must be an integer, not float32");
  /* Lowering binds thread variables; they are defined in the body. */
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 32, 0);
  tl_ir_var *tx = var("tx");
  tl_ir_stmt *k2 = tl_ir_kernel(M, 1, g + 1, 1, t, &bx, store1(a, ref(tx), f32(0)));
  expect_err(k2, "t.py:23:2: use of undefined variable 'tx'");
  k2->u.kernel.thread_vars[0] = tx;
  expect_ok(k2);
  k2->u.kernel.thread_vars[1] = bx;
  expect_err(k2, "t.py:23:2: variable 'bx' is defined twice");
}

/* ---------------------------------------------------------------- spans */

/* A device kernel's blockIdx/threadIdx variables may be free (the launch binds
 * them); anywhere else, and untagged or with another tag, they are undefined. */
static void test_free_launch_indices(void **state) {
  (void)state;
  at(60, 3);
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 64, 0);
  tl_ir_var *tx = var("tx"), *by = var("by");
  tx->thread_tag = "threadIdx.x";
  by->thread_tag = "blockIdx.y";
  tl_ir_stmt *body = store1(a, bin(TL_BIN_ADD, ref(tx), ref(by)), f32(1));
  expect_err(body, "t.py:60:3: use of undefined variable 'tx'");
  F->callconv = TL_CALLCONV_DEVICE_KERNEL;
  expect_ok(body);
  by->thread_tag = "vthread";
  expect_err(body, "t.py:60:3: use of undefined variable 'by'");
  by->thread_tag = NULL;
  expect_err(body, "t.py:60:3: use of undefined variable 'by'");
}

static void test_message_locations(void **state) {
  (void)state;
  tl_ir_buffer *a = param("A", TL_DT_FLOAT32, 1, 8, 0);
  /* Nothing has a location: the bare message. */
  tl_ir_builder_set_loc(M, (tl_ir_span){0});
  F->span = (tl_ir_span){0};
  expect_err(store1(a, i32(0), tl_ir_float(M, TL_DT_FLOAT16, 1)), "value stored to buffer 'A' is float16; the store needs float32");
  /* An expression without a location reports its statement's. */
  tl_ir_expr *v = tl_ir_float(M, TL_DT_FLOAT16, 1);
  at(21, 8);
  expect_err(store1(a, i32(0), v), "t.py:21:8: value stored to buffer 'A' is float16; the store needs float32");
  /* ... and a statement without one, its enclosing statement's. */
  tl_ir_builder_set_loc(M, (tl_ir_span){0});
  tl_ir_stmt *s = store1(a, i32(0), v);
  at(22, 1);
  expect_err(tl_ir_if(M, tl_ir_bool(M, true), s, NULL), "t.py:22:1: value stored to buffer 'A' is float16; the store needs float32");
  /* A file-less span still gives line and column. */
  tl_ir_builder_set_loc(M, (tl_ir_span){NULL, 3, 2});
  expect_err(tl_ir_barrier(M), "<unknown>:3:2: barrier outside T.Kernel");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fixtures_verify, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_body, setup, teardown),
      cmocka_unit_test_setup_teardown(test_binary_operand_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unary_select_cast, setup, teardown),
      cmocka_unit_test_setup_teardown(test_constants, setup, teardown),
      cmocka_unit_test_setup_teardown(test_store_load_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_conditions_and_loops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_let_and_var_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_math_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_undefined_variables, setup, teardown),
      cmocka_unit_test_setup_teardown(test_defined_twice, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffers_and_ranks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scopes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_param_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tile_op_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_copy_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gemm_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reduce_shapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_launch_and_device_kernels, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kernel_forms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_free_launch_indices, setup, teardown),
      cmocka_unit_test_setup_teardown(test_message_locations, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
