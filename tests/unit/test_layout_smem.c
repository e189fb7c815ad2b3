/* Shared-memory layouts (src/layout/smem.c): every layout maps a tile one to one
 * into its span; the swizzles equal CUTLASS's Swizzle<B,4,3> on byte offsets,
 * written out independently here; the access patterns they exist for
 * (ldmatrix: 8 rows x 16 bytes a phase; a warp's 16-byte row-major vector
 * stores, 8 threads a phase) touch 32 distinct banks, where a linear layout of
 * 128-byte rows does not; the choosers pick upstream's layouts; the IR
 * expression computes the address map. */
#include <stdlib.h>

#include "layout/smem.h"
#include "layout_test.h"

static const tl__smem_kind swizzles[3] = {TL__SMEM_SWIZZLE_32B, TL__SMEM_SWIZZLE_64B, TL__SMEM_SWIZZLE_128B};

static void check_injective(const tl__smem_layout *L, bool onto) {
  int64_t span = tl__smem_span(L);
  unsigned char *seen = calloc((size_t)span, 1);
  assert_non_null(seen);
  for (int64_t r = 0; r < L->rows; r++)
    for (int64_t c = 0; c < L->cols; c++) {
      int64_t o = tl__smem_offset(L, r, c);
      if (o < 0 || o >= span)
        fail_msg("%s: (%lld, %lld) at %lld, outside [0, %lld)", tl__smem_kind_name(L->kind), (long long)r, (long long)c,
                 (long long)o, (long long)span);
      if (seen[o]++) fail_msg("%s: offset %lld used twice", tl__smem_kind_name(L->kind), (long long)o);
    }
  if (onto) assert_int_equal(span, L->rows * L->cols);
  free(seen);
}

/* CUTLASS Swizzle<B, M, S>: the B bits above bit M+S are XORed into the B bits
 * above bit M. */
static int64_t cutlass_swizzle(int b, int m, int s, int64_t o) {
  int64_t mask = ((int64_t)((1 << b) - 1)) << (m + s);
  return o ^ ((o & mask) >> s);
}

static void test_swizzles_are_bijections_equal_to_cutlass(void **state) {
  (void)state;
  for (int k = 0; k < 3; k++)
    for (int64_t eb = 1; eb <= 8; eb *= 2) {
      int64_t w = 2 << k, vec = 16 / eb;
      const int64_t rows[] = {8, 16, 64, 128}, widths[] = {1, 2, 3};
      for (size_t ri = 0; ri < 4; ri++)
        for (size_t wi = 0; wi < 3; wi++) {
          tl__smem_layout L;
          int64_t cols = vec * w * widths[wi];
          TL_ASSERT_OK(tl__smem_swizzle(swizzles[k], rows[ri], cols, eb, &L));
          check_injective(&L, true);
          int b, m, s;
          assert_true(tl__smem_swizzle_bits(&L, &b, &m, &s));
          assert_int_equal(1 << b, w);
          for (int64_t r = 0; r < L.rows; r++)
            for (int64_t c = 0; c < L.cols; c++) {
              /* Atoms of 8 rows x 16*w bytes, column-block-major, each swizzled. */
              int64_t atom = (c / (vec * w)) * (L.rows / 8) + r / 8;
              int64_t plain = (r % 8) * 16 * w + (c % (vec * w)) * eb;
              int64_t want = atom * 8 * 16 * w + cutlass_swizzle(b, m, s, plain);
              if (tl__smem_offset(&L, r, c) * eb != want)
                fail_msg("%s %lldx%lld of %lld bytes: (%lld, %lld) at byte %lld, Swizzle<%d,%d,%d> says %lld",
                         tl__smem_kind_name(L.kind), (long long)L.rows, (long long)L.cols, (long long)eb, (long long)r,
                         (long long)c, (long long)(tl__smem_offset(&L, r, c) * eb), b, m, s, (long long)want);
            }
        }
    }
}

/* The worst number of distinct 16-byte accesses of one phase that share a bank
 * (1: conflict-free), for 8 accesses at (rows[i], cols[i]). */
static int phase_conflicts(const tl__smem_layout *L, const int64_t *rows, const int64_t *cols) {
  int per_bank[32] = {0}, worst = 0;
  for (int i = 0; i < 8; i++) {
    int64_t byte = tl__smem_offset(L, rows[i], cols[i]) * L->elem_bytes;
    for (int64_t wd = 0; wd < 4; wd++) {
      int bank = (int)(((byte / 4) + wd) % 32);
      if (++per_bank[bank] > worst) worst = per_bank[bank];
    }
  }
  return worst;
}

/* ldmatrix: each phase reads 8 rows (a multiple of 8 onwards) at one 16-byte
 * column chunk. Worst over the tile. */
static int ldmatrix_conflicts(const tl__smem_layout *L) {
  int64_t vec = 16 / L->elem_bytes, worst = 0;
  for (int64_t r0 = 0; r0 + 8 <= L->rows; r0 += 8)
    for (int64_t c = 0; c + vec <= L->cols; c += vec) {
      int64_t rows[8], cols[8];
      for (int i = 0; i < 8; i++) {
        rows[i] = r0 + i;
        cols[i] = c;
      }
      int n = phase_conflicts(L, rows, cols);
      if (n > worst) worst = n;
    }
  return (int)worst;
}

/* A warp storing the tile row-major, 16 bytes a thread: phase p covers chunks
 * 8p .. 8p+7 of the row-major chunk order. */
static int row_store_conflicts(const tl__smem_layout *L) {
  int64_t vec = 16 / L->elem_bytes, per_row = L->cols / vec, total = L->rows * per_row, worst = 0;
  for (int64_t g0 = 0; g0 + 8 <= total; g0 += 8) {
    int64_t rows[8], cols[8];
    for (int i = 0; i < 8; i++) {
      rows[i] = (g0 + i) / per_row;
      cols[i] = ((g0 + i) % per_row) * vec;
    }
    int n = phase_conflicts(L, rows, cols);
    if (n > worst) worst = n;
  }
  return (int)worst;
}

static void test_bank_conflicts(void **state) {
  (void)state;
  for (int k = 0; k < 3; k++)
    for (int64_t eb = 1; eb <= 8; eb *= 2) {
      int64_t w = 2 << k, vec = 16 / eb;
      tl__smem_layout L;
      /* ldmatrix is conflict-free at any width of whole atoms. Row stores are at
       * the atom's own width, and for 128B at every width (a phase of 8 chunks is
       * one whole atom row); narrower swizzles on wider rows put the atoms of one
       * row 16*W*rows/8 bytes apart, in the same banks. */
      for (int64_t mult = 1; mult <= 4; mult++) {
        TL_ASSERT_OK(tl__smem_swizzle(swizzles[k], 32, vec * w * mult, eb, &L));
        if (ldmatrix_conflicts(&L) != 1)
          fail_msg("%s of %lld-byte rows: ldmatrix conflicts", tl__smem_kind_name(L.kind), (long long)(w * 16 * mult));
        if ((mult == 1 || w == 8) && row_store_conflicts(&L) != 1)
          fail_msg("%s of %lld-byte rows: row store conflicts", tl__smem_kind_name(L.kind), (long long)(w * 16 * mult));
      }
    }
  /* The choosers' picks are conflict-free for ldmatrix on every gemm tile. */
  const int64_t shapes[][2] = {{64, 32}, {64, 64}, {128, 64}, {32, 128}, {64, 48}, {16, 40}, {128, 256}, {8, 24}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int64_t eb = 1; eb <= 4; eb *= 2) {
      tl__smem_layout L;
      if ((shapes[i][1] * eb) % 16) continue;
      TL_ASSERT_OK(tl__smem_choose_mma(shapes[i][0], shapes[i][1], eb, true, &L));
      if (ldmatrix_conflicts(&L) != 1)
        fail_msg("mma chooser: %s for %lldx%lld of %lld bytes has ldmatrix conflicts", tl__smem_kind_name(L.kind),
                 (long long)shapes[i][0], (long long)shapes[i][1], (long long)eb);
      check_injective(&L, L.kind != TL__SMEM_PADDED || L.pitch == L.cols);
      TL_ASSERT_OK(tl__smem_choose_wgmma(shapes[i][0], shapes[i][1], eb, &L));
      if (L.kind != TL__SMEM_LINEAR && ldmatrix_conflicts(&L) != 1)
        fail_msg("wgmma chooser: %s for %lldx%lld has ldmatrix conflicts", tl__smem_kind_name(L.kind),
                 (long long)shapes[i][0], (long long)shapes[i][1]);
    }
  /* What the swizzles are for: a linear tile of 128-byte rows puts all 8 rows of
   * an ldmatrix phase in the same banks. */
  tl__smem_layout lin;
  TL_ASSERT_OK(tl__smem_linear(64, 64, 2, &lin));
  assert_int_equal(ldmatrix_conflicts(&lin), 8);
  check_injective(&lin, true);
}

static void test_padded(void **state) {
  (void)state;
  tl__smem_layout L;
  TL_ASSERT_OK(tl__smem_padded(64, 64, 2, &L)); /* 128-byte rows: +16 bytes */
  assert_int_equal(L.pitch, 72);
  assert_int_equal(tl__smem_span(&L), 64 * 72);
  check_injective(&L, false);
  assert_int_equal(ldmatrix_conflicts(&L), 1);
  TL_ASSERT_OK(tl__smem_padded(64, 24, 2, &L)); /* 48-byte rows: no padding */
  assert_int_equal(L.pitch, 24);
  assert_int_equal(ldmatrix_conflicts(&L), 1);
  TL_ASSERT_OK(tl__smem_padded(32, 32, 4, &L));
  assert_int_equal(L.pitch, 36);
  assert_int_equal(tl__smem_offset(&L, 3, 5), 3 * 36 + 5);
}

typedef struct choose_case {
  int64_t rows, cols, eb;
  bool k_inner;
  tl__smem_kind mma, wgmma; /* expected picks */
} choose_case;

static const choose_case picks[] = {
    {64, 64, 2, true, TL__SMEM_SWIZZLE_128B, TL__SMEM_SWIZZLE_128B},
    {64, 32, 2, true, TL__SMEM_SWIZZLE_64B, TL__SMEM_SWIZZLE_64B},
    {64, 16, 2, true, TL__SMEM_PADDED, TL__SMEM_SWIZZLE_32B},
    {64, 8, 2, true, TL__SMEM_PADDED, TL__SMEM_LINEAR},
    {64, 32, 4, true, TL__SMEM_SWIZZLE_128B, TL__SMEM_SWIZZLE_128B},
    {64, 128, 1, true, TL__SMEM_SWIZZLE_128B, TL__SMEM_SWIZZLE_128B},
    {64, 128, 1, false, TL__SMEM_PADDED, TL__SMEM_SWIZZLE_128B},
    {12, 64, 2, true, TL__SMEM_PADDED, TL__SMEM_LINEAR},
    {64, 192, 2, true, TL__SMEM_SWIZZLE_128B, TL__SMEM_SWIZZLE_128B},
    {64, 96, 2, true, TL__SMEM_SWIZZLE_64B, TL__SMEM_SWIZZLE_64B},
};

static void test_choosers(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++) {
    const choose_case *c = &picks[i];
    tl__smem_layout L;
    TL_ASSERT_OK(tl__smem_choose_mma(c->rows, c->cols, c->eb, c->k_inner, &L));
    if (L.kind != c->mma) fail_msg("case %zu: mma chooser picked %s", i, tl__smem_kind_name(L.kind));
    TL_ASSERT_OK(tl__smem_choose_wgmma(c->rows, c->cols, c->eb, &L));
    if (L.kind != c->wgmma) fail_msg("case %zu: wgmma chooser picked %s", i, tl__smem_kind_name(L.kind));
  }
  tl__smem_layout L, M;
  TL_ASSERT_OK(tl__smem_choose_mma(64, 64, 8, true, &L));
  assert_int_equal(L.kind, TL__SMEM_PADDED);
  TL_ASSERT_ERR(tl__smem_choose_wgmma(64, 64, 8, &L), TL_EINVAL, "8-byte elements");
  TL_ASSERT_ERR(tl__smem_choose_wgmma(64, 7, 2, &L), TL_EINVAL, "16-byte chunks");
  TL_ASSERT_ERR(tl__smem_swizzle(TL__SMEM_SWIZZLE_128B, 12, 64, 2, &L), TL_EINVAL, "whole atoms of 8");
  TL_ASSERT_ERR(tl__smem_swizzle(TL__SMEM_SWIZZLE_128B, 16, 32, 2, &L), TL_EINVAL, "128-byte atom rows");
  TL_ASSERT_ERR(tl__smem_swizzle(TL__SMEM_LINEAR, 16, 32, 2, &L), TL_EINVAL, "not a swizzle");
  TL_ASSERT_ERR(tl__smem_linear(16, 32, 3, &L), TL_EINVAL, "3 bytes");
  TL_ASSERT_OK(tl__smem_swizzle(TL__SMEM_SWIZZLE_64B, 16, 32, 2, &L));
  TL_ASSERT_OK(tl__smem_swizzle(TL__SMEM_SWIZZLE_64B, 16, 32, 2, &M));
  assert_true(tl__smem_equal(&L, &M));
  TL_ASSERT_OK(tl__smem_swizzle(TL__SMEM_SWIZZLE_32B, 16, 32, 2, &M));
  assert_false(tl__smem_equal(&L, &M));
  int b, m, s;
  TL_ASSERT_OK(tl__smem_padded(16, 32, 2, &M));
  assert_false(tl__smem_swizzle_bits(&M, &b, &m, &s));
}

static void test_offset_expression(void **state) {
  (void)state;
  tl__smem_layout ls[5];
  TL_ASSERT_OK(tl__smem_linear(16, 40, 2, &ls[0]));
  TL_ASSERT_OK(tl__smem_padded(16, 64, 2, &ls[1]));
  TL_ASSERT_OK(tl__smem_swizzle(TL__SMEM_SWIZZLE_32B, 16, 32, 2, &ls[2]));
  TL_ASSERT_OK(tl__smem_swizzle(TL__SMEM_SWIZZLE_64B, 24, 64, 4, &ls[3]));
  TL_ASSERT_OK(tl__smem_swizzle(TL__SMEM_SWIZZLE_128B, 32, 128, 2, &ls[4]));
  for (int k = 0; k < 5; k++) {
    tl_ir_module *mod;
    TL_ASSERT_OK(tl_ir_module_create(&mod));
    tl_ir_var *rv = tl_ir_var_new(mod, "r", TL_DT_INT32), *cv = tl_ir_var_new(mod, "c", TL_DT_INT32);
    tl_ir_expr *e;
    TL_ASSERT_OK(tl__smem_offset_expr(mod, &ls[k], tl_ir_var_ref(mod, rv), tl_ir_var_ref(mod, cv), &e));
    for (int64_t r = 0; r < ls[k].rows; r++)
      for (int64_t c = 0; c < ls[k].cols; c++) {
        lt_env env = {{rv, cv}, {r, c}, 2};
        assert_int_equal(lt_eval(e, &env), tl__smem_offset(&ls[k], r, c));
      }
    TL_ASSERT_ERR(tl__smem_offset_expr(mod, &ls[k], NULL, tl_ir_var_ref(mod, cv), &e), TL_EINVAL, "NULL");
    tl_ir_module_free(mod);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_swizzles_are_bijections_equal_to_cutlass),
      cmocka_unit_test(test_bank_conflicts),
      cmocka_unit_test(test_padded),
      cmocka_unit_test(test_choosers),
      cmocka_unit_test(test_offset_expression),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
