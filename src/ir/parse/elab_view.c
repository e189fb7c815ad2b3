/* T.reshape(src, shape) and T.view(src, shape=None, dtype=None): another buffer
 * over the storage of src, as upstream's `T.Tensor(shape, dtype, src.data)`.
 *
 * The view is a buffer that shares src's data variable and is marked `view`; its
 * TL_STMT_ALLOC declares it and allocates nothing (docs/ir.md). Upstream asserts
 * at trace time that the view covers exactly as many bits as src; so does this:
 * with constant shapes the products are compared, with symbolic ones the
 * non-constant dimensions must be the same variables on both sides. A view that
 * changes the dtype is refused for now (its elements would reinterpret src's
 * bits, which the code generators do not print yet). */
#include <string.h>

#include "elab.h"

/* The bits of a shape of elements of `bits`: the constant part in *bits_out,
 * the non-constant dimensions in vars[] (at most cap; false when more). */
static bool shape_bits(const tl_ir_expr *const *shape, uint32_t ndim, unsigned bits, __int128 *bits_out,
                       const tl_ir_expr **vars, uint32_t cap, uint32_t *nvars) {
  __int128 p = bits;
  uint32_t n = 0;
  for (uint32_t d = 0; d < ndim; d++) {
    const tl_ir_expr *e = shape[d];
    if (e->kind == TL_EXPR_INT) {
      p *= e->u.int_value;
      if (p > ((__int128)1 << 100)) return false;
      continue;
    }
    if (n == cap) return false;
    vars[n++] = e;
  }
  *bits_out = p;
  *nvars = n;
  return true;
}

static bool same_dim(const tl_ir_expr *a, const tl_ir_expr *b) {
  return a == b || (a->kind == TL_EXPR_VAR && b->kind == TL_EXPR_VAR && a->u.var == b->u.var);
}

/* Whether the two shapes hold the same number of bits (false: not provable). */
static bool same_bits(const tl_ir_buffer *src, uint32_t ndim, tl_ir_expr *const *shape, tl_dtype dt) {
  enum { CAP = 16 };
  const tl_ir_expr *va[CAP], *vb[CAP];
  __int128 ba, bb;
  uint32_t na, nb;
  if (!shape_bits((const tl_ir_expr *const *)src->shape, src->ndim, src->dtype.bits, &ba, va, CAP, &na) ||
      !shape_bits((const tl_ir_expr *const *)shape, ndim, dt.bits, &bb, vb, CAP, &nb) || ba != bb || na != nb)
    return false;
  bool used[CAP] = {false};
  for (uint32_t i = 0; i < na; i++) {
    bool found = false;
    for (uint32_t j = 0; j < nb && !found; j++)
      if (!used[j] && same_dim(va[i], vb[j])) used[j] = found = true;
    if (!found) return false;
  }
  return true;
}

tl_ir_buffer *tl__elab_view(tl__elab *E, const tl__ast_expr *call, const char *opname, bool is_view,
                            const char *name) {
  static const char *const reshape_names[] = {"src", "shape"};
  static const char *const view_names[] = {"src", "shape", "dtype"};
  const tl__ast_expr *a[3] = {NULL, NULL, NULL};
  if (!tl__call_args(E, call, opname, is_view ? view_names : reshape_names, is_view ? 3 : 2, is_view ? 1 : 2, a))
    return NULL;
  tl__val *sv = tl__eval(E, a[0]);
  if (!sv) return NULL;
  if (sv->kind != V_BUFFER) {
    tl__elab_error(E, POS(a[0]), "%s takes a buffer, got %s", opname, tl__val_describe(E, sv));
    return NULL;
  }
  tl_ir_buffer *src = sv->u.buf;
  uint32_t ndim = src->ndim;
  tl_ir_expr **shape = src->shape;
  /* shape=None / dtype=None (also through a name bound to None): src's */
  if (a[1]) {
    tl__val *shv = tl__eval(E, a[1]);
    if (!shv || (shv->kind != V_NONE && !tl__shape(E, shv, POS(a[1]), &ndim, &shape))) return NULL;
  }
  tl_dtype dt = src->dtype;
  if (a[2]) {
    tl__val *dv = tl__eval(E, a[2]);
    if (!dv || (dv->kind != V_NONE && !tl__as_dtype(E, dv, POS(a[2]), &dt))) return NULL;
  }
  if (src->strides) {
    tl__elab_error(E, POS(a[0]), "%s of buffer '%s', which has strides, is not supported", opname, src->name);
    return NULL;
  }
  if (src->ndim == 0) {
    tl__elab_error(E, POS(a[0]), "%s of the scalar '%s' (a T.alloc_var) is not supported", opname, src->name);
    return NULL;
  }
  if (!tl_dtype_eq(dt, src->dtype)) {
    char x[32], y[32];
    tl__elab_error(E, POS(a[2]), "%s of '%s' (%s) as %s: a view that changes the dtype is not supported yet", opname,
                   src->name, tl_dtype_name(src->dtype, x, sizeof x), tl_dtype_name(dt, y, sizeof y));
    return NULL;
  }
  if (!same_bits(src, ndim, shape, dt)) {
    tl__elab_error(E, POS(call),
                   "%s shape check failed: the new shape does not hold exactly the elements of '%s' (a view has the "
                   "size of its source)",
                   opname, src->name);
    return NULL;
  }
  tl__elab_at(E, POS(call));
  tl_ir_buffer *b = tl_ir_buffer_new(E->mod, name, dt, ndim, shape, NULL, src->scope);
  if (!b) return tl__elab_builder_failed(E), NULL;
  b->data = src->data; /* the storage of src (the var made for b stays unused) */
  b->view = true;
  return b;
}
