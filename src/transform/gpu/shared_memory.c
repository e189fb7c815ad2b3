/* gpu_plan_shared_memory: the shared memory of each kernel (after flatten).
 *
 * Every shared allocation of a T.Kernel (one-dimensional, constant size: an
 * on-chip buffer is sized when the kernel is compiled) moves to the top of the
 * kernel body, in order of appearance, so each is one block-wide instance for
 * the whole kernel whatever loop it was written in. The kernel needs the sum of
 * their sizes, each rounded up to 16 bytes (the alignment code generators give
 * every shared buffer, so vector accesses to them are aligned):
 *   - more than the target's max_shared_memory_per_block: TL_EINVAL naming the
 *     buffers and their sizes;
 *   - more than the static limit (CUDA: 48 KB), or a buffer already declared
 *     shared.dyn: every shared buffer of the kernel becomes TL_SCOPE_SHARED_DYN,
 *     laid out in this order at 16-byte aligned offsets; split_host_device puts
 *     the total in the launch's dyn_shared_bytes (a constant), which a runtime
 *     uses to raise the kernel's dynamic shared memory limit once when it loads
 *     the module (cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "base/vec.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct pair {
  const tl_ir_buffer *from;
  tl_ir_buffer *to;
} pair;

typedef struct sctx {
  tl__vec allocs; /* tl_ir_stmt *: the shared allocations, in order */
  tl__vec pairs;  /* pair: buffers turned dynamic */
} sctx;

static bool is_shared(const tl_ir_buffer *b) { return b->scope == TL_SCOPE_SHARED || b->scope == TL_SCOPE_SHARED_DYN; }

int64_t tl__gpu_shared_bytes(const tl_ir_buffer *b) {
  int64_t n;
  if (!tl__gpu_const_count(b, &n)) return -1;
  int64_t bytes = n * (int64_t)tl_dtype_bytes(b->dtype);
  return (bytes + 15) / 16 * 16;
}

static bool sum_dyn(tl_ir_visitor *v, const tl_ir_stmt *s) {
  int64_t *total = v->ctx;
  if (s->kind == TL_STMT_ALLOC && s->u.alloc.buffer->scope == TL_SCOPE_SHARED_DYN && *total >= 0) {
    int64_t n = tl__gpu_shared_bytes(s->u.alloc.buffer);
    *total = n < 0 ? -1 : *total + n;
  }
  return true;
}

int64_t tl__gpu_dyn_shared_bytes(const tl_ir_stmt *body) {
  int64_t total = 0;
  tl_ir_visitor v = {NULL, sum_dyn, &total};
  tl_ir_visit_stmt(&v, body);
  return total;
}

/* Takes the shared allocations out (recorded in order). */
static tl_ir_stmt *take(tl_ir_mutator *mu, tl_ir_stmt *s) {
  sctx *c = mu->ctx;
  if (s->kind == TL_STMT_ALLOC && is_shared(s->u.alloc.buffer)) {
    if (!tl__vec_has_ptr(&c->allocs, s)) {
      tl_status st = tl__vec_push(&c->allocs, &s);
      if (st != TL_OK) {
        tl_ir_mutator_fail(mu, st);
        return NULL;
      }
    }
    tl_ir_span old = tl__loc_push(mu->mod, s->span);
    tl_ir_stmt *r = tl_ir_seq(mu->mod, 0, NULL);
    tl_ir_builder_set_loc(mu->mod, old);
    return r;
  }
  return tl_ir_mutate_stmt_children(mu, s);
}

static tl_ir_buffer *dyn_of(const sctx *c, const tl_ir_buffer *b) {
  for (size_t i = 0; i < c->pairs.len; i++)
    if (TL__VEC_AT(&c->pairs, pair, i).from == b) return TL__VEC_AT(&c->pairs, pair, i).to;
  return NULL;
}

static tl_ir_expr *to_dyn_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  sctx *c = mu->ctx;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  tl_ir_buffer *to = NULL;
  if (e->kind == TL_EXPR_LOAD) to = dyn_of(c, e->u.load.buffer);
  if (e->kind == TL_EXPR_REGION) to = dyn_of(c, e->u.region.buffer);
  if (!to) return e;
  tl_ir_span old = tl__loc_push(mu->mod, e->span);
  tl_ir_expr *r = e->kind == TL_EXPR_LOAD ? tl_ir_load(mu->mod, to, e->u.load.n, e->u.load.indices)
                                          : tl_ir_region(mu->mod, to, e->u.region.mins, e->u.region.extents, e->u.region.form);
  tl_ir_builder_set_loc(mu->mod, old);
  return r;
}

static tl_ir_stmt *to_dyn_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  sctx *c = mu->ctx;
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r) return NULL;
  tl_ir_buffer *to = NULL;
  if (r->kind == TL_STMT_STORE) to = dyn_of(c, r->u.store.buffer);
  if (r->kind == TL_STMT_ALLOC) to = dyn_of(c, r->u.alloc.buffer);
  if (!to) return r;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_stmt *n = r->kind == TL_STMT_STORE ? tl_ir_store(mu->mod, to, r->u.store.n, r->u.store.indices, r->u.store.value)
                                           : tl_ir_alloc(mu->mod, to);
  tl_ir_builder_set_loc(mu->mod, old);
  return n;
}

static tl_status plan(tl_ir_module *mod, const tl__gpu_params *p, const tl_ir_stmt *k, tl_ir_stmt **out) {
  sctx c = {TL__VEC_INIT(tl_ir_stmt *), TL__VEC_INIT(pair)};
  tl_ir_mutator mu = {mod, NULL, take, &c, TL_OK};
  tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, k->u.kernel.body);
  tl_status st = body ? TL_OK : mu.status != TL_OK ? mu.status : TL_EINTERNAL;
  int64_t total = 0;
  bool dyn = false;
  for (size_t i = 0; st == TL_OK && i < c.allocs.len; i++) {
    const tl_ir_stmt *a = TL__VEC_AT(&c.allocs, tl_ir_stmt *, i);
    const tl_ir_buffer *b = a->u.alloc.buffer;
    int64_t bytes = b->ndim == 1 ? tl__gpu_shared_bytes(b) : -1;
    if (bytes < 0)
      st = tl__pass_error(TL_EUNSUPPORTED, b->span.line ? b->span : a->span,
                          "shared buffer '%s' needs a constant one-dimensional size here (flatten first)", b->name);
    total += bytes;
    dyn |= b->scope == TL_SCOPE_SHARED_DYN;
  }
  if (st == TL_OK && total > p->max_shared_bytes) {
    tl__sb sb = TL__SB_INIT;
    for (size_t i = 0; i < c.allocs.len; i++) {
      const tl_ir_buffer *b = TL__VEC_AT(&c.allocs, tl_ir_stmt *, i)->u.alloc.buffer;
      tl__sb_appendf(&sb, "%s'%s' %" PRId64, i ? ", " : "", b->name, tl__gpu_shared_bytes(b));
    }
    char *list = tl__sb_finish(&sb);
    st = tl__pass_error(TL_EINVAL, k->span,
                        "T.Kernel needs %" PRId64 " bytes of shared memory (%s); the target allows at most %" PRId64
                        " per block: use smaller tiles",
                        total, list ? list : "...", p->max_shared_bytes);
    tl__free(list);
  }
  if (st == TL_OK && (dyn || total > p->static_shared_bytes)) {
    for (size_t i = 0; st == TL_OK && i < c.allocs.len; i++) {
      const tl_ir_buffer *b = TL__VEC_AT(&c.allocs, tl_ir_stmt *, i)->u.alloc.buffer;
      if (b->scope == TL_SCOPE_SHARED_DYN) continue;
      tl_ir_span old = tl__loc_push(mod, b->span);
      pair pr = {b, tl_ir_buffer_new(mod, b->name, b->dtype, b->ndim, b->shape, NULL, TL_SCOPE_SHARED_DYN)};
      tl_ir_builder_set_loc(mod, old);
      st = tl__built(mod, pr.to);
      if (st == TL_OK) st = tl__vec_push(&c.pairs, &pr);
    }
  }
  /* allocations first, then the body */
  tl__vec items = TL__VEC_INIT(tl_ir_stmt *);
  for (size_t i = 0; st == TL_OK && i < c.allocs.len; i++) st = tl__vec_push(&items, &TL__VEC_AT(&c.allocs, tl_ir_stmt *, i));
  if (st == TL_OK && c.allocs.len) {
    st = tl__vec_push(&items, &body);
    tl_ir_span old = tl__loc_push(mod, k->u.kernel.body->span);
    body = st == TL_OK ? tl_ir_seq(mod, (uint32_t)items.len, (tl_ir_stmt *const *)items.data) : NULL;
    tl_ir_builder_set_loc(mod, old);
    if (st == TL_OK) st = tl__built(mod, body);
  }
  tl__vec_free(&items);
  if (st == TL_OK && c.pairs.len) {
    tl_ir_mutator dm = {mod, to_dyn_expr, to_dyn_stmt, &c, TL_OK};
    body = tl_ir_mutate_stmt(&dm, body);
    if (!body) st = dm.status != TL_OK ? dm.status : TL_EINTERNAL;
  }
  tl__vec_free(&c.allocs);
  tl__vec_free(&c.pairs);
  TL__TRY(st);
  if (body == k->u.kernel.body) {
    *out = (tl_ir_stmt *)k;
    return TL_OK;
  }
  *out = tl__gpu_kernel_with_body(mod, k, body);
  return tl__built(mod, *out);
}

typedef struct pctx {
  const tl__gpu_params *p;
} pctx;

static tl_ir_stmt *kernel_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  pctx *c = mu->ctx;
  if (s->kind != TL_STMT_KERNEL) return tl_ir_mutate_stmt_children(mu, s);
  tl_ir_stmt *r = NULL;
  tl_status st = plan(mu->mod, c->p, s, &r);
  if (st != TL_OK) tl_ir_mutator_fail(mu, st);
  return r;
}

tl_status tl__pass_gpu_plan_shared_memory(tl_ir_module *mod, const tl_target *target) {
  tl__gpu_params p;
  tl__gpu_params_get(target, &p);
  pctx c = {&p};
  tl_ir_mutator mu = {mod, NULL, kernel_stmt, &c, TL_OK};
  return tl__gpu_mutate_functions(mod, &mu);
}
