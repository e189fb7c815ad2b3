/* Warp partitions of T.gemm (warp_policy.h), following upstream's rules step by
 * step, including its float arithmetic for the Square policy's score so that
 * ties break the same way. */
#include "layout/warp_policy.h"

#include <float.h>
#include <math.h>

#include "base/error.h"

enum { M_PER_WARP = 16, N_PER_WARP = 8, WARPGROUP = 4 };

const char *tl__warp_policy_name(tl__warp_policy p) {
  switch (p) {
  case TL__WARP_SQUARE: return "Square";
  case TL__WARP_FULL_ROW: return "FullRow";
  case TL__WARP_FULL_COL: return "FullCol";
  }
  return "?";
}

static void wgmma_grid(tl__warp_policy policy, int64_t M, int64_t N, int64_t nw, int64_t *mw, int64_t *nwn) {
  int64_t m = WARPGROUP, n = nw / WARPGROUP;
  if (policy == TL__WARP_FULL_ROW) {
    for (int64_t cand = nw; cand >= WARPGROUP; cand -= WARPGROUP)
      if (M % (cand * M_PER_WARP) == 0) {
        m = cand;
        n = nw / m;
        break;
      }
  } else if (policy == TL__WARP_FULL_COL) {
    if (N % (n * N_PER_WARP) != 0) {
      int64_t max_n = N / N_PER_WARP;
      for (int64_t c = n < max_n ? n : max_n; c >= 1; c--)
        if (nw % c == 0 && (nw / c) % WARPGROUP == 0) {
          n = c;
          m = nw / c;
          break;
        }
    }
  } else {
    int64_t max_m = M / M_PER_WARP, max_n = N / N_PER_WARP, best_m = WARPGROUP, best_n = n;
    float ideal = N > 0 ? (float)M / (float)N : 1.f, best = FLT_MAX;
    for (int64_t c = WARPGROUP; c <= nw && c <= max_m; c += WARPGROUP) {
      if (nw % c) continue;
      int64_t d = nw / c;
      if (d > max_n) continue;
      float score = fabsf(((float)M / (float)(c * M_PER_WARP)) / ((float)N / (float)(d * N_PER_WARP)) - ideal);
      if (score < best) {
        best = score;
        best_m = c;
        best_n = d;
      }
    }
    m = best_m;
    n = best_n;
  }
  *mw = m;
  *nwn = n;
}

static void mma_grid(tl__warp_policy policy, int64_t M, int64_t N, int64_t nw, int64_t *mw, int64_t *nwn) {
  int64_t m = 1, n = 1;
  if (policy == TL__WARP_FULL_ROW) {
    m = nw;
    if (M % (m * M_PER_WARP) != 0) {
      m = M / M_PER_WARP;
      n = m ? nw / m : 1;
      if (n == 0) n = 1;
    }
  } else if (policy == TL__WARP_FULL_COL) {
    n = nw;
    if (N % (n * N_PER_WARP) != 0) {
      n = N / N_PER_WARP;
      m = n ? nw / n : 1;
      if (m == 0) m = 1;
    }
  } else {
    int64_t max_m = M / M_PER_WARP;
    float ideal = N > 0 ? (float)M / (float)N : 1.f, best = FLT_MAX;
    for (int64_t c = 1; c <= max_m && c <= nw; c++) {
      int64_t d = nw / c;
      float mp = (float)M / (float)(c * M_PER_WARP), np = (float)N / (float)(d * N_PER_WARP);
      if (mp < 1 || np < 1 || c * d != nw) continue;
      float score = fabsf(mp / np - ideal);
      if (score < best) {
        best = score;
        m = c;
        n = d;
      }
    }
  }
  *mw = m;
  *nwn = n;
}

tl_status tl__warp_partition(tl__warp_policy policy, int64_t M, int64_t N, int64_t num_warps, bool wgmma,
                             int64_t *m_warp, int64_t *n_warp) {
  const char *name = tl__warp_policy_name(policy);
  if (policy != TL__WARP_SQUARE && policy != TL__WARP_FULL_ROW && policy != TL__WARP_FULL_COL)
    return tl__error(TL_EINVAL, "unknown T.gemm warp policy %d", (int)policy);
  if (num_warps < 1) return tl__error(TL_EINVAL, "T.gemm over %lld warps", (long long)num_warps);
  if (M < 1 || M % M_PER_WARP)
    return tl__error(TL_EINVAL, "T.gemm with M = %lld: a warp owns a multiple of %d rows, so M must be one",
                     (long long)M, M_PER_WARP);
  if (N < 1 || N % N_PER_WARP)
    return tl__error(TL_EINVAL, "T.gemm with N = %lld: a warp owns a multiple of %d columns, so N must be one",
                     (long long)N, N_PER_WARP);
  if (wgmma && num_warps % WARPGROUP)
    return tl__error(TL_EINVAL, "wgmma T.gemm over %lld warps: it needs whole warpgroups (a multiple of 4 warps)",
                     (long long)num_warps);
  int64_t m, n;
  if (wgmma)
    wgmma_grid(policy, M, N, num_warps, &m, &n);
  else
    mma_grid(policy, M, N, num_warps, &m, &n);
  if (m * n != num_warps)
    return tl__error(TL_EINVAL,
                     "T.gemm policy %s cannot use all %lld warps on a %lld x %lld tile (it found %lld x %lld): use "
                     "fewer threads or a larger tile",
                     name, (long long)num_warps, (long long)M, (long long)N, (long long)m, (long long)n);
  *m_warp = m;
  *n_warp = n;
  return TL_OK;
}
