/* How T.gemm splits a block's warps over its tile (upstream TileLang's
 * GemmWarpPolicy::computeWarpPartition, for mma.sync and wgmma): an m_warp x
 * n_warp grid of warps, warp w = wm + m_warp*wn, each owning a multiple of 16
 * rows and 8 columns. docs/layouts.md has the rules. */
#ifndef TL_LAYOUT_WARP_POLICY_H
#define TL_LAYOUT_WARP_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "tilelang/base.h"

typedef enum tl__warp_policy {
  TL__WARP_SQUARE = 0,   /* balance the per-warp tile's aspect ratio against the block's */
  TL__WARP_FULL_ROW = 1, /* as many warps on M as divide it (FlashAttention: rows stay in a warp) */
  TL__WARP_FULL_COL = 2  /* as many warps on N as divide it */
} tl__warp_policy;

/* "Square", "FullRow", "FullCol" (upstream's names). */
const char *tl__warp_policy_name(tl__warp_policy p);

/* The warp grid for an M x N tile over num_warps warps; wgmma keeps whole
 * warpgroups (4 warps) on M. TL_EINVAL naming the shapes when M is not a
 * multiple of 16, N of 8, num_warps (wgmma) of 4, or no grid uses every warp. */
tl_status tl__warp_partition(tl__warp_policy policy, int64_t M, int64_t N, int64_t num_warps, bool wgmma,
                             int64_t *m_warp, int64_t *n_warp);

#endif
