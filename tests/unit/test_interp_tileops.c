/* The interpreter's tile ops against plain C loops: T.copy clipping at global
 * edges (vector add with a tile that does not divide the length), T.gemm in all
 * four transpose combinations (float16 inputs, float32 accumulator, bit-exact
 * against a triple loop), softmax against its formula, reductions with and
 * without clear, cumsum both ways, fill, clear and atomic add. */
#include "base/fp16.h"
#include "interp_util.h"

static const tl_dtype F16 = TL_DT_FLOAT16, F32 = TL_DT_FLOAT32;
#define GLOBAL TL_SCOPE_GLOBAL
#define SHARED TL_SCOPE_SHARED
#define FRAG TL_SCOPE_LOCAL_FRAGMENT

static tl_ir_expr *ceildiv(tl_ir_module *m, tl_ir_expr *a, tl_ir_expr *b) {
  return CALL(TL_OP_CEILDIV, TL_DT_INT32, a, b);
}

/* ------------------------------------------------------------ vector add */

static void test_vadd_non_dividing_tile(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *N = tl_ir_var_new(m, "N", TL_DT_INT32), *bx = tl_ir_var_new(m, "bx", TL_DT_INT32),
            *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", F32, VAR(N), GLOBAL), *B = buf1(m, "B", F32, VAR(N), GLOBAL),
               *C = buf1(m, "C", F32, VAR(N), GLOBAL), *P = buf1(m, "P", F32, I32(1024), GLOBAL);
  tl_ir_buffer *As = buf1(m, "A_s", F32, I32(128), SHARED), *Bf = buf1(m, "B_f", F32, I32(128), FRAG),
               *Cf = buf1(m, "C_f", F32, I32(128), FRAG);
  tl_ir_stmt *body = kernel2(
      m, ceildiv(m, VAR(N), I32(128)), NULL, bx, NULL,
      SEQ(tl_ir_alloc(m, As), tl_ir_alloc(m, Bf), tl_ir_alloc(m, Cf),
          TILE(TL_OP_COPY, region1(m, A, MUL(VAR(bx), I32(128)), I32(128)), FULL(As)),
          TILE(TL_OP_COPY, region1(m, B, MUL(VAR(bx), I32(128)), I32(128)), FULL(Bf)),
          single_var_loop(m, TL_FOR_PARALLEL, i, I32(128), STORE(Cf, ADD(LOAD(As, VAR(i)), LOAD(Bf, VAR(i))), VAR(i))),
          TILE(TL_OP_COPY, FULL(Cf), region1(m, C, MUL(VAR(bx), I32(128)), I32(128))),
          TILE(TL_OP_COPY, FULL(As), region1(m, P, MUL(VAR(bx), I32(128)), I32(128)))));
  make_func(m, "vadd", (tl_ir_buffer *[]){A, B, C, P}, 4, body);

  enum { n = 1000 };
  static float a[n], b[n], c[n + 16], p[1024];
  uint64_t rng = 1;
  for (int k = 0; k < n; k++) {
    a[k] = (float)test_uniform(&rng);
    b[k] = (float)test_uniform(&rng);
  }
  for (int k = 0; k < n + 16; k++) c[k] = 7.0f;   /* past the tensor's end: must stay */
  for (int k = 0; k < 1024; k++) p[k] = 5.0f;
  host_tensor ta, tb, tc, tp;
  tl_value args[] = {ht_wrap(&ta, F32, a, 1, n, 0), ht_wrap(&tb, F32, b, 1, n, 0), ht_wrap(&tc, F32, c, 1, n, 0),
                     ht_wrap(&tp, F32, p, 1, 1024, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "vadd", args, 4));
  for (int k = 0; k < n; k++) assert_true(c[k] == a[k] + b[k]);
  for (int k = n; k < n + 16; k++) assert_true(c[k] == 7.0f);  /* writes past the edge dropped */
  for (int k = 0; k < n; k++) assert_true(p[k] == a[k]);
  for (int k = n; k < 1024; k++) assert_true(p[k] == 0.0f);     /* reads past the edge give zero */
  tl_ir_module_free(m);
}

/* -------------------------------------------------------------------- GEMM */

enum { GM = 40, GN = 48, GK = 40, BM = 32, BN = 32, BK = 16 };

static void run_gemm(bool ta, bool tb) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *by = tl_ir_var_new(m, "by", TL_DT_INT32),
            *k = tl_ir_var_new(m, "k", TL_DT_INT32);
  tl_ir_buffer *A = ta ? buf2(m, "A", F16, I32(GK), I32(GM), GLOBAL) : buf2(m, "A", F16, I32(GM), I32(GK), GLOBAL);
  tl_ir_buffer *B = tb ? buf2(m, "B", F16, I32(GN), I32(GK), GLOBAL) : buf2(m, "B", F16, I32(GK), I32(GN), GLOBAL);
  tl_ir_buffer *C = buf2(m, "C", F32, I32(GM), I32(GN), GLOBAL);
  tl_ir_buffer *As = ta ? buf2(m, "A_s", F16, I32(BK), I32(BM), SHARED) : buf2(m, "A_s", F16, I32(BM), I32(BK), SHARED);
  tl_ir_buffer *Bs = tb ? buf2(m, "B_s", F16, I32(BN), I32(BK), SHARED) : buf2(m, "B_s", F16, I32(BK), I32(BN), SHARED);
  tl_ir_buffer *Cl = buf2(m, "C_l", F32, I32(BM), I32(BN), FRAG);
  tl_ir_expr *k0 = MUL(VAR(k), I32(BK)), *m0 = MUL(VAR(by), I32(BM)), *n0 = MUL(VAR(bx), I32(BN));
  tl_ir_expr *ar = ta ? region2(m, A, k0, I32(BK), m0, I32(BM)) : region2(m, A, m0, I32(BM), k0, I32(BK));
  tl_ir_expr *br = tb ? region2(m, B, n0, I32(BN), k0, I32(BK)) : region2(m, B, k0, I32(BK), n0, I32(BN));
  tl_ir_stmt *body = kernel2(
      m, ceildiv(m, I32(GN), I32(BN)), ceildiv(m, I32(GM), I32(BM)), bx, by,
      SEQ(tl_ir_alloc(m, As), tl_ir_alloc(m, Bs), tl_ir_alloc(m, Cl), TILE(TL_OP_CLEAR, FULL(Cl)),
          single_var_loop(m, TL_FOR_PIPELINED, k, ceildiv(m, I32(GK), I32(BK)),
                SEQ(TILE(TL_OP_COPY, ar, FULL(As)), TILE(TL_OP_COPY, br, FULL(Bs)),
                    TILE(TL_OP_GEMM, FULL(As), FULL(Bs), FULL(Cl), I32(ta), I32(tb), I32(0), I32(0)))),
          TILE(TL_OP_COPY, FULL(Cl), region2(m, C, m0, I32(BM), n0, I32(BN)))));
  make_func(m, "gemm", (tl_ir_buffer *[]){A, B, C}, 3, body);

  static uint16_t a[GM * GK], b[GK * GN];
  static float c[GM * GN];
  uint64_t rng = 42;
  for (int i = 0; i < GM * GK; i++) a[i] = tl__f64_to_f16(test_uniform(&rng));
  for (int i = 0; i < GK * GN; i++) b[i] = tl__f64_to_f16(test_uniform(&rng));
  host_tensor ha, hb, hc;
  tl_value args[] = {ht_wrap(&ha, F16, a, 2, ta ? GK : GM, ta ? GM : GK),
                     ht_wrap(&hb, F16, b, 2, tb ? GN : GK, tb ? GK : GN), ht_wrap(&hc, F32, c, 2, GM, GN)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "gemm", args, 3));
  /* The triple loop: float accumulator, k ascending. Products of halves are exact
   * in float, so this matches rounding after every multiply-add bit for bit. */
  for (int i = 0; i < GM; i++)
    for (int j = 0; j < GN; j++) {
      float acc = 0.0f;
      for (int kk = 0; kk < GK; kk++) {
        float x = tl__f16_to_f32(ta ? a[kk * GM + i] : a[i * GK + kk]);
        float y = tl__f16_to_f32(tb ? b[j * GK + kk] : b[kk * GN + j]);
        float prod = x * y;
        acc = acc + prod;
      }
      if (c[i * GN + j] != acc) fail_msg("C[%d, %d] = %.9g, expected %.9g (ta=%d tb=%d)", i, j, (double)c[i * GN + j], (double)acc, ta, tb);
    }
  tl_ir_module_free(m);
}

static void test_gemm_nn(void **state) { (void)state; run_gemm(false, false); }
static void test_gemm_nt(void **state) { (void)state; run_gemm(false, true); }
static void test_gemm_tn(void **state) { (void)state; run_gemm(true, false); }
static void test_gemm_tt(void **state) { (void)state; run_gemm(true, true); }

/* T.gemm accumulates into C unless clear_accum; with it, C is overwritten. */
static void test_gemm_accumulates(void **state) {
  (void)state;
  for (int clear = 0; clear <= 1; clear++) {
    tl_ir_module *m;
    TL_ASSERT_OK(tl_ir_module_create(&m));
    tl_ir_buffer *A = buf2(m, "A", F32, I32(2), I32(3), GLOBAL), *B = buf2(m, "B", F32, I32(3), I32(2), GLOBAL),
                 *C = buf2(m, "C", F32, I32(2), I32(2), GLOBAL);
    tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
    make_func(m, "g", (tl_ir_buffer *[]){A, B, C}, 3,
              kernel2(m, I32(1), NULL, bx, NULL, TILE(TL_OP_GEMM, FULL(A), FULL(B), FULL(C), I32(0), I32(0), I32(clear), I32(0))));
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4] = {10, 20, 30, 40};
    host_tensor ha, hb, hc;
    tl_value args[] = {ht_wrap(&ha, F32, a, 2, 2, 3), ht_wrap(&hb, F32, b, 2, 3, 2), ht_wrap(&hc, F32, c, 2, 2, 2)};
    TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "g", args, 3));
    float ab[4] = {4, 5, 10, 11};
    for (int i = 0; i < 4; i++) assert_true(c[i] == ab[i] + (clear ? 0.0f : 10.0f * (float)(i + 1)));
    tl_ir_module_free(m);
  }
}

/* A float16 accumulator rounds the product and the sum to float16 at every step;
 * int8 operands accumulate in int32 with wrap-around. */
static void test_gemm_other_accumulators(void **state) {
  (void)state;
  enum { M = 3, K = 37, N = 2 };
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_buffer *A = buf2(m, "A", F16, I32(M), I32(K), GLOBAL), *B = buf2(m, "B", F16, I32(K), I32(N), GLOBAL),
               *C = buf2(m, "C", F16, I32(M), I32(N), GLOBAL);
  tl_ir_buffer *IA = buf2(m, "IA", TL_DT_INT8, I32(M), I32(K), GLOBAL),
               *IB = buf2(m, "IB", TL_DT_INT8, I32(N), I32(K), GLOBAL),
               *IC = buf2(m, "IC", TL_DT_INT32, I32(M), I32(N), GLOBAL);
  make_func(m, "g", (tl_ir_buffer *[]){A, B, C, IA, IB, IC}, 6,
            kernel2(m, I32(1), NULL, bx, NULL,
                    SEQ(TILE(TL_OP_GEMM, FULL(A), FULL(B), FULL(C), I32(0), I32(0), I32(1), I32(0)),
                        TILE(TL_OP_GEMM, FULL(IA), FULL(IB), FULL(IC), I32(0), I32(1), I32(0), I32(0)))));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  uint16_t a[M * K], b[K * N], c[M * N];
  int8_t ia[M * K], ib[N * K];
  int32_t ic[M * N];
  uint64_t rng = 9;
  for (int k = 0; k < M * K; k++) {
    a[k] = tl__f64_to_f16(8 * test_uniform(&rng));
    ia[k] = (int8_t)(test_uniform(&rng) * 127);
  }
  for (int k = 0; k < K * N; k++) {
    b[k] = tl__f64_to_f16(8 * test_uniform(&rng));
    ib[k] = (int8_t)(test_uniform(&rng) * 127);
  }
  for (int k = 0; k < M * N; k++) ic[k] = INT32_MAX - 1000 * k;
  host_tensor h[6];
  tl_value args[] = {ht_wrap(&h[0], F16, a, 2, M, K), ht_wrap(&h[1], F16, b, 2, K, N), ht_wrap(&h[2], F16, c, 2, M, N),
                     ht_wrap(&h[3], TL_DT_INT8, ia, 2, M, K), ht_wrap(&h[4], TL_DT_INT8, ib, 2, N, K),
                     ht_wrap(&h[5], TL_DT_INT32, ic, 2, M, N)};
  TL_ASSERT_OK(tl_ir_interpret(m, "g", args, 6));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double acc = 0;
      uint32_t iacc = (uint32_t)(INT32_MAX - 1000 * (i * N + j));
      for (int k = 0; k < K; k++) {
        acc = tl__round_f16(acc + tl__round_f16(tl__f16_to_f64(a[i * K + k]) * tl__f16_to_f64(b[k * N + j])));
        iacc += (uint32_t)(ia[i * K + k] * ib[j * K + k]);
      }
      assert_int_equal(c[i * N + j], tl__f64_to_f16(acc));
      assert_int_equal(ic[i * N + j], (int32_t)iacc);
    }
  tl_ir_module_free(m);
}

/* ----------------------------------------------------------------- softmax */

static void test_softmax(void **state) {
  (void)state;
  enum { M = 37, N = 64, R = 8 };
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32),
            *j = tl_ir_var_new(m, "j", TL_DT_INT32), *i2 = tl_ir_var_new(m, "i", TL_DT_INT32),
            *j2 = tl_ir_var_new(m, "j", TL_DT_INT32);
  tl_ir_buffer *X = buf2(m, "X", F32, I32(M), I32(N), GLOBAL), *Y = buf2(m, "Y", F32, I32(M), I32(N), GLOBAL);
  tl_ir_buffer *Xs = buf2(m, "X_s", F32, I32(R), I32(N), SHARED), *Yl = buf2(m, "Y_l", F32, I32(R), I32(N), FRAG);
  tl_ir_buffer *mx = buf1(m, "row_max", F32, I32(R), FRAG), *sm = buf1(m, "row_sum", F32, I32(R), FRAG);
  tl_ir_expr *r0 = MUL(VAR(bx), I32(R));
  tl_ir_stmt *exp_loop =
      tl_ir_for(m, TL_FOR_PARALLEL, 2, (tl_ir_var *[]){i, j}, NULL, EXPRS(I32(R), I32(N)),
                STORE(Yl, CALL(TL_OP_EXP, F32, SUB(LOAD(Xs, VAR(i), VAR(j)), LOAD(mx, VAR(i)))), VAR(i), VAR(j)));
  tl_ir_stmt *div_loop =
      tl_ir_for(m, TL_FOR_PARALLEL, 2, (tl_ir_var *[]){i2, j2}, NULL, EXPRS(I32(R), I32(N)),
                STORE(Yl, BIN(DIV, LOAD(Yl, VAR(i2), VAR(j2)), LOAD(sm, VAR(i2))), VAR(i2), VAR(j2)));
  tl_ir_stmt *body = kernel2(
      m, ceildiv(m, I32(M), I32(R)), NULL, bx, NULL,
      SEQ(tl_ir_alloc(m, Xs), tl_ir_alloc(m, Yl), tl_ir_alloc(m, mx), tl_ir_alloc(m, sm),
          TILE(TL_OP_COPY, region2(m, X, r0, I32(R), I32(0), I32(N)), FULL(Xs)),
          TILE(TL_OP_REDUCE_MAX, FULL(Xs), FULL(mx), I32(1), I32(1)), exp_loop,
          TILE(TL_OP_REDUCE_SUM, FULL(Yl), FULL(sm), I32(1), I32(1)), div_loop,
          TILE(TL_OP_COPY, FULL(Yl), region2(m, Y, r0, I32(R), I32(0), I32(N)))));
  make_func(m, "softmax", (tl_ir_buffer *[]){X, Y}, 2, body);
  static float x[M * N], y[M * N];
  uint64_t rng = 7;
  for (int k = 0; k < M * N; k++) x[k] = (float)(4 * test_uniform(&rng));
  host_tensor hx, hy;
  tl_value args[] = {ht_wrap(&hx, F32, x, 2, M, N), ht_wrap(&hy, F32, y, 2, M, N)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "softmax", args, 2));
  for (int r = 0; r < M; r++) {
    double mxv = -INFINITY, s = 0;
    for (int c = 0; c < N; c++) mxv = fmax(mxv, x[r * N + c]);
    for (int c = 0; c < N; c++) s += exp(x[r * N + c] - mxv);
    for (int c = 0; c < N; c++) {
      double want = exp(x[r * N + c] - mxv) / s;
      if (fabs(y[r * N + c] - want) > 1e-6 * want + 1e-9)
        fail_msg("Y[%d, %d] = %.9g, expected %.9g", r, c, (double)y[r * N + c], want);
    }
  }
  tl_ir_module_free(m);
}

/* -------------------------------------------------------------- reductions */

enum { RR = 4, RC = 5 };

static float reduce_ref(tl_ir_op op, float acc, float x) {
  switch (op) {
  case TL_OP_REDUCE_SUM: return acc + x;
  case TL_OP_REDUCE_ABSSUM: return acc + fabsf(x);
  case TL_OP_REDUCE_MAX: return x > acc ? x : acc;
  case TL_OP_REDUCE_MIN: return x < acc ? x : acc;
  default: return fabsf(x) > acc ? fabsf(x) : acc;
  }
}

static float reduce_init(tl_ir_op op) {
  return op == TL_OP_REDUCE_MAX ? -INFINITY : op == TL_OP_REDUCE_MIN ? INFINITY : 0.0f;
}

static void run_reduce(tl_ir_op op) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *S = buf2(m, "S", F32, I32(RR), I32(RC), GLOBAL), *D = buf1(m, "D", F32, I32(RR), GLOBAL),
               *E = buf1(m, "E", F32, I32(RR), GLOBAL), *F = buf1(m, "F", F32, I32(RC), GLOBAL),
               *G = buf2(m, "G", F32, I32(RR), I32(1), GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  make_func(m, "r", (tl_ir_buffer *[]){S, D, E, F, G}, 5,
            kernel2(m, I32(1), NULL, bx, NULL,
                    SEQ(TILE(op, FULL(S), FULL(D), I32(1), I32(1)),  /* clear */
                        TILE(op, FULL(S), FULL(E), I32(1), I32(0)),  /* combine with E */
                        TILE(op, FULL(S), FULL(F), I32(0), I32(1)),  /* over rows */
                        TILE(op, FULL(S), FULL(G), I32(1), I32(1))))); /* keeps the reduced dim as 1 */
  float s[RR * RC], d[RR], e[RR], f[RC], g[RR];
  uint64_t rng = 3;
  for (int k = 0; k < RR * RC; k++) s[k] = (float)test_uniform(&rng);
  for (int k = 0; k < RR; k++) d[k] = g[k] = 99.0f;
  for (int k = 0; k < RR; k++) e[k] = (float)test_uniform(&rng);
  float e0[RR];
  memcpy(e0, e, sizeof e);
  host_tensor h[5];
  tl_value args[] = {ht_wrap(&h[0], F32, s, 2, RR, RC), ht_wrap(&h[1], F32, d, 1, RR, 0),
                     ht_wrap(&h[2], F32, e, 1, RR, 0), ht_wrap(&h[3], F32, f, 1, RC, 0),
                     ht_wrap(&h[4], F32, g, 2, RR, 1)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "r", args, 5));
  for (int r = 0; r < RR; r++) {
    float acc = reduce_init(op);
    for (int c = 0; c < RC; c++) acc = reduce_ref(op, acc, s[r * RC + c]);
    assert_true(d[r] == acc);
    assert_true(g[r] == acc);
    /* Without clear the row's result combines with what E held. */
    float comb = op == TL_OP_REDUCE_SUM || op == TL_OP_REDUCE_ABSSUM ? e0[r] + acc
                 : op == TL_OP_REDUCE_MIN                           ? fminf(e0[r], acc)
                                                                    : fmaxf(e0[r], acc);
    if (e[r] != comb) fail_msg("%s row %d: %.9g, expected %.9g", tl_ir_op_name(op), r, (double)e[r], (double)comb);
  }
  for (int c = 0; c < RC; c++) {
    float acc = reduce_init(op);
    for (int r = 0; r < RR; r++) acc = reduce_ref(op, acc, s[r * RC + c]);
    assert_true(f[c] == acc);
  }
  tl_ir_module_free(m);
}

static void test_reductions(void **state) {
  (void)state;
  run_reduce(TL_OP_REDUCE_SUM);
  run_reduce(TL_OP_REDUCE_MAX);
  run_reduce(TL_OP_REDUCE_MIN);
  run_reduce(TL_OP_REDUCE_ABSSUM);
  run_reduce(TL_OP_REDUCE_ABSMAX);
}

static void test_reduce_int_and_errors(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *S = buf2(m, "S", TL_DT_INT32, I32(2), I32(3), GLOBAL), *D = buf1(m, "D", TL_DT_INT32, I32(2), GLOBAL),
               *W = buf1(m, "W", TL_DT_INT32, I32(3), GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_func *imax = make_func(m, "imax", (tl_ir_buffer *[]){S, D}, 2,
                               kernel2(m, I32(1), NULL, bx, NULL, TILE(TL_OP_REDUCE_MAX, FULL(S), FULL(D), I32(1), I32(1))));
  TL_ASSERT_OK(tl_ir_verify_func(imax));
  /* Malformed on purpose (the verifier rejects them too): the interpreter reports them. */
  make_func(m, "bad_shape", (tl_ir_buffer *[]){S, W}, 2,
            kernel2(m, I32(1), NULL, bx, NULL, TILE(TL_OP_REDUCE_SUM, FULL(S), FULL(W), I32(1), I32(1))));
  make_func(m, "bad_dim", (tl_ir_buffer *[]){S, D}, 2,
            kernel2(m, I32(1), NULL, bx, NULL, TILE(TL_OP_REDUCE_SUM, FULL(S), FULL(D), I32(2), I32(1))));
  int32_t s[6] = {-5, -9, -7, 3, 8, -1}, d[2], w[3];
  host_tensor hs, hd, hw;
  tl_value args[] = {ht_wrap(&hs, TL_DT_INT32, s, 2, 2, 3), ht_wrap(&hd, TL_DT_INT32, d, 1, 2, 0)};
  TL_ASSERT_OK(tl_ir_interpret(m, "imax", args, 2));  /* not verified as a module: see above */
  assert_int_equal(d[0], -5);
  assert_int_equal(d[1], 8);
  TL_ASSERT_ERR(tl_ir_interpret(m, "bad_dim", args, 2), TL_EINVAL, "dim 2 is out of range");
  args[1] = ht_wrap(&hw, TL_DT_INT32, w, 1, 3, 0);
  TL_ASSERT_ERR(tl_ir_interpret(m, "bad_shape", args, 2), TL_EINVAL,
                "T.reduce_sum: reduced source region [2] and destination region [3] have different shapes");
  tl_ir_module_free(m);
}

/* T.reduce_bitxor on int32 and uint8 against a plain C fold: over rows and
 * columns, with clear and combined with the destination's old value. */
static void test_reduce_bitxor(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *S = buf2(m, "S", TL_DT_INT32, I32(RR), I32(RC), GLOBAL), *D = buf1(m, "D", TL_DT_INT32, I32(RR), GLOBAL),
               *E = buf1(m, "E", TL_DT_INT32, I32(RC), GLOBAL), *U = buf2(m, "U", TL_DT_UINT8, I32(RR), I32(RC), GLOBAL),
               *V = buf1(m, "V", TL_DT_UINT8, I32(RR), GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  make_func(m, "x", (tl_ir_buffer *[]){S, D, E, U, V}, 5,
            kernel2(m, I32(1), NULL, bx, NULL,
                    SEQ(TILE(TL_OP_REDUCE_BITXOR, FULL(S), FULL(D), I32(1), I32(1)),   /* rows, clear */
                        TILE(TL_OP_REDUCE_BITXOR, FULL(S), FULL(E), I32(0), I32(0)),   /* columns, into E */
                        TILE(TL_OP_REDUCE_BITXOR, FULL(U), FULL(V), I32(1), I32(1))))); /* uint8 */
  int32_t s[RR * RC], d[RR], e[RC], e0[RC];
  uint8_t u[RR * RC], v[RR];
  uint64_t rng = 11;
  for (int k = 0; k < RR * RC; k++) s[k] = (int32_t)(test_uniform(&rng) * 4294967296.0 - 2147483648.0);
  for (int k = 0; k < RR * RC; k++) u[k] = (uint8_t)(test_uniform(&rng) * 256);
  for (int k = 0; k < RC; k++) e[k] = e0[k] = (int32_t)(test_uniform(&rng) * 65536);
  host_tensor h[5];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_INT32, s, 2, RR, RC), ht_wrap(&h[1], TL_DT_INT32, d, 1, RR, 0),
                     ht_wrap(&h[2], TL_DT_INT32, e, 1, RC, 0), ht_wrap(&h[3], TL_DT_UINT8, u, 2, RR, RC),
                     ht_wrap(&h[4], TL_DT_UINT8, v, 1, RR, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "x", args, 5));
  for (int r = 0; r < RR; r++) {
    uint32_t want = 0;
    uint8_t want8 = 0;
    for (int c = 0; c < RC; c++) want ^= (uint32_t)s[r * RC + c], want8 ^= u[r * RC + c];
    assert_int_equal((uint32_t)d[r], want);
    assert_int_equal(v[r], want8);
  }
  for (int c = 0; c < RC; c++) {
    uint32_t want = (uint32_t)e0[c];
    for (int r = 0; r < RR; r++) want ^= (uint32_t)s[r * RC + c];
    assert_int_equal((uint32_t)e[c], want);
  }
  tl_ir_module_free(m);
}

/* T.reduce_bitand / T.reduce_bitor on int32 and uint8 against a plain C fold:
 * rows and columns, with clear and combined with the destination's old value.
 * The and-fold starts from every bit set, uint8's included (255). */
static void test_reduce_bitand_bitor(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *S = buf2(m, "S", TL_DT_INT32, I32(RR), I32(RC), GLOBAL), *A = buf1(m, "A", TL_DT_INT32, I32(RR), GLOBAL),
               *O = buf1(m, "O", TL_DT_INT32, I32(RC), GLOBAL), *U = buf2(m, "U", TL_DT_UINT8, I32(RR), I32(RC), GLOBAL),
               *V = buf1(m, "V", TL_DT_UINT8, I32(RR), GLOBAL), *W = buf1(m, "W", TL_DT_UINT8, I32(RC), GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  make_func(m, "x", (tl_ir_buffer *[]){S, A, O, U, V, W}, 6,
            kernel2(m, I32(1), NULL, bx, NULL,
                    SEQ(TILE(TL_OP_REDUCE_BITAND, FULL(S), FULL(A), I32(1), I32(1)),  /* rows, clear */
                        TILE(TL_OP_REDUCE_BITOR, FULL(S), FULL(O), I32(0), I32(0)),   /* columns, into O */
                        TILE(TL_OP_REDUCE_BITAND, FULL(U), FULL(V), I32(1), I32(1)),  /* uint8 rows */
                        TILE(TL_OP_REDUCE_BITOR, FULL(U), FULL(W), I32(0), I32(1))))); /* uint8 columns */
  int32_t s[RR * RC], a[RR], o[RC], o0[RC];
  uint8_t u[RR * RC], v[RR], w[RC];
  uint64_t rng = 23;
  /* Few bits vary, so that neither fold is trivially 0 or all ones (bits: 16
   * random ones, from test_uniform's [-1, 1) moved to [0, 65536)). */
#define RAND16() ((uint32_t)((test_uniform(&rng) + 1.0) * 32768.0))
  for (int k = 0; k < RR * RC; k++) s[k] = (int32_t)(0x7f0f00f0u | RAND16() << 4);
  for (int k = 0; k < RR * RC; k++) u[k] = (uint8_t)(0xa0 | (RAND16() & 3));
  for (int k = 0; k < RC; k++) o[k] = o0[k] = (int32_t)(RAND16() << 12);
#undef RAND16
  host_tensor h[6];
  tl_value args[] = {ht_wrap(&h[0], TL_DT_INT32, s, 2, RR, RC), ht_wrap(&h[1], TL_DT_INT32, a, 1, RR, 0),
                     ht_wrap(&h[2], TL_DT_INT32, o, 1, RC, 0), ht_wrap(&h[3], TL_DT_UINT8, u, 2, RR, RC),
                     ht_wrap(&h[4], TL_DT_UINT8, v, 1, RR, 0), ht_wrap(&h[5], TL_DT_UINT8, w, 1, RC, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "x", args, 6));
  for (int r = 0; r < RR; r++) {
    uint32_t want = 0xffffffffu;
    uint8_t want8 = 0xff;
    for (int c = 0; c < RC; c++) want &= (uint32_t)s[r * RC + c], want8 &= u[r * RC + c];
    assert_int_equal((uint32_t)a[r], want);
    assert_int_equal(v[r], want8);
  }
  for (int c = 0; c < RC; c++) {
    uint32_t want = (uint32_t)o0[c];
    uint8_t want8 = 0;
    for (int r = 0; r < RR; r++) want |= (uint32_t)s[r * RC + c], want8 |= u[r * RC + c];
    assert_int_equal((uint32_t)o[c], want);
    assert_int_equal(w[c], want8);
  }
  tl_ir_module_free(m);
}

/* ------------------------------------------------------------------ cumsum */

static void test_cumsum(void **state) {
  (void)state;
  enum { R = 3, C = 7 };
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *S = buf2(m, "S", F32, I32(R), I32(C), GLOBAL), *F = buf2(m, "F", F32, I32(R), I32(C), GLOBAL),
               *B = buf2(m, "B", F32, I32(R), I32(C), GLOBAL), *D0 = buf2(m, "D0", F32, I32(R), I32(C), GLOBAL),
               *IP = buf2(m, "IP", F32, I32(R), I32(C), GLOBAL);
  tl_ir_buffer *Ss = buf2(m, "S_s", F32, I32(R), I32(C), SHARED);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  make_func(m, "cs", (tl_ir_buffer *[]){S, F, B, D0, IP}, 5,
            kernel2(m, I32(1), NULL, bx, NULL,
                    SEQ(tl_ir_alloc(m, Ss), TILE(TL_OP_CUMSUM, FULL(S), FULL(F), I32(1), I32(0)),
                        TILE(TL_OP_CUMSUM, FULL(S), FULL(B), I32(1), I32(1)),
                        TILE(TL_OP_CUMSUM, FULL(S), FULL(D0), I32(0), I32(0)),
                        /* in place on a shared copy */
                        TILE(TL_OP_COPY, FULL(S), FULL(Ss)), TILE(TL_OP_CUMSUM, FULL(Ss), FULL(Ss), I32(1), I32(1)),
                        TILE(TL_OP_COPY, FULL(Ss), FULL(IP)))));
  float s[R * C], f[R * C], b[R * C], d0[R * C], ip[R * C];
  uint64_t rng = 11;
  for (int k = 0; k < R * C; k++) s[k] = (float)test_uniform(&rng);
  host_tensor h[5];
  tl_value args[] = {ht_wrap(&h[0], F32, s, 2, R, C), ht_wrap(&h[1], F32, f, 2, R, C), ht_wrap(&h[2], F32, b, 2, R, C),
                     ht_wrap(&h[3], F32, d0, 2, R, C), ht_wrap(&h[4], F32, ip, 2, R, C)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "cs", args, 5));
  for (int r = 0; r < R; r++) {
    float acc = 0;
    for (int c = 0; c < C; c++) {
      acc += s[r * C + c];
      assert_true(f[r * C + c] == acc);
    }
    acc = 0;
    for (int c = C - 1; c >= 0; c--) {
      acc += s[r * C + c];
      assert_true(b[r * C + c] == acc);
      assert_true(ip[r * C + c] == acc);
    }
  }
  for (int c = 0; c < C; c++) {
    float acc = 0;
    for (int r = 0; r < R; r++) {
      acc += s[r * C + c];
      assert_true(d0[r * C + c] == acc);
    }
  }
  tl_ir_module_free(m);
}

/* T.cummax against a plain C running maximum: float rows forward and reverse,
 * int16 columns (from the type's lowest value), in place on a shared copy. */
static void test_cummax(void **state) {
  (void)state;
  enum { R = 3, C = 7 };
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *S = buf2(m, "S", F32, I32(R), I32(C), GLOBAL), *F = buf2(m, "F", F32, I32(R), I32(C), GLOBAL),
               *B = buf2(m, "B", F32, I32(R), I32(C), GLOBAL), *IP = buf2(m, "IP", F32, I32(R), I32(C), GLOBAL),
               *I = buf2(m, "I", TL_DT_INT16, I32(R), I32(C), GLOBAL), *D0 = buf2(m, "D0", TL_DT_INT16, I32(R), I32(C), GLOBAL);
  tl_ir_buffer *Ss = buf2(m, "S_s", F32, I32(R), I32(C), SHARED);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  make_func(m, "cm", (tl_ir_buffer *[]){S, F, B, IP, I, D0}, 6,
            kernel2(m, I32(1), NULL, bx, NULL,
                    SEQ(tl_ir_alloc(m, Ss), TILE(TL_OP_CUMMAX, FULL(S), FULL(F), I32(1), I32(0)),
                        TILE(TL_OP_CUMMAX, FULL(S), FULL(B), I32(1), I32(1)),
                        TILE(TL_OP_CUMMAX, FULL(I), FULL(D0), I32(0), I32(0)),
                        /* in place on a shared copy */
                        TILE(TL_OP_COPY, FULL(S), FULL(Ss)), TILE(TL_OP_CUMMAX, FULL(Ss), FULL(Ss), I32(1), I32(1)),
                        TILE(TL_OP_COPY, FULL(Ss), FULL(IP)))));
  float s[R * C], f[R * C], b[R * C], ip[R * C];
  int16_t in[R * C], d0[R * C];
  uint64_t rng = 5;
  for (int k = 0; k < R * C; k++) s[k] = (float)test_uniform(&rng);
  for (int k = 0; k < R * C; k++) in[k] = (int16_t)(test_uniform(&rng) * 32768.0);
  in[0] = INT16_MIN; /* the identity itself */
  host_tensor h[6];
  tl_value args[] = {ht_wrap(&h[0], F32, s, 2, R, C), ht_wrap(&h[1], F32, f, 2, R, C), ht_wrap(&h[2], F32, b, 2, R, C),
                     ht_wrap(&h[3], F32, ip, 2, R, C), ht_wrap(&h[4], TL_DT_INT16, in, 2, R, C),
                     ht_wrap(&h[5], TL_DT_INT16, d0, 2, R, C)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "cm", args, 6));
  for (int r = 0; r < R; r++) {
    float acc = -INFINITY;
    for (int c = 0; c < C; c++) {
      acc = fmaxf(acc, s[r * C + c]);
      assert_true(f[r * C + c] == acc);
    }
    acc = -INFINITY;
    for (int c = C - 1; c >= 0; c--) {
      acc = fmaxf(acc, s[r * C + c]);
      assert_true(b[r * C + c] == acc);
      assert_true(ip[r * C + c] == acc);
    }
  }
  for (int c = 0; c < C; c++) {
    int acc = INT16_MIN;
    for (int r = 0; r < R; r++) {
      acc = in[r * C + c] > acc ? in[r * C + c] : acc;
      assert_int_equal(d0[r * C + c], acc);
    }
  }
  tl_ir_module_free(m);
}

/* ------------------------------------------------- fill, clear, atomic add */

static void test_fill_clear_atomic(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *X = buf2(m, "X", F32, I32(3), I32(4), GLOBAL), *Y = buf1(m, "Y", TL_DT_INT32, I32(4), GLOBAL),
               *Z = buf2(m, "Z", F32, I32(3), I32(4), GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  make_func(m, "fca", (tl_ir_buffer *[]){X, Y, Z}, 3,
            kernel2(m, I32(2), NULL, bx, NULL,
                    SEQ(TILE(TL_OP_FILL, region2(m, X, I32(1), I32(2), I32(1), I32(3)), F32(2.5)),
                        TILE(TL_OP_CLEAR, region2(m, X, I32(0), I32(1), I32(0), I32(4))),
                        /* every block adds: a T.atomic_add on one element and on a region */
                        TILE(TL_OP_ATOMIC_ADD, region1(m, Y, I32(1), I32(1)), VAR(bx)),
                        TILE(TL_OP_ATOMIC_ADD, region1(m, Y, I32(2), I32(2)), I32(10)),
                        TILE(TL_OP_ATOMIC_ADD, FULL(Z), FULL(X)))));
  float x[12], z[12];
  int32_t y[4] = {1, 1, 1, 1};
  for (int k = 0; k < 12; k++) {
    x[k] = 9.0f;
    z[k] = (float)k;
  }
  host_tensor h[3];
  tl_value args[] = {ht_wrap(&h[0], F32, x, 2, 3, 4), ht_wrap(&h[1], TL_DT_INT32, y, 1, 4, 0),
                     ht_wrap(&h[2], F32, z, 2, 3, 4)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "fca", args, 3));
  float want_x[12] = {0, 0, 0, 0, 9, 2.5f, 2.5f, 2.5f, 9, 2.5f, 2.5f, 2.5f};
  for (int k = 0; k < 12; k++) assert_true(x[k] == want_x[k]);
  assert_int_equal(y[0], 1);
  assert_int_equal(y[1], 1 + 0 + 1);
  assert_int_equal(y[2], 21);
  assert_int_equal(y[3], 21);
  /* Block 0 adds X as block 0 left it, block 1 as block 1 left it (the same). */
  for (int k = 0; k < 12; k++) assert_true(z[k] == (float)k + 2 * want_x[k]);
  tl_ir_module_free(m);
}

/* T.atomic_max / T.atomic_min against plain C: every block folds a row of X (a
 * region) and its block index (a scalar) into the same elements; NaN wins a max
 * as the interpreter's max propagates it; integers compare signed. */
static void test_atomic_minmax(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *X = buf2(m, "X", F32, I32(3), I32(4), GLOBAL), *Mx = buf1(m, "Mx", F32, I32(4), GLOBAL),
               *Mn = buf1(m, "Mn", F32, I32(4), GLOBAL), *Y = buf1(m, "Y", TL_DT_INT32, I32(2), GLOBAL);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  make_func(m, "amm", (tl_ir_buffer *[]){X, Mx, Mn, Y}, 4,
            kernel2(m, I32(3), NULL, bx, NULL,
                    SEQ(TILE(TL_OP_ATOMIC_MAX, FULL(Mx), region2(m, X, VAR(bx), I32(1), I32(0), I32(4))),
                        TILE(TL_OP_ATOMIC_MIN, FULL(Mn), region2(m, X, VAR(bx), I32(1), I32(0), I32(4))),
                        TILE(TL_OP_ATOMIC_MAX, region1(m, Y, I32(0), I32(1)), tl_ir_binary(m, TL_BIN_SUB, VAR(bx), I32(5))),
                        TILE(TL_OP_ATOMIC_MIN, region1(m, Y, I32(1), I32(1)), tl_ir_binary(m, TL_BIN_SUB, VAR(bx), I32(5))))));
  float x[12] = {1, -2, 3, NAN, 5, -6, -7, 8, 0.5f, 9, -1, 2}, mx[4] = {0, 0, 0, 0}, mn[4] = {0, 0, 0, 0};
  int32_t y[2] = {-100, 100};
  host_tensor h[4];
  tl_value args[] = {ht_wrap(&h[0], F32, x, 2, 3, 4), ht_wrap(&h[1], F32, mx, 1, 4, 0), ht_wrap(&h[2], F32, mn, 1, 4, 0),
                     ht_wrap(&h[3], TL_DT_INT32, y, 1, 2, 0)};
  TL_ASSERT_OK(tl_ir_verify_module(m));
  TL_ASSERT_OK(tl_ir_interpret(m, "amm", args, 4));
  for (int c = 0; c < 4; c++) {
    float wmax = 0, wmin = 0;
    bool nan = false;
    for (int r = 0; r < 3; r++) {
      float v = x[r * 4 + c];
      nan |= isnan(v);
      wmax = v > wmax ? v : wmax;
      wmin = v < wmin ? v : wmin;
    }
    if (nan) {
      assert_true(isnan(mx[c]) && isnan(mn[c]));
    } else {
      assert_true(mx[c] == wmax);
      assert_true(mn[c] == wmin);
    }
  }
  assert_int_equal(y[0], -3); /* max(-100, -5, -4, -3) */
  assert_int_equal(y[1], -5); /* min(100, -5, -4, -3) */
  tl_ir_module_free(m);
}

/* T.copy converts to the destination's dtype (rounding to nearest even) and
 * reports out-of-bounds shared accesses instead of clipping them. */
static void test_copy_converts_and_checks_shared(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_buffer *X = buf1(m, "X", F32, I32(4), GLOBAL), *H = buf1(m, "H", F16, I32(4), GLOBAL),
               *Sh = buf1(m, "S", F32, I32(4), SHARED);
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32);
  tl_ir_func *conv = make_func(m, "conv", (tl_ir_buffer *[]){X, H}, 2,
                               kernel2(m, I32(1), NULL, bx, NULL, TILE(TL_OP_COPY, FULL(X), FULL(H))));
  tl_ir_builder_set_loc(m, (tl_ir_span){"k.py", 9, 5});
  tl_ir_stmt *bad = TILE(TL_OP_COPY, region1(m, X, I32(0), I32(4)), region1(m, Sh, I32(2), I32(4)));
  make_func(m, "oob", (tl_ir_buffer *[]){X, H}, 2, kernel2(m, I32(1), NULL, bx, NULL, SEQ(tl_ir_alloc(m, Sh), bad)));
  float x[4] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 70000.0f, -0x1p-25f};
  uint16_t h[4];
  host_tensor hx, hh;
  tl_value args[] = {ht_wrap(&hx, F32, x, 1, 4, 0), ht_wrap(&hh, F16, h, 1, 4, 0)};
  TL_ASSERT_OK(tl_ir_verify_func(conv));
  TL_ASSERT_OK(tl_ir_interpret(m, "conv", args, 2));
  assert_int_equal(h[0], 0x3c00);
  assert_int_equal(h[1], 0x3c02);
  assert_int_equal(h[2], 0x7c00);
  assert_int_equal(h[3], 0x8000);
  TL_ASSERT_ERR(tl_ir_interpret(m, "oob", args, 2), TL_ERUNTIME,
                "k.py:9:5: buffer 'S' index [4] out of bounds for shape [4]");
  tl_ir_module_free(m);
}

/* Every allocation the interpreter makes (frames, allocations, tile-op buffers,
 * messages) fails cleanly with TL_ENOMEM. */
typedef struct oom_ctx {
  tl_ir_module *m;
  tl_value *args;
} oom_ctx;

static tl_status oom_op(void *p) {
  oom_ctx *c = p;
  return tl_ir_interpret(c->m, "softmax_small", c->args, 2);
}

static void test_oom_sweep(void **state) {
  (void)state;
  enum { M = 5, N = 8, R = 4 };
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *i = tl_ir_var_new(m, "i", TL_DT_INT32),
            *j = tl_ir_var_new(m, "j", TL_DT_INT32);
  tl_ir_buffer *X = buf2(m, "X", F32, I32(M), I32(N), GLOBAL), *Y = buf2(m, "Y", F32, I32(M), I32(N), GLOBAL);
  tl_ir_buffer *Xs = buf2(m, "X_s", F32, I32(R), I32(N), SHARED), *mx = buf1(m, "mx", F32, I32(R), FRAG),
               *Cs = buf1(m, "cs", F32, I32(N), FRAG);
  tl_ir_expr *r0 = MUL(VAR(bx), I32(R));
  make_func(m, "softmax_small", (tl_ir_buffer *[]){X, Y}, 2,
            kernel2(m, ceildiv(m, I32(M), I32(R)), NULL, bx, NULL,
                    SEQ(tl_ir_alloc(m, Xs), tl_ir_alloc(m, mx), tl_ir_alloc(m, Cs),
                        TILE(TL_OP_COPY, region2(m, X, r0, I32(R), I32(0), I32(N)), FULL(Xs)),
                        TILE(TL_OP_REDUCE_MAX, FULL(Xs), FULL(mx), I32(1), I32(1)),
                        TILE(TL_OP_CUMSUM, region2(m, Xs, I32(0), I32(1), I32(0), I32(N)), FULL(Cs), I32(0), I32(0)),
                        tl_ir_for(m, TL_FOR_PARALLEL, 2, (tl_ir_var *[]){i, j}, NULL, EXPRS(I32(R), I32(N)),
                                  STORE(Xs, SUB(LOAD(Xs, VAR(i), VAR(j)), LOAD(mx, VAR(i))), VAR(i), VAR(j))),
                        TILE(TL_OP_ATOMIC_ADD, region2(m, Xs, I32(0), I32(1), I32(0), I32(N)), FULL(Cs)),
                        TILE(TL_OP_COPY, FULL(Xs), region2(m, Y, r0, I32(R), I32(0), I32(N))))));
  TL_ASSERT_OK(tl_ir_verify_module(m));
  float x[M * N], y[M * N];
  for (int k = 0; k < M * N; k++) x[k] = (float)(k % 7);
  host_tensor hx, hy;
  tl_value args[] = {ht_wrap(&hx, F32, x, 2, M, N), ht_wrap(&hy, F32, y, 2, M, N)};
  oom_ctx c = {m, args};
  long sites = tl_oom_sweep(oom_op, NULL, &c);
  assert_true(sites >= 5);
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vadd_non_dividing_tile),
      cmocka_unit_test(test_gemm_nn),
      cmocka_unit_test(test_gemm_nt),
      cmocka_unit_test(test_gemm_tn),
      cmocka_unit_test(test_gemm_tt),
      cmocka_unit_test(test_gemm_accumulates),
      cmocka_unit_test(test_gemm_other_accumulators),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_reductions),
      cmocka_unit_test(test_reduce_int_and_errors),
      cmocka_unit_test(test_reduce_bitxor),
      cmocka_unit_test(test_reduce_bitand_bitor),
      cmocka_unit_test(test_cumsum),
      cmocka_unit_test(test_cummax),
      cmocka_unit_test(test_fill_clear_atomic),
      cmocka_unit_test(test_atomic_minmax),
      cmocka_unit_test(test_copy_converts_and_checks_shared),
      cmocka_unit_test(test_oom_sweep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
