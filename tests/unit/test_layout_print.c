/* The layout printers' text is stable: tests/golden/layouts/layouts.txt holds
 * the printed form of a table of fragment and shared layouts (the gemm
 * operands and accumulators, FlashAttention's fragments, a reduction's row
 * vector, SIMT layouts with and without holes, the swizzles). Regenerate with
 * scripts/regen-golden.sh layouts (TL_REGEN_GOLDEN=1 build/bin/test_layout_print)
 * and review the diff. Also: both printers under an allocation-failure sweep. */
#include <stdlib.h>

#include "base/error.h"
#include "base/str.h"
#include "layout/smem.h"
#include "layout_test.h"

#define GOLDEN TL_SOURCE_DIR "/tests/golden/layouts/layouts.txt"

typedef enum { FRAG, SMEM } kind;

typedef struct entry {
  const char *name;
  kind k;
  tl__frag f;
  tl__smem_layout s;
} entry;

static size_t build(entry *e, size_t cap) {
  size_t n = 0;
#define F(label, call)                                                                                                 \
  do {                                                                                                                 \
    assert_true(n < cap);                                                                                              \
    e[n].name = label;                                                                                                 \
    e[n].k = FRAG;                                                                                                     \
    TL_ASSERT_OK(call);                                                                                                \
    n++;                                                                                                               \
  } while (0)
#define S(label, call)                                                                                                 \
  do {                                                                                                                 \
    assert_true(n < cap);                                                                                              \
    e[n].name = label;                                                                                                 \
    e[n].k = SMEM;                                                                                                     \
    TL_ASSERT_OK(call);                                                                                                \
    n++;                                                                                                               \
  } while (0)
  const int64_t s64[2] = {64, 64}, s100[1] = {100}, s3[3] = {2, 6, 8}, s128[1] = {128};
  tl__frag_mma_c_atom(&e[n].f);
  e[n].name = "mma m16n8k16 C atom";
  e[n++].k = FRAG;
  tl__frag_mma_a_atom(&e[n].f);
  e[n].name = "mma m16n8k16 A atom";
  e[n++].k = FRAG;
  tl__frag_mma_b_atom(&e[n].f);
  e[n].name = "mma m16n8k16 B atom";
  e[n++].k = FRAG;
  F("gemm C 128x128, 2x2 warps (Square)", tl__frag_mma_c(128, 128, 2, 2, &e[n].f));
  F("gemm A 128x32, 2x2 warps", tl__frag_mma_a(128, 32, 2, 2, false, &e[n].f));
  F("gemm B 32x128, 2x2 warps", tl__frag_mma_b(32, 128, 2, 2, false, &e[n].f));
  F("gemm B transposed [N, K] 128x32, 2x2 warps", tl__frag_mma_b(32, 128, 2, 2, true, &e[n].f));
  F("flash attention acc_s 64x64, 4x1 warps (FullRow)", tl__frag_mma_c(64, 64, 4, 1, &e[n].f));
  F("flash attention acc_s_cast = P@V operand A", tl__frag_mma_a(64, 64, 4, 1, false, &e[n].f));
  {
    tl__frag acc;
    TL_ASSERT_OK(tl__frag_mma_c(64, 64, 4, 1, &acc));
    const uint32_t keep = 0;
    F("flash attention scores_max: acc_s projected on its rows", tl__frag_project(&acc, &keep, 1, &e[n].f));
  }
  F("wgmma C m64n64, one warpgroup", tl__frag_wgmma_c(64, 64, 4, 1, &e[n].f));
  F("wgmma C 128x256, 4x2 warps", tl__frag_wgmma_c(128, 256, 4, 2, &e[n].f));
  F("simt 64x64 f32 over 128 threads", tl__frag_simt(128, s64, 2, 4, 16, false, &e[n].f));
  F("simt 64x64 f32 gemm accumulator over 128 threads", tl__frag_simt(128, s64, 2, 4, 16, true, &e[n].f));
  F("simt [100] over 256 threads (holes)", tl__frag_simt(256, s100, 1, 4, 16, false, &e[n].f));
  F("simt [2, 6, 8] f16 over 96 threads", tl__frag_simt(96, s3, 3, 2, 16, false, &e[n].f));
  {
    tl__frag sm;
    TL_ASSERT_OK(tl__frag_simt(128, s64, 2, 4, 16, false, &sm));
    const uint32_t keep = 0;
    F("reduce_max over dim 1 of the simt 64x64 layout", tl__frag_project(&sm, &keep, 1, &e[n].f));
  }
  F("replicated [128] over 128 threads", tl__frag_replicated(128, s128, 1, &e[n].f));
  S("smem linear", tl__smem_linear(64, 64, 2, &e[n].s));
  S("smem padded", tl__smem_padded(64, 64, 2, &e[n].s));
  S("smem 32B", tl__smem_swizzle(TL__SMEM_SWIZZLE_32B, 64, 16, 2, &e[n].s));
  S("smem 64B", tl__smem_swizzle(TL__SMEM_SWIZZLE_64B, 64, 32, 2, &e[n].s));
  S("smem 128B", tl__smem_swizzle(TL__SMEM_SWIZZLE_128B, 64, 64, 2, &e[n].s));
  S("smem wgmma pick for 128x32 f32", tl__smem_choose_wgmma(128, 32, 4, &e[n].s));
#undef F
#undef S
  return n;
}

static char *render(void) {
  entry e[40];
  size_t n = build(e, 40);
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, "# Printed layouts (tests/unit/test_layout_print.c; scripts/regen-golden.sh layouts)\n");
  for (size_t i = 0; i < n; i++) {
    char *t = e[i].k == FRAG ? tl__frag_print(&e[i].f) : tl__smem_print(&e[i].s);
    assert_non_null(t);
    tl__sb_appendf(&sb, "== %s\n%s%s", e[i].name, t, e[i].k == SMEM ? "\n" : "");
    tl__free(t);
  }
  char *out = tl__sb_finish(&sb);
  assert_non_null(out);
  return out;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = 0;
  fclose(f);
  return s;
}

static void test_golden(void **state) {
  (void)state;
  char *text = render();
  if (getenv("TL_REGEN_GOLDEN")) {
    FILE *f = fopen(GOLDEN, "wb");
    if (!f) fail_msg("cannot write %s", GOLDEN);
    fputs(text, f);
    fclose(f);
  }
  char *want = slurp(GOLDEN);
  if (!want) fail_msg("missing %s (TL_REGEN_GOLDEN=1 build/bin/test_layout_print)", GOLDEN);
  if (strcmp(want, text) != 0)
    fail_msg("printed layouts differ from %s (if intended: scripts/regen-golden.sh layouts)\n--- got:\n%s", GOLDEN,
             text);
  free(want);
  tl__free(text);
  /* The text is the map's: equal layouts print alike however they were built. */
  tl__frag c, a;
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 4, 1, &c));
  TL_ASSERT_OK(tl__frag_mma_a(64, 64, 4, 1, false, &a));
  char *tc = tl__frag_print(&c), *ta = tl__frag_print(&a);
  assert_string_equal(tc, ta);
  tl__free(tc);
  tl__free(ta);
}

static tl_status print_both(void *ctx) {
  (void)ctx;
  tl__frag f;
  tl__smem_layout s;
  TL__TRY(tl__frag_wgmma_c(128, 64, 4, 2, &f));
  TL__TRY(tl__smem_swizzle(TL__SMEM_SWIZZLE_128B, 64, 64, 2, &s));
  char *a = tl__frag_print(&f);
  if (!a) return TL_ENOMEM;
  char *b = tl__smem_print(&s);
  tl__free(a);
  if (!b) return TL_ENOMEM;
  tl__free(b);
  return TL_OK;
}

static void test_printers_out_of_memory(void **state) {
  (void)state;
  assert_true(tl_oom_sweep(print_both, NULL, NULL) >= 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden),
      cmocka_unit_test(test_printers_out_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
