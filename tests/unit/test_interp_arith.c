/* The interpreter's arithmetic: float16/bfloat16 results rounded to nearest even
 * after every operation (ties, overflow to infinity, subnormals), integer
 * wrap-around, truncating and floor division with Python's signs, shifts, casts,
 * division by zero, short-circuit logic, math intrinsics and vector lanes. */
#include "base/fp16.h"
#include "interp_util.h"

static const tl_ir_span k_span = {"arith.py", 3, 7};

static bool is_cmp(tl_ir_binop op) { return op >= TL_BIN_EQ && op <= TL_BIN_GE; }

/* Runs `O[0] = a op b` with scalar parameters a, b of dtype t; O[0] goes to out. */
static tl_status run_binop(tl_ir_binop op, tl_dtype t, tl_value a, tl_value b, void *out) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *va = tl_ir_var_new(m, "a", t), *vb = tl_ir_var_new(m, "b", t);
  tl_dtype ot = is_cmp(op) ? TL_DT_BOOL : t;
  tl_ir_buffer *O = buf1(m, "O", ot, I32(1), TL_SCOPE_GLOBAL);
  tl_ir_builder_set_loc(m, k_span);
  tl_ir_stmt *body = STORE(O, tl_ir_binary(m, op, VAR(va), VAR(vb)), I32(0));
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, va));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, vb));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, O, false));
  f->body = body;
  host_tensor h;
  tl_value args[] = {a, b, ht_wrap(&h, ot, out, 1, 1, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  tl_status s = tl_ir_interpret(m, "f", args, 3);
  tl_ir_module_free(m);
  return s;
}

static uint16_t half_op(tl_ir_binop op, tl_dtype t, double a, double b) {
  uint16_t out = 0xdead;
  TL_ASSERT_OK(run_binop(op, t, tl_value_float(a), tl_value_float(b), &out));
  return out;
}

static int64_t int_op(tl_ir_binop op, tl_dtype t, int64_t a, int64_t b) {
  int64_t out = 0;
  TL_ASSERT_OK(run_binop(op, t, tl_value_int(a), tl_value_int(b), &out));
  switch (t.bits) { /* out holds one element of t (little-endian host) */
  case 8: return t.code == TL_DTYPE_INT ? (int64_t)(int8_t)out : (int64_t)(uint8_t)out;
  case 16: return t.code == TL_DTYPE_INT ? (int64_t)(int16_t)out : (int64_t)(uint16_t)out;
  case 32: return t.code == TL_DTYPE_INT ? (int64_t)(int32_t)out : (int64_t)(uint32_t)out;
  default: return out;
  }
}

static void test_float16_rounding(void **state) {
  (void)state;
  tl_dtype H = TL_DT_FLOAT16;
  double u = ldexp(1.0, -11); /* half an ulp at 1.0 */
  assert_int_equal(half_op(TL_BIN_ADD, H, 1.0, u), 0x3c00);                  /* tie: stays even */
  assert_int_equal(half_op(TL_BIN_ADD, H, 1.0 + 2 * u, u), 0x3c02);          /* tie: up to even */
  assert_int_equal(half_op(TL_BIN_ADD, H, 65504.0, 16.0), 0x7c00);           /* overflow */
  assert_int_equal(half_op(TL_BIN_ADD, H, 65504.0, 8.0), 0x7bff);
  assert_int_equal(half_op(TL_BIN_MUL, H, 65504.0, -2.0), 0xfc00);
  assert_int_equal(half_op(TL_BIN_MUL, H, ldexp(1.0, -14), 0.5), 0x0200);    /* exact subnormal */
  assert_int_equal(half_op(TL_BIN_MUL, H, ldexp(1.0, -24), 0.5), 0x0000);    /* tie to zero */
  assert_int_equal(half_op(TL_BIN_MUL, H, ldexp(1.0, -24), 1.5), 0x0002);    /* tie up to even */
  assert_int_equal(half_op(TL_BIN_MUL, H, -ldexp(1.0, -24), 0.25), 0x8000);  /* signed zero */
  assert_int_equal(half_op(TL_BIN_DIV, H, 1.0, 3.0), 0x3555);
  assert_int_equal(half_op(TL_BIN_DIV, H, 1.0, 0.0), 0x7c00);
  /* Scalar arguments are rounded to the parameter's dtype: 1 + 2^-12 is 1. */
  assert_int_equal(half_op(TL_BIN_SUB, H, 1.0 + ldexp(1.0, -12), 1.0), 0x0000);
  assert_int_equal(half_op(TL_BIN_MAX, H, -3.0, 2.0), 0x4000);
  uint8_t lt = 9;
  TL_ASSERT_OK(run_binop(TL_BIN_LT, H, tl_value_float(1.0), tl_value_float(1.0 + 2 * u), &lt));
  assert_int_equal(lt, 1);
}

static void test_bfloat16_rounding(void **state) {
  (void)state;
  tl_dtype B = TL_DT_BFLOAT16;
  double u = ldexp(1.0, -8);
  assert_int_equal(half_op(TL_BIN_ADD, B, 1.0, u), 0x3f80);
  assert_int_equal(half_op(TL_BIN_ADD, B, 1.0 + 2 * u, u), 0x3f82);
  assert_int_equal(half_op(TL_BIN_MUL, B, 3e38, 2.0), 0x7f80);
  assert_int_equal(half_op(TL_BIN_MUL, B, ldexp(1.0, -126), 0.5), 0x0040); /* subnormal */
  assert_int_equal(half_op(TL_BIN_DIV, B, 1.0, 3.0), tl__f64_to_bf16(1.0 / 3.0));
}

/* (a + b) - b rounds after the addition: in float16 1 + 2048 is 2048. */
static void test_rounding_after_every_operation(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *a = tl_ir_var_new(m, "a", TL_DT_FLOAT16), *b = tl_ir_var_new(m, "b", TL_DT_FLOAT16);
  tl_ir_var *x = tl_ir_var_new(m, "x", TL_DT_FLOAT32);
  tl_ir_buffer *O = buf1(m, "O", TL_DT_FLOAT16, I32(4), TL_SCOPE_GLOBAL);
  tl_ir_buffer *P = buf1(m, "P", TL_DT_FLOAT32, I32(2), TL_SCOPE_GLOBAL);
  tl_ir_stmt *body =
      SEQ(STORE(O, SUB(ADD(VAR(a), VAR(b)), VAR(b)), I32(0)),
          /* float32 keeps it: the same sum in float32, then back to float16 */
          STORE(O, tl_ir_cast(m, TL_DT_FLOAT16, SUB(ADD(tl_ir_cast(m, TL_DT_FLOAT32, VAR(a)), tl_ir_cast(m, TL_DT_FLOAT32, VAR(b))),
                                                     tl_ir_cast(m, TL_DT_FLOAT32, VAR(b)))),
                I32(1)),
          STORE(O, tl_ir_cast(m, TL_DT_FLOAT16, VAR(x)), I32(2)),
          STORE(O, CALL(TL_OP_SQRT, TL_DT_FLOAT16, VAR(b)), I32(3)),
          STORE(P, tl_ir_cast(m, TL_DT_FLOAT32, CALL(TL_OP_EXP, TL_DT_FLOAT16, tl_ir_float(m, TL_DT_FLOAT16, 1.0))), I32(0)),
          STORE(P, ADD(VAR(x), F32(0.0)), I32(1)));
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, a));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, b));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, x));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, O, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, P, false));
  f->body = body;
  uint16_t o[4];
  float p[2];
  host_tensor ho, hp;
  double xv = 1.0 + ldexp(1.0, -11) + ldexp(1.0, -20); /* just above a float16 tie */
  tl_value args[] = {tl_value_float(1.0), tl_value_float(2048.0), tl_value_float(xv),
                     ht_wrap(&ho, TL_DT_FLOAT16, o, 1, 4, 0), ht_wrap(&hp, TL_DT_FLOAT32, p, 1, 2, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m)); TL_ASSERT_OK(tl_ir_interpret(m, "f", args, 5));
  assert_int_equal(o[0], 0x0000);
  assert_int_equal(o[1], 0x3c00);
  assert_int_equal(o[2], 0x3c01);
  assert_int_equal(o[3], tl__f64_to_f16(sqrt(2048.0)));
  assert_true(p[0] == 2.71875f); /* e in float16 */
  assert_true(p[1] == (float)xv);
  tl_ir_module_free(m);
}

static void test_integer_semantics(void **state) {
  (void)state;
  tl_dtype I = TL_DT_INT32, I8 = TL_DT_INT8, U8 = TL_DT_UINT8, I64 = TL_DT_INT64;
  assert_int_equal(int_op(TL_BIN_ADD, I, INT32_MAX, 1), INT32_MIN);
  assert_int_equal(int_op(TL_BIN_SUB, I, INT32_MIN, 1), INT32_MAX);
  assert_int_equal(int_op(TL_BIN_MUL, I, 65536, 65536), 0);
  assert_int_equal(int_op(TL_BIN_ADD, I8, 127, 1), -128);
  assert_int_equal(int_op(TL_BIN_SUB, U8, 0, 1), 255);
  assert_int_equal(int_op(TL_BIN_MUL, U8, 16, 17), 16);
  assert_int_equal(int_op(TL_BIN_ADD, I64, INT64_MAX, 1), INT64_MIN);
  /* `/` truncates, `//` and `%` follow Python. */
  assert_int_equal(int_op(TL_BIN_DIV, I, -7, 2), -3);
  assert_int_equal(int_op(TL_BIN_FLOORDIV, I, -7, 2), -4);
  assert_int_equal(int_op(TL_BIN_FLOORMOD, I, -7, 2), 1);
  assert_int_equal(int_op(TL_BIN_FLOORDIV, I, 7, -2), -4);
  assert_int_equal(int_op(TL_BIN_FLOORMOD, I, 7, -2), -1);
  assert_int_equal(int_op(TL_BIN_FLOORDIV, I, -7, -2), 3);
  assert_int_equal(int_op(TL_BIN_FLOORMOD, I, -7, -2), -1);
  assert_int_equal(int_op(TL_BIN_FLOORDIV, I, 6, 3), 2);
  assert_int_equal(int_op(TL_BIN_FLOORMOD, I, -6, 3), 0);
  assert_int_equal(int_op(TL_BIN_DIV, I, INT32_MIN, -1), INT32_MIN);
  assert_int_equal(int_op(TL_BIN_DIV, I64, INT64_MIN, -1), INT64_MIN);
  assert_int_equal(int_op(TL_BIN_FLOORMOD, I64, INT64_MIN, -1), 0);
  assert_int_equal(int_op(TL_BIN_FLOORDIV, U8, 250, 7), 35);
  assert_int_equal(int_op(TL_BIN_MIN, I, -3, 2), -3);
  assert_int_equal(int_op(TL_BIN_MAX, U8, 200, 100), 200);
  assert_int_equal(int_op(TL_BIN_SHL, I, 1, 31), INT32_MIN);
  assert_int_equal(int_op(TL_BIN_SHR, I, -8, 1), -4);
  assert_int_equal(int_op(TL_BIN_SHR, U8, 255, 4), 15);
  assert_int_equal(int_op(TL_BIN_BITXOR, I, 0x0f0f, 0x00ff), 0x0ff0);
  uint8_t lt;
  TL_ASSERT_OK(run_binop(TL_BIN_LT, U8, tl_value_int(1), tl_value_int(200), &lt));
  assert_int_equal(lt, 1);
  int64_t out;
  TL_ASSERT_ERR(run_binop(TL_BIN_DIV, I, tl_value_int(1), tl_value_int(0), &out), TL_ERUNTIME,
                "arith.py:3:7: integer division by zero");
  TL_ASSERT_ERR(run_binop(TL_BIN_FLOORMOD, I, tl_value_int(1), tl_value_int(0), &out), TL_ERUNTIME,
                "division by zero");
  TL_ASSERT_ERR(run_binop(TL_BIN_SHL, I, tl_value_int(1), tl_value_int(32), &out), TL_ERUNTIME,
                "shift by 32 is out of range");
  /* Scalars that do not fit the parameter's type are refused. */
  TL_ASSERT_ERR(run_binop(TL_BIN_ADD, I8, tl_value_int(200), tl_value_int(0), &out), TL_EINVAL,
                "argument 'a': 200 does not fit int8");
  TL_ASSERT_ERR(run_binop(TL_BIN_ADD, I, tl_value_float(2.5), tl_value_int(0), &out), TL_EINVAL,
                "argument 'a': expected an integer (int32) but got 2.5");
}

/* Float to integer truncates toward zero; NaN and out-of-range values are errors. */
static tl_status run_cast(tl_dtype to, double x, int64_t *out) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *a = tl_ir_var_new(m, "a", TL_DT_FLOAT32);
  tl_ir_buffer *O = buf1(m, "O", to, I32(1), TL_SCOPE_GLOBAL);
  tl_ir_builder_set_loc(m, (tl_ir_span){"cast.py", 5, 12});
  tl_ir_stmt *body = STORE(O, tl_ir_cast(m, to, VAR(a)), I32(0));
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, a));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, O, false));
  f->body = body;
  host_tensor h;
  *out = 0;
  tl_value args[] = {tl_value_float(x), ht_wrap(&h, to, out, 1, 1, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  tl_status s = tl_ir_interpret(m, "f", args, 2);
  tl_ir_module_free(m);
  return s;
}

static void test_casts(void **state) {
  (void)state;
  int64_t v;
  TL_ASSERT_OK(run_cast(TL_DT_INT32, -2.7, &v));
  assert_int_equal((int32_t)v, -2);
  TL_ASSERT_OK(run_cast(TL_DT_UINT8, 255.9, &v));
  assert_int_equal((uint8_t)v, 255);
  TL_ASSERT_OK(run_cast(TL_DT_BOOL, 0.25, &v));
  assert_int_equal((uint8_t)v, 1);
  TL_ASSERT_ERR(run_cast(TL_DT_INT32, 3e10, &v), TL_ERUNTIME, "cast.py:5:12: cannot convert 3.0000001e+10 to int32: out of range");
  TL_ASSERT_ERR(run_cast(TL_DT_UINT8, -1.0, &v), TL_ERUNTIME, "cannot convert -1 to uint8");
  TL_ASSERT_ERR(run_cast(TL_DT_INT64, NAN, &v), TL_ERUNTIME, "cannot convert nan to int64");
}

/* `and` / `or` short-circuit: the guard keeps A[i] from being read out of bounds;
 * the unguarded read reports it. */
static void test_short_circuit(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, I32(4), TL_SCOPE_GLOBAL);
  tl_ir_buffer *O = buf1(m, "O", TL_DT_INT32, I32(1), TL_SCOPE_GLOBAL);
  tl_ir_builder_set_loc(m, (tl_ir_span){"sc.py", 8, 20});
  tl_ir_expr *guard = LT(VAR(i), I32(4)), *read = BIN(GT, LOAD(A, VAR(i)), F32(0));
  tl_ir_func *f, *g;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, i));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, A, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, O, false));
  f->body = STORE(O, tl_ir_select(m, BIN(AND, guard, read), I32(1), I32(2)), I32(0));
  TL_ASSERT_OK(tl_ir_func_new(m, "g", &g));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, g, i));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, g, A, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, g, O, false));
  g->body = STORE(O, tl_ir_select(m, BIN(OR, read, guard), I32(1), I32(2)), I32(0));
  float a[4] = {1, -1, 1, -1};
  int32_t o = 0;
  host_tensor ha, ho;
  tl_value args[] = {tl_value_int(4), ht_wrap(&ha, TL_DT_FLOAT32, a, 1, 4, 0), ht_wrap(&ho, TL_DT_INT32, &o, 1, 1, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m)); TL_ASSERT_OK(tl_ir_interpret(m, "f", args, 3));
  assert_int_equal(o, 2);
  args[0] = tl_value_int(2);
  TL_ASSERT_OK(tl_ir_verify_module(m)); TL_ASSERT_OK(tl_ir_interpret(m, "f", args, 3));
  assert_int_equal(o, 1);
  args[0] = tl_value_int(4);
  TL_ASSERT_ERR(tl_ir_interpret(m, "g", args, 3), TL_ERUNTIME,
                "sc.py:8:20: buffer 'A' index [4] out of bounds for shape [4]");
  tl_ir_module_free(m);
}

/* Vector lanes: ramp indices (also descending), a broadcast and a vector store. */
static void test_vectors(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, I32(8), TL_SCOPE_GLOBAL);
  tl_ir_buffer *B = buf1(m, "B", TL_DT_FLOAT32, I32(8), TL_SCOPE_GLOBAL);
  tl_ir_var *j = tl_ir_var_new(m, "j", TL_DT_INT32);
  tl_ir_expr *idx = tl_ir_ramp(m, MUL(VAR(j), I32(4)), 1, 4);
  tl_ir_expr *rev = tl_ir_ramp(m, ADD(MUL(VAR(j), I32(4)), I32(3)), -1, 4);
  tl_ir_expr *v = ADD(LOAD(A, idx), tl_ir_broadcast(m, F32(10), 4));
  tl_ir_stmt *body = single_var_loop(m, TL_FOR_VECTORIZED, j, I32(2), STORE(B, MUL(v, v), rev));
  make_func(m, "vec", (tl_ir_buffer *[]){A, B}, 2, body);
  float a[8] = {0, 1, 2, 3, 4, 5, 6, 7}, b[8] = {0};
  host_tensor ha, hb;
  tl_value args[] = {ht_wrap(&ha, TL_DT_FLOAT32, a, 1, 8, 0), ht_wrap(&hb, TL_DT_FLOAT32, b, 1, 8, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m)); TL_ASSERT_OK(tl_ir_interpret(m, "vec", args, 2));
  for (int k = 0; k < 8; k++) {
    int src = (k / 4) * 4 + 3 - k % 4;
    assert_true(b[k] == (a[src] + 10) * (a[src] + 10));
  }
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float16_rounding),
      cmocka_unit_test(test_bfloat16_rounding),
      cmocka_unit_test(test_rounding_after_every_operation),
      cmocka_unit_test(test_integer_semantics),
      cmocka_unit_test(test_casts),
      cmocka_unit_test(test_short_circuit),
      cmocka_unit_test(test_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
