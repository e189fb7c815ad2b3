/* SIMT execution of GPU-lowered kernels (one OS thread per GPU thread), checked
 * against C references: a shared-memory tree reduction with barriers, warp-shuffle
 * butterfly all-reduces (width 32 and 8, warp sizes 32 and 64), a transpose
 * through shared memory (and the race detector on the same kernel without its
 * barrier), atomic adds from many threads, a host entry launching grid (3, 2) x
 * block (64, 2), a T.Kernel with bound thread variables, and forced SIMT giving
 * the sequential result. The `_threads` suffix runs it under TSan (make tsan). */
#include "simt_util.h"

/* ------------------------------------------------ tree reduction (barriers) */

enum { RN = 150, RB = 64, RG = 3 }; /* 3 blocks of 64, the last one partial */

/* red_kernel(A: float32[RN], Out: float32[RG]): Out[bx] = the tree sum of the
 * block's elements through shared memory, a barrier after every level. */
static tl_ir_func *add_reduction(tl_ir_module *m, const char *name, int64_t block) {
  tl_ir_var *bx = tagged(m, "bx", "blockIdx.x"), *tx = tagged(m, "tx", "threadIdx.x");
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *k = tl_ir_var_new(m, "k", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, I32(RN), GLOBAL), *Out = buf1(m, "Out", TL_DT_FLOAT32, I32(RG), GLOBAL);
  tl_ir_buffer *S = buf1(m, "S", TL_DT_FLOAT32, I32(block), SHARED);
  int levels = 0;
  while ((1 << levels) < block) levels++;
  tl_ir_expr *s = BIN(SHR, I32(block / 2), VAR(k));
  tl_ir_stmt *tree = single_var_loop(m, TL_FOR_SERIAL, k, I32(levels),
                           SEQ(IF(LT(VAR(tx), s), STORE(S, ADD(LOAD(S, VAR(tx)), LOAD(S, ADD(VAR(tx), s))), VAR(tx))),
                               BARRIER()));
  tl_ir_stmt *body =
      SEQ(ALLOC(S),
          LET(i, ADD(MUL(VAR(bx), I32(block)), VAR(tx)),
              SEQ(STORE(S, tl_ir_select(m, LT(VAR(i), I32(RN)), LOAD(A, VAR(i)), F32(0)), VAR(tx)), BARRIER(), tree,
                  IF(EQ(VAR(tx), I32(0)), STORE(Out, LOAD(S, I32(0)), VAR(bx))))));
  return simt_kernel(m, name, (tl_ir_buffer *[]){A, Out}, 2, body);
}

static void reduction_reference(const float *a, int64_t block, float *out) {
  for (int b = 0; b < RG; b++) {
    float s[1024];
    for (int t = 0; t < block; t++) s[t] = b * block + t < RN ? a[b * block + t] : 0.0f;
    for (int64_t h = block / 2; h >= 1; h /= 2)
      for (int t = 0; t < h; t++) s[t] = s[t] + s[t + h];
    out[b] = s[0];
  }
}

static void test_tree_reduction(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_builder_set_loc(m, (tl_ir_span){"red.py", 1, 1});
  tl_ir_func *k = add_reduction(m, "red_kernel", RB);
  simt_host(m, "red", k, (int64_t[]){RG, 1, 1}, (int64_t[]){RB, 1, 1}, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  float a[RN], out[RG], want[RG];
  uint64_t rng = 11;
  for (int j = 0; j < RN; j++) a[j] = (float)test_uniform(&rng);
  reduction_reference(a, RB, want);
  for (int rep = 0; rep < 3; rep++) {
    memset(out, 0, sizeof out);
    TL_ASSERT_OK(simt_call(m, "red", (simt_arg[]){{TL_DT_FLOAT32, a, RN}, {TL_DT_FLOAT32, out, RG}}, 2));
    for (int b = 0; b < RG; b++) assert_memory_equal(&out[b], &want[b], sizeof(float)); /* bit-exact */
  }
  tl_ir_module_free(m);
}

/* ------------------------------------------------ warp-shuffle butterflies */

enum { SN = 128, SB = 64 };

/* shfl_kernel(A, Out: float32[SN]): v = A[i]; v += shfl_xor(v, m, width) for
 * m = width/2 .. 1; then, if `cross`, once more with m = width (a partner in the
 * next segment gives the lane its own value, one in the previous segment its). */
static tl_ir_func *add_butterfly(tl_ir_module *m, const char *name, int width, bool cross) {
  tl_ir_var *bx = tagged(m, "bx", "blockIdx.x"), *tx = tagged(m, "tx", "threadIdx.x");
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32), *k = tl_ir_var_new(m, "k", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, I32(SN), GLOBAL), *Out = buf1(m, "Out", TL_DT_FLOAT32, I32(SN), GLOBAL);
  tl_ir_buffer *V = buf1(m, "V", TL_DT_FLOAT32, I32(1), LOCAL);
  int levels = 0;
  while ((1 << levels) < width) levels++;
  tl_ir_expr *v = LOAD(V, I32(0));
  tl_ir_stmt *steps = single_var_loop(m, TL_FOR_UNROLLED, k, I32(levels),
                            STORE(V, ADD(v, SHFL(TL_DT_FLOAT32, v, BIN(SHR, I32(width / 2), VAR(k)), I32(width))), I32(0)));
  tl_ir_stmt *extra = cross ? STORE(V, ADD(v, SHFL(TL_DT_FLOAT32, v, I32(width), I32(width))), I32(0)) : tl_ir_seq(m, 0, NULL);
  tl_ir_stmt *body = SEQ(ALLOC(V), LET(i, ADD(MUL(VAR(bx), I32(SB)), VAR(tx)),
                                       SEQ(STORE(V, LOAD(A, VAR(i)), I32(0)), steps, extra,
                                           STORE(Out, LOAD(V, I32(0)), VAR(i)))));
  return simt_kernel(m, name, (tl_ir_buffer *[]){A, Out}, 2, body);
}

/* The same exchanges in C, lane by lane: CUDA's __shfl_xor_sync with width. */
static void butterfly_reference(const float *a, int warp, int width, bool cross, float *out) {
  int masks[8], nmasks = 0;
  for (int mk = width / 2; mk >= 1; mk /= 2) masks[nmasks++] = mk;
  if (cross) masks[nmasks++] = width;
  float v[SN], nv[SN];
  memcpy(v, a, sizeof v);
  for (int s = 0; s < nmasks; s++) {
    for (int j = 0; j < SN; j++) {
      int lane = j % SB % warp, wbase = j - lane; /* blocks hold whole warps here */
      int src = lane ^ masks[s], seg_end = (lane / width + 1) * width;
      nv[j] = v[j] + (src >= seg_end ? v[j] : v[wbase + src]);
    }
    memcpy(v, nv, sizeof v);
  }
  memcpy(out, v, sizeof v);
}

static void check_butterfly(int warp, int width, bool cross) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_func *k = add_butterfly(m, "shfl_kernel", width, cross);
  if (warp != 32) TL_ASSERT_OK(tl_ir_func_set_attr_str(m, k, "target", "rocm")); /* thread_warp_size 64 */
  simt_host(m, "shfl", k, (int64_t[]){SN / SB, 1, 1}, (int64_t[]){SB, 1, 1}, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  float a[SN], out[SN], want[SN];
  uint64_t rng = 5 + (uint64_t)width;
  for (int j = 0; j < SN; j++) a[j] = (float)test_uniform(&rng);
  butterfly_reference(a, warp, width, cross, want);
  TL_ASSERT_OK(simt_call(m, "shfl", (simt_arg[]){{TL_DT_FLOAT32, a, SN}, {TL_DT_FLOAT32, out, SN}}, 2));
  for (int j = 0; j < SN; j++)
    if (memcmp(&out[j], &want[j], sizeof(float)) != 0)
      fail_msg("warp %d width %d cross %d: Out[%d] = %.9g, want %.9g", warp, width, cross, j, out[j], want[j]);
  /* An all-reduce over the full width: every lane of a segment ends with the same sum. */
  if (!cross && width == warp)
    for (int j = 0; j < SN; j++) assert_memory_equal(&out[j], &out[j / width * width], sizeof(float));
  tl_ir_module_free(m);
}

static void test_shuffle_butterflies(void **state) {
  (void)state;
  check_butterfly(32, 32, false);
  check_butterfly(32, 8, false);
  check_butterfly(32, 8, true);
  /* The kernel's target says 64 lanes (rocm): lane mask 32 reaches the other half
   * of the warp, which a 32-lane warp does not have. */
  check_butterfly(64, 32, true);
  check_butterfly(64, 16, true);
}

/* ------------------------------------------------ transpose through shared memory */

enum { TH = 16, TW = 24, TT = 8 }; /* A is TH x TW; tiles of 8 x 8; grid (3, 2) */

/* B (TW x TH) = A^T: tile[ty][tx] = A[y][x]; barrier; B[bx*8+ty][by*8+tx] = tile[tx][ty]. */
static tl_ir_stmt *transpose_body(tl_ir_module *m, tl_ir_buffer *A, tl_ir_buffer *B, tl_ir_var *bx, tl_ir_var *by,
                                  tl_ir_var *tx, tl_ir_var *ty, bool barrier) {
  tl_ir_buffer *T = buf1(m, "tile", TL_DT_FLOAT32, I32(TT * TT), SHARED);
  tl_ir_expr *x = ADD(MUL(VAR(bx), I32(TT)), VAR(tx)), *y = ADD(MUL(VAR(by), I32(TT)), VAR(ty));
  tl_ir_stmt *load = STORE(T, LOAD(A, ADD(MUL(y, I32(TW)), x)), ADD(MUL(VAR(ty), I32(TT)), VAR(tx)));
  tl_ir_expr *row = ADD(MUL(VAR(bx), I32(TT)), VAR(ty)), *col = ADD(MUL(VAR(by), I32(TT)), VAR(tx));
  tl_ir_builder_set_loc(m, (tl_ir_span){"transpose.py", 9, 5});
  tl_ir_stmt *store = STORE(B, LOAD(T, ADD(MUL(VAR(tx), I32(TT)), VAR(ty))), ADD(MUL(row, I32(TH)), col));
  return barrier ? SEQ(ALLOC(T), load, BARRIER(), store) : SEQ(ALLOC(T), load, store);
}

static tl_ir_module *transpose_module(bool barrier) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_builder_set_loc(m, (tl_ir_span){"transpose.py", 7, 5});
  tl_ir_var *bx = tagged(m, "bx", "blockIdx.x"), *by = tagged(m, "by", "blockIdx.y");
  tl_ir_var *tx = tagged(m, "tx", "threadIdx.x"), *ty = tagged(m, "ty", "threadIdx.y");
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, I32(TH * TW), GLOBAL), *B = buf1(m, "B", TL_DT_FLOAT32, I32(TH * TW), GLOBAL);
  tl_ir_func *k = simt_kernel(m, "transpose_kernel", (tl_ir_buffer *[]){A, B}, 2,
                              transpose_body(m, A, B, bx, by, tx, ty, barrier));
  simt_host(m, "transpose", k, (int64_t[]){TW / TT, TH / TT, 1}, (int64_t[]){TT, TT, 1}, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  return m;
}

static void test_transpose(void **state) {
  (void)state;
  tl_ir_module *m = transpose_module(true);
  float a[TH * TW], b[TH * TW];
  for (int j = 0; j < TH * TW; j++) a[j] = (float)j;
  TL_ASSERT_OK(simt_call(m, "transpose", (simt_arg[]){{TL_DT_FLOAT32, a, TH * TW}, {TL_DT_FLOAT32, b, TH * TW}}, 2));
  for (int r = 0; r < TH; r++)
    for (int c = 0; c < TW; c++) assert_true(b[c * TH + r] == a[r * TW + c]);
  tl_ir_module_free(m);
}

/* Without the barrier, thread (tx, ty) reads the element thread (ty, tx) writes:
 * the race detector reports it, whatever order the threads ran in. */
static void test_transpose_without_barrier_races(void **state) {
  (void)state;
  tl_ir_module *m = transpose_module(false);
  float a[TH * TW], b[TH * TW];
  for (int j = 0; j < TH * TW; j++) a[j] = (float)j;
  for (int rep = 0; rep < 5; rep++) {
    TL_ASSERT_ERR(simt_call(m, "transpose", (simt_arg[]){{TL_DT_FLOAT32, a, TH * TW}, {TL_DT_FLOAT32, b, TH * TW}}, 2),
                  TL_ERUNTIME, "data race on shared buffer 'tile' element ");
    /* The write is the load line's, the read the store line's; the lower thread first. */
    assert_non_null(strstr(tl_last_error(), " writes it at transpose.py:7:5"));
    assert_non_null(strstr(tl_last_error(), " reads it at transpose.py:9:5"));
    assert_non_null(strstr(tl_last_error(), "with no barrier in between (block (0, 0, 0), thread ("));
  }
  tl_ir_module_free(m);
}

/* The transpose as a T.Kernel whose block and thread variables are bound by the
 * kernel statement itself (lowered but not yet split into host and device). */
static void test_kernel_statement(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tl_ir_var_new(m, "bx", TL_DT_INT32), *by = tl_ir_var_new(m, "by", TL_DT_INT32);
  tl_ir_var *tx = tl_ir_var_new(m, "tx", TL_DT_INT32), *ty = tl_ir_var_new(m, "ty", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, I32(TH * TW), GLOBAL), *B = buf1(m, "B", TL_DT_FLOAT32, I32(TH * TW), GLOBAL);
  tl_ir_stmt *k = tl_ir_kernel(m, 2, EXPRS(I32(TW / TT), I32(TH / TT)), 2, EXPRS(I32(TT), I32(TT)),
                               (tl_ir_var *[]){bx, by}, transpose_body(m, A, B, bx, by, tx, ty, true));
  assert_non_null(k);
  k->u.kernel.thread_vars[0] = tx;
  k->u.kernel.thread_vars[1] = ty;
  make_func(m, "transpose", (tl_ir_buffer *[]){A, B}, 2, k);
  float a[TH * TW], b[TH * TW];
  for (int j = 0; j < TH * TW; j++) a[j] = (float)(3 * j + 1);
  TL_ASSERT_OK(simt_call(m, "transpose", (simt_arg[]){{TL_DT_FLOAT32, a, TH * TW}, {TL_DT_FLOAT32, b, TH * TW}}, 2));
  for (int r = 0; r < TH; r++)
    for (int c = 0; c < TW; c++) assert_true(b[c * TH + r] == a[r * TW + c]);
  tl_ir_module_free(m);
}

/* ------------------------------------------------ atomics */

enum { AG = 4, AB = 128 };

/* Cnt[0] += 1 and Sum[tx % 4] += tx from every thread (global, int32); a shared
 * float counter that every thread increments between two barriers. */
static void test_atomic_adds(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tagged(m, "bx", "blockIdx.x"), *tx = tagged(m, "tx", "threadIdx.x");
  tl_ir_buffer *Cnt = buf1(m, "Cnt", TL_DT_INT32, I32(1), GLOBAL), *Sum = buf1(m, "Sum", TL_DT_INT32, I32(4), GLOBAL),
               *F = buf1(m, "F", TL_DT_FLOAT32, I32(AG), GLOBAL);
  tl_ir_buffer *S = buf1(m, "S", TL_DT_FLOAT32, I32(1), SHARED);
  tl_ir_stmt *body = SEQ(ALLOC(S), ATOMIC_ADD(Cnt, I32(0), I32(1)),
                         ATOMIC_ADD(Sum, BIN(FLOORMOD, VAR(tx), I32(4)), VAR(tx)),
                         IF(EQ(VAR(tx), I32(0)), STORE(S, F32(0), I32(0))), BARRIER(),
                         ATOMIC_ADD(S, I32(0), F32(1)), BARRIER(),
                         IF(EQ(VAR(tx), I32(AB - 1)), STORE(F, LOAD(S, I32(0)), VAR(bx))));
  tl_ir_func *k = simt_kernel(m, "atomics_kernel", (tl_ir_buffer *[]){Cnt, Sum, F}, 3, body);
  simt_host(m, "atomics", k, (int64_t[]){AG, 1, 1}, (int64_t[]){AB, 1, 1}, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  for (int rep = 0; rep < 3; rep++) {
    int32_t cnt = 0, sum[4] = {0, 0, 0, 0};
    float f[AG];
    TL_ASSERT_OK(simt_call(m, "atomics",
                           (simt_arg[]){{TL_DT_INT32, &cnt, 1}, {TL_DT_INT32, sum, 4}, {TL_DT_FLOAT32, f, AG}}, 3));
    assert_int_equal(cnt, AG * AB);
    for (int j = 0; j < 4; j++) {
      int32_t want = 0;
      for (int t = j; t < AB; t += 4) want += AG * t;
      assert_int_equal(sum[j], want);
    }
    for (int b = 0; b < AG; b++) assert_true(f[b] == (float)AB);
  }
  tl_ir_module_free(m);
}

/* ------------------------------------------------ a 2-D launch through a host entry */

enum { GX = 3, GY = 2, BX = 64, BY = 2, NT = BX * BY, NB = GX * GY };

/* Each block stores b*1000 + t into shared memory, waits, and writes the block's
 * values reversed: Out[b*128 + t] = b*1000 + 127 - t, with b = by*3 + bx and
 * t = ty*64 + tx. */
static tl_ir_module *grid_module(void) {
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tagged(m, "bx", "blockIdx.x"), *by = tagged(m, "by", "blockIdx.y");
  tl_ir_var *tx = tagged(m, "tx", "threadIdx.x"), *ty = tagged(m, "ty", "threadIdx.y");
  tl_ir_var *t = tl_ir_var_new(m, "t", TL_DT_INT32), *b = tl_ir_var_new(m, "b", TL_DT_INT32);
  tl_ir_buffer *Out = buf1(m, "Out", TL_DT_INT32, I32(NB * NT), GLOBAL);
  tl_ir_buffer *S = buf1(m, "S", TL_DT_INT32, I32(NT), SHARED);
  tl_ir_stmt *body =
      SEQ(ALLOC(S),
          LET(t, ADD(MUL(VAR(ty), I32(BX)), VAR(tx)),
              LET(b, ADD(MUL(VAR(by), I32(GX)), VAR(bx)),
                  SEQ(STORE(S, ADD(MUL(VAR(b), I32(1000)), VAR(t)), VAR(t)), BARRIER(),
                      STORE(Out, LOAD(S, SUB(I32(NT - 1), VAR(t))), ADD(MUL(VAR(b), I32(NT)), VAR(t)))))));
  tl_ir_func *k = simt_kernel(m, "grid_kernel", (tl_ir_buffer *[]){Out}, 1, body);
  simt_host(m, "grid", k, (int64_t[]){GX, GY, 1}, (int64_t[]){BX, BY, 1}, -1);
  TL_ASSERT_OK(tl_ir_verify_module(m));
  return m;
}

static void test_host_entry_grid_3x2_block_64x2(void **state) {
  (void)state;
  tl_ir_module *m = grid_module();
  static int32_t out[NB * NT];
  for (int j = 0; j < NB * NT; j++) out[j] = -1;
  TL_ASSERT_OK(simt_call(m, "grid", (simt_arg[]){{TL_DT_INT32, out, NB * NT}}, 1));
  for (int b = 0; b < NB; b++)
    for (int t = 0; t < NT; t++) assert_int_equal(out[b * NT + t], b * 1000 + NT - 1 - t);
  tl_ir_module_free(m);
}

/* ------------------------------------------------ forced SIMT = sequential */

/* Out[i] = A[i] * 2 + tx, no synchronisation: sequential by default; with the
 * module attribute tl.interp.simt = 1 it runs in SIMT mode, with the same result. */
static void test_forced_simt_matches_sequential(void **state) {
  (void)state;
  tl_ir_module *m;
  TL_ASSERT_OK(tl_ir_module_create(&m));
  tl_ir_var *bx = tagged(m, "bx", "blockIdx.x"), *tx = tagged(m, "tx", "threadIdx.x");
  tl_ir_var *i = tl_ir_var_new(m, "i", TL_DT_INT32);
  tl_ir_buffer *A = buf1(m, "A", TL_DT_FLOAT32, I32(RN), GLOBAL), *Out = buf1(m, "Out", TL_DT_FLOAT32, I32(RN), GLOBAL);
  tl_ir_stmt *body = LET(i, ADD(MUL(VAR(bx), I32(RB)), VAR(tx)),
                         IF(LT(VAR(i), I32(RN)),
                            STORE(Out, ADD(MUL(LOAD(A, VAR(i)), F32(2)), tl_ir_cast(m, TL_DT_FLOAT32, VAR(tx))), VAR(i))));
  tl_ir_func *k = simt_kernel(m, "scale_kernel", (tl_ir_buffer *[]){A, Out}, 2, body);
  simt_host(m, "scale", k, (int64_t[]){RG, 1, 1}, (int64_t[]){RB, 1, 1}, -1);
  float a[RN], seq[RN], simt[RN];
  uint64_t rng = 3;
  for (int j = 0; j < RN; j++) a[j] = (float)test_uniform(&rng);
  TL_ASSERT_OK(simt_call(m, "scale", (simt_arg[]){{TL_DT_FLOAT32, a, RN}, {TL_DT_FLOAT32, seq, RN}}, 2));
  TL_ASSERT_OK(tl_ir_module_set_attr_int(m, "tl.interp.simt", 1));
  TL_ASSERT_OK(simt_call(m, "scale", (simt_arg[]){{TL_DT_FLOAT32, a, RN}, {TL_DT_FLOAT32, simt, RN}}, 2));
  assert_memory_equal(seq, simt, sizeof seq);
  for (int j = 0; j < RN; j++) assert_true(seq[j] == a[j] * 2 + (float)(j % RB));
  tl_ir_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tree_reduction),
      cmocka_unit_test(test_shuffle_butterflies),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_transpose_without_barrier_races),
      cmocka_unit_test(test_kernel_statement),
      cmocka_unit_test(test_atomic_adds),
      cmocka_unit_test(test_host_entry_grid_3x2_block_64x2),
      cmocka_unit_test(test_forced_simt_matches_sequential),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
