/* Memory accesses of SIMT threads (simt.h).
 *
 * - Shared memory goes through the race detector: every element has a shadow
 *   entry with the barrier interval (epoch) it describes, the thread that wrote
 *   it, up to two threads that read it and up to two that updated it atomically.
 *   Two accesses of one element by different threads in the same interval race
 *   unless both read or both are atomic; the check and the access happen under
 *   the element's stripe lock. Whether a kernel races on an element is found
 *   whatever the order of the accesses (two distinct readers or updaters are
 *   enough to know that one differs from a later writer); which pair is named
 *   may depend on the order.
 * - Global memory is read and written with relaxed atomics (under the stripe
 *   lock if misaligned), so a racy kernel gives some value, never undefined
 *   behaviour in the interpreter.
 * - Atomic adds hold the element's stripe lock for the read-modify-write.
 * Local memory belongs to one thread and is accessed directly. */
#include <inttypes.h>
#include <string.h>

#include "base/error.h"
#include "base/str.h"
#include "ir/interp/simt.h"

enum { READ, WRITE, ATOMIC };

static pthread_mutex_t *stripe_of(tl__simt *sm, const void *p) {
  uint64_t a = (uint64_t)(uintptr_t)p;
  a ^= a >> 17;
  a *= 0x9E3779B97F4A7C15ull;
  return &sm->stripes[a >> 58]; /* the top 6 bits: 64 stripes */
}

/* ------------------------------------------------------------ raw access */

static bool aligned(const void *p, size_t n) { return ((uintptr_t)p & (n - 1)) == 0; }

/* Copies n (1, 2, 4 or 8) bytes from p atomically if p is aligned; false if not. */
static bool atomic_read(const char *p, size_t n, void *dst) {
  if (!aligned(p, n)) return false;
  switch (n) {
  case 1: { uint8_t x = __atomic_load_n((const uint8_t *)p, __ATOMIC_RELAXED); memcpy(dst, &x, 1); return true; }
  case 2: { uint16_t x = __atomic_load_n((const uint16_t *)(const void *)p, __ATOMIC_RELAXED); memcpy(dst, &x, 2); return true; }
  case 4: { uint32_t x = __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_RELAXED); memcpy(dst, &x, 4); return true; }
  case 8: { uint64_t x = __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_RELAXED); memcpy(dst, &x, 8); return true; }
  default: return false;
  }
}

static bool atomic_write(char *p, size_t n, const void *src) {
  if (!aligned(p, n)) return false;
  switch (n) {
  case 1: { uint8_t x; memcpy(&x, src, 1); __atomic_store_n((uint8_t *)p, x, __ATOMIC_RELAXED); return true; }
  case 2: { uint16_t x; memcpy(&x, src, 2); __atomic_store_n((uint16_t *)(void *)p, x, __ATOMIC_RELAXED); return true; }
  case 4: { uint32_t x; memcpy(&x, src, 4); __atomic_store_n((uint32_t *)(void *)p, x, __ATOMIC_RELAXED); return true; }
  case 8: { uint64_t x; memcpy(&x, src, 8); __atomic_store_n((uint64_t *)(void *)p, x, __ATOMIC_RELAXED); return true; }
  default: return false;
  }
}

/* Global memory: one element, atomically (relaxed) or under the stripe lock. */
static tl__ival global_load(tl__simt *sm, tl_dtype dt, const char *p) {
  char tmp[8];
  size_t n = tl_dtype_bytes(dt);
  if (!atomic_read(p, n, tmp)) {
    pthread_mutex_t *mu = stripe_of(sm, p);
    pthread_mutex_lock(mu);
    memcpy(tmp, p, n);
    pthread_mutex_unlock(mu);
  }
  return tl__iv_load(dt, tmp);
}

static void global_store(tl__simt *sm, tl_dtype dt, char *p, tl__ival v) {
  char tmp[8];
  size_t n = tl_dtype_bytes(dt);
  tl__iv_store(dt, tmp, v);
  if (!atomic_write(p, n, tmp)) {
    pthread_mutex_t *mu = stripe_of(sm, p);
    pthread_mutex_lock(mu);
    memcpy(p, tmp, n);
    pthread_mutex_unlock(mu);
  }
}

/* --------------------------------------------------------- race detector */

static const char *const k_verbs[3] = {"reads", "writes", "atomically updates"};

/* The first of ids[0..2) that is set and is not me, or -1. */
static int other_of(const int32_t ids[2], int32_t me) {
  for (int i = 0; i < 2; i++)
    if (ids[i] >= 0 && ids[i] != me) return i;
  return -1;
}

/* Adds me to a set of at most two distinct ids (more are not needed: one of two
 * distinct ids always differs from any later thread). */
static void add_id(int32_t ids[2], tl_ir_span spans[2], int32_t me, tl_ir_span span) {
  if (ids[0] == me || ids[1] == me) return;
  int slot = ids[0] < 0 ? 0 : ids[1] < 0 ? 1 : -1;
  if (slot < 0) return;
  ids[slot] = me;
  spans[slot] = span;
}

static tl_status report_race(tl__simt *sm, const struct tl__simt_shared *sh, size_t elem, int32_t other,
                             int other_kind, tl_ir_span other_span, int32_t me, int my_kind, tl_ir_span my_span) {
  char ta[64], tb[64], la[256], lb[256];
  /* The lower thread index first, so the message does not depend on who came second. */
  bool swap = other > me;
  int32_t a = swap ? me : other, b = swap ? other : me;
  int ka = swap ? my_kind : other_kind, kb = swap ? other_kind : my_kind;
  tl_ir_span sa = swap ? my_span : other_span, sb = swap ? other_span : my_span;
  return tl__error(TL_ERUNTIME,
                   "data race on shared buffer '%s' element %zu: thread %s %s it at %s and thread %s %s it at %s "
                   "with no barrier in between",
                   sh->buf->name, elem, tl__simt_tid_str(sm, (uint32_t)a, ta, sizeof ta), k_verbs[ka],
                   tl__simt_span_str(sa, la, sizeof la), tl__simt_tid_str(sm, (uint32_t)b, tb, sizeof tb),
                   k_verbs[kb], tl__simt_span_str(sb, lb, sizeof lb));
}

/* Checks and records an access of kind `kind` by t to element elem (stripe held). */
static tl_status race_check(tl__simt_thread *t, struct tl__simt_shared *sh, size_t elem, int kind, tl_ir_span span) {
  tl__simt_shadow *e = &sh->shadow[elem];
  if (e->epoch != t->epoch) {
    e->epoch = t->epoch;
    e->writer = -1;
    e->readers[0] = e->readers[1] = e->atomics[0] = e->atomics[1] = -1;
  }
  int32_t me = (int32_t)t->tid;
  if (e->writer >= 0 && e->writer != me)
    return report_race(t->sm, sh, elem, e->writer, WRITE, e->wspan, me, kind, span);
  int o;
  if (kind != ATOMIC && (o = other_of(e->atomics, me)) >= 0)
    return report_race(t->sm, sh, elem, e->atomics[o], ATOMIC, e->aspan[o], me, kind, span);
  if (kind != READ && (o = other_of(e->readers, me)) >= 0)
    return report_race(t->sm, sh, elem, e->readers[o], READ, e->rspan[o], me, kind, span);
  if (kind == READ) add_id(e->readers, e->rspan, me, span);
  else if (kind == ATOMIC) add_id(e->atomics, e->aspan, me, span);
  else {
    e->writer = me;
    e->wspan = span;
  }
  return TL_OK;
}

/* The shared instance behind p and p's element index in it. */
static size_t elem_of(const struct tl__simt_shared *sh, const char *p) {
  return (size_t)(p - sh->store.data) / sh->esz;
}

/* ----------------------------------------------------------------- hooks */

tl_status tl__simt_load(tl__iframe *fr, const tl_ir_buffer *buf, const char *p, tl_ir_span span, tl__ival *out) {
  tl__istore *st;
  TL__TRY(tl__interp_storage(fr, buf, span, &st));
  tl_dtype dt = tl_dtype_scalar(buf->dtype);
  tl__simt *sm = fr->simt->sm;
  if (st->shared) {
    pthread_mutex_t *mu = stripe_of(sm, p);
    pthread_mutex_lock(mu);
    tl_status s = race_check(fr->simt, st->shared, elem_of(st->shared, p), READ, span);
    if (s == TL_OK) *out = tl__iv_load(dt, p);
    pthread_mutex_unlock(mu);
    return s;
  }
  *out = st->global ? global_load(sm, dt, p) : tl__iv_load(dt, p);
  return TL_OK;
}

tl_status tl__simt_store(tl__iframe *fr, const tl_ir_buffer *buf, char *p, tl_ir_span span, tl__ival v) {
  tl__istore *st;
  TL__TRY(tl__interp_storage(fr, buf, span, &st));
  tl_dtype dt = tl_dtype_scalar(buf->dtype);
  tl__simt *sm = fr->simt->sm;
  if (st->shared) {
    pthread_mutex_t *mu = stripe_of(sm, p);
    pthread_mutex_lock(mu);
    tl_status s = race_check(fr->simt, st->shared, elem_of(st->shared, p), WRITE, span);
    if (s == TL_OK) tl__iv_store(dt, p, v);
    pthread_mutex_unlock(mu);
    return s;
  }
  if (st->global) global_store(sm, dt, p, v);
  else tl__iv_store(dt, p, v);
  return TL_OK;
}

tl_status tl__simt_claim_write(tl__iframe *fr, const tl_ir_buffer *buf, const char *p, tl_ir_span span) {
  tl__istore *st;
  TL__TRY(tl__interp_storage(fr, buf, span, &st));
  if (!st->shared) return TL_OK;
  pthread_mutex_t *mu = stripe_of(fr->simt->sm, p);
  pthread_mutex_lock(mu);
  tl_status s = race_check(fr->simt, st->shared, elem_of(st->shared, p), WRITE, span);
  pthread_mutex_unlock(mu);
  return s;
}

tl_status tl__simt_atomic_add(tl__iframe *fr, const tl_ir_buffer *buf, char *p, tl_ir_span span, tl__ival v) {
  return tl__simt_atomic_update(fr, buf, p, span, TL_BIN_ADD, v);
}

tl_status tl__simt_atomic_update(tl__iframe *fr, const tl_ir_buffer *buf, char *p, tl_ir_span span, tl_ir_binop comb,
                                 tl__ival v) {
  tl__istore *st;
  TL__TRY(tl__interp_storage(fr, buf, span, &st));
  tl_dtype dt = tl_dtype_scalar(buf->dtype);
  tl__simt *sm = fr->simt->sm;
  if (!st->shared && !st->global) { /* the thread's own memory */
    tl__ival old = tl__iv_load(dt, p);
    TL__TRY(tl__iv_binary(comb, dt, old, v, span, &old));
    tl__iv_store(dt, p, old);
    return TL_OK;
  }
  pthread_mutex_t *mu = stripe_of(sm, p);
  pthread_mutex_lock(mu);
  tl_status s = st->shared ? race_check(fr->simt, st->shared, elem_of(st->shared, p), ATOMIC, span) : TL_OK;
  tl__ival old;
  if (s == TL_OK) {
    char tmp[8];
    size_t n = tl_dtype_bytes(dt);
    /* Atomic reads and writes of the element, as plain accesses of other threads
     * (racing with this one) use them too. */
    if (!atomic_read(p, n, tmp)) memcpy(tmp, p, n);
    old = tl__iv_load(dt, tmp);
    s = tl__iv_binary(comb, dt, old, v, span, &old);
    if (s == TL_OK) {
      tl__iv_store(dt, tmp, old);
      if (!atomic_write(p, n, tmp)) memcpy(p, tmp, n);
    }
  }
  pthread_mutex_unlock(mu);
  return s;
}
