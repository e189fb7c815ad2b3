/* The pass gpu_pad_shared: shared tiles that T.gemm reads on the tensor cores get
 * a padded row pitch, so that ldmatrix is free of bank conflicts.
 *
 * ldmatrix reads each 8 x 8 matrix as 8 rows of 16 bytes, one per lane group;
 * the rows come from 8 consecutive rows of the tile. Shared memory serves 128
 * bytes (32 banks of 4) a cycle, so the 8 row segments are read at once only if
 * they fall into 8 different 16-byte slots of those 128: a row pitch of an odd
 * number of 16-byte units does that (the slots are pitch * r mod 8, all
 * distinct), an even one makes 2 to 8 of them collide. A shared buffer (2-D or more)
 * allocated in the kernel, with a constant row of an even number of 16-byte units
 * and operand A or B of a T.gemm that runs on the tensor cores
 * (tl__gpu_gemm_mma_fits), is replaced by one with the same shape and strides
 * (pitch + 16 bytes, 1), in every load, store, region and allocation (a buffer
 * with leading dimensions, a software pipeline's stages, keeps its padded
 * matrices one after another); flatten
 * then lays it out with those strides. The padding costs 16 bytes a row.
 * (Upstream swizzles instead of padding: the same effect without the extra
 * bytes; the swizzle needs a layout the copies and ldmatrix agree on.) */
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct pad_pair {
  const tl_ir_buffer *from;
  tl_ir_buffer *to;
} pad_pair;

typedef struct pad_ctx {
  const tl__gpu_params *p;
  int64_t T;          /* threads of the kernel being scanned */
  tl__vec candidates; /* const tl_ir_buffer *: operands of tensor-core gemms */
  tl__vec pairs;      /* pad_pair */
  tl_status st;
} pad_ctx;

static tl_ir_buffer *padded_of(const pad_ctx *c, const tl_ir_buffer *b) {
  for (size_t i = 0; i < c->pairs.len; i++)
    if (TL__VEC_AT(&c->pairs, pad_pair, i).from == b) return TL__VEC_AT(&c->pairs, pad_pair, i).to;
  return NULL;
}

/* The padded pitch of b's rows in elements, or 0 when it needs none. */
static int64_t padded_pitch(const tl_ir_buffer *b) {
  if (b->ndim < 2 || b->ndim > TL__GPU_MAX_RANK || b->strides ||
      (b->scope != TL_SCOPE_SHARED && b->scope != TL_SCOPE_SHARED_DYN))
    return 0;
  int64_t rows, cols, lead, esz = (int64_t)tl_dtype_bytes(b->dtype);
  for (uint32_t d = 0; d + 2 < b->ndim; d++)
    if (!tl__is_const_int(b->shape[d], &lead)) return 0;
  if (!tl__is_const_int(b->shape[b->ndim - 2], &rows) || !tl__is_const_int(b->shape[b->ndim - 1], &cols) || esz <= 0 ||
      rows < 8)
    return 0;
  if ((cols * esz) % 16 != 0 || ((cols * esz) / 16) % 2 != 0) return 0;
  return cols + 16 / esz;
}

/* --------------------------------------------------------------- scanning */

static bool find_gemms(tl_ir_visitor *v, const tl_ir_expr *e) {
  pad_ctx *c = v->ctx;
  if (c->st != TL_OK || e->kind != TL_EXPR_CALL || e->u.call.op != TL_OP_GEMM) return true;
  if (!tl__gpu_gemm_mma_fits(e, c->T, c->p, NULL, 0, NULL, NULL)) return true;
  for (uint32_t i = 0; i < 2; i++) {
    const tl_ir_buffer *b = e->u.call.args[i]->u.region.buffer;
    if (padded_pitch(b) && !tl__vec_has_ptr(&c->candidates, b)) c->st = tl__vec_push(&c->candidates, &b);
  }
  return true;
}

static bool scan_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  pad_ctx *c = v->ctx;
  if (s->kind != TL_STMT_KERNEL || c->st != TL_OK) return true;
  int64_t T = 1, n;
  for (uint32_t i = 0; i < s->u.kernel.threads_ndim; i++)
    if (s->u.kernel.threads[i]) T = tl__is_const_int(s->u.kernel.threads[i], &n) ? T * n : 0;
  c->T = T;
  tl_ir_visitor inner = {find_gemms, NULL, c};
  tl_ir_visit_stmt(&inner, s->u.kernel.body);
  return false; /* kernels do not nest */
}

/* --------------------------------------------------------------- rewriting */

static tl_ir_expr *pad_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  pad_ctx *c = mu->ctx;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e) return NULL;
  if (e->kind == TL_EXPR_LOAD) {
    tl_ir_buffer *to = padded_of(c, e->u.load.buffer);
    return to ? tl_ir_load(mu->mod, to, e->u.load.n, e->u.load.indices) : e;
  }
  if (e->kind == TL_EXPR_REGION) {
    tl_ir_buffer *to = padded_of(c, e->u.region.buffer);
    return to ? tl_ir_region(mu->mod, to, e->u.region.mins, e->u.region.extents, e->u.region.form) : e;
  }
  return e;
}

static tl_ir_stmt *pad_alloc(tl_ir_mutator *mu, tl_ir_stmt *s) {
  pad_ctx *c = mu->ctx;
  tl_ir_module *mod = mu->mod;
  const tl_ir_buffer *b = s->u.alloc.buffer;
  if (!tl__vec_has_ptr(&c->candidates, b)) return s;
  tl_ir_span old = tl__loc_push(mod, b->span);
  /* Rows of the last two dimensions padded; leading ones (a pipeline's stages)
   * whole padded matrices apart. */
  tl_ir_expr *strides[TL__GPU_MAX_RANK];
  int64_t stride = padded_pitch(b), ext;
  strides[b->ndim - 1] = tl_ir_i32(mod, 1);
  for (uint32_t d = b->ndim - 1; d-- > 0;) {
    strides[d] = tl_ir_i32(mod, stride);
    tl__is_const_int(b->shape[d], &ext);
    stride *= ext;
  }
  tl_ir_buffer *to = tl_ir_buffer_new(mod, b->name, b->dtype, b->ndim, b->shape, strides, b->scope);
  tl_ir_builder_set_loc(mod, s->span);
  tl_ir_stmt *r = to ? tl_ir_alloc(mod, to) : NULL;
  tl_ir_builder_set_loc(mod, old);
  if (!r) return NULL;
  pad_pair pr = {b, to};
  tl_status st = tl__vec_push(&c->pairs, &pr);
  if (st != TL_OK) {
    tl_ir_mutator_fail(mu, st);
    return NULL;
  }
  return r;
}

static tl_ir_stmt *pad_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  pad_ctx *c = mu->ctx;
  if (s->kind == TL_STMT_ALLOC) return pad_alloc(mu, s);
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  if (!r || r->kind != TL_STMT_STORE) return r;
  tl_ir_buffer *to = padded_of(c, r->u.store.buffer);
  return to ? tl_ir_store(mu->mod, to, r->u.store.n, r->u.store.indices, r->u.store.value) : r;
}

tl_status tl__pass_gpu_pad_shared(tl_ir_module *mod, const tl_target *target) {
  tl__gpu_params p;
  tl__gpu_params_get(target, &p);
  if (!(p.mma & TL__GPU_MMA_M16N8K16)) return TL_OK;
  tl_status st = TL_OK;
  for (size_t i = 0; st == TL_OK && i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEFAULT || !f->body) continue;
    pad_ctx c = {&p, 0, TL__VEC_INIT(const tl_ir_buffer *), TL__VEC_INIT(pad_pair), TL_OK};
    tl_ir_visitor v = {NULL, scan_stmt, &c};
    tl_ir_visit_stmt(&v, f->body);
    st = c.st;
    if (st == TL_OK && c.candidates.len) {
      tl_ir_mutator mu = {mod, pad_expr, pad_stmt, &c, TL_OK};
      tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
      if (body) f->body = body;
      else st = mu.status != TL_OK ? mu.status : TL_EINTERNAL;
    }
    tl__vec_free(&c.candidates);
    tl__vec_free(&c.pairs);
  }
  return st;
}
