/* Argument checking (every message), out-of-bounds reports with their source
 * location, and poisoned allocations: reading memory a kernel never wrote gives
 * NaN (floats) or 0xA5 bytes (integers), freshly for every block. */
#include <stdlib.h>

#include "interp_util.h"

#define GLOBAL TL_SCOPE_GLOBAL

typedef struct args_fixture {
  tl_ir_module *m;
  float a[10], b[10], c[64];
  host_tensor ha, hb, hc;
  tl_value args[4];
} args_fixture;

/* f(A: float32[N], B: float32[N], C: float32[16, 4], n: int32) with an empty body. */
static int setup(void **state) {
  args_fixture *fx = calloc(1, sizeof *fx);
  tl_ir_module *m;
  if (!fx || tl_ir_module_create(&m) != TL_OK) return -1;
  fx->m = m;
  tl_ir_var *N = tl_ir_var_new(m, "N", TL_DT_INT32), *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, VAR(N), GLOBAL), *B = buf1(m, "B", TL_DT_FLOAT32, VAR(N), GLOBAL),
               *C = buf2(m, "C", TL_DT_FLOAT32, I32(16), I32(4), GLOBAL);
  tl_ir_func *f;
  if (tl_ir_func_new(m, "f", &f) != TL_OK || tl_ir_func_add_buffer_param(m, f, A, false) != TL_OK ||
      tl_ir_func_add_buffer_param(m, f, B, false) != TL_OK || tl_ir_func_add_buffer_param(m, f, C, true) != TL_OK ||
      tl_ir_func_add_scalar_param(m, f, n) != TL_OK)
    return -1;
  f->body = tl_ir_seq(m, 0, NULL);
  fx->args[0] = ht_wrap(&fx->ha, TL_DT_FLOAT32, fx->a, 1, 10, 0);
  fx->args[1] = ht_wrap(&fx->hb, TL_DT_FLOAT32, fx->b, 1, 10, 0);
  fx->args[2] = ht_wrap(&fx->hc, TL_DT_FLOAT32, fx->c, 2, 16, 4);
  fx->args[3] = tl_value_int(3);
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  args_fixture *fx = *state;
  tl_ir_module_free(fx->m);
  free(fx);
  return 0;
}

static void test_valid_arguments(void **state) {
  args_fixture *fx = *state;
  TL_ASSERT_OK(tl_ir_verify_module(fx->m));
  TL_ASSERT_OK(tl_ir_interpret(fx->m, "f", fx->args, 4));
  /* Strides are accepted when they are the compact ones. */
  int64_t strides[2] = {4, 1};
  fx->hc.t.strides = strides;
  TL_ASSERT_OK(tl_ir_interpret(fx->m, "f", fx->args, 4));
}

static void test_argument_errors(void **state) {
  args_fixture *fx = *state;
  tl_ir_module *m = fx->m;
  tl_value *args = fx->args;
  TL_ASSERT_ERR(tl_ir_interpret(m, "nope", args, 4), TL_ENOTFOUND, "no function 'nope' in the module");
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 3), TL_EINVAL, "function 'f' takes 4 arguments but got 3");

  tl_value saved = args[0];
  args[0] = tl_value_int(1);
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'A': expected a tensor but got an int");
  args[0] = tl_value_tensor(NULL);
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'A': the tensor is NULL");
  args[0] = saved;

  saved = args[3];
  args[3] = args[0];
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'n': expected a scalar int32 but got a tensor");
  args[3] = tl_value_ptr(NULL);
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'n': expected int32 but got a pointer");
  args[3] = tl_value_int(1ll << 40);
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'n': 1099511627776 does not fit int32");
  args[3] = saved;

  fx->ha.t.dtype.bits = 16;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'A': expected float32 but got float16");
  fx->ha.t.dtype.bits = 32;
  fx->ha.t.dtype.code = 9;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL,
                "argument 'A': expected float32 but got dtype(code=9, bits=32, lanes=1)");
  fx->ha.t.dtype.code = kDLFloat;

  fx->ha.t.device.device_type = kDLCUDA;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL,
                "argument 'A': expected a CPU tensor (kDLCPU) but got device type 2");
  fx->ha.t.device.device_type = kDLCPU;

  fx->hc.t.ndim = 1;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'C': expected 2 dimensions but got 1");
  fx->hc.t.ndim = 2;
  fx->hc.shape[1] = 5;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'C': dimension 1 expected 4 but got 5");
  fx->hc.shape[1] = 4;
  fx->hc.shape[0] = -1;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'C': dimension 0 is negative (-1)");
  fx->hc.shape[0] = 16;

  fx->hb.shape[0] = 11;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL,
                "argument 'B': dimension 0 (N) expected 10 as bound by argument 'A' but got 11");
  fx->hb.shape[0] = 10;

  fx->ha.t.data = NULL;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL, "argument 'A': the tensor's data is NULL");
  fx->ha.t.data = fx->a;

  int64_t strides[2] = {8, 1};
  fx->hc.t.strides = strides;
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 4), TL_EINVAL,
                "argument 'C': stride 8 in dimension 0 where the buffer has 4 (tensors must be compact row-major)");
  fx->hc.t.strides = NULL;
  TL_ASSERT_OK(tl_ir_interpret(m, "f", args, 4));
}

/* A symbolic dimension that is also a scalar parameter, and a composite one. */
static void test_scalar_and_composite_dims(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *n = tl_ir_var_new(m, "n", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, VAR(n), GLOBAL);
  tl_ir_buffer *B = buf1(m, "B", TL_DT_FLOAT32, MUL(VAR(n), I32(2)), GLOBAL);
  tl_ir_func *f;
  TL_ASSERT_OK(tl_ir_func_new(m, "f", &f));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, f, n));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, A, false));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, f, B, false));
  f->body = tl_ir_seq(m, 0, NULL);
  float a[6], b[12];
  host_tensor ha, hb;
  tl_value args[] = {tl_value_int(5), ht_wrap(&ha, TL_DT_FLOAT32, a, 1, 6, 0), ht_wrap(&hb, TL_DT_FLOAT32, b, 1, 10, 0)};
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 3), TL_EINVAL,
                "argument 'A': dimension 0 (n) expected 5 as bound by argument 'n' but got 6");
  args[0] = tl_value_int(6);
  TL_ASSERT_ERR(tl_ir_interpret(m, "f", args, 3), TL_EINVAL, "argument 'B': dimension 0 expected 12 but got 10");
  hb.shape[0] = 12;
  TL_ASSERT_OK(tl_ir_interpret(m, "f", args, 3));
  tl_ir_module_free(m);
}

static void test_out_of_bounds_message(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *j = tl_ir_var_new(m, "j", TL_DT_INT32);
  tl_ir_buffer *A = buf2(m, "A", TL_DT_FLOAT32, I32(16), I32(16), GLOBAL);
  tl_ir_builder_set_loc(m, (tl_ir_span){"kernel.py", 12, 9});
  tl_ir_stmt *store = STORE(A, F32(1), VAR(i), VAR(j));
  tl_ir_builder_set_loc(m, (tl_ir_span){"kernel.py", 14, 17});
  tl_ir_expr *load = LOAD(A, VAR(j), VAR(i));
  tl_ir_builder_set_loc(m, (tl_ir_span){"kernel.py", 14, 5});
  tl_ir_stmt *copy = STORE(A, load, I32(0), I32(0));
  tl_ir_func *st, *ld;
  TL_ASSERT_OK(tl_ir_func_new(m, "st", &st));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, st, A, false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, st, i));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, st, j));
  st->body = store;
  TL_ASSERT_OK(tl_ir_func_new(m, "ld", &ld));
  TL_ASSERT_OK(tl_ir_func_add_buffer_param(m, ld, A, false));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, ld, i));
  TL_ASSERT_OK(tl_ir_func_add_scalar_param(m, ld, j));
  ld->body = copy;
  TL_ASSERT_OK(tl_ir_verify_module(m));
  static float a[256];
  host_tensor ha;
  tl_value args[] = {ht_wrap(&ha, TL_DT_FLOAT32, a, 2, 16, 16), tl_value_int(3), tl_value_int(17)};
  TL_ASSERT_ERR(tl_ir_interpret(m, "st", args, 3), TL_ERUNTIME, "");
  TL_ASSERT_MSG("kernel.py:12:9: buffer 'A' index [3, 17] out of bounds for shape [16, 16]");
  TL_ASSERT_ERR(tl_ir_interpret(m, "ld", args, 3), TL_ERUNTIME, "");
  TL_ASSERT_MSG("kernel.py:14:17: buffer 'A' index [17, 3] out of bounds for shape [16, 16]");
  args[1] = tl_value_int(-1);
  args[2] = tl_value_int(2);
  TL_ASSERT_ERR(tl_ir_interpret(m, "st", args, 3), TL_ERUNTIME, "kernel.py:12:9: buffer 'A' index [-1, 2] out");
  args[1] = tl_value_int(15);
  args[2] = tl_value_int(15);
  TL_ASSERT_OK(tl_ir_interpret(m, "st", args, 3));
  TL_ASSERT_OK(tl_ir_interpret(m, "ld", args, 3));
  assert_true(a[0] == 1.0f);
  tl_ir_module_free(m);
}

/* Every block gets fresh, poisoned shared and fragment memory: block 0 writes one
 * element of S, block 1 writes none, and both copy S out. */
static void test_poisoned_allocations(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_buffer *O = buf2(m, "O", TL_DT_FLOAT32, I32(2), I32(4), GLOBAL),
               *P = buf2(m, "P", TL_DT_INT32, I32(2), I32(4), GLOBAL), *Q = buf1(m, "Q", TL_DT_INT32, I32(2), GLOBAL);
  tl_ir_buffer *S = buf1(m, "S", TL_DT_FLOAT32, I32(4), TL_SCOPE_SHARED),
               *F = buf1(m, "F", TL_DT_INT32, I32(4), TL_SCOPE_LOCAL_FRAGMENT);
  tl_ir_buffer *V = tl_ir_buffer_new(m, "v", TL_DT_INT32, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
  tl_ir_stmt *body = kernel2(
      m, I32(2), NULL, bx, NULL,
      SEQ(tl_ir_alloc(m, S), tl_ir_alloc(m, F), tl_ir_alloc(m, V),
          tl_ir_if(m, BIN(EQ, VAR(bx), I32(0)), SEQ(STORE(S, F32(1.5), I32(0)), STORE(F, I32(7), I32(1)),
                                                    tl_ir_store(m, V, 0, NULL, I32(42))), NULL),
          TILE(TL_OP_COPY, FULL(S), region2(m, O, VAR(bx), I32(1), I32(0), I32(4))),
          TILE(TL_OP_COPY, FULL(F), region2(m, P, VAR(bx), I32(1), I32(0), I32(4))),
          STORE(Q, tl_ir_load(m, V, 0, NULL), VAR(bx))));
  make_func(m, "p", (tl_ir_buffer *[]){O, P, Q}, 3, body);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  float o[8];
  int32_t p[8], q[2];
  host_tensor h[3];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_FLOAT32, o, 2, 2, 4), ht_wrap(&h[1], TL_DT_INT32, p, 2, 2, 4),
                     ht_wrap(&h[2], TL_DT_INT32, q, 1, 2, 0)};
  TL_ASSERT_OK(tl_ir_interpret(m, "p", args, 3));
  const int32_t poison = (int32_t)0xA5A5A5A5u;
  assert_true(o[0] == 1.5f);
  for (int k = 1; k < 8; k++) assert_true(isnan(o[k]));
  for (int k = 0; k < 8; k++) assert_int_equal(p[k], k == 1 ? 7 : poison);
  assert_int_equal(q[0], 42);
  assert_int_equal(q[1], poison);
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_valid_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_argument_errors, setup, teardown),
      cmocka_unit_test(test_scalar_and_composite_dims),
      cmocka_unit_test(test_out_of_bounds_message),
      cmocka_unit_test(test_poisoned_allocations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
