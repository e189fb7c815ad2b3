/* Generated C against the interpreter, operation by operation: every binary and
 * unary operator, the exact math intrinsics, selects and conversions on every dtype
 * (bool, int8..64, uint8..64, float16, bfloat16, float32, float64), compiled with
 * native and tcc and compared bit for bit (NaNs as NaNs) with tl_ir_interpret on the
 * same module; and atomic adds from a parallel loop (OpenMP under native). */
#include <math.h>

#include "base/fp16.h"
#include "lowered_fixtures.h"
#include "runtime_test.h"

enum { K_BIN, K_UN, K_CALL, K_CAST, K_SELECT, K_INDEX };
enum { M_ANY, M_SMALL, M_DIV, M_SHIFT, M_INRANGE, M_BOOL };

typedef struct op_case {
  int kind;
  int op;
  tl_dtype in, out;
  int mode;
} op_case;

#define N_ELEMS 517

/* ------------------------------------------------------------------ inputs */

static uint64_t g_seed = 1234;

static uint64_t rnd64(void) {
  uint64_t a = (uint64_t)((test_uniform(&g_seed) + 1.0) * 4294967296.0);
  uint64_t b = (uint64_t)((test_uniform(&g_seed) + 1.0) * 4294967296.0);
  return (a << 32) ^ b;
}

static int64_t wrap(tl_dtype t, uint64_t u) {
  if (t.bits == 64) return (int64_t)u;
  uint64_t mask = (1ull << t.bits) - 1;
  u &= mask;
  if (t.code == TL_DTYPE_INT && (u >> (t.bits - 1)) & 1) u |= ~mask;
  return (int64_t)u;
}

static void store_int(tl_dtype t, void *p, int64_t v) { memcpy(p, &v, t.bits / 8); } /* little-endian */

static void store_float(tl_dtype t, void *p, double v) {
  if (t.bits == 64) memcpy(p, &v, 8);
  else if (t.bits == 32) {
    float f = (float)v;
    memcpy(p, &f, 4);
  } else {
    uint16_t h = t.code == TL_DTYPE_BFLOAT ? tl__f64_to_bf16(v) : tl__f64_to_f16(v);
    memcpy(p, &h, 2);
  }
}

static double load_float(tl_dtype t, const void *p) {
  if (t.bits == 64) {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  if (t.bits == 32) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  memcpy(&h, p, 2);
  return t.code == TL_DTYPE_BFLOAT ? tl__bf16_to_f64(h) : tl__f16_to_f64(h);
}

/* Element i of operand `which` (0: a, 1: b) for a case. */
static void gen(const op_case *c, int which, int i, void *p) {
  tl_dtype t = c->in;
  if (t.code == TL_DTYPE_BOOL) {
    *(uint8_t *)p = (uint8_t)(rnd64() & 1);
    return;
  }
  if (tl_dtype_is_float(t)) {
    static const double specials[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0.5, 1e-30, 65504.0, 3.0, -2.5};
    double v;
    if (c->mode == M_INRANGE) v = (test_uniform(&g_seed) + (c->out.code == TL_DTYPE_UINT ? 1.0 : 0.0)) * 60.0;
    else if (i < 12 && which == 0) v = specials[i];
    else if (i >= 12 && i < 24 && which == 1) v = specials[i - 12];
    else v = test_uniform(&g_seed) * (i % 3 ? 50.0 : 3.0);
    store_float(t, p, v);
    return;
  }
  int64_t v = wrap(t, rnd64());
  switch (c->mode) {
  case M_SMALL: v = wrap(t, rnd64() % 60001) - 30000; if (t.code == TL_DTYPE_UINT && v < 0) v = -v; break;
  case M_DIV:
    if (which == 1) {
      if (v == 0) v = 3;
      if (v == -1) v = -2;
      if (i % 4 == 0) v = t.code == TL_DTYPE_UINT ? 7 : (i % 8 ? -7 : 7); /* small divisors too */
    }
    break;
  case M_SHIFT:
    if (which == 1) v = (int64_t)(rnd64() % t.bits);
    else if (t.code == TL_DTYPE_INT && c->op == TL_BIN_SHL) v = (int64_t)(rnd64() % 128);
    break;
  case M_INRANGE: v = (int64_t)(rnd64() % 100) - (t.code == TL_DTYPE_UINT ? 0 : 50); break;
  default: break;
  }
  store_int(t, p, v);
}

/* ----------------------------------------------------------------- kernels */

static tl_ir_expr *case_expr(tl_ir_module *m, const op_case *c, tl_ir_expr *a, tl_ir_expr *b, tl_ir_var *i) {
  switch (c->kind) {
  case K_BIN: return tl_ir_binary(m, (tl_ir_binop)c->op, a, b);
  case K_UN: return tl_ir_unary(m, (tl_ir_unop)c->op, a);
  case K_CALL:
    if (c->op == TL_OP_CEILDIV) return tl_ir_call(m, TL_OP_CEILDIV, c->in, 2, EXPRS(a, b));
    return tl_ir_call(m, (tl_ir_op)c->op, c->in, 1, EXPRS(a));
  case K_CAST: return tl_ir_cast(m, c->out, a);
  case K_SELECT: return tl_ir_select(m, LT(a, b), a, tl_ir_unary(m, TL_UN_NEG, b));
  case K_INDEX: { /* index arithmetic: (i - 5) // 3 (sign unknown), i % 7, ceildiv(i, 4) */
    tl_ir_expr *e = ADD(ADD(BIN(FLOORDIV, SUB(VAR(i), I32(5)), I32(3)), BIN(FLOORMOD, VAR(i), I32(7))),
                        CALL(TL_OP_CEILDIV, TL_DT_INT32, VAR(i), I32(4)));
    return ADD(e, BIN(FLOORMOD, SUB(I32(3), VAR(i)), I32(5)));
  }
  }
  return NULL;
}

/* ew_kernel(A, B: in[N], C: out[N], N): for i in parallel(N): C[i] = op(A[i], B[i]);
 * host entry ew(A, B, C) binding N from A and launching it. */
static void build_ew(tl_ir_module *m, const op_case *c) {
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "call"));
  tl_ir_var *n = tl_ir_var_new(m, "N", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_buffer *a = buf1(m, "A", c->in, VAR(n), TL_SCOPE_GLOBAL), *b = buf1(m, "B", c->in, VAR(n), TL_SCOPE_GLOBAL),
               *o = buf1(m, "C", c->out, VAR(n), TL_SCOPE_GLOBAL);
  tl_ir_expr *value = case_expr(m, c, LOAD(a, VAR(i)), LOAD(b, VAR(i)), i);
  tl_ir_stmt *body = single_var_loop(m, TL_FOR_PARALLEL, i, VAR(n), STORE(o, value, VAR(i)));
  finish(m, "ew_kernel", TL_CALLCONV_DEVICE_KERNEL, (tl_ir_buffer *[]){a, b, o}, 3, &n, 1, body);
  tl_ir_var *hn = tl_ir_var_new(m, "N", TL_DT_INT32), *nb = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_buffer *ha = buf1(m, "A", c->in, VAR(hn), TL_SCOPE_GLOBAL), *hb = buf1(m, "B", c->in, VAR(hn), TL_SCOPE_GLOBAL),
               *hc = buf1(m, "C", c->out, VAR(hn), TL_SCOPE_GLOBAL);
  tl_ir_stmt *launch = launch1(m, "ew_kernel", 4, EXPRS(VAR(ha->data), VAR(hb->data), VAR(hc->data), VAR(nb)));
  tl_ir_stmt *hbody = tl_ir_let(m, nb, tl_ir_cast(m, TL_DT_INT32, ARG2(SHAPE, TL_DT_INT64, 0, 0)), launch);
  finish(m, "ew", TL_CALLCONV_PACKED, (tl_ir_buffer *[]){ha, hb, hc}, 3, NULL, 0, hbody);
  tl_status s = tl_ir_verify_module(m);
  if (s != TL_OK) fail_msg("case %d/%d: %s", c->kind, c->op, tl_last_error());
}

static bool same(tl_dtype t, const char *x, const char *y) {
  if (tl_dtype_is_float(t)) {
    double a = load_float(t, x), b = load_float(t, y);
    if (isnan(a) && isnan(b)) return true;
  }
  return memcmp(x, y, tl_dtype_bytes(t)) == 0;
}

static void run_case(const char *runner, const op_case *c) {
  char nin[32], nout[32];
  const char *in = tl_dtype_name(c->in, nin, sizeof nin), *out = tl_dtype_name(c->out, nout, sizeof nout);
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  build_ew(m, c);
  tl_kernel *k = NULL;
  tl_status s = rt_build(runner, m, NULL, "ew", &k);
  if (s != TL_OK) fail_msg("%s: case kind %d op %d %s->%s does not build: %s", runner, c->kind, c->op, in, out, tl_last_error());
  size_t ei = tl_dtype_bytes(c->in), eo = tl_dtype_bytes(c->out);
  char *a = malloc(N_ELEMS * ei), *b = malloc(N_ELEMS * ei), *got = malloc(N_ELEMS * eo), *want = malloc(N_ELEMS * eo);
  for (int i = 0; i < N_ELEMS; i++) {
    gen(c, 0, i, a + i * ei);
    gen(c, 1, i, b + i * ei);
  }
  memset(got, 0x5a, N_ELEMS * eo);
  memset(want, 0x5a, N_ELEMS * eo);
  host_tensor ha, hb, hc;
  tl_value args[3] = {ht_wrap(&ha, c->in, a, 1, N_ELEMS, 0), ht_wrap(&hb, c->in, b, 1, N_ELEMS, 0),
                      ht_wrap(&hc, c->out, got, 1, N_ELEMS, 0)};
  TL_ASSERT_OK(tl_kernel_call(k, args, 3, NULL));
  args[2] = ht_wrap(&hc, c->out, want, 1, N_ELEMS, 0);
  s = tl_ir_interpret(m, "ew", args, 3);
  if (s != TL_OK) fail_msg("interpreter: case kind %d op %d %s->%s: %s", c->kind, c->op, in, out, tl_last_error());
  for (int i = 0; i < N_ELEMS; i++)
    if (!same(c->out, got + i * eo, want + i * eo)) {
      tl_kernel *kk = k;
      fail_msg("%s: case kind %d op %d %s->%s: element %d differs from the interpreter\n%s", runner, c->kind, c->op, in,
               out, i, tl_kernel_device_source(kk));
    }
  free(a), free(b), free(got), free(want);
  tl_kernel_release(k);
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------------ cases */

static const tl_dtype k_floats[] = {TL_DT_FLOAT32, TL_DT_FLOAT64, TL_DT_FLOAT16, TL_DT_BFLOAT16};
static const tl_dtype k_ints[] = {TL_DT_INT8, TL_DT_INT16, TL_DT_INT32, TL_DT_INT64,
                                  TL_DT_UINT8, TL_DT_UINT16, TL_DT_UINT32, TL_DT_UINT64};

static size_t make_cases(op_case *cs) {
  size_t n = 0;
  for (size_t f = 0; f < 4; f++) {
    tl_dtype t = k_floats[f];
    static const int bins[] = {TL_BIN_ADD, TL_BIN_SUB, TL_BIN_MUL, TL_BIN_DIV, TL_BIN_FLOORDIV, TL_BIN_FLOORMOD,
                               TL_BIN_MIN, TL_BIN_MAX};
    for (size_t k = 0; k < 8; k++) cs[n++] = (op_case){K_BIN, bins[k], t, t, M_ANY};
    static const int cmps[] = {TL_BIN_LT, TL_BIN_EQ, TL_BIN_GE, TL_BIN_NE};
    for (size_t k = 0; k < 4; k++) cs[n++] = (op_case){K_BIN, cmps[k], t, TL_DT_BOOL, M_ANY};
    cs[n++] = (op_case){K_UN, TL_UN_NEG, t, t, M_ANY};
    static const int calls[] = {TL_OP_FLOOR, TL_OP_CEIL, TL_OP_TRUNC, TL_OP_ROUND, TL_OP_ABS, TL_OP_SQRT};
    for (size_t k = 0; k < 6; k++) cs[n++] = (op_case){K_CALL, calls[k], t, t, M_ANY};
    cs[n++] = (op_case){K_SELECT, 0, t, t, M_ANY};
    cs[n++] = (op_case){K_CAST, 0, t, TL_DT_INT32, M_INRANGE};
    cs[n++] = (op_case){K_CAST, 0, t, TL_DT_UINT8, M_INRANGE};
    cs[n++] = (op_case){K_CAST, 0, t, TL_DT_BOOL, M_ANY};
    for (size_t g = 0; g < 4; g++)
      if (g != f) cs[n++] = (op_case){K_CAST, 0, t, k_floats[g], M_ANY};
  }
  for (size_t j = 0; j < 8; j++) {
    tl_dtype t = k_ints[j];
    int arith = M_ANY; /* full range: arithmetic wraps (native compiles with -fwrapv) */
    cs[n++] = (op_case){K_BIN, TL_BIN_ADD, t, t, arith};
    cs[n++] = (op_case){K_BIN, TL_BIN_SUB, t, t, arith};
    cs[n++] = (op_case){K_BIN, TL_BIN_MUL, t, t, arith};
    cs[n++] = (op_case){K_BIN, TL_BIN_DIV, t, t, M_DIV};
    cs[n++] = (op_case){K_BIN, TL_BIN_FLOORDIV, t, t, M_DIV};
    cs[n++] = (op_case){K_BIN, TL_BIN_FLOORMOD, t, t, M_DIV};
    cs[n++] = (op_case){K_CALL, TL_OP_CEILDIV, t, t, M_DIV};
    static const int anyops[] = {TL_BIN_MIN, TL_BIN_MAX, TL_BIN_BITAND, TL_BIN_BITOR, TL_BIN_BITXOR};
    for (size_t k = 0; k < 5; k++) cs[n++] = (op_case){K_BIN, anyops[k], t, t, M_ANY};
    cs[n++] = (op_case){K_BIN, TL_BIN_SHL, t, t, M_SHIFT};
    cs[n++] = (op_case){K_BIN, TL_BIN_SHR, t, t, M_SHIFT};
    cs[n++] = (op_case){K_BIN, TL_BIN_LT, t, TL_DT_BOOL, M_ANY};
    cs[n++] = (op_case){K_BIN, TL_BIN_EQ, t, TL_DT_BOOL, M_SMALL};
    cs[n++] = (op_case){K_UN, TL_UN_NEG, t, t, arith};
    cs[n++] = (op_case){K_UN, TL_UN_BITNOT, t, t, M_ANY};
    cs[n++] = (op_case){K_CALL, TL_OP_ABS, t, t, arith};
    cs[n++] = (op_case){K_SELECT, 0, t, t, arith};
    cs[n++] = (op_case){K_CAST, 0, t, k_ints[(j + 3) % 8], M_ANY};
    cs[n++] = (op_case){K_CAST, 0, t, k_ints[(j + 5) % 8], M_ANY};
    cs[n++] = (op_case){K_CAST, 0, t, TL_DT_FLOAT32, M_ANY};
    cs[n++] = (op_case){K_CAST, 0, t, TL_DT_FLOAT16, M_ANY};
    cs[n++] = (op_case){K_CAST, 0, t, TL_DT_BFLOAT16, M_ANY};
    cs[n++] = (op_case){K_CAST, 0, t, TL_DT_FLOAT64, M_ANY};
  }
  static const int bools[] = {TL_BIN_AND, TL_BIN_OR, TL_BIN_EQ, TL_BIN_NE};
  for (size_t k = 0; k < 4; k++) cs[n++] = (op_case){K_BIN, bools[k], TL_DT_BOOL, TL_DT_BOOL, M_BOOL};
  cs[n++] = (op_case){K_UN, TL_UN_NOT, TL_DT_BOOL, TL_DT_BOOL, M_BOOL};
  cs[n++] = (op_case){K_CAST, 0, TL_DT_BOOL, TL_DT_FLOAT16, M_BOOL};
  cs[n++] = (op_case){K_CAST, 0, TL_DT_BOOL, TL_DT_INT32, M_BOOL};
  cs[n++] = (op_case){K_INDEX, 0, TL_DT_INT32, TL_DT_INT32, M_ANY};
  return n;
}

static void test_ops(void **state) {
  (void)state;
  static op_case cases[400];
  size_t n = make_cases(cases);
  assert_true(n < 400);
  const char *runners[2];
  size_t nr = rt_runners(runners);
  /* Every case through tcc (fast); native compiles a spread of them (each compile
   * costs tens of milliseconds). */
  for (size_t r = 0; r < nr; r++)
    for (size_t i = 0; i < n; i++)
      if (nr == 1 || !strcmp(runners[r], "tcc") || i % 7 == 0) run_case(runners[r], &cases[i]);
}

/* ------------------------------------------------------------------ atomics */

/* hist_kernel(V: int32[N], H: dt[8], N): for i in parallel(N): atomic H[V[i] % 8] += 1 */
static void build_hist(tl_ir_module *m, tl_dtype dt) {
  TL_ASSERT_OK(tl_ir_module_set_attr_str(m, "tl.launch_convention", "call"));
  tl_ir_var *n = tl_ir_var_new(m, "N", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_buffer *v = buf1(m, "V", TL_DT_INT32, VAR(n), TL_SCOPE_GLOBAL), *h = buf1(m, "H", dt, I32(8), TL_SCOPE_GLOBAL);
  tl_ir_expr *slot = BIN(FLOORMOD, LOAD(v, VAR(i)), I32(8));
  tl_ir_expr *one = tl_dtype_is_float(dt) ? tl_ir_float(m, dt, 1.0) : tl_ir_int(m, dt, 1);
  tl_ir_stmt *body = single_var_loop(m, TL_FOR_PARALLEL, i, VAR(n),
                           TILE(TL_OP_ATOMIC_ADD_ELEM, tl_ir_region(m, h, EXPRS(slot), EXPRS(I32(1)), TL_REGION_POINT), one));
  finish(m, "hist_kernel", TL_CALLCONV_DEVICE_KERNEL, (tl_ir_buffer *[]){v, h}, 2, &n, 1, body);
  tl_ir_var *hn = tl_ir_var_new(m, "N", TL_DT_INT32), *nb = tl_ir_var_new(m, "N", TL_DT_INT32);
  tl_ir_buffer *hv = buf1(m, "V", TL_DT_INT32, VAR(hn), TL_SCOPE_GLOBAL), *hh = buf1(m, "H", dt, I32(8), TL_SCOPE_GLOBAL);
  tl_ir_stmt *launch = launch1(m, "hist_kernel", 3, EXPRS(VAR(hv->data), VAR(hh->data), VAR(nb)));
  finish(m, "hist", TL_CALLCONV_PACKED, (tl_ir_buffer *[]){hv, hh}, 2, NULL, 0,
         tl_ir_let(m, nb, tl_ir_cast(m, TL_DT_INT32, ARG2(SHAPE, TL_DT_INT64, 0, 0)), launch));
  TL_ASSERT_OK(tl_ir_verify_module(m));
}

static void test_atomics(void **state) {
  (void)state;
  const char *runners[2];
  size_t nr = rt_runners(runners);
  const tl_dtype dts[] = {TL_DT_INT32, TL_DT_FLOAT32, TL_DT_FLOAT16, TL_DT_INT64};
  enum { N = 200000 };
  int32_t *v = malloc(N * sizeof *v);
  int64_t counts[8] = {0};
  for (int i = 0; i < N; i++) {
    v[i] = (int32_t)(rnd64() % 1000) - 500;
    counts[((v[i] % 8) + 8) % 8]++;
  }
  for (size_t r = 0; r < nr; r++)
    for (size_t d = 0; d < 4; d++) {
      tl_ir_module *m;
      TL_ASSERT_OK(tl_ir_module_create(&m));
      build_hist(m, dts[d]);
      tl_kernel *k = NULL;
      TL_ASSERT_OK(rt_build(runners[r], m, NULL, "hist", &k));
      if (!strcmp(runners[r], "native") && tl__native_has_openmp())
        if (!strstr(tl_kernel_device_source(k), dts[d].bits == 16 ? "TL_OMP(omp critical)" : "TL_OMP(omp atomic)"))
          fail_msg("no OpenMP atomic in\n%s", tl_kernel_device_source(k));
      char h[8 * 8] = {0};
      host_tensor hv, hh;
      /* float16 counts stop at 2048 (the next integer it cannot hold): use fewer */
      int64_t n = dts[d].bits == 16 ? 2000 : N;
      tl_value args[2] = {ht_wrap(&hv, TL_DT_INT32, v, 1, n, 0), ht_wrap(&hh, dts[d], h, 1, 8, 0)};
      TL_ASSERT_OK(tl_kernel_call(k, args, 2, NULL));
      for (int s = 0; s < 8; s++) {
        int64_t want = 0;
        for (int64_t i = 0; i < n; i++) want += ((v[i] % 8) + 8) % 8 == s;
        double got = tl_dtype_is_float(dts[d]) ? load_float(dts[d], h + s * tl_dtype_bytes(dts[d]))
                     : dts[d].bits == 32      ? (double)*(int32_t *)(void *)(h + s * 4)
                                              : (double)*(int64_t *)(void *)(h + s * 8);
        if (got != (double)want)
          fail_msg("%s %s: slot %d has %g, want %lld", runners[r], tl_dtype_name(dts[d], NULL, 0), s, got, (long long)want);
      }
      tl_kernel_release(k);
      tl_ir_module_free(m);
    }
  (void)counts;
  free(v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ops),
    cmocka_unit_test(test_atomics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
