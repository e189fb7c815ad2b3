/* lower_tile_ops: tile ops become loops of loads and stores, with the exact
 * meaning the interpreter gives them (docs/interpreter.md), op order and rounding
 * included, so the lowered program computes bit for bit what the tile program
 * does. Every loop made here is serial; the tile program runs at block level.
 *
 * Two regions pair up element by element in row-major order once their extents
 * of 1 are dropped: the dimensions whose extent is not the constant 1 are matched
 * in order and one loop runs over each pair. A T.copy whose regions cannot be
 * paired statically (a symbolic extent that may be 1) runs over the flat element
 * count instead, unravelling both sides.
 *
 *  - T.copy: element-wise with conversion to the destination's dtype. Where a
 *    region may run past the edge of a global buffer, reads outside give zero
 *    (a select) and writes outside are skipped (ifs placed at the outermost loop
 *    where they can be decided); a guard is left out where the interval analysis
 *    proves the index in bounds. Copying a region of a buffer into another region
 *    of the same buffer goes through a temporary, as the copy reads everything
 *    before it writes.
 *  - T.fill / T.clear: a store of the (converted, once evaluated) value or zero.
 *  - T.gemm: C[i, j] (+)= op(A)[i, k] * op(B)[k, j] as an i-k-j loop nest (each
 *    C element still accumulates k ascending); the product is formed in C's dtype
 *    when that is exact, else in float64 and converted, as the interpreter does;
 *    with clear_accum a loop zeroes C first.
 *  - T.reduce_*: per destination element a local.var accumulator starts at the
 *    identity, combines the (converted, |x| for abs variants) source elements in
 *    index order, and is stored, combined with the old value unless clear.
 *  - T.cumsum, T.cummax: per line a local.var accumulator from the fold's identity;
 *    element k of the line (from the end when reverse) is combined (added, or
 *    maxed) and stored. In place when src and dst are one region.
 *  - T.atomic_add (T.atomic_max, T.atomic_min): element-wise addition (max,
 *    min); on global memory each element is a T.atomic_add_elem (_max_, _min_)
 *    (blocks run in parallel), elsewhere a plain store.
 *
 * GPU pipelines use two variants (pass.h): lower_elementwise_tile_ops lowers
 * only T.copy, T.fill, T.clear and T.atomic_add, each into one T.Parallel loop
 * over its element space (all paired dimensions, outermost first) whose body is
 * the element update above with its edge guards combined into one `if` (guards
 * that need no loop variable stay outside the loop), so the GPU passes distribute
 * them over threads like any T.Parallel loop; T.gemm, reductions and T.cumsum are
 * left for them. tl__lower_tile_op_serial lowers one tile op to the serial form. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "ir/op_table.h"
#include "transform/bounds.h"
#include "transform/pass.h"
#include "transform/util.h"

#define MAX_DIMS 16

typedef struct lower_ctx {
  tl_ir_module *mod;
  tl__bounds b;
  bool parallel; /* element-wise ops only, as one T.Parallel loop each */
  bool per_thread; /* inside a T.Kernel that binds thread indices: every thread runs each op */
} lower_ctx;

/* A region operand. */
typedef struct reg {
  const tl_ir_expr *e;
  tl_ir_buffer *buf;
  uint32_t ndim;
  tl_ir_expr **mins, **ext;
  bool global;
} reg;

/* The loops of a lowered op: one per paired dimension, outermost first. */
typedef struct loops {
  uint32_t n;
  tl_ir_var *vars[MAX_DIMS];
  tl_ir_expr *ext[MAX_DIMS];
  tl_ir_expr *guards[MAX_DIMS + 1]; /* guards[g]: conditions placed inside loop g-1 (g = 0: outside) */
  bool parallel;                    /* build one T.Parallel loop (lower_ctx.parallel) */
} loops;

static tl_status get_region(const tl_ir_expr *call, uint32_t i, reg *r) {
  const tl_ir_expr *e = call->u.call.args[i];
  if (!e || e->kind != TL_EXPR_REGION)
    return tl__pass_error(TL_EINVAL, call->span, "%s: argument %u must be a buffer region", tl_ir_op_name(call->u.call.op), i);
  r->e = e;
  r->buf = e->u.region.buffer;
  r->ndim = e->u.region.ndim;
  r->mins = e->u.region.mins;
  r->ext = e->u.region.extents;
  r->global = r->buf->scope == TL_SCOPE_GLOBAL;
  if (r->ndim > MAX_DIMS)
    return tl__pass_error(TL_EUNSUPPORTED, call->span, "%s: buffer '%s' has more than %d dimensions",
                          tl_ir_op_name(call->u.call.op), r->buf->name, MAX_DIMS);
  return TL_OK;
}

/* Dimensions of r (except `skip`) whose extent is not the constant 1. */
static uint32_t nonunit_dims(const reg *r, uint32_t skip, uint32_t *dims) {
  uint32_t n = 0;
  for (uint32_t d = 0; d < r->ndim; d++)
    if (d != skip && !tl__is_int(r->ext[d], 1)) dims[n++] = d;
  return n;
}

static bool extents_agree(const tl_ir_expr *a, const tl_ir_expr *b) {
  int64_t x, y;
  if (tl__is_const_int(a, &x) && tl__is_const_int(b, &y)) return x == y;
  return true; /* symbolic: equal in any valid program; the interpreter checks at run time */
}

/* The loop extent for a pair: a constant if either side has one. */
static tl_ir_expr *pair_extent(tl_ir_expr *a, tl_ir_expr *b) { return tl__is_const_int(a, NULL) ? a : tl__is_const_int(b, NULL) ? b : a; }

static const char *const k_loop_names[] = {"i", "j", "k", "l", "m", "n", "o", "p"};

static tl_status new_loop(tl_ir_module *mod, loops *L, tl_ir_expr *extent, const char *name) {
  char buf[16];
  if (!name) {
    if (L->n < sizeof k_loop_names / sizeof k_loop_names[0]) name = k_loop_names[L->n];
    else {
      snprintf(buf, sizeof buf, "i%u", (unsigned)L->n);
      name = buf;
    }
  }
  tl_ir_var *v = tl_ir_var_new(mod, name, extent->dtype);
  if (!v) return tl__built(mod, NULL);
  L->vars[L->n] = v;
  L->ext[L->n] = extent;
  L->guards[L->n + 1] = NULL;
  L->n++;
  return TL_OK;
}

static void loops_init(const struct lower_ctx *c, loops *L) {
  memset(L, 0, sizeof *L);
  L->parallel = c->parallel;
}

static tl_status add_guard(tl_ir_module *mod, loops *L, uint32_t level, tl_ir_expr *cond) {
  if (!cond) return tl__built(mod, NULL);
  L->guards[level] = L->guards[level] ? tl_ir_binary(mod, TL_BIN_AND, L->guards[level], cond) : cond;
  return L->guards[level] ? TL_OK : tl__built(mod, NULL);
}

/* The parallel form: one T.Parallel loop over every level, the guards that need
 * a loop variable combined inside it, the others outside. */
static tl_ir_stmt *build_parallel(tl_ir_module *mod, const loops *L, tl_ir_stmt *inner) {
  tl_ir_expr *cond = NULL;
  for (uint32_t g = 1; g <= L->n; g++)
    if (L->guards[g]) cond = cond ? tl_ir_binary(mod, TL_BIN_AND, cond, L->guards[g]) : L->guards[g];
  if (cond) inner = tl_ir_if(mod, cond, inner, NULL);
  if (L->n) inner = tl_ir_for(mod, TL_FOR_PARALLEL, L->n, L->vars, NULL, L->ext, inner);
  if (L->guards[0]) inner = tl_ir_if(mod, L->guards[0], inner, NULL);
  return inner;
}

/* Wraps the innermost statement in the loops and their guards. */
static tl_ir_stmt *build_loops(tl_ir_module *mod, const loops *L, tl_ir_stmt *inner) {
  if (L->parallel) return build_parallel(mod, L, inner);
  for (uint32_t g = L->n + 1; g-- > 0;) {
    if (!inner) return NULL;
    if (L->guards[g]) inner = tl_ir_if(mod, L->guards[g], inner, NULL);
    if (g > 0) inner = tl_ir_for(mod, TL_FOR_SERIAL, 1, &L->vars[g - 1], NULL, &L->ext[g - 1], inner);
  }
  return inner;
}

/* Pushes the loops' variable ranges (for guard decisions); returns the mark. */
static tl_status push_loops(lower_ctx *c, const loops *L, size_t *mark) {
  *mark = tl__bounds_mark(&c->b);
  for (uint32_t i = 0; i < L->n; i++) TL__TRY(tl__bounds_push_loop(&c->b, L->vars[i], NULL, L->ext[i]));
  return TL_OK;
}

/* Index of region r in dimension d: its start, plus the loop variable of the
 * level paired with d when there is one (level[d] >= 0). */
static tl_ir_expr *index_of(tl_ir_module *mod, const reg *r, uint32_t d, const loops *L, const int *level) {
  if (level[d] < 0) return r->mins[d];
  return tl__add(mod, r->mins[d], tl_ir_var_ref(mod, L->vars[level[d]]));
}

/* The bounds conditions of index idx in dimension d of a global buffer: each of
 * 0 <= idx and idx < shape[d], or NULL where the bounds prove it. */
static tl_status edge_conditions(lower_ctx *c, const reg *r, uint32_t d, tl_ir_expr *idx, tl_ir_expr **lo_ok,
                                 tl_ir_expr **hi_ok) {
  tl_ir_module *mod = c->mod;
  tl_ir_expr *ge = tl_ir_binary(mod, TL_BIN_GE, idx, tl__int_like(mod, idx, 0));
  tl_ir_expr *lt = tl_ir_binary(mod, TL_BIN_LT, idx, tl__cast_int(mod, idx->dtype, r->buf->shape[d]));
  TL__TRY(tl__built(mod, ge));
  TL__TRY(tl__built(mod, lt));
  bool v;
  *lo_ok = tl__bounds_decide(&c->b, ge, &v) && v ? NULL : ge;
  *hi_ok = tl__bounds_decide(&c->b, lt, &v) && v ? NULL : lt;
  return TL_OK;
}

/* ---------------------------------------------------------------- T.copy */

/* True if regions a (without dimension askip) and b have as many dimensions of
 * non-unit extent, so they pair up dimension by dimension. */
static bool pairable(const reg *a, uint32_t askip, const reg *b) {
  uint32_t da[MAX_DIMS], db[MAX_DIMS];
  return nonunit_dims(a, askip, da) == nonunit_dims(b, UINT32_MAX, db);
}

/* One loop per pair of non-unit dimensions of a (without askip) and b, in order;
 * alevel/blevel map each dimension to its loop (-1: a unit dimension). Constant
 * extents of a pair must agree. */
static tl_status pair_loops(lower_ctx *c, const tl_ir_expr *call, const reg *a, uint32_t askip, const reg *b,
                            loops *L, int *alevel, int *blevel) {
  uint32_t da[MAX_DIMS], db[MAX_DIMS];
  uint32_t n = nonunit_dims(a, askip, da);
  nonunit_dims(b, UINT32_MAX, db);
  for (uint32_t d = 0; d < MAX_DIMS; d++) alevel[d] = blevel[d] = -1;
  for (uint32_t i = 0; i < n; i++) {
    if (!extents_agree(a->ext[da[i]], b->ext[db[i]]))
      return tl__pass_error(TL_EINVAL, call->span,
                            "%s: dimension %u of the region of buffer '%s' has extent %lld but the matching dimension "
                            "%u of the region of buffer '%s' has %lld",
                            tl_ir_op_name(call->u.call.op), da[i], a->buf->name, (long long)a->ext[da[i]]->u.int_value,
                            db[i], b->buf->name, (long long)b->ext[db[i]]->u.int_value);
    TL__TRY(new_loop(c->mod, L, pair_extent(a->ext[da[i]], b->ext[db[i]]), NULL));
    alevel[da[i]] = (int)i;
    blevel[db[i]] = (int)i;
  }
  return TL_OK;
}

static bool same_region(const reg *a, const reg *b) {
  if (a->buf != b->buf) return false;
  for (uint32_t d = 0; d < a->ndim; d++)
    if (!tl__expr_same(a->mins[d], b->mins[d]) || !tl__expr_same(a->ext[d], b->ext[d])) return false;
  return true;
}

/* The guards for accessing r at idx[]: conditions of dims paired with a loop go
 * to that loop's level, the others outside. For reads they are combined into one
 * condition (*read_ok) instead. */
static tl_status edge_guards(lower_ctx *c, const reg *r, tl_ir_expr *const *idx, const int *level, loops *L,
                             tl_ir_expr **read_ok) {
  if (!r->global) return TL_OK;
  for (uint32_t d = 0; d < r->ndim; d++) {
    tl_ir_expr *lo, *hi;
    TL__TRY(tl__built(c->mod, idx[d]));
    TL__TRY(edge_conditions(c, r, d, idx[d], &lo, &hi));
    tl_ir_expr *conds[2] = {lo, hi};
    for (int k = 0; k < 2; k++) {
      if (!conds[k]) continue;
      if (read_ok) {
        *read_ok = *read_ok ? tl_ir_binary(c->mod, TL_BIN_AND, *read_ok, conds[k]) : conds[k];
        if (!*read_ok) return tl__built(c->mod, NULL);
      } else {
        TL__TRY(add_guard(c->mod, L, level[d] < 0 ? 0 : (uint32_t)level[d] + 1, conds[k]));
      }
    }
  }
  return TL_OK;
}

/* The element value read from src at sidx, converted to dt, zero where a global
 * source is out of bounds. */
static tl_ir_expr *read_elem(lower_ctx *c, const reg *src, tl_ir_expr **sidx, tl_ir_expr *ok, tl_dtype dt) {
  tl_ir_module *mod = c->mod;
  tl_ir_expr *v = tl__convert(mod, dt, tl_ir_load(mod, src->buf, src->ndim, sidx));
  if (!ok) return v;
  return tl_ir_select(mod, ok, v, tl__zero(mod, dt));
}

static tl_status copy_paired(lower_ctx *c, const tl_ir_expr *call, const reg *src, const reg *dst, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  loops L;
  loops_init(c, &L);
  int sl[MAX_DIMS], dl[MAX_DIMS];
  TL__TRY(pair_loops(c, call, src, UINT32_MAX, dst, &L, sl, dl));
  size_t mark;
  TL__TRY(push_loops(c, &L, &mark));
  tl_ir_expr *sidx[MAX_DIMS], *didx[MAX_DIMS], *read_ok = NULL;
  for (uint32_t d = 0; d < src->ndim; d++) sidx[d] = index_of(mod, src, d, &L, sl);
  for (uint32_t d = 0; d < dst->ndim; d++) didx[d] = index_of(mod, dst, d, &L, dl);
  tl_status st = edge_guards(c, src, sidx, sl, &L, &read_ok);
  if (st == TL_OK) st = edge_guards(c, dst, didx, dl, &L, NULL);
  tl__bounds_pop_to(&c->b, mark);
  TL__TRY(st);
  tl_ir_expr *v = read_elem(c, src, sidx, read_ok, dst->buf->dtype);
  *out = build_loops(mod, &L, tl_ir_store(mod, dst->buf, dst->ndim, didx, v));
  return *out ? TL_OK : tl__built(mod, NULL);
}

/* Row-major unravelling of flat position f over r's extents: the index in d. */
static tl_ir_expr *unravel(tl_ir_module *mod, const reg *r, uint32_t d, tl_ir_expr *f) {
  tl_ir_expr *stride = tl__int_like(mod, f, 1);
  for (uint32_t k = d + 1; k < r->ndim; k++) stride = tl__mul(mod, stride, tl__cast_int(mod, f->dtype, r->ext[k]));
  tl_ir_expr *q = tl__floordiv(mod, f, stride);
  if (d > 0) q = tl__floormod(mod, q, tl__cast_int(mod, f->dtype, r->ext[d]));
  return tl__add(mod, r->mins[d], tl__cast_int(mod, r->mins[d]->dtype, q));
}

/* A copy whose regions cannot be paired statically: one loop over the elements. */
static tl_status copy_flat(lower_ctx *c, const reg *src, const reg *dst, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  tl_ir_expr *count = tl_ir_i32(mod, 1);
  for (uint32_t d = 0; d < src->ndim; d++) count = tl__mul(mod, count, tl__cast_int(mod, TL_DT_INT32, src->ext[d]));
  TL__TRY(tl__built(mod, count));
  loops L;
  loops_init(c, &L);
  TL__TRY(new_loop(mod, &L, count, "f"));
  tl_ir_expr *f = tl_ir_var_ref(mod, L.vars[0]);
  size_t mark;
  TL__TRY(push_loops(c, &L, &mark));
  tl_ir_expr *sidx[MAX_DIMS], *didx[MAX_DIMS], *read_ok = NULL;
  int lv[MAX_DIMS];
  for (uint32_t d = 0; d < MAX_DIMS; d++) lv[d] = 0;
  for (uint32_t d = 0; d < src->ndim; d++) sidx[d] = unravel(mod, src, d, f);
  for (uint32_t d = 0; d < dst->ndim; d++) didx[d] = unravel(mod, dst, d, f);
  tl_status st = edge_guards(c, src, sidx, lv, &L, &read_ok);
  if (st == TL_OK) st = edge_guards(c, dst, didx, lv, &L, NULL);
  tl__bounds_pop_to(&c->b, mark);
  TL__TRY(st);
  tl_ir_expr *v = read_elem(c, src, sidx, read_ok, dst->buf->dtype);
  *out = build_loops(mod, &L, tl_ir_store(mod, dst->buf, dst->ndim, didx, v));
  return *out ? TL_OK : tl__built(mod, NULL);
}

static tl_status lower_copy(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out);

/* src and dst are different regions of one buffer: copy through a temporary of
 * the source region's shape, so everything is read before anything is written. */
static tl_status copy_via_temp(lower_ctx *c, const tl_ir_expr *call, const reg *src, const reg *dst, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  for (uint32_t d = 0; d < src->ndim; d++)
    if (!tl__is_const_int(src->ext[d], NULL))
      return tl__pass_error(TL_EUNSUPPORTED, call->span,
                            "T.copy between two regions of buffer '%s' needs constant extents", src->buf->name);
  tl_ir_buffer *tmp = tl_ir_buffer_new(mod, "copy_tmp", dst->buf->dtype, src->ndim, src->ext, NULL, TL_SCOPE_SHARED);
  tl_ir_expr *whole = tmp ? tl_ir_region(mod, tmp, NULL, NULL, TL_REGION_FULL) : NULL;
  tl_ir_expr *a1[2] = {(tl_ir_expr *)src->e, whole}, *a2[2] = {whole, (tl_ir_expr *)dst->e};
  tl_ir_expr *c1 = tl_ir_call(mod, TL_OP_COPY, TL_DT_HANDLE, 2, a1), *c2 = tl_ir_call(mod, TL_OP_COPY, TL_DT_HANDLE, 2, a2);
  if (!c1 || !c2) return tl__built(mod, NULL);
  tl_ir_stmt *s[3] = {tl_ir_alloc(mod, tmp), NULL, NULL};
  TL__TRY(lower_copy(c, c1, &s[1]));
  TL__TRY(lower_copy(c, c2, &s[2]));
  *out = tl_ir_seq(mod, 3, s);
  return *out ? TL_OK : tl__built(mod, NULL);
}

static tl_status lower_copy(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  reg src, dst;
  TL__TRY(get_region(call, 0, &src));
  TL__TRY(get_region(call, 1, &dst));
  if (same_region(&src, &dst)) {
    *out = tl_ir_seq(c->mod, 0, NULL); /* every element onto itself */
    return *out ? TL_OK : tl__built(c->mod, NULL);
  }
  if (src.buf == dst.buf) return copy_via_temp(c, call, &src, &dst, out);
  if (pairable(&src, UINT32_MAX, &dst)) return copy_paired(c, call, &src, &dst, out);
  return copy_flat(c, &src, &dst, out);
}

/* ------------------------------------------------------- T.fill, T.clear */

/* Loops over every element of r (its non-unit dims). */
static tl_status region_loops(lower_ctx *c, const reg *r, loops *L, int *level) {
  loops_init(c, L);
  for (uint32_t d = 0; d < MAX_DIMS; d++) level[d] = -1;
  for (uint32_t d = 0; d < r->ndim; d++) {
    if (tl__is_int(r->ext[d], 1)) continue;
    level[d] = (int)L->n;
    TL__TRY(new_loop(c->mod, L, r->ext[d], NULL));
  }
  return TL_OK;
}

/* A value used at every element: let-bound unless it is a constant or a variable,
 * so it is evaluated once, before any element is written. */
static tl_status bind_once(tl_ir_module *mod, tl_ir_expr *value, const char *name, tl_ir_var **var, tl_ir_expr **use) {
  *var = NULL;
  *use = value;
  if (value->kind == TL_EXPR_INT || value->kind == TL_EXPR_FLOAT || value->kind == TL_EXPR_VAR) return TL_OK;
  *var = tl_ir_var_new(mod, name, value->dtype);
  *use = *var ? tl_ir_var_ref(mod, *var) : NULL;
  return *use ? TL_OK : tl__built(mod, NULL);
}

static tl_status lower_fill_or_clear(lower_ctx *c, const tl_ir_expr *call, bool clear, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  reg dst;
  TL__TRY(get_region(call, 0, &dst));
  tl_dtype dt = dst.buf->dtype;
  tl_ir_expr *value = clear ? tl__zero(mod, dt) : tl__convert(mod, dt, call->u.call.args[1]);
  if (!value) return tl__built(mod, NULL);
  tl_ir_var *v;
  tl_ir_expr *use;
  TL__TRY(bind_once(mod, value, "fill_value", &v, &use));
  loops L;
  int lv[MAX_DIMS];
  TL__TRY(region_loops(c, &dst, &L, lv));
  tl_ir_expr *idx[MAX_DIMS];
  for (uint32_t d = 0; d < dst.ndim; d++) idx[d] = index_of(mod, &dst, d, &L, lv);
  tl_ir_stmt *s = build_loops(mod, &L, tl_ir_store(mod, dst.buf, dst.ndim, idx, use));
  *out = v ? tl_ir_let(mod, v, value, s) : s;
  return *out ? TL_OK : tl__built(mod, NULL);
}

/* ------------------------------------------------------------------ T.gemm */

/* Significand bits of a float type (products of two such values are exact in a
 * type with at least the sum). */
static int significand_bits(tl_dtype t) {
  if (t.code == TL_DTYPE_BFLOAT) return 8;
  switch (t.bits) {
  case 16: return 11;
  case 32: return 24;
  default: return 53;
  }
}

/* The dtype the product of an A and a B element is formed in, so that converting
 * it to C's dtype rounds exactly as the interpreter's round(C, a * b) does. */
tl_dtype tl__gemm_product_dtype(tl_dtype a, tl_dtype b, tl_dtype c) {
  if (tl_dtype_is_int(c)) return c; /* wrapping arithmetic: exact in C's type */
  if (tl_dtype_eq(a, c) && tl_dtype_eq(b, c)) return c;
  if (tl_dtype_is_float(a) && tl_dtype_is_float(b) && significand_bits(a) + significand_bits(b) <= significand_bits(c))
    return c;
  return TL_DT_FLOAT64;
}

/* Element (row, col) of a gemm operand's matrix (its last two dimensions). */
static void matrix_index(tl_ir_module *mod, const reg *r, tl_ir_expr *row, tl_ir_expr *col, tl_ir_expr **idx) {
  for (uint32_t d = 0; d < r->ndim; d++) idx[d] = r->mins[d];
  idx[r->ndim - 2] = tl__add(mod, r->mins[r->ndim - 2], row);
  idx[r->ndim - 1] = tl__add(mod, r->mins[r->ndim - 1], col);
}

static tl_status check_matrix(const tl_ir_expr *call, const reg *r, const char *which) {
  if (r->ndim < 2)
    return tl__pass_error(TL_EINVAL, call->span, "T.gemm: %s (buffer '%s') must have at least 2 dimensions", which,
                          r->buf->name);
  for (uint32_t d = 0; d + 2 < r->ndim; d++)
    if (!tl__is_int(r->ext[d], 1))
      return tl__pass_error(TL_EINVAL, call->span, "T.gemm: %s (buffer '%s') must be a matrix: dimension %u has extent other than 1",
                            which, r->buf->name, d);
  return TL_OK;
}

static tl_status lower_gemm(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  reg A, B, C;
  TL__TRY(get_region(call, 0, &A));
  TL__TRY(get_region(call, 1, &B));
  TL__TRY(get_region(call, 2, &C));
  TL__TRY(check_matrix(call, &A, "A"));
  TL__TRY(check_matrix(call, &B, "B"));
  TL__TRY(check_matrix(call, &C, "C"));
  int64_t ta = 0, tb = 0, clear = 0;
  tl__is_const_int(call->u.call.args[3], &ta);
  tl__is_const_int(call->u.call.args[4], &tb);
  tl__is_const_int(call->u.call.args[5], &clear);
  tl_dtype cd = C.buf->dtype;
  if (tl_dtype_is_int(cd) && (!tl_dtype_is_int(A.buf->dtype) || !tl_dtype_is_int(B.buf->dtype)))
    return tl__pass_error(TL_EINVAL, call->span, "T.gemm: an integer C (buffer '%s') needs integer A and B", C.buf->name);
  tl_ir_expr *M = C.ext[C.ndim - 2], *N = C.ext[C.ndim - 1];
  tl_ir_expr *K = ta ? A.ext[A.ndim - 2] : A.ext[A.ndim - 1];
  tl_ir_var *i = tl_ir_var_new(mod, "i", M->dtype), *j = tl_ir_var_new(mod, "j", N->dtype),
            *k = tl_ir_var_new(mod, "k", K->dtype);
  if (!i || !j || !k) return tl__built(mod, NULL);
  tl_ir_expr *vi = tl_ir_var_ref(mod, i), *vj = tl_ir_var_ref(mod, j), *vk = tl_ir_var_ref(mod, k);
  tl_ir_expr *aidx[MAX_DIMS], *bidx[MAX_DIMS], *cidx[MAX_DIMS];
  matrix_index(mod, &A, ta ? vk : vi, ta ? vi : vk, aidx);
  matrix_index(mod, &B, tb ? vj : vk, tb ? vk : vj, bidx);
  matrix_index(mod, &C, vi, vj, cidx);
  tl_dtype pd = tl__gemm_product_dtype(A.buf->dtype, B.buf->dtype, cd);
  tl_ir_expr *prod = tl_ir_binary(mod, TL_BIN_MUL, tl__convert(mod, pd, tl_ir_load(mod, A.buf, A.ndim, aidx)),
                                  tl__convert(mod, pd, tl_ir_load(mod, B.buf, B.ndim, bidx)));
  tl_ir_expr *acc = tl_ir_binary(mod, TL_BIN_ADD, tl_ir_load(mod, C.buf, C.ndim, cidx), tl__convert(mod, cd, prod));
  tl_ir_stmt *update = tl_ir_store(mod, C.buf, C.ndim, cidx, acc);
  tl_ir_stmt *jl = tl_ir_for(mod, TL_FOR_SERIAL, 1, &j, NULL, &N, update);
  tl_ir_stmt *kl = tl_ir_for(mod, TL_FOR_SERIAL, 1, &k, NULL, &K, jl);
  tl_ir_stmt *main_nest = tl_ir_for(mod, TL_FOR_SERIAL, 1, &i, NULL, &M, kl);
  if (!clear) {
    *out = main_nest;
    return *out ? TL_OK : tl__built(mod, NULL);
  }
  tl_ir_var *i0 = tl_ir_var_new(mod, "i", M->dtype), *j0 = tl_ir_var_new(mod, "j", N->dtype);
  if (!i0 || !j0) return tl__built(mod, NULL);
  tl_ir_expr *zidx[MAX_DIMS];
  matrix_index(mod, &C, tl_ir_var_ref(mod, i0), tl_ir_var_ref(mod, j0), zidx);
  tl_ir_stmt *zero = tl_ir_store(mod, C.buf, C.ndim, zidx, tl__zero(mod, cd));
  tl_ir_stmt *zl = tl_ir_for(mod, TL_FOR_SERIAL, 1, &i0, NULL, &M, tl_ir_for(mod, TL_FOR_SERIAL, 1, &j0, NULL, &N, zero));
  tl_ir_stmt *both[2] = {zl, main_nest};
  *out = tl_ir_seq(mod, 2, both);
  return *out ? TL_OK : tl__built(mod, NULL);
}

/* ------------------------------------------------------------ reductions */

/* An accumulator: a local.var buffer, its ALLOC and a load of it. */
typedef struct accum {
  tl_ir_buffer *buf;
  tl_ir_stmt *alloc;
} accum;

static tl_status new_accum(tl_ir_module *mod, tl_dtype t, accum *a) {
  a->buf = tl_ir_buffer_new(mod, "acc", t, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
  a->alloc = a->buf ? tl_ir_alloc(mod, a->buf) : NULL;
  return a->alloc ? TL_OK : tl__built(mod, NULL);
}

static tl_ir_expr *acc_load(tl_ir_module *mod, const accum *a) { return tl_ir_load(mod, a->buf, 0, NULL); }
static tl_ir_stmt *acc_store(tl_ir_module *mod, const accum *a, tl_ir_expr *v) { return tl_ir_store(mod, a->buf, 0, NULL, v); }

static tl_status dim_arg(const tl_ir_expr *call, uint32_t i, const reg *src, uint32_t *dim) {
  int64_t d;
  if (!tl__is_const_int(call->u.call.args[i], &d) || d < 0 || d >= (int64_t)src->ndim)
    return tl__pass_error(TL_EINVAL, call->span, "%s: dim must be an integer constant from 0 to %u",
                          tl_ir_op_name(call->u.call.op), src->ndim ? src->ndim - 1 : 0);
  *dim = (uint32_t)d;
  return TL_OK;
}

static tl_status lower_reduce(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  tl_ir_op op = call->u.call.op;
  reg src, dst;
  uint32_t dim;
  int64_t clear = 1;
  TL__TRY(get_region(call, 0, &src));
  TL__TRY(get_region(call, 1, &dst));
  TL__TRY(dim_arg(call, 2, &src, &dim));
  tl__is_const_int(call->u.call.args[3], &clear);
  if (!pairable(&src, dim, &dst))
    return tl__pass_error(TL_EUNSUPPORTED, call->span,
                          "%s: the dimensions of buffer '%s' (without dim %u) and of buffer '%s' cannot be matched "
                          "statically; give their extents as constants",
                          tl_ir_op_name(op), src.buf->name, dim, dst.buf->name);
  loops L;
  loops_init(c, &L);
  int sl[MAX_DIMS], dl[MAX_DIMS];
  TL__TRY(pair_loops(c, call, &src, dim, &dst, &L, sl, dl));
  tl_dtype dt = dst.buf->dtype;
  accum acc;
  TL__TRY(new_accum(mod, dt, &acc));
  tl_ir_var *r = tl_ir_var_new(mod, "r", src.ext[dim]->dtype);
  if (!r) return tl__built(mod, NULL);
  tl_ir_expr *sidx[MAX_DIMS], *didx[MAX_DIMS];
  for (uint32_t d = 0; d < src.ndim; d++)
    sidx[d] = d == dim ? tl__add(mod, src.mins[d], tl_ir_var_ref(mod, r)) : index_of(mod, &src, d, &L, sl);
  for (uint32_t d = 0; d < dst.ndim; d++) didx[d] = index_of(mod, &dst, d, &L, dl);
  tl_ir_expr *x = tl__convert(mod, dt, tl_ir_load(mod, src.buf, src.ndim, sidx));
  x = tl__fold_input(mod, op, x);
  tl_ir_stmt *step = acc_store(mod, &acc, tl__fold_combine(mod, op, acc_load(mod, &acc), x));
  tl_ir_expr *result = clear ? acc_load(mod, &acc)
                             : tl__fold_combine(mod, op, tl_ir_load(mod, dst.buf, dst.ndim, didx), acc_load(mod, &acc));
  tl_ir_stmt *body[4] = {acc.alloc, acc_store(mod, &acc, tl__fold_identity(mod, op, dt)),
                         tl_ir_for(mod, TL_FOR_SERIAL, 1, &r, NULL, &src.ext[dim], step),
                         tl_ir_store(mod, dst.buf, dst.ndim, didx, result)};
  *out = build_loops(mod, &L, tl_ir_seq(mod, 4, body));
  return *out ? TL_OK : tl__built(mod, NULL);
}

/* ---------------------------------------------------------------- T.cumsum */

static tl_status lower_cumsum(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  tl_ir_op op = call->u.call.op;
  reg src, dst;
  uint32_t dim;
  int64_t reverse = 0;
  TL__TRY(get_region(call, 0, &src));
  TL__TRY(get_region(call, 1, &dst));
  TL__TRY(dim_arg(call, 2, &src, &dim));
  tl__is_const_int(call->u.call.args[3], &reverse);
  if (src.buf == dst.buf && !same_region(&src, &dst))
    return tl__pass_error(TL_EUNSUPPORTED, call->span,
                          "%s from one region of buffer '%s' into another is not supported; use the same region "
                          "or another buffer",
                          tl_ir_op_name(op), src.buf->name);
  if (!pairable(&src, UINT32_MAX, &dst))
    return tl__pass_error(TL_EUNSUPPORTED, call->span,
                          "%s: the dimensions of buffers '%s' and '%s' cannot be matched statically; give their "
                          "extents as constants",
                          tl_ir_op_name(op), src.buf->name, dst.buf->name);
  /* Pair all dims, then take the scanned dim's loop out of the outer nest. */
  loops all;
  loops_init(c, &all);
  int sl[MAX_DIMS], dl[MAX_DIMS];
  TL__TRY(pair_loops(c, call, &src, UINT32_MAX, &dst, &all, sl, dl));
  int scan = sl[dim]; /* -1 when dim has extent 1 */
  loops L;
  loops_init(c, &L);
  int remap[MAX_DIMS];
  for (uint32_t p = 0; p < all.n; p++) {
    remap[p] = -1;
    if ((int)p == scan) continue;
    remap[p] = (int)L.n;
    L.vars[L.n] = all.vars[p];
    L.ext[L.n++] = all.ext[p];
  }
  tl_ir_var *r = scan >= 0 ? all.vars[scan] : tl_ir_var_new(mod, "r", src.ext[dim]->dtype);
  if (!r) return tl__built(mod, NULL);
  tl_ir_expr *len = scan >= 0 ? all.ext[scan] : src.ext[dim];
  /* Position along the line: r, or len - 1 - r from the end. */
  tl_ir_expr *pos = tl_ir_var_ref(mod, r);
  if (reverse) pos = tl__sub(mod, tl__sub(mod, len, tl__int_like(mod, len, 1)), pos);
  tl_ir_expr *sidx[MAX_DIMS], *didx[MAX_DIMS];
  for (uint32_t d = 0; d < src.ndim; d++) {
    if (d == dim) sidx[d] = tl__add(mod, src.mins[d], pos);
    else if (sl[d] >= 0) sidx[d] = tl__add(mod, src.mins[d], tl_ir_var_ref(mod, L.vars[remap[sl[d]]]));
    else sidx[d] = src.mins[d];
  }
  for (uint32_t d = 0; d < dst.ndim; d++) {
    if (dl[d] >= 0 && dl[d] == scan) didx[d] = tl__add(mod, dst.mins[d], pos);
    else if (dl[d] >= 0) didx[d] = tl__add(mod, dst.mins[d], tl_ir_var_ref(mod, L.vars[remap[dl[d]]]));
    else didx[d] = dst.mins[d];
  }
  tl_dtype dt = dst.buf->dtype;
  accum acc;
  TL__TRY(new_accum(mod, dt, &acc));
  tl_ir_expr *x = tl__convert(mod, dt, tl_ir_load(mod, src.buf, src.ndim, sidx));
  tl_ir_stmt *step[2] = {acc_store(mod, &acc, tl__fold_combine(mod, op, acc_load(mod, &acc), x)),
                         tl_ir_store(mod, dst.buf, dst.ndim, didx, acc_load(mod, &acc))};
  tl_ir_stmt *body[3] = {acc.alloc, acc_store(mod, &acc, tl__fold_identity(mod, op, dt)),
                         tl_ir_for(mod, TL_FOR_SERIAL, 1, &r, NULL, &len, tl_ir_seq(mod, 2, step))};
  *out = build_loops(mod, &L, tl_ir_seq(mod, 3, body));
  return *out ? TL_OK : tl__built(mod, NULL);
}

/* ------------------------------------------------------------ T.atomic_add */

/* dst[idx] = dst[idx] <combine> value (T.atomic_add: +, T.atomic_max: max, ...;
 * the op's FOLD): atomically on global memory (blocks run in parallel), and on
 * shared memory in per-thread code (the block's threads race), through the op's
 * one-element atomic. */
static tl_ir_stmt *add_elem(const lower_ctx *c, tl_ir_op op, const reg *dst, tl_ir_expr **idx, tl_ir_expr *value) {
  tl_ir_module *mod = c->mod;
  bool shared = dst->buf->scope == TL_SCOPE_SHARED || dst->buf->scope == TL_SCOPE_SHARED_DYN;
  if (!dst->global && !(c->per_thread && shared))
    return tl_ir_store(mod, dst->buf, dst->ndim, idx,
                       tl__fold_combine(mod, op, tl_ir_load(mod, dst->buf, dst->ndim, idx), value));
  tl_ir_expr *ones[MAX_DIMS];
  for (uint32_t d = 0; d < dst->ndim; d++) ones[d] = tl__int_like(mod, idx[d], 1);
  tl_ir_expr *args[2] = {tl_ir_region(mod, dst->buf, idx, ones, TL_REGION_POINT), value};
  return tl_ir_eval(mod, tl_ir_call(mod, tl__atomic_elem_of(op), TL_DT_HANDLE, 2, args));
}

static tl_status lower_atomic_add(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_module *mod = c->mod;
  reg dst;
  TL__TRY(get_region(call, 0, &dst));
  tl_dtype dt = dst.buf->dtype;
  const tl_ir_expr *ve = call->u.call.args[1];
  if (ve->kind != TL_EXPR_REGION) {
    tl_ir_expr *value = tl__convert(mod, dt, (tl_ir_expr *)ve);
    if (!value) return tl__built(mod, NULL);
    tl_ir_var *v;
    tl_ir_expr *use;
    TL__TRY(bind_once(mod, value, "add_value", &v, &use));
    loops L;
    int lv[MAX_DIMS];
    TL__TRY(region_loops(c, &dst, &L, lv));
    tl_ir_expr *idx[MAX_DIMS];
    for (uint32_t d = 0; d < dst.ndim; d++) idx[d] = index_of(mod, &dst, d, &L, lv);
    tl_ir_stmt *s = build_loops(mod, &L, add_elem(c, call->u.call.op, &dst, idx, use));
    *out = v ? tl_ir_let(mod, v, value, s) : s;
    return *out ? TL_OK : tl__built(mod, NULL);
  }
  reg src;
  TL__TRY(get_region(call, 1, &src));
  if (src.buf == dst.buf && !same_region(&src, &dst))
    return tl__pass_error(TL_EUNSUPPORTED, call->span,
                          "%s from one region of buffer '%s' into another is not supported",
                          tl_ir_op_name(call->u.call.op), dst.buf->name);
  if (!pairable(&src, UINT32_MAX, &dst))
    return tl__pass_error(TL_EUNSUPPORTED, call->span,
                          "%s: the dimensions of buffers '%s' and '%s' cannot be matched statically",
                          tl_ir_op_name(call->u.call.op), src.buf->name, dst.buf->name);
  loops L;
  loops_init(c, &L);
  int sl[MAX_DIMS], dl[MAX_DIMS];
  TL__TRY(pair_loops(c, call, &src, UINT32_MAX, &dst, &L, sl, dl));
  tl_ir_expr *sidx[MAX_DIMS], *didx[MAX_DIMS];
  for (uint32_t d = 0; d < src.ndim; d++) sidx[d] = index_of(mod, &src, d, &L, sl);
  for (uint32_t d = 0; d < dst.ndim; d++) didx[d] = index_of(mod, &dst, d, &L, dl);
  tl_ir_expr *value = tl__convert(mod, dt, tl_ir_load(mod, src.buf, src.ndim, sidx));
  *out = build_loops(mod, &L, add_elem(c, call->u.call.op, &dst, didx, value));
  return *out ? TL_OK : tl__built(mod, NULL);
}

/* --------------------------------------------------------------- dispatch */

static tl_status lower_clear(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  return lower_fill_or_clear(c, call, true, out);
}

static tl_status lower_fill(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  return lower_fill_or_clear(c, call, false, out);
}

/* The SERIAL and ELEMENTWISE columns of the op table (ir/op_table.h). */
typedef tl_status (*lower_fn)(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out);
#define lower_none NULL
#define LOWER_ROW(op, name, front, sig, args, defaults, written, written_read, fold, verify, interp, check, serial, \
                  ...)                                                                                            \
  [TL_OP_##op] = lower_##serial,
static const lower_fn k_lower[TL_OP__COUNT] = {TL__TILE_OPS(LOWER_ROW)};
#undef LOWER_ROW
#undef lower_none

static tl_status lower_op(lower_ctx *c, const tl_ir_expr *call, tl_ir_stmt **out) {
  tl_ir_op op = call->u.call.op;
  const tl__tile_op_info *t = tl__tile_op(op);
  *out = NULL;
  if (!t || !k_lower[op]) return TL_OK;            /* lowered builtins stay */
  if (c->parallel && !t->elementwise) return TL_OK; /* left for the GPU passes */
  return k_lower[op](c, call, out);
}

static tl_ir_stmt *lower_stmt(tl_ir_mutator *mu, tl_ir_stmt *s) {
  lower_ctx *c = mu->ctx;
  if (s->kind == TL_STMT_EVAL && s->u.eval.expr && s->u.eval.expr->kind == TL_EXPR_CALL &&
      tl_ir_op_is_tile(s->u.eval.expr->u.call.op)) {
    const tl_ir_expr *call = s->u.eval.expr;
    tl_ir_span old = tl__loc_push(mu->mod, call->span.line ? call->span : s->span);
    tl_ir_stmt *r = NULL;
    tl_status st = lower_op(c, call, &r);
    tl_ir_builder_set_loc(mu->mod, old);
    if (st != TL_OK) {
      tl_ir_mutator_fail(mu, st);
      return NULL;
    }
    return r ? r : s;
  }
  if (s->kind == TL_STMT_EVAL && s->u.eval.expr && s->u.eval.expr->kind == TL_EXPR_CALL &&
      s->u.eval.expr->u.call.op == TL_OP_ASSUME) {
    /* T.assume: a fact the interpreter checks; compiled code, as upstream's, has no check */
    tl_ir_span old = tl__loc_push(mu->mod, s->span);
    tl_ir_stmt *r = tl_ir_seq(mu->mod, 0, NULL);
    tl_ir_builder_set_loc(mu->mod, old);
    return r;
  }
  if (s->kind == TL_STMT_FOR || s->kind == TL_STMT_LET || s->kind == TL_STMT_KERNEL) {
    size_t mark = tl__bounds_mark(&c->b);
    tl_status st = tl__bounds_enter(&c->b, s);
    if (st != TL_OK) {
      tl_ir_mutator_fail(mu, st);
      return NULL;
    }
    bool outer = c->per_thread;
    if (s->kind == TL_STMT_KERNEL)
      c->per_thread = s->u.kernel.thread_vars[0] || s->u.kernel.thread_vars[1] || s->u.kernel.thread_vars[2];
    tl_ir_stmt *r = tl_ir_mutate_stmt_children(mu, s);
    c->per_thread = outer;
    tl__bounds_pop_to(&c->b, mark);
    return r;
  }
  return tl_ir_mutate_stmt_children(mu, s);
}

static tl_status lower_func(tl_ir_module *mod, tl_ir_func *f, bool parallel) {
  if (!f->body || f->callconv != TL_CALLCONV_DEFAULT) return TL_OK;
  lower_ctx c = {mod, {{0}}, parallel, false};
  tl__bounds_init(&c.b);
  tl_status st = tl__bounds_push_shape_vars(&c.b, f);
  if (st == TL_OK) {
    tl_ir_mutator mu = {mod, NULL, lower_stmt, &c, TL_OK};
    tl_ir_stmt *body = tl_ir_mutate_stmt(&mu, f->body);
    if (body) f->body = body;
    else st = mu.status;
  }
  tl__bounds_free(&c.b);
  return st;
}

tl_status tl__pass_lower_tile_ops(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) TL__TRY(lower_func(mod, tl_ir_module_func(mod, i), false));
  return TL_OK;
}

tl_status tl__pass_lower_elementwise_tile_ops(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) TL__TRY(lower_func(mod, tl_ir_module_func(mod, i), true));
  return TL_OK;
}

tl_status tl__lower_tile_op_serial(tl_ir_module *mod, const tl_ir_expr *call, tl_ir_stmt **out) {
  *out = NULL;
  if (!call || call->kind != TL_EXPR_CALL || !tl_ir_op_is_tile(call->u.call.op))
    return tl__error(TL_EINVAL, "tl__lower_tile_op_serial: not a tile op");
  lower_ctx c = {mod, {{0}}, false, false};
  tl__bounds_init(&c.b);
  tl_ir_span old = tl__loc_push(mod, call->span);
  tl_status st = lower_op(&c, call, out);
  tl_ir_builder_set_loc(mod, old);
  tl__bounds_free(&c.b);
  if (st == TL_OK && !*out) st = tl__error(TL_EINVAL, "tl__lower_tile_op_serial: %s is not lowered here", tl_ir_op_name(call->u.call.op));
  return st;
}
