/* Fragment layout constructors: replicated, today's SIMT chooser, and the
 * tensor-core instruction maps (mma.sync m16n8k16, wgmma m64nNk16) built from
 * one 8x8 atom by repetition, as upstream TileLang builds them
 * (src/layout/gemm_layouts.cc, tilelang/intrinsics/mma_macro_generator.py). */
#include <string.h>

#include "base/error.h"
#include "layout/frag.h"

/* An empty layout of `shape` with one axis per dim. */
static tl_status frag_init(tl__frag *L, const int64_t *shape, uint32_t ndim, int64_t threads, int64_t slots) {
  memset(L, 0, sizeof *L);
  if (ndim < 1 || ndim > TL__FRAG_MAX_DIMS)
    return tl__error(TL_EINVAL, "a fragment layout needs 1 to %d dims, not %u", TL__FRAG_MAX_DIMS, ndim);
  if (threads < 1 || threads > TL__FRAG_MAX_COUNT)
    return tl__error(TL_EINVAL, "a fragment layout over %lld threads", (long long)threads);
  L->ndim = ndim;
  L->naxes = ndim;
  int64_t elements = 1;
  for (uint32_t d = 0; d < ndim; d++) {
    if (shape[d] < 1) return tl__error(TL_EINVAL, "a fragment layout of extent %lld in dim %u", (long long)shape[d], d);
    if (shape[d] > TL__FRAG_MAX_COUNT / elements)
      return tl__error(TL_EINVAL, "a fragment layout of more than %lld elements", (long long)TL__FRAG_MAX_COUNT);
    elements *= shape[d];
    L->shape[d] = shape[d];
    L->axis_dims[d] = d;
  }
  L->axis_dims[ndim] = ndim;
  L->threads = threads;
  L->slots = slots;
  return TL_OK;
}

static void add(tl__frag *L, int32_t axis, int64_t extent, int64_t place, tl__frag_space space, int64_t stride) {
  L->d[L->ndigits++] = (tl__frag_digit){extent, place, stride, axis, (int32_t)space};
}

static tl_status done(tl__frag *L) {
  tl__frag_canonical(L, L);
  return tl__frag_check(L);
}

tl_status tl__frag_replicated(int64_t threads, const int64_t *shape, uint32_t ndim, tl__frag *out) {
  TL__TRY(frag_init(out, shape, ndim, threads, 1));
  int64_t stride = 1;
  for (uint32_t d = ndim; d-- > 0;) {
    add(out, (int32_t)d, shape[d], 1, TL__FRAG_SLOT, stride);
    stride *= shape[d];
  }
  out->slots = stride;
  add(out, -1, threads, 0, TL__FRAG_THREAD, 1);
  return done(out);
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

tl_status tl__frag_grid(int64_t T, const int64_t *shape, uint32_t ndim, int64_t V, int64_t mr, int64_t TC,
                        tl__frag *out) {
  TL__TRY(frag_init(out, shape, ndim, T, 1));
  int64_t R = 1, C = shape[ndim - 1];
  for (uint32_t d = 0; d + 1 < ndim; d++) R *= shape[d];
  int64_t CB = C / V, TR = T / TC;
  int64_t RR = ceil_div(ceil_div(R, mr), TR), RC = ceil_div(CB, TC);
  /* Rows (the leading dims, one axis) and columns (the last dim):
   *   r = (rr*TR + tr)*mr + mi,  c = (rc*TC + tc)*V + v,
   *   thread = tr*TC + tc,  slot = ((rr*RC + rc)*mr + mi)*V + v. */
  int32_t rows = 0, cols = ndim > 1 ? 1 : 0;
  if (ndim > 1) {
    out->naxes = 2;
    out->axis_dims[1] = ndim - 1;
    out->axis_dims[2] = ndim;
  }
  add(out, cols, V, 1, TL__FRAG_SLOT, 1);
  add(out, cols, TC, V, TL__FRAG_THREAD, 1);
  add(out, cols, RC, V * TC, TL__FRAG_SLOT, mr * V);
  if (ndim > 1) {
    add(out, rows, mr, 1, TL__FRAG_SLOT, V);
    add(out, rows, TR, mr, TL__FRAG_THREAD, TC);
    add(out, rows, RR, mr * TR, TL__FRAG_SLOT, RC * mr * V);
  } else {
    /* One row (R = 1, so mr = RR = 1): the thread rows past the first hold
     * nothing, which is a digit above the columns' (every value but 0 a hole). */
    add(out, cols, TR, V * TC * RC, TL__FRAG_THREAD, TC);
  }
  out->slots = RR * RC * mr * V;
  return done(out);
}

tl_status tl__frag_simt(int64_t T, const int64_t *shape, uint32_t ndim, int64_t elem_bytes, int64_t vector_bytes,
                        bool gemm, tl__frag *out) {
  /* The chooser of tl__gpu_layout_choose, step by step. */
  int64_t R = 1, C = shape[ndim - 1];
  for (uint32_t d = 0; d + 1 < ndim; d++) R *= shape[d];
  int64_t vmax = elem_bytes > 0 ? vector_bytes / elem_bytes : 1;
  int64_t V = 1;
  for (int64_t v = 1; v <= vmax; v *= 2)
    if (C % v == 0 && (v == 1 || R * (C / v) >= T)) V = v;
  int64_t CB = C / V, TC = 1;
  for (int64_t d = 1; d <= T && d <= CB; d++)
    if (T % d == 0) TC = d;
  int64_t TR = T / TC, mr = 1;
  if (gemm)
    while (mr * 2 <= 8 && R % (mr * 2 * TR) == 0) mr *= 2;
  return tl__frag_grid(T, shape, ndim, V, mr, TC, out);
}

/* ----------------------------------------------------------- tensor cores */

/* Upstream's makeGemmFragment8x8: element (i, j) of an 8x8 tile at thread
 * 4*i + j/2, slot j%2 (one warp, two slots): the quarter of every mma.sync
 * fragment that one 32-bit register pair covers. */
static void atom_8x8(tl__frag *L) {
  const int64_t shape[2] = {8, 8};
  (void)frag_init(L, shape, 2, 32, 2);
  add(L, 0, 8, 1, TL__FRAG_THREAD, 4);
  add(L, 1, 2, 1, TL__FRAG_SLOT, 1);
  add(L, 1, 4, 2, TL__FRAG_THREAD, 1);
  tl__frag_canonical(L, L);
}

/* The three atoms are fixed repetitions of the fixed 8x8 atom, which cannot fail
 * (tests/unit/test_layout_frag.c checks each against the PTX ISA's formulas). */
void tl__frag_mma_c_atom(tl__frag *out) {
  tl__frag a;
  atom_8x8(&a);
  const int64_t reps[2] = {2, 1};
  (void)tl__frag_repeat(&a, reps, TL__FRAG_SLOT, true, out);
}

void tl__frag_mma_a_atom(tl__frag *out) {
  tl__frag a;
  atom_8x8(&a);
  const int64_t reps[2] = {2, 2};
  (void)tl__frag_repeat(&a, reps, TL__FRAG_SLOT, false, out);
}

void tl__frag_mma_b_atom(tl__frag *out) {
  tl__frag a, t;
  atom_8x8(&a);
  const uint32_t swap[2] = {1, 0};
  (void)tl__frag_permute(&a, swap, &t); /* (k, n): thread 4*n + k/2, slot k%2 */
  const int64_t reps[2] = {2, 1};
  (void)tl__frag_repeat(&t, reps, TL__FRAG_SLOT, true, out);
}

static tl_status warp_tile(const char *what, int64_t block_m, int64_t block_n, int64_t m_warp, int64_t n_warp,
                           int64_t atom_m, int64_t atom_n, int64_t *warp_m, int64_t *warp_n) {
  if (m_warp < 1 || n_warp < 1 || block_m < 1 || block_n < 1 || block_m % m_warp || block_n % n_warp ||
      (block_m / m_warp) % atom_m || (block_n / n_warp) % atom_n)
    return tl__error(TL_EINVAL,
                     "%s: a %lld x %lld tile over %lld x %lld warps does not give each warp a whole number of %lld x "
                     "%lld atoms",
                     what, (long long)block_m, (long long)block_n, (long long)m_warp, (long long)n_warp,
                     (long long)atom_m, (long long)atom_n);
  *warp_m = block_m / m_warp;
  *warp_n = block_n / n_warp;
  return TL_OK;
}

tl_status tl__frag_mma_c(int64_t block_m, int64_t block_n, int64_t m_warp, int64_t n_warp, tl__frag *out) {
  int64_t wm, wn;
  TL__TRY(warp_tile("mma accumulator layout", block_m, block_n, m_warp, n_warp, 16, 8, &wm, &wn));
  tl__frag atom, warp;
  tl__frag_mma_c_atom(&atom);
  const int64_t atoms[2] = {wm / 16, wn / 8}, warps[2] = {m_warp, n_warp};
  TL__TRY(tl__frag_repeat(&atom, atoms, TL__FRAG_SLOT, true, &warp));
  return tl__frag_repeat(&warp, warps, TL__FRAG_THREAD, false, out);
}

tl_status tl__frag_mma_a(int64_t block_m, int64_t block_k, int64_t m_warp, int64_t n_warp, bool transposed,
                         tl__frag *out) {
  int64_t wm, wk;
  TL__TRY(warp_tile("mma operand A layout", block_m, block_k, m_warp, 1, 16, 16, &wm, &wk));
  if (n_warp < 1) return tl__error(TL_EINVAL, "mma operand A layout over %lld warps in N", (long long)n_warp);
  tl__frag atom, warp, block;
  tl__frag_mma_a_atom(&atom);
  const int64_t atoms[2] = {wm / 16, wk / 16}, warps[2] = {m_warp, 1};
  TL__TRY(tl__frag_repeat(&atom, atoms, TL__FRAG_SLOT, false, &warp));
  TL__TRY(tl__frag_repeat(&warp, warps, TL__FRAG_THREAD, true, &block));
  if (!transposed) return tl__frag_replicate(&block, n_warp, out);
  TL__TRY(tl__frag_replicate(&block, n_warp, &warp));
  const uint32_t swap[2] = {1, 0};
  return tl__frag_permute(&warp, swap, out);
}

tl_status tl__frag_mma_b(int64_t block_k, int64_t block_n, int64_t m_warp, int64_t n_warp, bool transposed,
                         tl__frag *out) {
  int64_t wk, wn;
  TL__TRY(warp_tile("mma operand B layout", block_k, block_n, 1, n_warp, 16, 8, &wk, &wn));
  if (m_warp < 1) return tl__error(TL_EINVAL, "mma operand B layout over %lld warps in M", (long long)m_warp);
  tl__frag atom, warp, rep;
  tl__frag_mma_b_atom(&atom);
  const int64_t atoms[2] = {wk / 16, wn / 8}, warps[2] = {1, n_warp};
  TL__TRY(tl__frag_repeat(&atom, atoms, TL__FRAG_SLOT, true, &warp));
  TL__TRY(tl__frag_replicate(&warp, m_warp, &rep));
  if (!transposed) return tl__frag_repeat(&rep, warps, TL__FRAG_THREAD, true, out);
  TL__TRY(tl__frag_repeat(&rep, warps, TL__FRAG_THREAD, true, &warp));
  const uint32_t swap[2] = {1, 0};
  return tl__frag_permute(&warp, swap, out);
}

tl_status tl__frag_wgmma_c(int64_t block_m, int64_t block_n, int64_t m_warp, int64_t n_warp, tl__frag *out) {
  int64_t wm, wn;
  TL__TRY(warp_tile("wgmma accumulator layout", block_m, block_n, m_warp, n_warp, 16, 8, &wm, &wn));
  if (m_warp % 4)
    return tl__error(TL_EINVAL,
                     "wgmma accumulator layout: %lld warps in M is not a whole number of warpgroups (4 warps)",
                     (long long)m_warp);
  tl__frag atom, warp, block;
  atom_8x8(&atom);
  const int64_t cols[2] = {2, wn / 8}, warps[2] = {m_warp, n_warp}, rows[2] = {wm / 16, 1};
  TL__TRY(tl__frag_repeat(&atom, cols, TL__FRAG_SLOT, false, &warp));
  TL__TRY(tl__frag_repeat(&warp, warps, TL__FRAG_THREAD, false, &block));
  return tl__frag_repeat(&block, rows, TL__FRAG_SLOT, false, out);
}
