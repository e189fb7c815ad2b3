/* Asynchronous copies in SIMT execution: cp.async's meaning (ir.h, TL_OP_CP_ASYNC).
 *
 * A copy reads its source when issued (global memory does not change under a
 * race-free kernel while the copy is in flight) and claims its destination in
 * the race detector then; its bytes land only when a T.cp_async_wait of the same
 * thread covers its group, written by that thread at that point (so another
 * thread reading them needs a barrier after the wait, as on the GPU). Until then
 * the destination keeps what it held: a missing or too weak wait reads stale
 * data, and the differential tests against the tile-level interpreter see it. A
 * thread that ends its block with copies in flight is a lowering bug (an error
 * naming the copy). */
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "ir/interp/simt.h"

#define MAX_ELEMS 16 /* 16 bytes of 1-byte elements */

typedef struct tl__simt_async_copy {
  const tl_ir_buffer *buf;
  char *dst;
  uint32_t count, group;
  tl__ival vals[MAX_ELEMS];
  tl_ir_span span;
} tl__simt_async_copy;

tl_status tl__simt_cp_async(tl__iframe *fr, const tl_ir_buffer *buf, char *dst, const tl__ival *vals, uint32_t count,
                            tl_ir_span span) {
  tl__simt_thread *t = fr->simt;
  if (!t) return tl__interp_error(TL_EUNSUPPORTED, span, "T.cp_async runs only in SIMT execution (GPU-lowered kernels)");
  if (count == 0 || count > MAX_ELEMS)
    return tl__interp_error(TL_EINVAL, span, "T.cp_async of %u elements (1 to %d)", count, MAX_ELEMS);
  size_t esz = tl_dtype_bytes(tl_dtype_scalar(buf->dtype));
  for (uint32_t i = 0; i < count; i++) TL__TRY(tl__simt_claim_write(fr, buf, dst + i * esz, span));
  if (!t->async.elem) t->async.elem = sizeof(tl__simt_async_copy); /* threads start zeroed */
  tl__simt_async_copy c = {buf, dst, count, t->async_groups, {{0}}, span};
  memcpy(c.vals, vals, count * sizeof *vals);
  return tl__vec_push(&t->async, &c);
}

tl_status tl__simt_cp_async_commit(tl__iframe *fr) {
  if (fr->simt) fr->simt->async_groups++;
  return TL_OK;
}

tl_status tl__simt_cp_async_wait(tl__iframe *fr, int64_t n, tl_ir_span span) {
  tl__simt_thread *t = fr->simt;
  if (!t || n < 0) return TL_OK;
  /* Groups 0 .. async_groups - 1 are committed; all but the newest n land. */
  uint32_t limit = (int64_t)t->async_groups > n ? t->async_groups - (uint32_t)n : 0;
  size_t keep = 0;
  tl_status st = TL_OK;
  for (size_t i = 0; i < t->async.len; i++) {
    tl__simt_async_copy *c = &TL__VEC_AT(&t->async, tl__simt_async_copy, i);
    if (c->group >= limit || st != TL_OK) {
      if (keep != i) TL__VEC_AT(&t->async, tl__simt_async_copy, keep) = *c;
      keep++;
      continue;
    }
    size_t esz = tl_dtype_bytes(tl_dtype_scalar(c->buf->dtype));
    for (uint32_t e = 0; e < c->count && st == TL_OK; e++) st = tl__simt_store(fr, c->buf, c->dst + e * esz, span, c->vals[e]);
  }
  t->async.len = keep;
  return st;
}

tl_status tl__simt_cp_async_end(tl__simt_thread *t) {
  tl_status st = TL_OK;
  if (t->async.len) {
    const tl__simt_async_copy *c = &TL__VEC_AT(&t->async, tl__simt_async_copy, 0);
    st = tl__interp_error(TL_EINTERNAL, c->span,
                          "T.cp_async into buffer '%s' never landed: the thread ended its block without a "
                          "T.cp_async_wait covering it (%zu copies in flight)",
                          c->buf->name, t->async.len);
  }
  t->async.len = 0;
  t->async_groups = 0;
  return st;
}
