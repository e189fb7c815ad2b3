/* flatten: allocated buffers become one-dimensional.
 *
 * Every TL_STMT_ALLOC of a buffer with more than one dimension (or declared
 * strides) is replaced by one of a single dimension spanning its elements, in
 * the same scope, and every load, store and one-element region of it is
 * rewritten to the row-major linear index (or the strided one). Zero-dimensional
 * local.var buffers (scalars) and plain one-dimensional buffers stay as they are.
 * On the CPU every allocation is a local array, so its size must be constant: a
 * symbolic shape is refused with its location.
 *
 * Parameters are not flattened here: a parameter's shape is the host entry's
 * signature (checked by make_packed_api, described by the kernel table).
 * split_host_device flattens them where they become device kernel parameters,
 * with the same index arithmetic (tl__flat_index). */
#include "base/error.h"
#include "base/vec.h"
#include "transform/flatten.h"
#include "transform/pass.h"
#include "transform/util.h"

/* ----------------------------------------------------------- index helpers */

static bool const_count(const tl_ir_buffer *buf, int64_t *count) {
  int64_t n = 1;
  for (uint32_t d = 0; d < buf->ndim; d++) {
    int64_t v;
    if (!tl__is_const_int(buf->shape[d], &v) || v < 0) return false;
    if (buf->strides) {
      int64_t s;
      if (!tl__is_const_int(buf->strides[d], &s) || s < 0) return false;
      if (v > 0 && __builtin_mul_overflow(v - 1, s, &s)) return false;
      if (__builtin_add_overflow(n, s, &n)) return false;
      continue;
    }
    if (__builtin_mul_overflow(n, v, &n)) return false;
  }
  *count = n;
  return true;
}

tl_dtype tl__flat_index_dtype(const tl_ir_buffer *buf) {
  int64_t n;
  return const_count(buf, &n) && n <= INT32_MAX ? TL_DT_INT32 : TL_DT_INT64;
}

static tl_ir_expr *mapped(tl_ir_module *mod, tl_ir_expr *e, tl_dtype t, uint32_t n, tl_ir_var *const *vars,
                          tl_ir_expr *const *values) {
  if (n) e = tl_ir_substitute_expr(mod, e, n, vars, values);
  return tl__cast_int(mod, t, e);
}

tl_ir_expr *tl__flat_index(tl_ir_module *mod, const tl_ir_buffer *buf, tl_ir_expr *const *idx, uint32_t n,
                           tl_ir_var *const *vars, tl_ir_expr *const *values) {
  tl_dtype t = tl__flat_index_dtype(buf);
  if (buf->ndim == 0) return tl_ir_int(mod, t, 0);
  tl_ir_expr *flat = tl_ir_int(mod, t, 0);
  if (buf->strides) {
    for (uint32_t d = 0; d < buf->ndim; d++)
      flat = tl__add(mod, flat, tl__mul(mod, tl__cast_int(mod, t, idx[d]), mapped(mod, buf->strides[d], t, n, vars, values)));
    return flat;
  }
  /* Horner form: ((i0 * s1 + i1) * s2 + i2) ... */
  flat = tl__cast_int(mod, t, idx[0]);
  for (uint32_t d = 1; d < buf->ndim; d++)
    flat = tl__add(mod, tl__mul(mod, flat, mapped(mod, buf->shape[d], t, n, vars, values)), tl__cast_int(mod, t, idx[d]));
  return flat;
}

tl_ir_expr *tl__flat_extent(tl_ir_module *mod, const tl_ir_buffer *buf, uint32_t n, tl_ir_var *const *vars,
                            tl_ir_expr *const *values) {
  tl_dtype t = tl__flat_index_dtype(buf);
  tl_ir_expr *one = tl_ir_int(mod, t, 1);
  if (buf->strides) {
    tl_ir_expr *span = one;
    for (uint32_t d = 0; d < buf->ndim; d++)
      span = tl__add(mod, span, tl__mul(mod, tl__sub(mod, mapped(mod, buf->shape[d], t, n, vars, values), one),
                                        mapped(mod, buf->strides[d], t, n, vars, values)));
    return span;
  }
  tl_ir_expr *count = one;
  for (uint32_t d = 0; d < buf->ndim; d++) count = tl__mul(mod, count, mapped(mod, buf->shape[d], t, n, vars, values));
  return count;
}

/* ------------------------------------------------------------------ pass */

typedef struct flat_pair {
  const tl_ir_buffer *from;
  tl_ir_buffer *to;
} flat_pair;

typedef struct fctx {
  tl__vec pairs; /* flat_pair */
} fctx;

static tl_ir_buffer *flat_of(const fctx *c, const tl_ir_buffer *b) {
  for (size_t i = 0; i < c->pairs.len; i++)
    if (TL__VEC_AT(&c->pairs, flat_pair, i).from == b) return TL__VEC_AT(&c->pairs, flat_pair, i).to;
  return NULL;
}

static bool needs_flattening(const tl_ir_buffer *b) { return b->ndim > 1 || (b->ndim == 1 && b->strides); }

static tl_ir_expr *flatten_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  fctx *c = mu->ctx;
  tl_ir_module *mod = mu->mod;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  tl_ir_buffer *to = NULL;
  if (e->kind == TL_EXPR_LOAD) to = flat_of(c, e->u.load.buffer);
  if (e->kind == TL_EXPR_REGION) to = flat_of(c, e->u.region.buffer);
  if (!to) return e;
  tl_ir_span old = tl__loc_push(mod, e->span);
  tl_ir_expr *r = NULL;
  if (e->kind == TL_EXPR_LOAD) {
    tl_ir_expr *idx = tl__flat_index(mod, e->u.load.buffer, e->u.load.indices, 0, NULL, NULL);
    r = tl_ir_load(mod, to, 1, &idx);
  } else {
    for (uint32_t d = 0; d < e->u.region.ndim; d++)
      if (!tl__is_int(e->u.region.extents[d], 1)) {
        tl_ir_builder_set_loc(mod, old);
        tl_ir_mutator_fail(mu, tl__pass_error(TL_EINVAL, e->span,
                                              "a region of buffer '%s' spanning more than one element remains: lower "
                                              "tile ops before flattening",
                                              e->u.region.buffer->name));
        return NULL;
      }
    tl_ir_expr *idx = tl__flat_index(mod, e->u.region.buffer, e->u.region.mins, 0, NULL, NULL);
    tl_ir_expr *one = idx ? tl__int_like(mod, idx, 1) : NULL;
    r = tl_ir_region(mod, to, &idx, &one, e->u.region.form);
  }
  tl_ir_builder_set_loc(mod, old);
  return r;
}

static tl_ir_stmt *flatten_alloc(tl_ir_mutator *mu, tl_ir_stmt *s) {
  fctx *c = mu->ctx;
  tl_ir_module *mod = mu->mod;
  const tl_ir_buffer *b = s->u.alloc.buffer;
  if (!needs_flattening(b)) return s;
  int64_t count;
  if (!const_count(b, &count)) {
    tl_ir_mutator_fail(mu, tl__pass_error(TL_EUNSUPPORTED, b->span.line ? b->span : s->span,
                                          "buffer '%s' (%s) has a shape that is not constant; the c target allocates "
                                          "it as a local array of constant size",
                                          b->name, tl_ir_scope_name(b->scope)));
    return NULL;
  }
  tl_ir_span old = tl__loc_push(mod, b->span);
  tl_ir_expr *extent = tl_ir_int(mod, tl__flat_index_dtype(b), count);
  tl_ir_buffer *to = tl_ir_buffer_new(mod, b->name, b->dtype, 1, &extent, NULL, b->scope);
  tl_ir_builder_set_loc(mod, s->span);
  tl_ir_stmt *r = to ? tl_ir_alloc(mod, to) : NULL;
  tl_ir_builder_set_loc(mod, old);
  if (!r) return NULL;
  flat_pair p = {b, to};
  tl_status st = tl__vec_push(&c->pairs, &p);
  if (st != TL_OK) {
    tl_ir_mutator_fail(mu, st);
    return NULL;
  }
  return r;
}

static tl_ir_stmt *flatten_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  fctx *c = mu->ctx;
  if (s->kind == TL_STMT_ALLOC) return flatten_alloc(mu, s);
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_STORE) return r;
  tl_ir_buffer *to = flat_of(c, r->u.store.buffer);
  if (!to) return r;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_expr *idx = tl__flat_index(mu->mod, r->u.store.buffer, r->u.store.indices, 0, NULL, NULL);
  tl_ir_stmt *n = tl_ir_store(mu->mod, to, 1, &idx, r->u.store.value);
  tl_ir_builder_set_loc(mu->mod, old);
  return n;
}

tl_status tl__pass_flatten(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (!f->body) continue;
    fctx c;
    tl__vec_init(&c.pairs, sizeof(flat_pair));
    tl_ir_mutator mu = {mod, flatten_expr, flatten_stmt, &c, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    tl__vec_free(&c.pairs);
    if (!body) return mu.status;
    f->body = body;
  }
  return TL_OK;
}
