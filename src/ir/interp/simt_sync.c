/* Barriers and warp shuffles of a SIMT block (simt.h).
 *
 * One mutex guards the block's state: each thread is running, waiting at a
 * barrier, waiting at a shuffle, or done. A thread that stops (waits or finishes)
 * and leaves no thread running calls the resolver, which looks at all of them:
 *   1. a thread failed: every waiting thread is released to stop (the launch ends
 *      with the failure of the lowest thread index);
 *   2. some lanes wait at a shuffle: their warp exchanges if all its lanes wait at
 *      that shuffle, else the warp diverged;
 *   3. every other thread waits at a barrier: released if all wait at the same one,
 *      else (or if some have finished) the block diverged.
 * Decisions are taken only when nothing runs, so they depend on where the threads
 * stopped, not on the order the OS ran them in, and a divergence is an error, not
 * a hang. */
#include <inttypes.h>
#include <stdio.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "ir/interp/simt.h"

/* ------------------------------------------------------------- waiting */

/* Stops t at a barrier or shuffle (state) until the resolver releases it. */
static tl_status stopped(void) { return tl__error(TL_ERUNTIME, "stopped: another thread of the launch failed"); }

static tl_status block_wait(tl__simt_thread *t, int state, const void *site, tl_ir_span span) {
  tl__simt *sm = t->sm;
  /* Released to stop: never wait again. (The resolver sets the flag only while
   * this thread waits, so reading it here needs no lock.) */
  if (t->aborted) return stopped();
  pthread_mutex_lock(&sm->mu);
  t->state = state;
  t->site = site;
  t->site_span = span;
  if (--sm->nrunning == 0) tl__simt_resolve(sm);
  while (t->state == state) pthread_cond_wait(&sm->wake, &sm->mu);
  bool aborted = t->aborted;
  t->epoch = sm->epoch;
  pthread_mutex_unlock(&sm->mu);
  return aborted ? stopped() : TL_OK;
}

tl_status tl__simt_barrier(tl__iframe *fr, const tl_ir_stmt *s) {
  return block_wait(fr->simt, TL__SIMT_BARRIER, s, s->span);
}

static tl_status int_operand(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, const char *what, tl_ir_span span,
                             int64_t *out) {
  if (!e || (!tl_dtype_is_int(e->dtype) && !tl_dtype_is_bool(e->dtype)))
    return tl__interp_error(TL_EINVAL, span, "T.warp_shfl_xor: the %s must be an integer", what);
  tl__ival v;
  TL__TRY(tl__interp_eval(fr, e, lane, &v));
  *out = v.i;
  return TL_OK;
}

tl_status tl__simt_shfl_xor(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, tl__ival *out) {
  tl__simt_thread *t = fr->simt;
  if (!t)
    return tl__interp_error(TL_EUNSUPPORTED, e->span,
                            "T.warp_shfl_xor outside SIMT execution: lanes exchange values only in device code "
                            "that binds thread indices");
  if (e->u.call.nargs != 3 || !e->u.call.args || !e->u.call.args[0])
    return tl__interp_error(TL_EINVAL, e->span, "T.warp_shfl_xor takes 3 arguments (value, lane_mask, width)");
  const tl_ir_expr *ve = e->u.call.args[0];
  if (!tl_dtype_eq(tl_dtype_scalar(ve->dtype), tl_dtype_scalar(e->dtype))) {
    char na[32], nb[32];
    return tl__interp_error(TL_EINVAL, e->span, "T.warp_shfl_xor of a %s value typed %s",
                            tl__interp_dtype_name(ve->dtype, na), tl__interp_dtype_name(e->dtype, nb));
  }
  uint32_t warp = t->sm->warp_size;
  tl__ival v;
  int64_t mask = 0, width = 0;
  TL__TRY(tl__interp_eval(fr, ve, lane, &v));
  TL__TRY(int_operand(fr, e->u.call.args[1], lane, "lane mask", e->span, &mask));
  TL__TRY(int_operand(fr, e->u.call.args[2], lane, "width", e->span, &width));
  if (width < 1 || width > warp || (width & (width - 1)) != 0)
    return tl__interp_error(TL_ERUNTIME, e->span,
                            "T.warp_shfl_xor: width %" PRId64 " is not a power of two between 1 and the warp size %u",
                            width, warp);
  if (mask < 0 || mask >= warp)
    return tl__interp_error(TL_ERUNTIME, e->span, "T.warp_shfl_xor: lane mask %" PRId64 " is outside the warp of %u lanes",
                            mask, warp);
  t->sh_kind = TL__SIMT_COLL_SHFL;
  t->sh_value = v;
  t->sh_mask = mask;
  t->sh_width = width;
  t->sh_missing = -1;
  TL__TRY(block_wait(t, TL__SIMT_SHUFFLE, e, e->span));
  if (t->sh_missing >= 0) {
    uint32_t lanes = t->sm->nthreads - t->tid / warp * warp;
    return tl__interp_error(TL_ERUNTIME, e->span,
                            "T.warp_shfl_xor: lane %u reads lane %" PRId64 ", which this warp does not have (the "
                            "block's last warp has %u threads)",
                            t->tid % warp, t->sh_missing, lanes);
  }
  *out = t->sh_result;
  return TL_OK;
}

tl_status tl__simt_mma(tl__iframe *fr, const tl_ir_expr *e, tl_dtype ab, char *d, const char *a, const char *b) {
  tl__simt_thread *t = fr->simt;
  if (!t)
    return tl__interp_error(TL_EUNSUPPORTED, e->span,
                            "T.mma_m16n8k16 outside SIMT execution: the lanes of a warp compute it together, only in "
                            "device code that binds thread indices");
  if (t->sm->warp_size != 32)
    return tl__interp_error(TL_ERUNTIME, e->span, "T.mma_m16n8k16 needs warps of 32 lanes; this launch's have %u",
                            t->sm->warp_size);
  t->sh_kind = TL__SIMT_COLL_MMA;
  t->mma_d = d;
  t->mma_a = a;
  t->mma_b = b;
  t->mma_ab = ab;
  t->sh_missing = -1;
  TL__TRY(block_wait(t, TL__SIMT_SHUFFLE, e, e->span));
  if (t->sh_missing >= 0)
    return tl__interp_error(TL_ERUNTIME, e->span,
                            "T.mma_m16n8k16: the warp of lane %u has %" PRId64 " lanes; the instruction needs all 32",
                            t->tid % 32, t->sh_missing);
  return TL_OK;
}

tl_status tl__simt_ldmatrix(tl__iframe *fr, const tl_ir_expr *e, tl_dtype t, const tl__ival *row, bool trans, char *dst) {
  tl__simt_thread *th = fr->simt;
  if (!th)
    return tl__interp_error(TL_EUNSUPPORTED, e->span,
                            "T.ldmatrix_x4 outside SIMT execution: the lanes of a warp load together, only in device "
                            "code that binds thread indices");
  if (th->sm->warp_size != 32)
    return tl__interp_error(TL_ERUNTIME, e->span, "T.ldmatrix_x4 needs warps of 32 lanes; this launch's have %u",
                            th->sm->warp_size);
  th->sh_kind = TL__SIMT_COLL_LDMATRIX;
  for (int i = 0; i < 8; i++) th->lm_row[i] = row[i];
  th->lm_trans = trans;
  th->lm_dst = dst;
  th->mma_ab = t;
  th->sh_missing = -1;
  TL__TRY(block_wait(th, TL__SIMT_SHUFFLE, e, e->span));
  if (th->sh_missing >= 0)
    return tl__interp_error(TL_ERUNTIME, e->span,
                            "T.ldmatrix_x4: the warp of lane %u has %" PRId64 " lanes; the instruction needs all 32",
                            th->tid % 32, th->sh_missing);
  return TL_OK;
}

/* ------------------------------------------------------------ resolving */

static bool waiting(const tl__simt_thread *t) {
  return t->state == TL__SIMT_BARRIER || t->state == TL__SIMT_SHUFFLE;
}

/* Releases every waiting thread to stop. */
static void abort_waiting(tl__simt *sm) {
  for (uint32_t i = 0; i < sm->nthreads; i++) {
    tl__simt_thread *t = &sm->threads[i];
    if (!waiting(t)) continue;
    t->aborted = true;
    t->state = TL__SIMT_RUNNING;
    sm->nrunning++;
  }
  pthread_cond_broadcast(&sm->wake);
}

/* "has finished", "waits at the barrier at f:l:c", ... */
static void describe(tl__sb *sb, const tl__simt_thread *u) {
  char loc[256];
  if (u->state == TL__SIMT_DONE) tl__sb_append(sb, "has finished");
  else
    tl__sb_appendf(sb, "waits at the %s at %s", u->state == TL__SIMT_BARRIER ? "barrier" : "warp shuffle",
                   tl__simt_span_str(u->site_span, loc, sizeof loc));
}

/* Records the divergence of threads a and b and stops the block. */
static void diverged(tl__simt *sm, const char *what, int64_t warp, uint32_t a, uint32_t b) {
  char loc[256], ta[64], tb[64];
  if (sm->sync_status != TL_OK) { /* already stopping */
    abort_waiting(sm);
    return;
  }
  const tl__simt_thread *ta_ = &sm->threads[a];
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "%s divergence at %s in block (%" PRId64 ", %" PRId64 ", %" PRId64 ")", what,
                 tl__simt_span_str(ta_->site_span, loc, sizeof loc), sm->bidx[0], sm->bidx[1], sm->bidx[2]);
  if (warp >= 0) tl__sb_appendf(&sb, ", warp %" PRId64, warp);
  tl__sb_appendf(&sb, ": thread %s waits there while thread %s ", tl__simt_tid_str(sm, a, ta, sizeof ta),
                 tl__simt_tid_str(sm, b, tb, sizeof tb));
  describe(&sb, &sm->threads[b]);
  sm->sync_msg = tl__sb_finish(&sb); /* NULL on out of memory: reported as such */
  sm->sync_status = sm->sync_msg ? TL_ERUNTIME : TL_ENOMEM;
  abort_waiting(sm);
}

/* Every lane of the warp waits at the same shuffle: each gets its partner's value
 * as __shfl_xor_sync(mask, v, lane_mask, width) does: the partner lane ^ lane_mask
 * if it lies in this lane's width-segment or an earlier one, else its own value. */
static void exchange(tl__simt *sm, uint32_t first, uint32_t end) {
  for (uint32_t i = first; i < end; i++) {
    tl__simt_thread *t = &sm->threads[i];
    int64_t lane = i - first, src = lane ^ t->sh_mask, seg_end = (lane / t->sh_width + 1) * t->sh_width;
    if (src >= seg_end) t->sh_result = t->sh_value;
    else if (first + src >= end) t->sh_missing = src;
    else t->sh_result = sm->threads[first + src].sh_value;
  }
  for (uint32_t i = first; i < end; i++) {
    sm->threads[i].state = TL__SIMT_RUNNING;
    sm->nrunning++;
  }
}

static void mma_compute(tl__simt *sm, uint32_t first);

/* Every lane of a warp of 32 waits at the same T.ldmatrix_x4: matrix m's row r
 * is what lane 8m + r addressed; each lane gets its elements of the 4 matrices. */
static void ldmatrix_exchange(tl__simt *sm, uint32_t first, uint32_t end) {
  if (end - first != 32) {
    for (uint32_t i = first; i < end; i++) sm->threads[i].sh_missing = end - first;
  } else {
    for (uint32_t l = 0; l < 32; l++) {
      tl__simt_thread *t = &sm->threads[first + l];
      size_t esz = tl_dtype_bytes(t->mma_ab);
      for (uint32_t m = 0; m < 4; m++)
        for (uint32_t h = 0; h < 2; h++) {
          uint32_t r = t->lm_trans ? 2 * (l % 4) + h : l / 4, c = t->lm_trans ? l / 4 : 2 * (l % 4) + h;
          tl__iv_store(t->mma_ab, t->lm_dst + (2 * m + h) * esz, sm->threads[first + 8 * m + r].lm_row[c]);
        }
    }
  }
  for (uint32_t i = first; i < end; i++) {
    sm->threads[i].state = TL__SIMT_RUNNING;
    sm->nrunning++;
  }
}

/* Every lane of a warp of 32 waits at the same T.mma_m16n8k16: the 16 x 16 A,
 * 16 x 8 B and C tiles are gathered through the fragment maps (ir.h), D computed
 * with k ascending in float32, and scattered back into the accumulators. */
static void mma_exchange(tl__simt *sm, uint32_t first, uint32_t end) {
  if (end - first != 32) {
    for (uint32_t i = first; i < end; i++) sm->threads[i].sh_missing = end - first;
  } else {
    mma_compute(sm, first);
  }
  for (uint32_t i = first; i < end; i++) {
    sm->threads[i].state = TL__SIMT_RUNNING;
    sm->nrunning++;
  }
}

static void mma_compute(tl__simt *sm, uint32_t first) {
  float A[16][16], B[16][8], C[16][8];
  tl_dtype ab = sm->threads[first].mma_ab;
  for (uint32_t l = 0; l < 32; l++) {
    const tl__simt_thread *t = &sm->threads[first + l];
    uint32_t g = l / 4, q = l % 4;
    size_t esz = tl_dtype_bytes(ab);
    for (uint32_t i = 0; i < 8; i++)
      A[g + 8 * ((i / 2) % 2)][2 * q + i % 2 + 8 * (i / 4)] = (float)tl__iv_load(ab, t->mma_a + i * esz).f;
    for (uint32_t i = 0; i < 4; i++) B[2 * q + i % 2 + 8 * (i / 2)][g] = (float)tl__iv_load(ab, t->mma_b + i * esz).f;
    for (uint32_t i = 0; i < 4; i++) C[g + 8 * (i / 2)][2 * q + i % 2] = (float)tl__iv_load(TL_DT_FLOAT32, t->mma_d + i * 4).f;
  }
  for (uint32_t r = 0; r < 16; r++)
    for (uint32_t n = 0; n < 8; n++) {
      float acc = C[r][n];
      for (uint32_t k = 0; k < 16; k++) acc = acc + A[r][k] * B[k][n]; /* the product is exact in float32 */
      C[r][n] = acc;
    }
  for (uint32_t l = 0; l < 32; l++) {
    tl__simt_thread *t = &sm->threads[first + l];
    uint32_t g = l / 4, q = l % 4;
    for (uint32_t i = 0; i < 4; i++) {
      tl__ival v = {0};
      v.f = C[g + 8 * (i / 2)][2 * q + i % 2];
      tl__iv_store(TL_DT_FLOAT32, t->mma_d + i * 4, v);
    }
  }
}

/* Step 2: warps with lanes at a shuffle. True if the resolver is done. */
static bool resolve_shuffles(tl__simt *sm) {
  uint32_t w = sm->warp_size, n = sm->nthreads;
  bool any = false;
  for (uint32_t first = 0; first < n; first += w) {
    uint32_t end = first + w < n ? first + w : n;
    int64_t lead = -1;
    for (uint32_t i = first; i < end && lead < 0; i++)
      if (sm->threads[i].state == TL__SIMT_SHUFFLE) lead = i;
    if (lead < 0) continue;
    any = true;
    for (uint32_t i = first; i < end; i++) {
      const tl__simt_thread *u = &sm->threads[i];
      if (u->state != TL__SIMT_SHUFFLE || u->site != sm->threads[lead].site) {
        diverged(sm, "warp shuffle", first / w, (uint32_t)lead, i);
        return true;
      }
    }
  }
  if (!any) return false;
  for (uint32_t first = 0; first < n; first += w) {
    uint32_t end = first + w < n ? first + w : n;
    if (sm->threads[first].state != TL__SIMT_SHUFFLE) continue;
    int kind = sm->threads[first].sh_kind;
    if (kind == TL__SIMT_COLL_MMA) mma_exchange(sm, first, end);
    else if (kind == TL__SIMT_COLL_LDMATRIX) ldmatrix_exchange(sm, first, end);
    else exchange(sm, first, end);
  }
  pthread_cond_broadcast(&sm->wake);
  return true;
}

void tl__simt_resolve(tl__simt *sm) {
  uint32_t n = sm->nthreads;
  if (sm->ndone == n) return;
  for (uint32_t i = 0; i < n; i++) {
    const tl__simt_thread *t = &sm->threads[i];
    if (t->state == TL__SIMT_DONE && t->status != TL_OK && !t->aborted) {
      abort_waiting(sm);
      return;
    }
  }
  if (resolve_shuffles(sm)) return;
  uint32_t lead = 0;
  while (sm->threads[lead].state != TL__SIMT_BARRIER) lead++; /* one exists: not all are done */
  for (uint32_t i = 0; i < n; i++) {
    const tl__simt_thread *u = &sm->threads[i];
    if (u->state != TL__SIMT_BARRIER || u->site != sm->threads[lead].site) {
      diverged(sm, "barrier", -1, lead, i);
      return;
    }
  }
  sm->epoch++; /* accesses before and after the barrier never race */
  for (uint32_t i = 0; i < n; i++) sm->threads[i].state = TL__SIMT_RUNNING;
  sm->nrunning = n;
  pthread_cond_broadcast(&sm->wake);
}
