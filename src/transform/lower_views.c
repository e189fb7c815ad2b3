/* lower_views: T.reshape / T.view buffers become accesses of their source.
 *
 * A view (tl_ir_buffer.view, made by T.reshape or a same-dtype T.view) shares
 * the storage of the buffer that owns its data variable (a parameter or an
 * allocation). This pass rewrites every element access of a view, V[i, j], into
 * the access of the source at the same row-major position, Src[(i * n + j) //
 * s0 % d0, ...], and drops the view's declaration, so later passes (flattening,
 * host/device splitting, shared-memory planning, layouts) only see buffers
 * that own their storage.
 *
 * It runs where tile operations are already loops: on the c target after
 * lower_tile_ops; on the GPU path after the element-wise tile operations
 * (T.copy, T.fill, ...) became T.Parallel loops and before layouts are chosen,
 * so a fragment's layout covers its views' accesses too. There a view that
 * is still a multi-element operand of a tile operation (T.gemm, T.reduce_*)
 * is refused at its location. */
#include "base/error.h"
#include "base/vec.h"
#include "transform/flatten.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct vctx {
  tl__vec owners; /* const tl_ir_buffer *: buffers that own their data variable */
  bool gpu;       /* tile ops not lowered yet (the GPU pipeline) */
} vctx;

static const tl_ir_buffer *owner_of(const vctx *c, const tl_ir_buffer *view) {
  for (size_t i = c->owners.len; i-- > 0;) {
    const tl_ir_buffer *b = TL__VEC_AT(&c->owners, const tl_ir_buffer *, i);
    if (b->data == view->data) return b;
  }
  return NULL;
}

enum { MAX_DIMS = 16 };

/* The indices of src at view[idx]'s row-major position, into out[MAX_DIMS]; NULL
 * on failure. */
static tl_ir_expr **source_indices(tl_ir_mutator *mu, const tl_ir_buffer *view, const tl_ir_buffer *src,
                                   tl_ir_expr *const *idx, tl_ir_expr **out) {
  tl_ir_module *mod = mu->mod;
  tl_dtype t = tl__flat_index_dtype(view);
  if (!tl_dtype_eq(tl__flat_index_dtype(src), t)) t = TL_DT_INT64;
  tl_ir_expr *flat = tl_ir_int(mod, t, 0);
  for (uint32_t d = 0; d < view->ndim; d++)
    flat = tl__add(mod, tl__mul(mod, flat, tl__cast_int(mod, t, view->shape[d])), tl__cast_int(mod, t, idx[d]));
  if (!flat || src->ndim > MAX_DIMS) return NULL;
  tl_ir_expr *stride = tl_ir_int(mod, t, 1);
  for (uint32_t d = src->ndim; d-- > 0;) {
    tl_ir_expr *dim = tl__cast_int(mod, t, src->shape[d]);
    tl_ir_expr *q = tl__floordiv(mod, flat, stride);
    out[d] = d == 0 ? q : tl__floormod(mod, q, dim);
    if (!out[d]) return NULL;
    stride = tl__mul(mod, stride, dim);
  }
  return out;
}

static tl_status refuse(tl_ir_span at, const tl_ir_buffer *view, const char *why) {
  return tl__pass_error(TL_EUNSUPPORTED, at, "T.reshape/T.view '%s' %s", view->name, why);
}

static tl_ir_expr *views_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  vctx *c = mu->ctx;
  tl_ir_module *mod = mu->mod;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  const tl_ir_buffer *v = e->kind == TL_EXPR_LOAD ? e->u.load.buffer : e->kind == TL_EXPR_REGION ? e->u.region.buffer : NULL;
  if (!v || !v->view) return e;
  const tl_ir_buffer *src = owner_of(c, v);
  if (!src) {
    tl_ir_mutator_fail(mu, refuse(e->span, v, "is used where its source is not in scope"));
    return NULL;
  }
  tl_ir_span old = tl__loc_push(mod, e->span);
  tl_ir_expr *r = NULL;
  if (e->kind == TL_EXPR_LOAD) {
    if (e->dtype.lanes != 1) {
      tl_ir_builder_set_loc(mod, old);
      tl_ir_mutator_fail(mu, refuse(e->span, v, "is read as a vector, which is not supported"));
      return NULL;
    }
    tl_ir_expr *buf[MAX_DIMS];
    tl_ir_expr **idx = source_indices(mu, v, src, e->u.load.indices, buf);
    r = idx ? tl_ir_load(mod, (tl_ir_buffer *)src, src->ndim, idx) : NULL;
  } else {
    bool unit = e->u.region.form != TL_REGION_FULL;
    for (uint32_t d = 0; unit && d < e->u.region.ndim; d++) unit = tl__is_int(e->u.region.extents[d], 1);
    if (!unit) {
      tl_ir_builder_set_loc(mod, old);
      tl_ir_mutator_fail(mu, refuse(e->span, v,
                                    c->gpu ? "as an operand of a tile operation is not supported by the GPU lowering "
                                             "yet (index the view in a T.Parallel loop instead)"
                                           : "spans more than one element after tile operations were lowered"));
      return NULL;
    }
    tl_ir_expr *buf[MAX_DIMS], *ones[MAX_DIMS];
    tl_ir_expr **idx = source_indices(mu, v, src, e->u.region.mins, buf);
    bool ok = idx != NULL;
    for (uint32_t d = 0; ok && d < src->ndim; d++) ok = (ones[d] = tl__int_like(mod, idx[d], 1)) != NULL;
    r = ok ? tl_ir_region(mod, (tl_ir_buffer *)src, idx, ones, e->u.region.form) : NULL;
  }
  tl_ir_builder_set_loc(mod, old);
  if (!r) tl_ir_mutator_fail(mu, tl__built(mod, NULL));
  return r;
}

static tl_ir_stmt *views_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  vctx *c = mu->ctx;
  tl_ir_module *mod = mu->mod;
  if (s->kind == TL_STMT_ALLOC && s->u.alloc.buffer) {
    const tl_ir_buffer *b = s->u.alloc.buffer;
    if (!b->view) {
      tl_status st = tl__vec_push(&c->owners, &b);
      if (st != TL_OK) return tl_ir_mutator_fail(mu, st), NULL;
      return s;
    }
    const tl_ir_buffer *src = owner_of(c, b);
    if (!src) return tl_ir_mutator_fail(mu, refuse(s->span, b, "has no source in scope")), NULL;
    tl_ir_span old = tl__loc_push(mod, s->span);
    tl_ir_stmt *empty = tl_ir_seq(mod, 0, NULL);
    tl_ir_builder_set_loc(mod, old);
    if (!empty) tl_ir_mutator_fail(mu, tl__built(mod, NULL));
    return empty;
  }
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_STORE || !r->u.store.buffer->view) return r;
  const tl_ir_buffer *v = r->u.store.buffer;
  const tl_ir_buffer *src = owner_of(c, v);
  if (!src) return tl_ir_mutator_fail(mu, refuse(s->span, v, "is stored to where its source is not in scope")), NULL;
  if (r->u.store.value->dtype.lanes != 1)
    return tl_ir_mutator_fail(mu, refuse(s->span, v, "is written as a vector, which is not supported")), NULL;
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_expr *buf[MAX_DIMS];
  tl_ir_expr **idx = source_indices(mu, v, src, r->u.store.indices, buf);
  tl_ir_stmt *n = idx ? tl_ir_store(mod, (tl_ir_buffer *)src, src->ndim, idx, r->u.store.value) : NULL;
  tl_ir_builder_set_loc(mod, old);
  if (!n) tl_ir_mutator_fail(mu, tl__built(mod, NULL));
  return n;
}

static tl_status lower_views(tl_ir_module *mod, bool gpu) {
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (!f->body) continue;
    vctx c = {.gpu = gpu};
    tl__vec_init(&c.owners, sizeof(const tl_ir_buffer *));
    tl_status st = TL_OK;
    for (uint32_t p = 0; st == TL_OK && p < f->nparams; p++)
      if (f->params[p].kind == TL_PARAM_BUFFER && f->params[p].buffer)
        st = tl__vec_push(&c.owners, &f->params[p].buffer);
    tl_ir_stmt *body = NULL;
    if (st == TL_OK) {
      tl_ir_mutator mu = {mod, views_expr, views_stmt, &c, TL_OK};
      body = tl_ir_mutate_stmt(&mu, f->body);
      st = body ? TL_OK : mu.status;
    }
    tl__vec_free(&c.owners);
    if (st != TL_OK) return st;
    f->body = body;
  }
  return TL_OK;
}

tl_status tl__pass_lower_views(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  return lower_views(mod, false);
}

tl_status tl__pass_gpu_lower_views(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  return lower_views(mod, true);
}
