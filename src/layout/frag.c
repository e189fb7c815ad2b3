/* Fragment layouts: the map, its canonical form, equality and the printer
 * (frag.h has the model). */
#include "layout/frag.h"

#include <string.h>

#include "base/error.h"
#include "base/str.h"

/* ------------------------------------------------------------- helpers */

static int64_t axis_extent(const tl__frag *L, uint32_t a) {
  int64_t e = 1;
  for (uint32_t d = L->axis_dims[a]; d < L->axis_dims[a + 1]; d++) e *= L->shape[d];
  return e;
}

static int64_t axis_flat(const tl__frag *L, uint32_t a, const int64_t *idx) {
  int64_t u = 0;
  for (uint32_t d = L->axis_dims[a]; d < L->axis_dims[a + 1]; d++) u = u * L->shape[d] + idx[d];
  return u;
}

static void axis_unflat(const tl__frag *L, uint32_t a, int64_t u, int64_t *idx) {
  for (uint32_t d = L->axis_dims[a + 1]; d-- > L->axis_dims[a];) {
    idx[d] = u % L->shape[d];
    u /= L->shape[d];
  }
}

/* Sort key of a digit inside its group: place for axis digits, stride for the
 * replication digits (they have no place). */
static int64_t digit_order(const tl__frag_digit *g) { return g->axis >= 0 ? g->place : g->stride; }

/* Indices of the digits selected by `want`, ordered by `key` (insertion sort:
 * there are at most TL__FRAG_MAX_DIGITS). */
typedef bool (*digit_pred)(const tl__frag_digit *g, int64_t arg);
typedef int64_t (*digit_key)(const tl__frag_digit *g);

static uint32_t select_digits(const tl__frag *L, digit_pred want, int64_t arg, digit_key key, uint32_t *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < L->ndigits; i++) {
    if (!want(&L->d[i], arg)) continue;
    uint32_t j = n++;
    while (j > 0 && key(&L->d[out[j - 1]]) > key(&L->d[i])) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = i;
  }
  return n;
}

static bool of_axis(const tl__frag_digit *g, int64_t a) { return g->axis == a; }
static bool of_space(const tl__frag_digit *g, int64_t s) { return g->space == s; }
static int64_t key_place(const tl__frag_digit *g) { return g->place; }
static int64_t key_stride(const tl__frag_digit *g) { return g->stride; }

/* ------------------------------------------------------------- checking */

tl_status tl__frag_check(const tl__frag *L) {
  if (L->ndim < 1 || L->ndim > TL__FRAG_MAX_DIMS)
    return tl__error(TL_EINVAL, "fragment layout: %u dims (1 to %d)", L->ndim, TL__FRAG_MAX_DIMS);
  for (uint32_t d = 0; d < L->ndim; d++)
    if (L->shape[d] < 1)
      return tl__error(TL_EINVAL, "fragment layout: dim %u has extent %lld", d, (long long)L->shape[d]);
  if (L->naxes < 1 || L->naxes > L->ndim || L->axis_dims[0] != 0 || L->axis_dims[L->naxes] != L->ndim)
    return tl__error(TL_EINVAL, "fragment layout: %u axes do not cover its %u dims", L->naxes, L->ndim);
  for (uint32_t a = 0; a < L->naxes; a++)
    if (L->axis_dims[a] >= L->axis_dims[a + 1]) return tl__error(TL_EINVAL, "fragment layout: axis %u has no dims", a);
  if (L->threads < 1 || L->slots < 1 || L->ndigits > TL__FRAG_MAX_DIGITS)
    return tl__error(TL_EINVAL, "fragment layout: %lld threads, %lld slots, %u digits", (long long)L->threads,
                     (long long)L->slots, L->ndigits);
  for (uint32_t i = 0; i < L->ndigits; i++) {
    const tl__frag_digit *g = &L->d[i];
    if (g->extent < 1 || g->stride < 1 || g->axis < -1 || g->axis >= (int32_t)L->naxes ||
        (g->space != TL__FRAG_THREAD && g->space != TL__FRAG_SLOT) || (g->axis < 0 && g->space != TL__FRAG_THREAD) ||
        (g->axis >= 0 && g->place < 1))
      return tl__error(TL_EINVAL,
                       "fragment layout: digit %u is malformed (extent %lld, place %lld, stride %lld, axis %d)", i,
                       (long long)g->extent, (long long)g->place, (long long)g->stride, g->axis);
  }
  uint32_t ix[TL__FRAG_MAX_DIGITS];
  for (uint32_t a = 0; a < L->naxes; a++) {
    uint32_t n = select_digits(L, of_axis, a, key_place, ix);
    int64_t expect = 1;
    for (uint32_t k = 0; k < n; k++) {
      if (L->d[ix[k]].place != expect)
        return tl__error(TL_EINVAL, "fragment layout: the digits of axis %u skip place %lld", a, (long long)expect);
      expect *= L->d[ix[k]].extent;
    }
    if (expect < axis_extent(L, a))
      return tl__error(TL_EINVAL, "fragment layout: the digits of axis %u cover %lld of its %lld indices", a,
                       (long long)expect, (long long)axis_extent(L, a));
  }
  for (int s = TL__FRAG_THREAD; s <= TL__FRAG_SLOT; s++) {
    uint32_t n = select_digits(L, of_space, s, key_stride, ix);
    int64_t expect = 1;
    for (uint32_t k = 0; k < n; k++) {
      if (L->d[ix[k]].stride != expect)
        return tl__error(TL_EINVAL, "fragment layout: the %s digits skip stride %lld", s ? "slot" : "thread",
                         (long long)expect);
      expect *= L->d[ix[k]].extent;
    }
    if (expect != (s ? L->slots : L->threads))
      return tl__error(TL_EINVAL, "fragment layout: the %s digits span %lld, not %lld", s ? "slot" : "thread",
                       (long long)expect, (long long)(s ? L->slots : L->threads));
  }
  return TL_OK;
}

/* --------------------------------------------------------------- the map */

int64_t tl__frag_replicas(const tl__frag *L) {
  int64_t r = 1;
  for (uint32_t i = 0; i < L->ndigits; i++)
    if (L->d[i].axis < 0) r *= L->d[i].extent;
  return r;
}

int64_t tl__frag_elements(const tl__frag *L) {
  int64_t n = 1;
  for (uint32_t d = 0; d < L->ndim; d++) n *= L->shape[d];
  return n;
}

void tl__frag_owner(const tl__frag *L, const int64_t *idx, int64_t replica, int64_t *thread, int64_t *slot) {
  int64_t u[TL__FRAG_MAX_DIMS];
  for (uint32_t a = 0; a < L->naxes; a++) u[a] = axis_flat(L, a, idx);
  int64_t t = 0, s = 0;
  uint32_t ix[TL__FRAG_MAX_DIGITS];
  for (uint32_t i = 0; i < L->ndigits; i++) {
    const tl__frag_digit *g = &L->d[i];
    if (g->axis < 0) continue;
    int64_t v = (u[g->axis] / g->place) % g->extent;
    if (g->space == TL__FRAG_THREAD)
      t += v * g->stride;
    else
      s += v * g->stride;
  }
  /* The replica number is a mixed radix over the replication digits, lowest stride first. */
  uint32_t n = select_digits(L, of_axis, -1, key_stride, ix);
  for (uint32_t k = 0; k < n; k++) {
    const tl__frag_digit *g = &L->d[ix[k]];
    t += (replica % g->extent) * g->stride;
    replica /= g->extent;
  }
  *thread = t;
  *slot = s;
}

bool tl__frag_holds(const tl__frag *L, int64_t thread, const int64_t *idx) {
  if (thread < 0 || thread >= L->threads) return false;
  for (uint32_t i = 0; i < L->ndigits; i++) {
    const tl__frag_digit *g = &L->d[i];
    if (g->axis < 0 || g->space != TL__FRAG_THREAD) continue;
    if ((thread / g->stride) % g->extent != (axis_flat(L, (uint32_t)g->axis, idx) / g->place) % g->extent) return false;
  }
  return true;
}

bool tl__frag_element(const tl__frag *L, int64_t thread, int64_t slot, int64_t *idx) {
  if (thread < 0 || thread >= L->threads || slot < 0 || slot >= L->slots) return false;
  int64_t u[TL__FRAG_MAX_DIMS] = {0};
  for (uint32_t i = 0; i < L->ndigits; i++) {
    const tl__frag_digit *g = &L->d[i];
    if (g->axis < 0) continue;
    int64_t v = ((g->space == TL__FRAG_THREAD ? thread : slot) / g->stride) % g->extent;
    u[g->axis] += v * g->place;
  }
  for (uint32_t a = 0; a < L->naxes; a++) {
    if (u[a] >= axis_extent(L, a)) return false;
    axis_unflat(L, a, u[a], idx);
  }
  return true;
}

bool tl__frag_has_holes(const tl__frag *L) {
  for (uint32_t a = 0; a < L->naxes; a++) {
    int64_t p = 1;
    for (uint32_t i = 0; i < L->ndigits; i++)
      if (L->d[i].axis == (int32_t)a) p *= L->d[i].extent;
    if (p > axis_extent(L, a)) return true;
  }
  return false;
}

/* ------------------------------------------------------ canonical form */

static void remove_digit(tl__frag *L, uint32_t i) {
  memmove(&L->d[i], &L->d[i + 1], (L->ndigits - i - 1) * sizeof L->d[0]);
  L->ndigits--;
}

/* Splits axis a (dims [f, l)) at dim k into [f, k) and [k, l) when the digits
 * allow it: a digit boundary at place e = the inner dims' extent (splitting the
 * one digit that straddles e when both parts are whole), or a trivial side
 * (inner or outer extent 1). False (L unchanged) otherwise, or when a split digit
 * would not fit. */
static bool split_axis(tl__frag *L, uint32_t a, uint32_t k) {
  uint32_t f = L->axis_dims[a], l = L->axis_dims[a + 1];
  int64_t e = 1, outer = 1;
  for (uint32_t d = k; d < l; d++) e *= L->shape[d];
  for (uint32_t d = f; d < k; d++) outer *= L->shape[d];
  bool all_inner = outer == 1, all_outer = e == 1 && !all_inner;
  if (!all_inner && !all_outer) {
    for (uint32_t i = 0; i < L->ndigits; i++) {
      tl__frag_digit *g = &L->d[i];
      if (g->axis != (int32_t)a || g->place >= e || g->place * g->extent <= e) continue;
      /* g straddles e: split it in two if both parts are whole. */
      if (e % g->place != 0 || (g->place * g->extent) % e != 0 || L->ndigits >= TL__FRAG_MAX_DIGITS) return false;
      int64_t low = e / g->place;
      tl__frag_digit hi = *g;
      hi.extent = g->extent / low;
      hi.place = e;
      hi.stride = g->stride * low;
      g->extent = low;
      L->d[L->ndigits++] = hi;
      break;
    }
  }
  for (uint32_t i = 0; i < L->ndigits; i++) {
    tl__frag_digit *g = &L->d[i];
    if (g->axis > (int32_t)a)
      g->axis++;
    else if (g->axis == (int32_t)a) {
      bool inner = all_inner || (!all_outer && g->place < e);
      if (inner)
        g->axis = (int32_t)a + 1;
      else if (!all_outer)
        g->place /= e;
    }
  }
  memmove(&L->axis_dims[a + 2], &L->axis_dims[a + 1], (L->naxes - a) * sizeof L->axis_dims[0]);
  L->axis_dims[a + 1] = k;
  L->naxes++;
  return true;
}

static bool digit_before(const tl__frag_digit *x, const tl__frag_digit *y) {
  int64_t ax = x->axis < 0 ? INT32_MAX : x->axis, ay = y->axis < 0 ? INT32_MAX : y->axis;
  if (ax != ay) return ax < ay;
  return digit_order(x) < digit_order(y);
}

static void sort_digits(tl__frag *L) {
  for (uint32_t i = 1; i < L->ndigits; i++) {
    tl__frag_digit g = L->d[i];
    uint32_t j = i;
    while (j > 0 && digit_before(&g, &L->d[j - 1])) {
      L->d[j] = L->d[j - 1];
      j--;
    }
    L->d[j] = g;
  }
}

void tl__frag_canonical(const tl__frag *in, tl__frag *out) {
  if (out != in) *out = *in;
  for (uint32_t i = out->ndigits; i-- > 0;)
    if (out->d[i].extent == 1) remove_digit(out, i);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t a = 0; a < out->naxes && !changed; a++)
      for (uint32_t k = out->axis_dims[a + 1] - 1; k > out->axis_dims[a] && !changed; k--)
        changed = split_axis(out, a, k);
  }
  /* Sorted, neighbours of one axis (or the replication digits) are next to each
   * other in place (stride) order: merge those contiguous in their space too. */
  sort_digits(out);
  for (uint32_t i = 0; i + 1 < out->ndigits;) {
    tl__frag_digit *x = &out->d[i], *y = &out->d[i + 1];
    bool same_group = x->axis == y->axis && x->space == y->space;
    bool contiguous = y->stride == x->stride * x->extent && (x->axis < 0 || y->place == x->place * x->extent);
    if (same_group && contiguous) {
      x->extent *= y->extent;
      remove_digit(out, i + 1);
    } else {
      i++;
    }
  }
  memset(&out->d[out->ndigits], 0, (TL__FRAG_MAX_DIGITS - out->ndigits) * sizeof out->d[0]);
  for (uint32_t d = out->ndim; d < TL__FRAG_MAX_DIMS; d++) out->shape[d] = 0;
  for (uint32_t a = out->naxes + 1; a <= TL__FRAG_MAX_DIMS; a++) out->axis_dims[a] = 0;
}

bool tl__frag_equal(const tl__frag *a, const tl__frag *b) {
  tl__frag x, y;
  tl__frag_canonical(a, &x);
  tl__frag_canonical(b, &y);
  if (x.ndim != y.ndim || x.naxes != y.naxes || x.threads != y.threads || x.slots != y.slots || x.ndigits != y.ndigits)
    return false;
  for (uint32_t d = 0; d < x.ndim; d++)
    if (x.shape[d] != y.shape[d]) return false;
  for (uint32_t k = 0; k <= x.naxes; k++)
    if (x.axis_dims[k] != y.axis_dims[k]) return false;
  for (uint32_t i = 0; i < x.ndigits; i++) {
    const tl__frag_digit *g = &x.d[i], *h = &y.d[i];
    if (g->extent != h->extent || g->place != h->place || g->stride != h->stride || g->axis != h->axis ||
        g->space != h->space)
      return false;
  }
  return true;
}

/* ---------------------------------------------------------------- printer */

/* "t", "t%4", "t/32", "(t/4)%8": the digit's value read out of its space. */
static void put_digit(tl__sb *sb, const tl__frag_digit *g, int64_t total, bool scaled) {
  char v = g->space == TL__FRAG_THREAD ? 't' : 's';
  bool div = g->stride > 1, mod = g->stride * g->extent < total;
  if (!div && !mod)
    tl__sb_putc(sb, v);
  else if (!div)
    tl__sb_appendf(sb, scaled ? "(%c%%%lld)" : "%c%%%lld", v, (long long)g->extent);
  else if (!mod)
    tl__sb_appendf(sb, scaled ? "(%c/%lld)" : "%c/%lld", v, (long long)g->stride);
  else
    tl__sb_appendf(sb, scaled ? "((%c/%lld)%%%lld)" : "(%c/%lld)%%%lld", v, (long long)g->stride, (long long)g->extent);
}

char *tl__frag_print(const tl__frag *L) {
  tl__frag c;
  tl__frag_canonical(L, &c);
  tl__sb sb = TL__SB_INIT;
  tl__sb_append(&sb, "fragment [");
  for (uint32_t d = 0; d < c.ndim; d++) tl__sb_appendf(&sb, "%s%lld", d ? ", " : "", (long long)c.shape[d]);
  tl__sb_appendf(&sb, "] over %lld threads x %lld slots\n", (long long)c.threads, (long long)c.slots);
  uint32_t ix[TL__FRAG_MAX_DIGITS];
  for (uint32_t a = 0; a < c.naxes; a++) {
    tl__sb_append(&sb, "  ");
    uint32_t f = c.axis_dims[a], l = c.axis_dims[a + 1];
    if (l - f == 1) {
      tl__sb_appendf(&sb, "i%u", f);
    } else {
      tl__sb_putc(&sb, '[');
      for (uint32_t d = f; d < l; d++) tl__sb_appendf(&sb, "%si%u", d > f ? ", " : "", d);
      tl__sb_putc(&sb, ']');
    }
    tl__sb_append(&sb, " = ");
    uint32_t n = select_digits(&c, of_axis, a, key_place, ix);
    int64_t covered = 1;
    if (n == 0) tl__sb_putc(&sb, '0');
    for (uint32_t k = n; k-- > 0;) {
      const tl__frag_digit *g = &c.d[ix[k]];
      covered *= g->extent;
      if (k + 1 < n) tl__sb_append(&sb, " + ");
      if (g->place > 1) tl__sb_appendf(&sb, "%lld*", (long long)g->place);
      put_digit(&sb, g, g->space == TL__FRAG_THREAD ? c.threads : c.slots, g->place > 1);
    }
    if (covered > axis_extent(&c, a)) tl__sb_appendf(&sb, "  (only where < %lld)", (long long)axis_extent(&c, a));
    tl__sb_putc(&sb, '\n');
  }
  uint32_t n = select_digits(&c, of_axis, -1, key_stride, ix);
  if (n) {
    tl__sb_appendf(&sb, "  %lld copies over ", (long long)tl__frag_replicas(&c));
    for (uint32_t k = n; k-- > 0;) {
      if (k + 1 < n) tl__sb_append(&sb, ", ");
      put_digit(&sb, &c.d[ix[k]], c.threads, false);
    }
    tl__sb_putc(&sb, '\n');
  }
  return tl__sb_finish(&sb);
}
