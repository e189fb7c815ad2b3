/* widen_index_cpu: an element index `a + b` of a narrow integer type becomes
 * `(int64)a + (int64)b` where the loop bounds prove the narrow sum cannot
 * overflow, so the value is the same and only its arithmetic changes.
 *
 * Why: the native backend compiles with -fwrapv (lowered code's integers wrap), so
 * for an index like `(bx * 8 + i) * 4096 + j` in int32 a C compiler must allow the
 * sum to wrap between iterations of j, sees the addresses as non-affine and copies
 * rows of a tensor element by element (with gathers) instead of vectorizing. With
 * the last addition done in 64 bits the row is contiguous in j: gcc and clang turn
 * such copies into memcpy and vectorize elementwise loops over global tensors.
 *
 * The proof: tl__bounds (loop variables over their ranges, symbolic dims over
 * [0, INT32_MAX]) gives sound intervals for a and b (a subexpression that might
 * wrap gets its type's whole range); when the interval of a + b lies within the
 * type, the narrow addition never wraps and the wide one has its value (a and b
 * keep their narrow values: they are cast, or widened the same way where they are
 * exact additions themselves, so `(by * 32 + i) * 80 + (bx * 32 + j)` becomes
 * `(int64)((by * 32 + i) * 80) + ((int64)(bx * 32) + (int64)j)`). Anything else is
 * left as it is. Runs on device functions after split_host_device, where
 * every tensor access has one flat index; only tensors (global buffers) change:
 * a compiler already knows a local array's index stays inside the array. */
#include "transform/bounds.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct widen_ctx {
  tl__bounds b;
} widen_ctx;

static bool within(tl__interval iv, tl_dtype t) {
  int64_t lo = t.code == TL_DTYPE_UINT ? 0 : -((int64_t)1 << (t.bits - 1));
  int64_t hi = t.code == TL_DTYPE_UINT ? ((int64_t)1 << t.bits) - 1 : ((int64_t)1 << (t.bits - 1)) - 1;
  return iv.lo >= lo && iv.hi <= hi;
}

static bool narrow_int(tl_dtype t) {
  return t.lanes == 1 && t.bits < 64 && (t.code == TL_DTYPE_INT || t.code == TL_DTYPE_UINT);
}

/* Whether e is a narrow addition that cannot overflow: both operands' intervals
 * (sound even where they wrap inside: then their type's whole range) sum within
 * the type. */
static bool exact_add(const widen_ctx *c, const tl_ir_expr *e) {
  if (e->kind != TL_EXPR_BINARY || e->u.binary.op != TL_BIN_ADD || !narrow_int(e->dtype)) return false;
  tl__interval ia = tl__bounds_of(&c->b, e->u.binary.a), ib = tl__bounds_of(&c->b, e->u.binary.b);
  if (!within(ia, e->dtype) || !within(ib, e->dtype)) return false;
  tl__interval sum = {ia.lo + ib.lo, ia.hi + ib.hi}; /* both within 32 bits: no overflow here */
  return within(sum, e->dtype);
}

/* e in int64 with e's narrow value: every exact addition at the top of e is done
 * in 64 bits (`(a + b) + c` -> `(int64)a + (int64)b + (int64)c`), anything else is
 * cast. NULL: out of memory. */
static tl_ir_expr *wide(tl_ir_module *mod, const widen_ctx *c, tl_ir_expr *e) {
  if (!exact_add(c, e)) return tl__cast_int(mod, TL_DT_INT64, e);
  tl_ir_expr *a = wide(mod, c, e->u.binary.a), *b = a ? wide(mod, c, e->u.binary.b) : NULL;
  return b ? tl_ir_binary(mod, TL_BIN_ADD, a, b) : NULL;
}

/* The widened index, or idx itself when it does not qualify (NULL: out of memory). */
static tl_ir_expr *widened(tl_ir_module *mod, const widen_ctx *c, tl_ir_expr *idx) {
  return exact_add(c, idx) ? wide(mod, c, idx) : idx;
}

static tl_ir_expr *widen_expr(tl_ir_mutator *mu, tl_ir_expr *e) {
  widen_ctx *c = mu->ctx;
  e = tl_ir_mutate_expr_children(mu, e);
  if (!e || e->kind != TL_EXPR_LOAD || e->u.load.n != 1 || e->u.load.buffer->scope != TL_SCOPE_GLOBAL) return e;
  tl_ir_expr *idx = widened(mu->mod, c, e->u.load.indices[0]);
  if (idx == e->u.load.indices[0]) return e;
  tl_ir_span old = tl__loc_push(mu->mod, e->span);
  tl_ir_expr *r = idx ? tl_ir_load(mu->mod, e->u.load.buffer, 1, &idx) : NULL;
  tl_ir_builder_set_loc(mu->mod, old);
  if (!r) tl_ir_mutator_fail(mu, tl__built(mu->mod, NULL));
  return r;
}

static tl_ir_stmt *widen_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  widen_ctx *c = mu->ctx;
  size_t mark = tl__bounds_mark(&c->b);
  tl_status st = tl__bounds_enter(&c->b, s);
  if (st != TL_OK) {
    tl_ir_mutator_fail(mu, st);
    return NULL;
  }
  tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
  tl__bounds_pop_to(&c->b, mark);
  if (!r || r->kind != TL_STMT_STORE || r->u.store.n != 1 || r->u.store.buffer->scope != TL_SCOPE_GLOBAL) return r;
  tl_ir_expr *idx = widened(mu->mod, c, r->u.store.indices[0]);
  if (idx == r->u.store.indices[0]) return r;
  tl_ir_span old = tl__loc_push(mu->mod, s->span);
  tl_ir_stmt *n = idx ? tl_ir_store(mu->mod, r->u.store.buffer, 1, &idx, r->u.store.value) : NULL;
  tl_ir_builder_set_loc(mu->mod, old);
  if (!n) tl_ir_mutator_fail(mu, tl__built(mu->mod, NULL));
  return n;
}

tl_status tl__pass_widen_index_cpu(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (!f->body || f->callconv == TL_CALLCONV_PACKED) continue;
    widen_ctx c;
    tl__bounds_init(&c.b);
    tl_status st = tl__bounds_push_shape_vars(&c.b, f);
    if (st == TL_OK) {
      tl_ir_mutator mu = {mod, widen_expr, widen_stmt, &c, TL_OK};
      tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
      if (body) f->body = body;
      else st = mu.status;
    }
    tl__bounds_free(&c.b);
    if (st != TL_OK) return st;
  }
  return TL_OK;
}
