/* The pass gpu_async_copy: the copies of a software pipeline's stages become
 * cp.async (TL_OP_CP_ASYNC, ir.h).
 *
 * Runs on device kernels after gpu_vectorize. A stage's copies are the
 * statements of a sequence that end in a T.cp_async_commit (tl__gpu_in_stage_copies:
 * gpu_software_pipeline made them). Inside them a store into shared memory of a
 * value loaded from global memory, of one dtype, whole (`S[i] = G[j]`) or with the
 * copy's edge guard (`S[i] = c ? G[j] : 0`, c the same for every lane), 4, 8 or 16
 * bytes (a vector store gpu_vectorize proved aligned, or a 4-byte scalar),
 * becomes `T.cp_async(S[i], G[j], bytes, c)`: the copy reads nothing and writes
 * zeros when c is false, which is the guarded store's value. Every other store
 * stays synchronous (a conversion, a 2-byte element, a misaligned row): it writes
 * a stage nobody reads before the next barrier, so it is correct either way. */
#include "base/alloc.h"
#include "base/error.h"
#include "transform/gpu/gpu.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct actx {
  tl_ir_module *mod;
  bool in_copies;
} actx;

static bool is_zero(const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_BROADCAST) e = e->u.broadcast.value;
  if (e->kind == TL_EXPR_CAST) e = e->u.cast.value;
  return (e->kind == TL_EXPR_INT && e->u.int_value == 0) || (e->kind == TL_EXPR_FLOAT && e->u.float_value == 0.0);
}

/* The element (first lane) of an access at idx (a ramp of stride 1 for vectors). */
static tl_ir_expr *first_lane(const tl_ir_expr *idx, uint16_t lanes) {
  if (lanes == 1) return idx->dtype.lanes == 1 ? (tl_ir_expr *)idx : NULL;
  if (idx->kind != TL_EXPR_RAMP || idx->u.ramp.stride != 1 || idx->dtype.lanes != lanes) return NULL;
  return idx->u.ramp.base;
}

/* The cp.async for store s, or NULL when it does not qualify. */
static tl_ir_stmt *as_cp_async(actx *c, const tl_ir_stmt *s) {
  tl_ir_buffer *dst = s->u.store.buffer;
  const tl_ir_expr *v = s->u.store.value, *cond = NULL;
  if ((dst->scope != TL_SCOPE_SHARED && dst->scope != TL_SCOPE_SHARED_DYN) || s->u.store.n != 1) return NULL;
  if (v->kind == TL_EXPR_SELECT) {
    cond = v->u.select.cond;
    if (cond->dtype.lanes != 1 || !is_zero(v->u.select.f)) return NULL;
    v = v->u.select.t;
  }
  if (v->kind != TL_EXPR_LOAD || v->u.load.n != 1) return NULL;
  tl_ir_buffer *src = v->u.load.buffer;
  uint16_t lanes = v->dtype.lanes;
  int64_t bytes = (int64_t)tl_dtype_bytes(tl_dtype_scalar(dst->dtype)) * lanes;
  if (src->scope != TL_SCOPE_GLOBAL || !tl_dtype_eq(tl_dtype_scalar(src->dtype), tl_dtype_scalar(dst->dtype)) ||
      (bytes != 4 && bytes != 8 && bytes != 16))
    return NULL;
  tl_ir_expr *di = first_lane(s->u.store.indices[0], lanes), *si = first_lane(v->u.load.indices[0], lanes);
  if (!di || !si) return NULL;
  tl_ir_module *mod = c->mod;
  tl_ir_expr *one = tl__int_like(mod, di, 1), *one_s = tl__int_like(mod, si, 1);
  tl_ir_expr *args[4] = {tl_ir_region(mod, dst, &di, &one, TL_REGION_POINT),
                         tl_ir_region(mod, src, &si, &one_s, TL_REGION_POINT), tl_ir_i32(mod, bytes),
                         cond ? (tl_ir_expr *)cond : tl_ir_bool(mod, true)};
  tl_ir_span old = tl__loc_push(mod, s->span);
  tl_ir_stmt *r = tl_ir_eval(mod, tl_ir_call(mod, TL_OP_CP_ASYNC, TL_DT_HANDLE, 4, args));
  tl_ir_builder_set_loc(mod, old);
  return r;
}

static tl_ir_stmt *copy_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  actx *c = mu->ctx;
  if (s->kind == TL_STMT_STORE && c->in_copies) {
    tl_ir_stmt *r = as_cp_async(c, s);
    return r ? r : s;
  }
  if (s->kind != TL_STMT_SEQ) return tl_ir_mutate_stmt_children(mu, s);
  bool outer = c->in_copies, changed = false;
  tl_ir_stmt **items = tl__malloc((s->u.seq.n ? s->u.seq.n : 1) * sizeof *items);
  if (!items) {
    tl_ir_mutator_fail(mu, tl__oom());
    return NULL;
  }
  for (uint32_t i = 0; i < s->u.seq.n; i++) {
    c->in_copies = outer || tl__gpu_in_stage_copies(s->u.seq.stmts, s->u.seq.n, i);
    items[i] = tl_ir_mutate_stmt(mu, s->u.seq.stmts[i]);
    c->in_copies = outer;
    if (!items[i]) {
      tl__free(items);
      return NULL;
    }
    changed |= items[i] != s->u.seq.stmts[i];
  }
  tl_ir_stmt *r = s;
  if (changed) {
    tl_ir_span old = tl__loc_push(mu->mod, s->span);
    r = tl_ir_seq(mu->mod, s->u.seq.n, items);
    tl_ir_builder_set_loc(mu->mod, old);
  }
  tl__free(items);
  return r;
}

tl_status tl__pass_gpu_async_copy(tl_ir_module *mod, const tl_target *target) {
  tl__gpu_params p;
  tl__gpu_params_get(target, &p);
  if (!p.cp_async) return TL_OK;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEVICE_KERNEL || !f->body) continue;
    actx c = {mod, false};
    tl_ir_mutator mu = {mod, NULL, copy_stmt, &c, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    if (!body) return mu.status != TL_OK ? mu.status : TL_EINTERNAL;
    f->body = body;
  }
  return TL_OK;
}
