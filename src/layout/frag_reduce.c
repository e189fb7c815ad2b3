/* Reductions over any fragment layout: which digits of the reduced dim fold in
 * thread, by warp shuffles, or across warps (frag.h, tl__frag_reduce_plan). */
#include <string.h>

#include "base/error.h"
#include "layout/frag.h"

tl_status tl__frag_reduce_plan_of(const tl__frag *L, uint32_t dim, int64_t warp_size, tl__frag_reduce_plan *out) {
  memset(out, 0, sizeof *out);
  if (dim >= L->ndim) return tl__error(TL_EINVAL, "reducing dim %u of a %u-dim fragment", dim, L->ndim);
  tl__frag c;
  tl__frag_canonical(L, &c);
  int axis = -1;
  for (uint32_t a = 0; a < c.naxes; a++)
    if (c.axis_dims[a] == dim && c.axis_dims[a + 1] == dim + 1) axis = (int)a;
  if (axis < 0)
    return tl__error(TL_EINVAL, "reducing dim %u of a fragment whose layout shares its digits with other dims", dim);
  out->in_thread = 1;
  out->cross_warp = 1;
  /* Lane digits in stride order, so the butterfly's masks ascend. */
  for (int64_t next = 1;;) {
    int best = -1;
    for (uint32_t i = 0; i < c.ndigits; i++) {
      const tl__frag_digit *g = &c.d[i];
      if (g->axis != axis || g->space != TL__FRAG_THREAD || g->stride < next) continue;
      if (best < 0 || g->stride < c.d[best].stride) best = (int)i;
    }
    if (best < 0) break;
    const tl__frag_digit *g = &c.d[best];
    next = g->stride + 1;
    /* The part of the digit below the warp boundary is lanes (when it splits
     * there evenly: then stride and lane extent are powers of two dividing the
     * warp), the rest is other warps. */
    int64_t lanes = 1;
    if (warp_size > 1 && warp_size % g->stride == 0) {
      int64_t room = warp_size / g->stride;
      if (room % g->extent == 0)
        lanes = g->extent;
      else if (g->extent % room == 0)
        lanes = room;
    }
    for (int64_t m = g->stride; m < g->stride * lanes; m *= 2) out->xor_mask[out->nshuffles++] = m;
    out->cross_warp *= g->extent / lanes;
  }
  for (uint32_t i = 0; i < c.ndigits; i++) {
    const tl__frag_digit *g = &c.d[i];
    if (g->axis != axis) continue;
    if (g->space == TL__FRAG_SLOT) out->in_thread *= g->extent;
  }
  out->holes = tl__frag_has_holes(&c);
  return TL_OK;
}
