/* Fragment layouts as IR expressions: both directions of the map, built from
 * the digit list (for the GPU lowering's per-thread loops and index rewriting). */
#include "base/error.h"
#include "layout/frag.h"

static tl_ir_expr *c32(tl_ir_module *mod, int64_t v) { return tl_ir_i32(mod, v); }

/* (x / q) % e, leaving out a division by 1 and a modulo that cannot wrap (x < bound). */
static tl_ir_expr *digit_of(tl_ir_module *mod, tl_ir_expr *x, int64_t q, int64_t e, int64_t bound) {
  tl_ir_expr *v = q > 1 ? tl_ir_binary(mod, TL_BIN_FLOORDIV, x, c32(mod, q)) : x;
  return q * e < bound ? tl_ir_binary(mod, TL_BIN_FLOORMOD, v, c32(mod, e)) : v;
}

/* acc + v * k (acc may be NULL: the first term). */
static tl_ir_expr *add_term(tl_ir_module *mod, tl_ir_expr *acc, tl_ir_expr *v, int64_t k) {
  tl_ir_expr *t = k != 1 ? tl_ir_binary(mod, TL_BIN_MUL, v, c32(mod, k)) : v;
  return acc ? tl_ir_binary(mod, TL_BIN_ADD, acc, t) : t;
}

static int64_t axis_extent(const tl__frag *L, uint32_t a) {
  int64_t e = 1;
  for (uint32_t d = L->axis_dims[a]; d < L->axis_dims[a + 1]; d++) e *= L->shape[d];
  return e;
}

tl_status tl__frag_element_exprs(tl_ir_module *mod, const tl__frag *L, tl_ir_expr *thread, tl_ir_expr *slot,
                                 tl_ir_expr **idx, tl_ir_expr **valid) {
  if (!mod || !L || !thread || !slot || !idx || !valid)
    return tl__error(TL_EINVAL, "tl__frag_element_exprs: a required argument is NULL");
  *valid = NULL;
  bool failed = false;
  for (uint32_t a = 0; a < L->naxes; a++) {
    tl_ir_expr *u = NULL;
    int64_t covered = 1;
    for (uint32_t i = 0; i < L->ndigits; i++) {
      const tl__frag_digit *g = &L->d[i];
      if (g->axis != (int32_t)a || g->extent == 1) continue;
      bool th = g->space == TL__FRAG_THREAD;
      u = add_term(mod, u, digit_of(mod, th ? thread : slot, g->stride, g->extent, th ? L->threads : L->slots),
                   g->place);
      failed |= !u;
      covered *= g->extent;
    }
    if (!u) u = c32(mod, 0);
    int64_t extent = axis_extent(L, a);
    if (covered > extent) {
      tl_ir_expr *ok = tl_ir_binary(mod, TL_BIN_LT, u, c32(mod, extent));
      *valid = *valid ? tl_ir_binary(mod, TL_BIN_AND, *valid, ok) : ok;
      failed |= !*valid;
    }
    /* The axis's dims from its flat index, row-major. */
    int64_t inner = 1;
    for (uint32_t d = L->axis_dims[a + 1]; d-- > L->axis_dims[a];) {
      tl_ir_expr *q = inner > 1 ? tl_ir_binary(mod, TL_BIN_FLOORDIV, u, c32(mod, inner)) : u;
      idx[d] = d > L->axis_dims[a] ? tl_ir_binary(mod, TL_BIN_FLOORMOD, q, c32(mod, L->shape[d])) : q;
      failed |= !idx[d];
      inner *= L->shape[d];
    }
  }
  return failed ? tl__oom() : TL_OK;
}

tl_status tl__frag_owner_exprs(tl_ir_module *mod, const tl__frag *L, tl_ir_expr *const *idx, tl_ir_expr **thread,
                               tl_ir_expr **slot) {
  if (!mod || !L || !idx || !thread || !slot)
    return tl__error(TL_EINVAL, "tl__frag_owner_exprs: a required argument is NULL");
  for (uint32_t d = 0; d < L->ndim; d++)
    if (!idx[d]) return tl__error(TL_EINVAL, "tl__frag_owner_exprs: index %u is NULL", d);
  tl_ir_expr *u[TL__FRAG_MAX_DIMS];
  bool failed = false;
  for (uint32_t a = 0; a < L->naxes; a++) {
    u[a] = NULL;
    int64_t stride = 1;
    for (uint32_t d = L->axis_dims[a + 1]; d-- > L->axis_dims[a];) {
      u[a] = add_term(mod, u[a], idx[d], stride);
      stride *= L->shape[d];
    }
    failed |= !u[a];
  }
  tl_ir_expr *t = NULL, *s = NULL;
  for (uint32_t i = 0; i < L->ndigits; i++) {
    const tl__frag_digit *g = &L->d[i];
    if (g->axis < 0 || g->extent == 1) continue;
    tl_ir_expr *v = digit_of(mod, u[g->axis], g->place, g->extent, axis_extent(L, (uint32_t)g->axis));
    if (g->space == TL__FRAG_THREAD)
      t = add_term(mod, t, v, g->stride);
    else
      s = add_term(mod, s, v, g->stride);
    failed |= !v || (g->space == TL__FRAG_THREAD ? !t : !s);
  }
  *thread = t ? t : c32(mod, 0);
  *slot = s ? s : c32(mod, 0);
  return failed || !*thread || !*slot ? tl__oom() : TL_OK;
}
