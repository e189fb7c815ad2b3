/* Operations on fragment layouts: repetition, replication, projection,
 * permutation (all digit-list rewrites), and the cost of a conversion (the
 * composition to^-1 . from, evaluated element by element). */
#include <string.h>

#include "base/error.h"
#include "layout/frag.h"

/* The axis that is exactly dim d, or -1 when d shares its axis with other dims. */
static int lone_axis(const tl__frag *L, uint32_t d) {
  for (uint32_t a = 0; a < L->naxes; a++)
    if (L->axis_dims[a] == d && L->axis_dims[a + 1] == d + 1) return (int)a;
  return -1;
}

static int64_t digits_product(const tl__frag *L, int axis) {
  int64_t p = 1;
  for (uint32_t i = 0; i < L->ndigits; i++)
    if (L->d[i].axis == axis) p *= L->d[i].extent;
  return p;
}

static tl_status finish(tl__frag *out, const char *what) {
  tl__frag_canonical(out, out);
  tl_status st = tl__frag_check(out);
  if (st != TL_OK) return tl__error_context(st, "%s: ", what);
  return TL_OK;
}

tl_status tl__frag_repeat(const tl__frag *in, const int64_t *reps, tl__frag_space space, bool last_dim_fastest,
                          tl__frag *out) {
  tl__frag c;
  tl__frag_canonical(in, &c);
  int64_t rs[TL__FRAG_MAX_DIMS], total = 1;
  for (uint32_t k = 0; k < c.ndim; k++) {
    uint32_t d = last_dim_fastest ? c.ndim - 1 - k : k;
    if (reps[d] < 1)
      return tl__error(TL_EINVAL, "repeating a fragment layout %lld times along dim %u", (long long)reps[d], d);
    rs[d] = total;
    total *= reps[d];
    if (total > TL__FRAG_MAX_COUNT)
      return tl__error(TL_EINVAL, "repeating a fragment layout: %lld copies are too many", (long long)total);
  }
  int64_t base = space == TL__FRAG_THREAD ? c.threads : c.slots;
  if (base * total > TL__FRAG_MAX_COUNT)
    return tl__error(TL_EINVAL, "repeating a fragment layout: %lld %s are too many", (long long)(base * total),
                     space == TL__FRAG_THREAD ? "threads" : "slots");
  for (uint32_t d = 0; d < c.ndim; d++) {
    if (reps[d] == 1) continue;
    int a = lone_axis(&c, d);
    if (a < 0)
      return tl__error(TL_EINVAL, "repeating a fragment layout along dim %u, whose digits it shares with other dims",
                       d);
    if (digits_product(&c, a) != c.shape[d])
      return tl__error(TL_EINVAL, "repeating a fragment layout along dim %u, which has holes", d);
    if (c.ndigits >= TL__FRAG_MAX_DIGITS) return tl__error(TL_EINVAL, "repeating a fragment layout: too many digits");
    c.d[c.ndigits++] = (tl__frag_digit){reps[d], c.shape[d], base * rs[d], a, (int32_t)space};
  }
  for (uint32_t d = 0; d < c.ndim; d++) c.shape[d] *= reps[d];
  if (space == TL__FRAG_THREAD)
    c.threads *= total;
  else
    c.slots *= total;
  *out = c;
  return finish(out, "repeating a fragment layout");
}

tl_status tl__frag_replicate(const tl__frag *in, int64_t k, tl__frag *out) {
  if (k < 1 || in->threads * k > TL__FRAG_MAX_COUNT)
    return tl__error(TL_EINVAL, "replicating a fragment layout %lld times", (long long)k);
  tl__frag c;
  tl__frag_canonical(in, &c);
  if (c.ndigits >= TL__FRAG_MAX_DIGITS) return tl__error(TL_EINVAL, "replicating a fragment layout: too many digits");
  c.d[c.ndigits++] = (tl__frag_digit){k, 0, c.threads, -1, TL__FRAG_THREAD};
  c.threads *= k;
  *out = c;
  return finish(out, "replicating a fragment layout");
}

/* Gives the slot digits compact strides in their current order. */
static void renumber_slots(tl__frag *L) {
  int64_t acc = 1;
  for (;;) {
    int best = -1;
    for (uint32_t i = 0; i < L->ndigits; i++) {
      const tl__frag_digit *g = &L->d[i];
      if (g->space != TL__FRAG_SLOT || g->stride < 0) continue;
      if (best < 0 || g->stride < L->d[best].stride) best = (int)i;
    }
    if (best < 0) break;
    L->d[best].stride = -acc; /* marked done */
    acc *= L->d[best].extent;
  }
  for (uint32_t i = 0; i < L->ndigits; i++)
    if (L->d[i].space == TL__FRAG_SLOT) L->d[i].stride = -L->d[i].stride;
  L->slots = acc;
}

tl_status tl__frag_project(const tl__frag *in, const uint32_t *keep, uint32_t nkeep, tl__frag *out) {
  if (nkeep < 1 || nkeep > in->ndim)
    return tl__error(TL_EINVAL, "projecting a fragment layout onto %u of its %u dims", nkeep, in->ndim);
  bool kept[TL__FRAG_MAX_DIMS] = {false};
  for (uint32_t k = 0; k < nkeep; k++) {
    if (keep[k] >= in->ndim || (k > 0 && keep[k] <= keep[k - 1]))
      return tl__error(TL_EINVAL, "projecting a fragment layout: the kept dims must be increasing dims of its %u",
                       in->ndim);
    kept[keep[k]] = true;
  }
  tl__frag c;
  tl__frag_canonical(in, &c);
  int new_axis[TL__FRAG_MAX_DIMS];
  uint32_t naxes = 0;
  for (uint32_t a = 0; a < c.naxes; a++) {
    bool any = false, all = true;
    for (uint32_t d = c.axis_dims[a]; d < c.axis_dims[a + 1]; d++) {
      any |= kept[d];
      all &= kept[d];
    }
    if (any && !all)
      return tl__error(TL_EINVAL,
                       "projecting a fragment layout: dims %u..%u share their digits, and only some are kept",
                       c.axis_dims[a], c.axis_dims[a + 1] - 1);
    new_axis[a] = any ? (int)naxes++ : -1;
  }
  /* Dropped axes: their thread digits hold copies now, their slot digits go. */
  for (uint32_t i = c.ndigits; i-- > 0;) {
    tl__frag_digit *g = &c.d[i];
    if (g->axis < 0 || new_axis[g->axis] >= 0) {
      if (g->axis >= 0) g->axis = new_axis[g->axis];
      continue;
    }
    if (g->space == TL__FRAG_THREAD) {
      g->axis = -1;
      g->place = 0;
    } else {
      memmove(&c.d[i], &c.d[i + 1], (c.ndigits - i - 1) * sizeof c.d[0]);
      c.ndigits--;
    }
  }
  tl__frag r = c;
  r.ndim = nkeep;
  r.naxes = naxes;
  for (uint32_t k = 0; k < nkeep; k++) r.shape[k] = c.shape[keep[k]];
  uint32_t dim = 0;
  for (uint32_t a = 0; a < c.naxes; a++) {
    if (new_axis[a] < 0) continue;
    r.axis_dims[new_axis[a]] = dim;
    dim += c.axis_dims[a + 1] - c.axis_dims[a];
  }
  r.axis_dims[naxes] = dim;
  renumber_slots(&r);
  *out = r;
  return finish(out, "projecting a fragment layout");
}

tl_status tl__frag_permute(const tl__frag *in, const uint32_t *perm, tl__frag *out) {
  bool seen[TL__FRAG_MAX_DIMS] = {false};
  for (uint32_t k = 0; k < in->ndim; k++) {
    if (perm[k] >= in->ndim || seen[perm[k]])
      return tl__error(TL_EINVAL, "permuting a fragment layout: not a permutation of its %u dims", in->ndim);
    seen[perm[k]] = true;
  }
  tl__frag c;
  tl__frag_canonical(in, &c);
  uint32_t axis_of[TL__FRAG_MAX_DIMS];
  for (uint32_t a = 0; a < c.naxes; a++)
    for (uint32_t d = c.axis_dims[a]; d < c.axis_dims[a + 1]; d++) axis_of[d] = a;
  int new_axis[TL__FRAG_MAX_DIMS];
  tl__frag r = c;
  uint32_t naxes = 0;
  for (uint32_t k = 0; k < c.ndim; k++) {
    uint32_t d = perm[k], a = axis_of[d];
    r.shape[k] = c.shape[d];
    if (d == c.axis_dims[a]) {
      new_axis[a] = (int)naxes;
      r.axis_dims[naxes++] = k;
    } else if (k == 0 || perm[k - 1] + 1 != d) {
      return tl__error(TL_EINVAL,
                       "permuting a fragment layout: dims %u..%u share their digits and must stay together, in order",
                       c.axis_dims[a], c.axis_dims[a + 1] - 1);
    }
  }
  r.axis_dims[naxes] = c.ndim;
  r.naxes = naxes;
  for (uint32_t i = 0; i < r.ndigits; i++)
    if (r.d[i].axis >= 0) r.d[i].axis = new_axis[r.d[i].axis];
  *out = r;
  return finish(out, "permuting a fragment layout");
}

tl_status tl__frag_reshape(const tl__frag *in, const int64_t *shape, uint32_t ndim, tl__frag *out) {
  if (ndim < 1 || ndim > TL__FRAG_MAX_DIMS)
    return tl__error(TL_EINVAL, "reshaping a fragment layout to %u dims (1 to %d)", ndim, TL__FRAG_MAX_DIMS);
  int64_t n = 1;
  for (uint32_t d = 0; d < ndim; d++) {
    if (shape[d] < 1 || shape[d] > TL__FRAG_MAX_COUNT / n)
      return tl__error(TL_EINVAL, "reshaping a fragment layout: extent %lld in dim %u", (long long)shape[d], d);
    n *= shape[d];
  }
  if (n != tl__frag_elements(in))
    return tl__error(TL_EINVAL, "reshaping a fragment layout of %lld elements to %lld",
                     (long long)tl__frag_elements(in), (long long)n);
  tl__frag c;
  tl__frag_canonical(in, &c);
  /* One axis over every dim: axis a's digits move up by the extent of the axes
   * after it, which is only a mixed radix when those axes have no holes. */
  int64_t below[TL__FRAG_MAX_DIMS + 1];
  below[c.naxes] = 1;
  for (uint32_t a = c.naxes; a-- > 0;) {
    int64_t e = 1;
    for (uint32_t d = c.axis_dims[a]; d < c.axis_dims[a + 1]; d++) e *= c.shape[d];
    if (a > 0 && digits_product(&c, (int)a) != e)
      return tl__error(TL_EINVAL, "reshaping a fragment layout whose dims %u..%u have holes", c.axis_dims[a],
                       c.axis_dims[a + 1] - 1);
    below[a] = below[a + 1] * e;
  }
  for (uint32_t i = 0; i < c.ndigits; i++)
    if (c.d[i].axis >= 0) {
      c.d[i].place *= below[c.d[i].axis + 1];
      c.d[i].axis = 0;
    }
  c.ndim = ndim;
  c.naxes = 1;
  for (uint32_t d = 0; d < ndim; d++) c.shape[d] = shape[d];
  c.axis_dims[0] = 0;
  c.axis_dims[1] = ndim;
  *out = c;
  return finish(out, "reshaping a fragment layout");
}

/* --------------------------------------------------------------- conversion */

const char *tl__frag_conv_name(tl__frag_conv c) {
  switch (c) {
  case TL__FRAG_CONV_SAME: return "same";
  case TL__FRAG_CONV_IN_THREAD: return "in-thread";
  case TL__FRAG_CONV_IN_WARP: return "in-warp";
  case TL__FRAG_CONV_SHARED: return "through shared memory";
  }
  return "?";
}

tl_status tl__frag_conversion(const tl__frag *from, const tl__frag *to, int64_t warp_size, tl__frag_conv *out) {
  bool same_shape = from->ndim == to->ndim;
  for (uint32_t d = 0; same_shape && d < from->ndim; d++) same_shape = from->shape[d] == to->shape[d];
  if (!same_shape || from->threads != to->threads)
    return tl__error(TL_EINVAL, "converting between fragment layouts of different shapes or thread counts");
  if (tl__frag_equal(from, to)) {
    *out = TL__FRAG_CONV_SAME;
    return TL_OK;
  }
  tl__frag_conv kind = TL__FRAG_CONV_IN_THREAD;
  int64_t reps = tl__frag_replicas(from), idx[TL__FRAG_MAX_DIMS];
  for (int64_t t = 0; t < to->threads; t++)
    for (int64_t s = 0; s < to->slots; s++) {
      if (!tl__frag_element(to, t, s, idx) || tl__frag_holds(from, t, idx)) continue;
      bool in_warp = false;
      for (int64_t r = 0; warp_size > 1 && r < reps && !in_warp; r++) {
        int64_t ot, os;
        tl__frag_owner(from, idx, r, &ot, &os);
        in_warp = ot / warp_size == t / warp_size;
      }
      if (!in_warp) {
        *out = TL__FRAG_CONV_SHARED;
        return TL_OK;
      }
      kind = TL__FRAG_CONV_IN_WARP;
    }
  *out = kind;
  return TL_OK;
}
