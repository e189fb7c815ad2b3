/* Fragment layouts (src/layout/frag*.c): every constructor is a bijection over a
 * table of shapes; the mma.sync and wgmma maps equal the PTX ISA's fragment
 * formulas and upstream TileLang's block layouts, written out independently
 * here; the SIMT constructor equals today's chooser (src/transform/gpu/layout.c)
 * element for element; projections, repetition, permutation, equality,
 * conversions and the IR expressions of both directions. */
#include <stdlib.h>

#include "layout/warp_policy.h"
#include "layout_test.h"
#include "transform/gpu/gpu.h"

/* ---------------------------------------------------------------- PTX atoms */

/* The lane/register formulas of the PTX ISA ("Matrix Fragments for
 * mma.m16n8k16 with floating point type"), g = lane>>2, q = lane%4. */
static void ptx_c(int64_t lane, int64_t r, int64_t *row, int64_t *col) {
  *row = lane / 4 + 8 * (r / 2);
  *col = 2 * (lane % 4) + r % 2;
}
static void ptx_a(int64_t lane, int64_t r, int64_t *row, int64_t *col) {
  *row = lane / 4 + 8 * ((r / 2) % 2);
  *col = 2 * (lane % 4) + r % 2 + 8 * (r / 4);
}
static void ptx_b(int64_t lane, int64_t r, int64_t *row, int64_t *col) {
  *row = 2 * (lane % 4) + r % 2 + 8 * (r / 2);
  *col = lane / 4;
}

static void check_atom(const tl__frag *L, int64_t rows, int64_t cols, int64_t regs,
                       void (*ptx)(int64_t, int64_t, int64_t *, int64_t *), const char *name) {
  lt_check_bijection(L, name);
  assert_int_equal(L->threads, 32);
  assert_int_equal(L->slots, regs);
  assert_int_equal(L->shape[0], rows);
  assert_int_equal(L->shape[1], cols);
  assert_int_equal(tl__frag_replicas(L), 1);
  for (int64_t lane = 0; lane < 32; lane++)
    for (int64_t r = 0; r < regs; r++) {
      int64_t idx[2], row, col;
      assert_true(tl__frag_element(L, lane, r, idx));
      ptx(lane, r, &row, &col);
      if (idx[0] != row || idx[1] != col)
        fail_msg("%s: lane %lld register %lld holds (%lld, %lld), the PTX ISA says (%lld, %lld)", name, (long long)lane,
                 (long long)r, (long long)idx[0], (long long)idx[1], (long long)row, (long long)col);
    }
}

static void test_mma_atoms_match_ptx(void **state) {
  (void)state;
  tl__frag L;
  tl__frag_mma_c_atom(&L);
  check_atom(&L, 16, 8, 4, ptx_c, "mma C atom");
  tl__frag_mma_a_atom(&L);
  check_atom(&L, 16, 16, 8, ptx_a, "mma A atom");
  tl__frag_mma_b_atom(&L);
  check_atom(&L, 16, 8, 4, ptx_b, "mma B atom");
}

/* ------------------------------------------------- upstream block layouts */

typedef struct block_case {
  int64_t m, n, mw, nw; /* tile (C: M x N; A: M x K; B: K x N) and warp grid */
} block_case;

static const block_case blocks[] = {
    {16, 8, 1, 1},  {64, 64, 4, 1},   {64, 64, 2, 2}, {128, 128, 2, 2}, {128, 64, 4, 2},  {64, 128, 1, 4},
    {32, 48, 2, 2}, {128, 256, 2, 4}, {96, 96, 2, 2}, {16, 64, 1, 8},   {256, 128, 8, 1}, {64, 24, 2, 1},
};

/* tilelang's make_mma_store_layout: micro tiles of 16 x (16 or 8), the mma store
 * index map inside, warps m-fastest, atoms row-major inside a warp. */
static void upstream_c(const block_case *b, int64_t i, int64_t j, int64_t *thread, int64_t *slot) {
  int64_t wm = b->m / b->mw, wn = b->n / b->nw, my = wn % 16 == 0 ? 16 : 8, rows = wm / 16, cols = wn / my;
  int64_t local_out = 16 * my / 32;
  int64_t bi = (i / 16) / rows, bj = (j / my) / cols, mi = i % 16, mj = j % my;
  int64_t lane = 4 * (mi % 8) + (mj % 8) / 2, local = mj % 2 + 2 * (mi / 8) + 4 * (mj / 8);
  *thread = bj * (b->mw * 32) + bi * 32 + lane;
  *slot = ((i / 16) % rows) * (cols * local_out) + ((j / my) % cols) * local_out + local;
}

/* make_mma_load_layout for A in (m, k) order: A atoms repeated m-fastest on
 * slots, over the m warps on threads, replicated over the n warps. */
static void upstream_a(const block_case *b, int64_t i, int64_t j, int64_t rep, int64_t *thread, int64_t *slot) {
  int64_t wm = b->m / b->mw, ws = wm / 16;
  int64_t ii = i % 16, jj = j % 16;
  int64_t lane = 4 * (ii % 8) + (jj % 8) / 2, local = 4 * (jj / 8) + 2 * (ii / 8) + jj % 2;
  *thread = lane + 32 * (i / wm) + 32 * b->mw * rep;
  *slot = local + 8 * (((i % wm) / 16) + ws * (j / 16));
}

/* make_mma_load_layout for B in (k, n) order: micro tiles 16 x (16 or 8), k
 * atoms outer on slots, replicated over the m warps, repeated over the n warps. */
static void upstream_b(const block_case *b, int64_t k, int64_t n, int64_t rep, int64_t *thread, int64_t *slot) {
  int64_t wn = b->n / b->nw, my = wn % 16 == 0 ? 16 : 8, ws = wn / my, lb = 16 * my / 32;
  int64_t kk = k % 16, nn = n % my;
  int64_t lane = 4 * (nn % 8) + (kk % 8) / 2, local = kk % 2 + 2 * (kk / 8) + 4 * (nn / 8);
  *thread = lane + 32 * rep + 32 * b->mw * (n / wn);
  *slot = local + lb * ((k / 16) * ws + (n % wn) / my);
}

typedef enum { OP_C, OP_A, OP_B } operand;

static void check_block(const tl__frag *L, const block_case *b, operand op, bool transposed) {
  char label[128];
  snprintf(label, sizeof label, "%s%s %lldx%lld warps %lldx%lld",
           op == OP_C   ? "C"
           : op == OP_A ? "A"
                        : "B",
           transposed ? " transposed" : "", (long long)b->m, (long long)b->n, (long long)b->mw, (long long)b->nw);
  lt_check_bijection(L, label);
  assert_int_equal(L->threads, 32 * b->mw * b->nw);
  int64_t reps = op == OP_C ? 1 : op == OP_A ? b->nw : b->mw;
  assert_int_equal(tl__frag_replicas(L), reps);
  for (int64_t i = 0; i < b->m; i++)
    for (int64_t j = 0; j < b->n; j++)
      for (int64_t r = 0; r < reps; r++) {
        int64_t want_t, want_s, got_t, got_s, idx[2] = {i, j};
        if (op == OP_C)
          upstream_c(b, i, j, &want_t, &want_s);
        else if (op == OP_A)
          upstream_a(b, i, j, r, &want_t, &want_s);
        else
          upstream_b(b, i, j, r, &want_t, &want_s);
        if (transposed) {
          idx[0] = j;
          idx[1] = i;
        }
        /* The replica order is the layout's own: compare as sets via holds(). */
        if (!tl__frag_holds(L, want_t, idx))
          fail_msg("%s: (%lld, %lld) is not held by thread %lld as upstream has it", label, (long long)i, (long long)j,
                   (long long)want_t);
        tl__frag_owner(L, idx, 0, &got_t, &got_s);
        if (got_s != want_s)
          fail_msg("%s: (%lld, %lld) at slot %lld, upstream %lld", label, (long long)i, (long long)j, (long long)got_s,
                   (long long)want_s);
      }
}

static void test_block_mma_match_upstream(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof blocks / sizeof blocks[0]; c++) {
    const block_case *b = &blocks[c];
    tl__frag L;
    TL_ASSERT_OK(tl__frag_mma_c(b->m, b->n, b->mw, b->nw, &L));
    check_block(&L, b, OP_C, false);
    /* A is [M, K]: use the case's N as K when it is a multiple of 16. */
    if (b->n % 16 == 0) {
      TL_ASSERT_OK(tl__frag_mma_a(b->m, b->n, b->mw, b->nw, false, &L));
      check_block(&L, b, OP_A, false);
      TL_ASSERT_OK(tl__frag_mma_a(b->m, b->n, b->mw, b->nw, true, &L));
      check_block(&L, b, OP_A, true);
    }
    /* B is [K, N]: use the case's M as K. */
    TL_ASSERT_OK(tl__frag_mma_b(b->m, b->n, b->mw, b->nw, false, &L));
    check_block(&L, b, OP_B, false);
    TL_ASSERT_OK(tl__frag_mma_b(b->m, b->n, b->mw, b->nw, true, &L));
    check_block(&L, b, OP_B, true);
  }
}

/* PTX ISA, wgmma D fragments for m64nNk16 with f32 accumulators: thread t of the
 * warpgroup, register r < N/2. */
static void ptx_wgmma_d(int64_t t, int64_t r, int64_t *row, int64_t *col) {
  *row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((r / 2) % 2);
  *col = 8 * (r / 4) + 2 * (t % 4) + r % 2;
}

static void test_wgmma_matches_ptx(void **state) {
  (void)state;
  const int64_t ns[] = {8, 16, 64, 128, 256};
  for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    tl__frag L;
    TL_ASSERT_OK(tl__frag_wgmma_c(64, ns[k], 4, 1, &L));
    lt_check_bijection(&L, "wgmma m64");
    assert_int_equal(L.threads, 128);
    assert_int_equal(L.slots, ns[k] / 2);
    for (int64_t t = 0; t < 128; t++)
      for (int64_t r = 0; r < ns[k] / 2; r++) {
        int64_t idx[2], row, col;
        assert_true(tl__frag_element(&L, t, r, idx));
        ptx_wgmma_d(t, r, &row, &col);
        if (idx[0] != row || idx[1] != col)
          fail_msg("wgmma m64n%lld: thread %lld register %lld holds (%lld, %lld), PTX (%lld, %lld)", (long long)ns[k],
                   (long long)t, (long long)r, (long long)idx[0], (long long)idx[1], (long long)row, (long long)col);
      }
  }
  /* Blocks of several warpgroups (upstream's makeGemmFragmentCHopper): warp
   * w = wm + m_warp*wn owns rows 16*wm + 16*m_warp*k, and 64-row instruction tiles
   * repeat on slots. */
  const block_case cases[] = {{128, 128, 8, 1}, {128, 256, 4, 2}, {256, 64, 4, 1}, {64, 96, 4, 2}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const block_case *b = &cases[c];
    tl__frag L;
    TL_ASSERT_OK(tl__frag_wgmma_c(b->m, b->n, b->mw, b->nw, &L));
    lt_check_bijection(&L, "wgmma block");
    int64_t wn = b->n / b->nw;
    for (int64_t i = 0; i < b->m; i++)
      for (int64_t j = 0; j < b->n; j++) {
        int64_t ri = i / (16 * b->mw), wi = (i / 16) % b->mw, ii = i % 16, wj = j / wn, jj = j % wn;
        int64_t want_t = 32 * (wi + b->mw * wj) + 4 * (ii % 8) + (jj % 8) / 2;
        int64_t want_s = jj % 2 + 2 * (ii / 8) + 4 * (jj / 8) + (wn / 2) * ri, t, s, idx[2] = {i, j};
        tl__frag_owner(&L, idx, 0, &t, &s);
        if (t != want_t || s != want_s)
          fail_msg("wgmma %lldx%lld: (%lld, %lld) at (%lld, %lld), expected (%lld, %lld)", (long long)b->m,
                   (long long)b->n, (long long)i, (long long)j, (long long)t, (long long)s, (long long)want_t,
                   (long long)want_s);
      }
  }
}

/* --------------------------------------------------------- SIMT = chooser */

typedef struct simt_case {
  int64_t T;
  uint32_t ndim;
  int64_t shape[4];
  int64_t eb;
  bool gemm;
} simt_case;

static const simt_case simt_cases[] = {
    {128, 2, {64, 64}, 4, false},  {128, 2, {64, 64}, 4, true},  {256, 2, {128, 128}, 4, true},
    {256, 1, {100}, 4, false},     {96, 3, {3, 5, 8}, 2, false}, {64, 1, {7}, 1, false},
    {1024, 1, {4096}, 2, false},   {128, 2, {2, 64}, 4, false},  {33, 2, {10, 10}, 4, false},
    {256, 2, {64, 64}, 2, false},  {128, 1, {16}, 4, false},     {32, 3, {8, 3, 4}, 4, true},
    {512, 2, {1, 1024}, 4, false}, {64, 2, {5, 96}, 2, true},    {1, 2, {4, 4}, 4, false},
    {128, 2, {128, 8}, 4, true},   {192, 2, {96, 48}, 4, true},  {128, 4, {2, 2, 4, 32}, 1, false},
    {64, 2, {64, 1}, 8, false},    {256, 2, {24, 40}, 2, true},
};

static int64_t clamp_loop(int64_t n) { return n < 1 ? 1 : n; }

/* Builds today's per-thread loops for the chooser's layout and evaluates them at
 * every thread and loop index: each (thread, slot) must hold in the new layout
 * exactly the element (r, c) the old expressions compute, with the same guards. */
static void compare_lowering(const tl__gpu_layout *Gp, const tl__frag *Fp, const char *label) {
  const tl__gpu_layout G = *Gp;
  const tl__frag F = *Fp;
  const struct {
    int64_t T;
    uint32_t ndim;
    const int64_t *shape;
  } kk = {G.T, G.ndim, G.shape}, *k = &kk;
  lt_check_bijection(&F, label);
  assert_int_equal(F.slots, G.slots);
  assert_int_equal(F.threads, k->T);
  tl_ir_module *mod;
  TL_ASSERT_OK(tl_ir_module_create(&mod));
  tl_ir_var *tid = tl_ir_var_new(mod, "tid", TL_DT_INT32);
  assert_non_null(tid);
  tl__gpu_slots S;
  TL_ASSERT_OK(tl__gpu_slots_make(mod, &G, tl_ir_var_ref(mod, tid), &S));
  int64_t seen = 0;
  for (int64_t t = 0; t < k->T; t++)
    for (int64_t rr = 0; rr < clamp_loop(G.RR); rr++)
      for (int64_t rc = 0; rc < clamp_loop(G.RC); rc++)
        for (int64_t mi = 0; mi < clamp_loop(G.mr); mi++)
          for (int64_t v = 0; v < clamp_loop(G.V); v++) {
            lt_env env = {{tid, S.rr, S.rc, S.mi, S.v}, {t, rr, rc, mi, v}, 5};
            int64_t slot = lt_eval(S.slot, &env), r = lt_eval(S.r, &env), c = lt_eval(S.c, &env);
            bool ok = (!S.row_ok || lt_eval(S.row_ok, &env)) && (!S.col_ok || lt_eval(S.col_ok, &env));
            int64_t idx[TL__FRAG_MAX_DIMS];
            bool holds = tl__frag_element(&F, t, slot, idx);
            if (holds != ok)
              fail_msg("%s: thread %lld slot %lld: the chooser says %s, the layout %s", label, (long long)t,
                       (long long)slot, ok ? "element" : "hole", holds ? "element" : "hole");
            if (!ok) continue;
            seen++;
            int64_t fr = 0;
            for (uint32_t d = 0; d + 1 < k->ndim; d++) fr = fr * k->shape[d] + idx[d];
            if (fr != r || idx[k->ndim - 1] != c)
              fail_msg("%s: thread %lld slot %lld: chooser (%lld, %lld), layout (%lld, %lld)", label, (long long)t,
                       (long long)slot, (long long)r, (long long)c, (long long)fr, (long long)idx[k->ndim - 1]);
          }
  assert_int_equal(seen, tl__frag_elements(&F));
  tl_ir_module_free(mod);
}

static void compare_simt(const simt_case *k) {
  tl__gpu_layout G;
  tl__gpu_layout_choose(&G, k->T, k->shape, k->ndim, k->eb, 16, k->gemm);
  tl__frag F;
  TL_ASSERT_OK(tl__frag_simt(k->T, k->shape, k->ndim, k->eb, 16, k->gemm, &F));
  char label[96];
  snprintf(label, sizeof label, "simt T=%lld ndim=%u eb=%lld gemm=%d", (long long)k->T, k->ndim, (long long)k->eb,
           k->gemm);
  compare_lowering(&G, &F, label);
}

/* The mma accumulator the GEMM lowering uses (its slot loops' rows and columns)
 * is upstream's block-level C layout (tl__frag_mma_c) on every warp grid the
 * policies choose, and the layout printed for it is that one. */
static void test_mma_lowering_matches_upstream(void **state) {
  (void)state;
  const struct {
    int64_t T, M, N, wm, wn;
  } cases[] = {{128, 128, 128, 2, 2}, {128, 128, 128, 4, 1}, {128, 128, 128, 1, 4}, {256, 128, 256, 2, 4},
               {128, 64, 64, 2, 2},   {32, 16, 8, 1, 1},     {64, 64, 32, 2, 1},    {256, 128, 128, 4, 2},
               {128, 64, 128, 4, 1},  {96, 48, 64, 3, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t shape[2] = {cases[i].M, cases[i].N};
    tl__gpu_layout G;
    tl__gpu_layout_choose_mma(&G, cases[i].T, shape, 2, 4, 16, cases[i].wm, cases[i].wn);
    tl__frag F, P;
    TL_ASSERT_OK(tl__frag_mma_c(cases[i].M, cases[i].N, cases[i].wm, cases[i].wn, &F));
    TL_ASSERT_OK(tl__gpu_layout_frag(&G, &P));
    assert_true(tl__frag_equal(&F, &P));
    char label[96];
    snprintf(label, sizeof label, "mma T=%lld %lldx%lld on %lldx%lld warps", (long long)cases[i].T,
             (long long)cases[i].M, (long long)cases[i].N, (long long)cases[i].wm, (long long)cases[i].wn);
    compare_lowering(&G, &F, label);
  }
}

/* A row projection (FlashAttention's row statistics beside the scores): every
 * thread's slot loops reach exactly the rows the projected data layout gives it,
 * at the same slots, and every thread sharing a row in the parent holds it. */
static void check_projection(const tl__gpu_layout *P, const char *label) {
  int64_t shape[TL__FRAG_MAX_DIMS];
  for (uint32_t d = 0; d + 1 < P->ndim; d++) shape[d] = P->shape[d];
  tl__gpu_layout G;
  tl__gpu_layout_project(P, shape, P->ndim - 1, &G);
  assert_true(G.proj);
  assert_true(tl__gpu_layout_rows_equal(&G, P));
  assert_int_equal(G.slots, P->RR * P->mr);
  tl__frag F, PF, want;
  TL_ASSERT_OK(tl__gpu_layout_frag(&G, &F));
  TL_ASSERT_OK(tl__gpu_layout_frag(P, &PF));
  uint32_t keep[TL__FRAG_MAX_DIMS];
  for (uint32_t d = 0; d + 1 < P->ndim; d++) keep[d] = d;
  TL_ASSERT_OK(tl__frag_project(&PF, keep, P->ndim - 1, &want));
  if (!tl__frag_equal(&F, &want)) fail_msg("%s: the projection's data is not the parent's with its columns dropped", label);
  tl_ir_module *mod;
  TL_ASSERT_OK(tl_ir_module_create(&mod));
  tl_ir_var *tid = tl_ir_var_new(mod, "tid", TL_DT_INT32);
  assert_non_null(tid);
  tl__gpu_slots S;
  TL_ASSERT_OK(tl__gpu_slots_make(mod, &G, tl_ir_var_ref(mod, tid), &S));
  int64_t held = 0;
  for (int64_t t = 0; t < G.T; t++)
    for (int64_t rr = 0; rr < G.RR; rr++)
      for (int64_t mi = 0; mi < G.mr; mi++) {
        lt_env env = {{tid, S.rr, S.rc, S.mi, S.v}, {t, rr, 0, mi, 0}, 5};
        int64_t slot = lt_eval(S.slot, &env), r = lt_eval(S.r, &env), idx[TL__FRAG_MAX_DIMS];
        bool ok = !S.row_ok || lt_eval(S.row_ok, &env);
        bool holds = tl__frag_element(&F, t, slot, idx);
        if (holds != ok) fail_msg("%s: thread %lld slot %lld: loops %d, data %d", label, (long long)t, (long long)slot, ok, holds);
        if (!ok) continue;
        int64_t flat = 0;
        for (uint32_t d = 0; d + 1 < P->ndim; d++) flat = flat * shape[d] + idx[d];
        if (flat != r) fail_msg("%s: thread %lld slot %lld: loops row %lld, data row %lld", label, (long long)t, (long long)slot, (long long)r, (long long)flat);
        held++;
      }
  /* each row in every one of its copies */
  assert_int_equal(held, tl__frag_elements(&F) * tl__frag_replicas(&F));
  tl_ir_module_free(mod);
}

static void test_row_projection(void **state) {
  (void)state;
  const struct {
    int64_t T, M, N, wm, wn;
  } mma[] = {{128, 64, 64, 4, 1}, {128, 64, 64, 2, 2}, {64, 32, 32, 1, 2}, {256, 128, 128, 8, 1}, {128, 128, 64, 2, 2}};
  for (size_t i = 0; i < sizeof mma / sizeof mma[0]; i++) {
    int64_t shape[2] = {mma[i].M, mma[i].N};
    tl__gpu_layout P;
    tl__gpu_layout_choose_mma(&P, mma[i].T, shape, 2, 4, 16, mma[i].wm, mma[i].wn);
    char label[96];
    snprintf(label, sizeof label, "rows of mma %lldx%lld on %lldx%lld warps", (long long)mma[i].M, (long long)mma[i].N,
             (long long)mma[i].wm, (long long)mma[i].wn);
    check_projection(&P, label);
  }
  for (size_t i = 0; i < sizeof simt_cases / sizeof simt_cases[0]; i++) {
    const simt_case *k = &simt_cases[i];
    if (k->ndim < 2) continue;
    tl__gpu_layout P;
    tl__gpu_layout_choose(&P, k->T, k->shape, k->ndim, k->eb, 16, k->gemm);
    char label[96];
    snprintf(label, sizeof label, "rows of simt case %zu", i);
    check_projection(&P, label);
  }
  /* rows held alike: the same warp rows whatever the columns; not across grids */
  int64_t s64[2] = {64, 64}, s128[2] = {64, 128};
  tl__gpu_layout a, b, c, d;
  tl__gpu_layout_choose_mma(&a, 128, s64, 2, 4, 16, 4, 1);
  tl__gpu_layout_choose_mma(&b, 128, s128, 2, 4, 16, 4, 1);
  tl__gpu_layout_choose_mma(&c, 128, s64, 2, 4, 16, 2, 2);
  tl__gpu_layout_choose(&d, 128, s64, 2, 4, 16, true);
  assert_true(tl__gpu_layout_rows_equal(&a, &b));
  assert_false(tl__gpu_layout_rows_equal(&a, &c));
  assert_false(tl__gpu_layout_rows_equal(&a, &d));
}

static void test_simt_matches_chooser(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof simt_cases / sizeof simt_cases[0]; i++) compare_simt(&simt_cases[i]);
  /* And a sweep: thread counts by shapes by element sizes. */
  const int64_t Ts[] = {1, 32, 64, 96, 128, 256};
  const int64_t shapes[][3] = {{1, 1, 0}, {4, 8, 0}, {64, 64, 0}, {17, 33, 0}, {256, 0, 0}, {2, 3, 64}, {128, 16, 0}};
  const uint32_t ndims[] = {2, 2, 2, 2, 1, 3, 2};
  for (size_t a = 0; a < sizeof Ts / sizeof Ts[0]; a++)
    for (size_t b = 0; b < sizeof ndims / sizeof ndims[0]; b++)
      for (int64_t eb = 1; eb <= 4; eb *= 2)
        for (int g = 0; g < 2; g++) {
          simt_case k = {Ts[a], ndims[b], {shapes[b][0], shapes[b][1], shapes[b][2], 0}, eb, g != 0};
          compare_simt(&k);
        }
}

/* ------------------------------------------------------ the other operations */

static void test_every_constructor_is_a_bijection(void **state) {
  (void)state;
  tl__frag L;
  const int64_t s1[] = {64}, s2[] = {3, 7}, s3[] = {2, 4, 8};
  TL_ASSERT_OK(tl__frag_replicated(128, s1, 1, &L));
  lt_check_bijection(&L, "replicated 1-D");
  TL_ASSERT_OK(tl__frag_replicated(5, s2, 2, &L));
  lt_check_bijection(&L, "replicated 2-D");
  TL_ASSERT_OK(tl__frag_replicated(32, s3, 3, &L));
  lt_check_bijection(&L, "replicated 3-D");
  assert_int_equal(tl__frag_replicas(&L), 32);
  assert_int_equal(L.slots, 64);
  /* Projections of each block layout onto each dim. */
  for (size_t c = 0; c < sizeof blocks / sizeof blocks[0]; c++) {
    const block_case *b = &blocks[c];
    TL_ASSERT_OK(tl__frag_mma_c(b->m, b->n, b->mw, b->nw, &L));
    for (uint32_t keep = 0; keep < 2; keep++) {
      tl__frag P;
      TL_ASSERT_OK(tl__frag_project(&L, &keep, 1, &P));
      lt_check_bijection(&P, "projection of an mma C layout");
      assert_int_equal(P.threads, L.threads);
      /* A thread of the 2-D layout holds the row (column) of each element it holds. */
      int64_t idx[2];
      for (int64_t t = 0; t < L.threads; t++)
        for (int64_t s = 0; s < L.slots; s++)
          if (tl__frag_element(&L, t, s, idx)) assert_true(tl__frag_holds(&P, t, &idx[keep]));
    }
  }
  for (size_t i = 0; i < sizeof simt_cases / sizeof simt_cases[0]; i++) {
    const simt_case *k = &simt_cases[i];
    TL_ASSERT_OK(tl__frag_simt(k->T, k->shape, k->ndim, k->eb, 16, k->gemm, &L));
    if (k->ndim < 2) continue;
    uint32_t keep[3] = {0, 1, 2};
    tl__frag P;
    /* Dropping the last dim (a reduction over columns) always works. */
    TL_ASSERT_OK(tl__frag_project(&L, keep, k->ndim - 1, &P));
    lt_check_bijection(&P, "projection of a SIMT layout");
  }
}

/* FlashAttention's fragments under FullRow (block 64x64, 4 warps): scores_max is
 * acc_s projected onto its rows, each row held by the 4 lanes of a quad in 2
 * slots; acc_s_cast, the P@V A operand, is acc_s itself, slot for slot. */
static void test_flash_attention_fragments(void **state) {
  (void)state;
  int64_t mw, nw;
  TL_ASSERT_OK(tl__warp_partition(TL__WARP_FULL_ROW, 64, 64, 4, false, &mw, &nw));
  assert_int_equal(mw, 4);
  assert_int_equal(nw, 1);
  tl__frag acc_s, acc_s_cast, row;
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, mw, nw, &acc_s));
  TL_ASSERT_OK(tl__frag_mma_a(64, 64, mw, nw, false, &acc_s_cast));
  assert_true(tl__frag_equal(&acc_s, &acc_s_cast));
  tl__frag_conv conv;
  TL_ASSERT_OK(tl__frag_conversion(&acc_s, &acc_s_cast, 32, &conv));
  assert_int_equal(conv, TL__FRAG_CONV_SAME);
  const uint32_t keep = 0;
  TL_ASSERT_OK(tl__frag_project(&acc_s, &keep, 1, &row));
  assert_int_equal(row.slots, 2);
  assert_int_equal(tl__frag_replicas(&row), 4);
  for (int64_t i = 0; i < 64; i++)
    for (int64_t t = 0; t < 128; t++) {
      bool want = t / 32 == i / 16 && (t % 32) / 4 == i % 8;
      if (tl__frag_holds(&row, t, &i) != want) fail_msg("row %lld: thread %lld", (long long)i, (long long)t);
      if (want) {
        int64_t ot, os;
        tl__frag_owner(&row, &i, t % 4, &ot, &os);
        assert_int_equal(ot, t);
        assert_int_equal(os, (i % 16) / 8);
      }
    }
  /* A row vector held by every thread converts to the projection for free;
   * the other way needs shared memory (rows live in different warps). */
  tl__frag all;
  const int64_t n64 = 64;
  TL_ASSERT_OK(tl__frag_replicated(128, &n64, 1, &all));
  TL_ASSERT_OK(tl__frag_conversion(&all, &row, 32, &conv));
  assert_int_equal(conv, TL__FRAG_CONV_IN_THREAD);
  TL_ASSERT_OK(tl__frag_conversion(&row, &all, 32, &conv));
  assert_int_equal(conv, TL__FRAG_CONV_SHARED);
  /* Within one warp: the m16n8 C atom and a SIMT layout of the same tile. */
  tl__frag atom, simt;
  const int64_t tile[2] = {16, 8};
  tl__frag_mma_c_atom(&atom);
  TL_ASSERT_OK(tl__frag_simt(32, tile, 2, 4, 16, false, &simt));
  TL_ASSERT_OK(tl__frag_conversion(&atom, &simt, 32, &conv));
  assert_int_equal(conv, TL__FRAG_CONV_IN_WARP);
  TL_ASSERT_OK(tl__frag_conversion(&atom, &simt, 1, &conv));
  assert_int_equal(conv, TL__FRAG_CONV_SHARED);
  assert_string_equal(tl__frag_conv_name(TL__FRAG_CONV_IN_WARP), "in-warp");
}

/* Equality is the map's: checked against brute-force comparison over pairs of
 * layouts built different ways. */
static bool same_map(const tl__frag *a, const tl__frag *b) {
  if (a->ndim != b->ndim || a->threads != b->threads || a->slots != b->slots) return false;
  for (uint32_t d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d]) return false;
  for (int64_t t = 0; t < a->threads; t++)
    for (int64_t s = 0; s < a->slots; s++) {
      int64_t x[TL__FRAG_MAX_DIMS], y[TL__FRAG_MAX_DIMS];
      bool ha = tl__frag_element(a, t, s, x), hb = tl__frag_element(b, t, s, y);
      if (ha != hb) return false;
      for (uint32_t d = 0; ha && d < a->ndim; d++)
        if (x[d] != y[d]) return false;
    }
  return true;
}

static void test_equality_permute_repeat(void **state) {
  (void)state;
  enum { N = 10 };
  tl__frag ls[N];
  const int64_t s64[2] = {64, 64}, s3[3] = {4, 8, 8}, s12[1] = {128};
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 4, 1, &ls[0]));
  TL_ASSERT_OK(tl__frag_mma_a(64, 64, 4, 1, false, &ls[1]));
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 2, 2, &ls[2]));
  TL_ASSERT_OK(tl__frag_simt(128, s64, 2, 4, 16, false, &ls[3]));
  TL_ASSERT_OK(tl__frag_simt(128, s64, 2, 4, 16, true, &ls[4]));
  TL_ASSERT_OK(tl__frag_mma_b(64, 64, 4, 1, true, &ls[5]));
  const uint32_t swap[2] = {1, 0};
  TL_ASSERT_OK(tl__frag_permute(&ls[5], swap, &ls[6])); /* a [K, N] layout again */
  TL_ASSERT_OK(tl__frag_mma_b(64, 64, 4, 1, false, &ls[7]));
  TL_ASSERT_OK(tl__frag_simt(128, s3, 3, 2, 16, false, &ls[8]));
  TL_ASSERT_OK(tl__frag_simt(128, s12, 1, 4, 16, false, &ls[9]));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (tl__frag_equal(&ls[i], &ls[j]) != same_map(&ls[i], &ls[j]))
        fail_msg("layouts %d and %d: equal says %d, the maps say %d", i, j, tl__frag_equal(&ls[i], &ls[j]),
                 same_map(&ls[i], &ls[j]));
  assert_true(tl__frag_equal(&ls[0], &ls[1]));
  assert_true(tl__frag_equal(&ls[6], &ls[7]));
  assert_false(tl__frag_equal(&ls[3], &ls[4]));
  /* Canonical form is a fixed point, and permuting twice is the identity. */
  tl__frag c1, c2, back;
  tl__frag_canonical(&ls[8], &c1);
  tl__frag_canonical(&c1, &c2);
  assert_memory_equal(&c1, &c2, sizeof c1);
  const uint32_t rot[3] = {2, 0, 1}, unrot[3] = {1, 2, 0};
  tl__frag sq[2];
  const int64_t cube[3] = {4, 4, 4};
  TL_ASSERT_OK(tl__frag_simt(64, cube, 3, 4, 16, false, &sq[0]));
  tl_status st = tl__frag_permute(&sq[0], rot, &sq[1]);
  if (st == TL_OK) {
    TL_ASSERT_OK(tl__frag_permute(&sq[1], unrot, &back));
    assert_true(tl__frag_equal(&back, &sq[0]));
    lt_check_bijection(&sq[1], "rotated SIMT");
  } else {
    assert_int_equal(st, TL_EINVAL); /* merged rows that cannot be split */
  }
  /* Repeating on threads is what a hand-built larger layout is. */
  tl__frag atom, rep, hand;
  tl__frag_mma_c_atom(&atom);
  const int64_t two[2] = {1, 2};
  TL_ASSERT_OK(tl__frag_repeat(&atom, two, TL__FRAG_THREAD, true, &rep));
  TL_ASSERT_OK(tl__frag_mma_c(16, 16, 1, 2, &hand));
  assert_true(tl__frag_equal(&rep, &hand));
  lt_check_bijection(&rep, "repeated atom");
}

/* Reshaping keeps every element on its (thread, slot), in row-major order. */
static void check_reshape(const tl__frag *L, const int64_t *shape, uint32_t ndim) {
  tl__frag R, back;
  TL_ASSERT_OK(tl__frag_reshape(L, shape, ndim, &R));
  lt_check_bijection(&R, "reshaped");
  int64_t idx[TL__FRAG_MAX_DIMS], ridx[TL__FRAG_MAX_DIMS];
  for (int64_t t = 0; t < L->threads; t++)
    for (int64_t s = 0; s < L->slots; s++) {
      bool a = tl__frag_element(L, t, s, idx), b = tl__frag_element(&R, t, s, ridx);
      assert_int_equal(a, b);
      if (!a) continue;
      int64_t fa = 0, fb = 0;
      for (uint32_t d = 0; d < L->ndim; d++) fa = fa * L->shape[d] + idx[d];
      for (uint32_t d = 0; d < ndim; d++) fb = fb * shape[d] + ridx[d];
      assert_int_equal(fa, fb);
    }
  TL_ASSERT_OK(tl__frag_reshape(&R, L->shape, L->ndim, &back));
  assert_true(tl__frag_equal(&back, L));
}

static void test_reshape(void **state) {
  (void)state;
  tl__frag L;
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 4, 1, &L));
  const int64_t a[3] = {4, 16, 64}, b[1] = {4096}, c[4] = {2, 32, 8, 8}, d[2] = {32, 128};
  check_reshape(&L, a, 3);
  check_reshape(&L, b, 1);
  check_reshape(&L, c, 4);
  check_reshape(&L, d, 2);
  const int64_t s3[3] = {2, 6, 8}, flat[2] = {12, 8};
  TL_ASSERT_OK(tl__frag_simt(96, s3, 3, 2, 16, false, &L));
  check_reshape(&L, flat, 2);
  /* The SIMT rows of [10, 64] over 256 threads overhang (holes in the first
   * axis: fine); the columns of [24, 40] do (holes in a later axis: refused). */
  const int64_t s2[2] = {10, 64}, r2[2] = {20, 32}, s1[1] = {100}, r1[2] = {10, 10};
  TL_ASSERT_OK(tl__frag_simt(256, s2, 2, 4, 16, false, &L));
  assert_true(tl__frag_has_holes(&L));
  check_reshape(&L, r2, 2);
  TL_ASSERT_OK(tl__frag_simt(256, s1, 1, 4, 16, false, &L));
  check_reshape(&L, r1, 2);
  const int64_t s3b[2] = {24, 40}, flat3[1] = {960}, bad[1] = {959};
  TL_ASSERT_OK(tl__frag_simt(256, s3b, 2, 2, 16, true, &L));
  TL_ASSERT_ERR(tl__frag_reshape(&L, flat3, 1, &L), TL_EINVAL, "dims 1..1 have holes");
  TL_ASSERT_ERR(tl__frag_reshape(&L, bad, 1, &L), TL_EINVAL, "960 elements to 959");
}

static void test_expressions_agree_with_the_map(void **state) {
  (void)state;
  tl__frag ls[6];
  const int64_t s2[2] = {24, 40}, s1[1] = {100}, s3[3] = {3, 5, 8};
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 2, 2, &ls[0]));
  TL_ASSERT_OK(tl__frag_simt(256, s2, 2, 2, 16, true, &ls[1]));
  TL_ASSERT_OK(tl__frag_simt(256, s1, 1, 4, 16, false, &ls[2]));
  TL_ASSERT_OK(tl__frag_simt(96, s3, 3, 2, 16, false, &ls[3]));
  TL_ASSERT_OK(tl__frag_mma_a(32, 32, 2, 2, true, &ls[4]));
  TL_ASSERT_OK(tl__frag_wgmma_c(128, 64, 4, 2, &ls[5]));
  for (int k = 0; k < 6; k++) {
    const tl__frag *L = &ls[k];
    tl_ir_module *mod;
    TL_ASSERT_OK(tl_ir_module_create(&mod));
    tl_ir_var *tv = tl_ir_var_new(mod, "t", TL_DT_INT32), *sv = tl_ir_var_new(mod, "s", TL_DT_INT32);
    tl_ir_var *iv[3] = {tl_ir_var_new(mod, "i0", TL_DT_INT32), tl_ir_var_new(mod, "i1", TL_DT_INT32),
                        tl_ir_var_new(mod, "i2", TL_DT_INT32)};
    tl_ir_expr *idx[TL__FRAG_MAX_DIMS], *valid, *ie[3], *te, *se;
    TL_ASSERT_OK(tl__frag_element_exprs(mod, L, tl_ir_var_ref(mod, tv), tl_ir_var_ref(mod, sv), idx, &valid));
    assert_int_equal(valid != NULL, tl__frag_has_holes(L));
    for (uint32_t d = 0; d < L->ndim; d++) ie[d] = tl_ir_var_ref(mod, iv[d]);
    TL_ASSERT_OK(tl__frag_owner_exprs(mod, L, ie, &te, &se));
    for (int64_t t = 0; t < L->threads; t++)
      for (int64_t s = 0; s < L->slots; s++) {
        lt_env env = {{tv, sv}, {t, s}, 2};
        int64_t want[TL__FRAG_MAX_DIMS];
        bool holds = tl__frag_element(L, t, s, want);
        assert_int_equal(holds, !valid || lt_eval(valid, &env));
        for (uint32_t d = 0; holds && d < L->ndim; d++) assert_int_equal(lt_eval(idx[d], &env), want[d]);
        if (!holds) continue;
        lt_env own = {{iv[0], iv[1], iv[2]}, {want[0], L->ndim > 1 ? want[1] : 0, L->ndim > 2 ? want[2] : 0}, 3};
        int64_t ot, os;
        tl__frag_owner(L, want, 0, &ot, &os);
        assert_int_equal(lt_eval(te, &own), ot);
        assert_int_equal(lt_eval(se, &own), os);
      }
    TL_ASSERT_ERR(tl__frag_element_exprs(mod, L, NULL, tl_ir_var_ref(mod, sv), idx, &valid), TL_EINVAL, "NULL");
    tl_ir_module_free(mod);
  }
}

static void test_bad_requests_are_errors(void **state) {
  (void)state;
  tl__frag L, out;
  TL_ASSERT_ERR(tl__frag_mma_c(48, 64, 4, 1, &L), TL_EINVAL, "48 x 64 tile over 4 x 1 warps");
  TL_ASSERT_ERR(tl__frag_mma_a(64, 24, 4, 1, false, &L), TL_EINVAL, "whole number");
  TL_ASSERT_ERR(tl__frag_mma_b(64, 12, 1, 1, false, &L), TL_EINVAL, "whole number");
  TL_ASSERT_ERR(tl__frag_wgmma_c(64, 64, 2, 2, &L), TL_EINVAL, "warpgroups");
  const int64_t bad[2] = {0, 4}, ok[2] = {4, 4};
  TL_ASSERT_ERR(tl__frag_simt(32, bad, 2, 4, 16, false, &L), TL_EINVAL, "extent 0");
  TL_ASSERT_ERR(tl__frag_replicated(0, ok, 2, &L), TL_EINVAL, "0 threads");
  TL_ASSERT_ERR(tl__frag_replicated(4, ok, 0, &L), TL_EINVAL, "1 to 16 dims");
  const int64_t huge[3] = {1 << 20, 1 << 20, 1 << 20};
  TL_ASSERT_ERR(tl__frag_simt(128, huge, 3, 4, 16, false, &L), TL_EINVAL, "more than");
  TL_ASSERT_ERR(tl__frag_simt((int64_t)1 << 40, ok, 2, 4, 16, false, &L), TL_EINVAL, "threads");
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 4, 1, &L));
  const uint32_t dup[2] = {0, 0}, two[2] = {1, 0};
  TL_ASSERT_ERR(tl__frag_permute(&L, dup, &out), TL_EINVAL, "not a permutation");
  TL_ASSERT_ERR(tl__frag_project(&L, two, 2, &out), TL_EINVAL, "increasing");
  const int64_t zero[2] = {0, 1};
  TL_ASSERT_ERR(tl__frag_repeat(&L, zero, TL__FRAG_SLOT, true, &out), TL_EINVAL, "0 times");
  TL_ASSERT_ERR(tl__frag_replicate(&L, 0, &out), TL_EINVAL, "0 times");
  /* A dim with holes cannot be repeated: the copies would overlap. */
  const int64_t holey[1] = {100}, twice[1] = {2};
  TL_ASSERT_OK(tl__frag_simt(256, holey, 1, 4, 16, false, &L));
  assert_true(tl__frag_has_holes(&L));
  TL_ASSERT_ERR(tl__frag_repeat(&L, twice, TL__FRAG_SLOT, true, &out), TL_EINVAL, "holes");
  tl__frag other;
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 4, 1, &L));
  TL_ASSERT_OK(tl__frag_mma_c(64, 32, 4, 1, &other));
  tl__frag_conv conv;
  TL_ASSERT_ERR(tl__frag_conversion(&L, &other, 32, &conv), TL_EINVAL, "different shapes");
  /* The checker names what is wrong with a malformed layout. */
  L.d[0].stride *= 2;
  TL_ASSERT_ERR(tl__frag_check(&L), TL_EINVAL, "skip stride");
}

/* ------------------------------------------------------------- reductions */

typedef struct reduce_case {
  const char *name;
  uint32_t dim;
  int64_t warp, in_thread, cross;
  uint32_t nmasks;
  int64_t masks[6];
} reduce_case;

static void check_plan(const tl__frag *L, const reduce_case *c) {
  tl__frag_reduce_plan p;
  TL_ASSERT_OK(tl__frag_reduce_plan_of(L, c->dim, c->warp, &p));
  if (p.in_thread != c->in_thread || p.cross_warp != c->cross || p.nshuffles != c->nmasks)
    fail_msg("%s: in-thread %lld, cross-warp %lld, %u shuffles; expected %lld, %lld, %u", c->name,
             (long long)p.in_thread, (long long)p.cross_warp, p.nshuffles, (long long)c->in_thread, (long long)c->cross,
             c->nmasks);
  for (uint32_t i = 0; i < p.nshuffles; i++) assert_int_equal(p.xor_mask[i], c->masks[i]);
}

static void test_reduction_plans(void **state) {
  (void)state;
  tl__frag L;
  /* FlashAttention's row max under FullRow: 16 values a thread, then xor 1 and 2
   * within a quad; nothing leaves the warp. */
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 4, 1, &L));
  const reduce_case fa_rows = {"acc_s over dim 1", 1, 32, 16, 1, 2, {1, 2}};
  check_plan(&L, &fa_rows);
  const reduce_case fa_cols = {"acc_s over dim 0", 0, 32, 2, 4, 3, {4, 8, 16}};
  check_plan(&L, &fa_cols);
  const reduce_case no_shfl = {"acc_s over dim 1 without shuffles", 1, 1, 16, 4, 0, {0}};
  check_plan(&L, &no_shfl);
  TL_ASSERT_OK(tl__frag_mma_c(64, 64, 2, 2, &L));
  const reduce_case square = {"2x2 warps over dim 1", 1, 32, 8, 2, 2, {1, 2}};
  check_plan(&L, &square);
  const int64_t s64[2] = {64, 64}, s100[1] = {100};
  TL_ASSERT_OK(tl__frag_simt(128, s64, 2, 4, 16, false, &L));
  const reduce_case simt = {"simt over dim 1", 1, 32, 4, 1, 4, {1, 2, 4, 8}};
  check_plan(&L, &simt);
  tl__frag_reduce_plan p;
  TL_ASSERT_OK(tl__frag_simt(256, s100, 1, 4, 16, false, &L));
  TL_ASSERT_OK(tl__frag_reduce_plan_of(&L, 0, 32, &p));
  assert_true(p.holes);
  assert_int_equal(p.cross_warp, 4 * 2); /* t/32 % 2 and the rows of holes t/64 */
  assert_int_equal(p.nshuffles, 5);      /* t%64 splits at the warp: lanes 1..16 */
  assert_int_equal(p.xor_mask[4], 16);
  TL_ASSERT_ERR(tl__frag_reduce_plan_of(&L, 1, 32, &p), TL_EINVAL, "dim 1 of a 1-dim");
}

/* ------------------------------------------------------------ warp policy */

typedef struct policy_case {
  tl__warp_policy p;
  int64_t M, N, warps;
  bool wgmma;
  int64_t m, n; /* expected; 0: an error */
} policy_case;

/* Expected grids worked out by hand from upstream's rules. */
static const policy_case policies[] = {
    {TL__WARP_FULL_ROW, 64, 64, 4, false, 4, 1},   {TL__WARP_FULL_ROW, 32, 64, 4, false, 2, 2},
    {TL__WARP_FULL_ROW, 128, 128, 8, false, 8, 1}, {TL__WARP_FULL_COL, 64, 64, 4, false, 1, 4},
    {TL__WARP_FULL_COL, 64, 16, 4, false, 2, 2},   {TL__WARP_SQUARE, 128, 128, 4, false, 2, 2},
    {TL__WARP_SQUARE, 64, 256, 4, false, 2, 2},    {TL__WARP_SQUARE, 16, 16, 1, false, 1, 1},
    {TL__WARP_SQUARE, 256, 128, 8, false, 2, 4},   {TL__WARP_FULL_ROW, 128, 128, 8, true, 8, 1},
    {TL__WARP_FULL_ROW, 64, 128, 8, true, 4, 2},   {TL__WARP_FULL_COL, 128, 256, 8, true, 4, 2},
    {TL__WARP_SQUARE, 64, 256, 4, true, 4, 1},     {TL__WARP_SQUARE, 256, 128, 8, true, 4, 2},
    {TL__WARP_FULL_ROW, 48, 64, 4, false, 0, 0},   {TL__WARP_SQUARE, 24, 64, 4, false, 0, 0},
    {TL__WARP_SQUARE, 64, 12, 4, false, 0, 0},     {TL__WARP_FULL_ROW, 64, 64, 6, true, 0, 0},
};

static void test_warp_partition(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
    const policy_case *c = &policies[i];
    int64_t m = -1, n = -1;
    tl_status st = tl__warp_partition(c->p, c->M, c->N, c->warps, c->wgmma, &m, &n);
    if (c->m == 0) {
      if (st != TL_EINVAL) fail_msg("case %zu: expected an error, got %lld x %lld", i, (long long)m, (long long)n);
      assert_non_null(strstr(tl_last_error(), "T.gemm"));
      continue;
    }
    TL_ASSERT_OK(st);
    if (m != c->m || n != c->n)
      fail_msg("case %zu (%s %lldx%lld, %lld warps%s): %lld x %lld, expected %lld x %lld", i,
               tl__warp_policy_name(c->p), (long long)c->M, (long long)c->N, (long long)c->warps,
               c->wgmma ? ", wgmma" : "", (long long)m, (long long)n, (long long)c->m, (long long)c->n);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mma_atoms_match_ptx),
      cmocka_unit_test(test_block_mma_match_upstream),
      cmocka_unit_test(test_wgmma_matches_ptx),
      cmocka_unit_test(test_simt_matches_chooser),
      cmocka_unit_test(test_mma_lowering_matches_upstream),
      cmocka_unit_test(test_row_projection),
      cmocka_unit_test(test_every_constructor_is_a_bijection),
      cmocka_unit_test(test_flash_attention_fragments),
      cmocka_unit_test(test_equality_permute_repeat),
      cmocka_unit_test(test_reshape),
      cmocka_unit_test(test_expressions_agree_with_the_map),
      cmocka_unit_test(test_bad_requests_are_errors),
      cmocka_unit_test(test_reduction_plans),
      cmocka_unit_test(test_warp_partition),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
