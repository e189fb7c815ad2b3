/* Elaboration of tile operations (T.copy, T.fill, T.clear, T.gemm, T.reduce_*,
 * T.atomic_add, T.cumsum, T.sync_threads) and of their buffer-region arguments:
 * `A` (the whole buffer), `A[i, j]` (a point whose extents come from the other
 * operand, aligned to trailing dimensions) and `A[a:b, c]` (explicit ranges). */
#include <string.h>

#include "base/str.h"

#include "elab.h"
#include "ir/op_table.h"

typedef struct region {
  tl_ir_buffer *buf;
  tl_ir_region_form form;
  tl_ir_expr **mins, **extents; /* extents NULL for a point not yet resolved; both NULL for FULL */
  tl__pos at;
} region;

static tl__val *shape_val(tl__elab *E, tl_ir_expr *d) {
  return d->kind == TL_EXPR_INT && tl_dtype_eq(d->dtype, TL_DT_INT32) ? tl__val_int(E, d->u.int_value) : tl__val_expr(E, d);
}

/* One dimension of a slice region: lo:hi. `hi` written as `lo + e` gives the
 * extent e itself (that is how the printer writes slices back). */
static bool slice_dim(tl__elab *E, tl_ir_buffer *b, uint32_t d, const tl__ast_expr *s, tl_ir_expr **min,
                      tl_ir_expr **ext) {
  if (s->u.slice.step) {
    tl__val *st = tl__eval(E, s->u.slice.step);
    if (!st) return false;
    if (!((st->kind == V_INT && st->u.i == 1) || st->kind == V_NONE)) {
      tl__elab_error(E, POS(s->u.slice.step), "slice steps are not supported");
      return false;
    }
  }
  tl__val *lo = NULL;
  if (s->u.slice.lo && !(lo = tl__eval(E, s->u.slice.lo))) return false;
  bool lo_zero = !lo || (lo->kind == V_INT && lo->u.i == 0);
  tl__val *extent;
  const tl__ast_expr *hi = s->u.slice.hi;
  if (!hi) {
    tl__val *full = shape_val(E, b->shape[d]);
    if (!full) return false;
    extent = lo_zero ? full : tl__binop(E, s, AOP_SUB, full, lo);
  } else if (lo && hi->kind == AE_BINOP && hi->op == AOP_ADD && tl__ast_expr_equal(hi->u.bin.a, s->u.slice.lo)) {
    extent = tl__eval(E, hi->u.bin.b);
  } else {
    tl__val *h = tl__eval(E, hi);
    if (!h) return false;
    extent = lo_zero ? h : tl__binop(E, s, AOP_SUB, h, lo);
  }
  if (!extent) return false;
  if (lo) {
    *min = tl__to_index(E, lo, POS(s), "a slice start");
  } else {
    tl__elab_at(E, POS(s));
    *min = tl_ir_i32(E->mod, 0);
    if (!*min) tl__elab_builder_failed(E);
  }
  if (!*min) return false;
  *ext = tl__to_index(E, extent, POS(s), "a slice extent");
  return *ext != NULL;
}

/* A tile-op argument as a region. With scalar_ok, anything that is not a buffer or
 * a sliced buffer is returned in *scalar instead (r->buf stays NULL). */
static bool eval_region(tl__elab *E, const tl__ast_expr *a, const char *opname, region *r, bool scalar_ok,
                        tl__val **scalar) {
  memset(r, 0, sizeof *r);
  r->at = POS(a);
  if (scalar) *scalar = NULL;
  if (a->kind == AE_SUBSCRIPT) {
    tl__val *obj = tl__eval(E, a->u.sub.obj);
    if (!obj) return false;
    if (obj->kind == V_BUFFER) {
      tl_ir_buffer *b = obj->u.buf;
      const tl__ast_expr *idx = a->u.sub.index;
      uint32_t n = idx->kind == AE_TUPLE ? idx->u.seq.n : 1;
      const tl__ast_expr *const *items = idx->kind == AE_TUPLE ? (const tl__ast_expr *const *)idx->u.seq.items : &idx;
      bool has_slice = false;
      for (uint32_t i = 0; i < n; i++) has_slice |= items[i]->kind == AE_SLICE;
      if (!has_slice && scalar_ok) {
        *scalar = tl__eval(E, a);
        return *scalar != NULL;
      }
      if (n != b->ndim) {
        tl__elab_error(E, POS(a), "buffer '%s' has %u dimension%s but the region of %s gives %u", b->name, b->ndim,
                 b->ndim == 1 ? "" : "s", opname, n);
        return false;
      }
      r->buf = b;
      r->form = has_slice ? TL_REGION_SLICE : TL_REGION_POINT;
      r->mins = tl__parse_alloc(E->p, sizeof *r->mins * n);
      if (!r->mins) return false;
      if (has_slice && !(r->extents = tl__parse_alloc(E->p, sizeof *r->extents * n))) return false;
      for (uint32_t i = 0; i < n; i++) {
        if (items[i]->kind == AE_SLICE) {
          if (!slice_dim(E, b, i, items[i], &r->mins[i], &r->extents[i])) return false;
          continue;
        }
        tl__val *v = tl__eval(E, items[i]);
        if (!v || !(r->mins[i] = tl__to_index(E, v, POS(items[i]), "a region start"))) return false;
        if (has_slice) {
          tl__elab_at(E, POS(items[i]));
          if (!(r->extents[i] = tl_ir_i32(E->mod, 1))) return tl__elab_builder_failed(E), false;
        }
      }
      return true;
    }
    if (!scalar_ok) {
      tl__elab_error(E, POS(a), "%s expects a buffer or a buffer region, got %s", opname, tl__val_describe(E, obj));
      return false;
    }
  }
  tl__val *v = tl__eval(E, a);
  if (!v) return false;
  if (v->kind == V_BUFFER) {
    r->buf = v->u.buf;
    r->form = TL_REGION_FULL;
    return true;
  }
  if (scalar_ok) {
    *scalar = v;
    return true;
  }
  tl__elab_error(E, POS(a), "%s expects a buffer or a buffer region, got %s", opname, tl__val_describe(E, v));
  return false;
}

/* Extents of a point region from the other operand, aligned to trailing
 * dimensions; leading dimensions the other operand lacks get extent 1. */
static bool resolve_point(tl__elab *E, region *p, const region *other, const char *opname) {
  if (p->form != TL_REGION_POINT || p->extents) return true;
  if (!other || other->form == TL_REGION_POINT) {
    tl__elab_error(E, p->at, "%s cannot tell the extent of this region: give the other operand as a whole buffer or a slice "
             "(e.g. %s[i:i + n, j])", opname, p->buf->name);
    return false;
  }
  uint32_t pn = p->buf->ndim, on = other->buf->ndim;
  tl_ir_expr *const *oext = other->form == TL_REGION_FULL ? other->buf->shape : other->extents;
  p->extents = tl__parse_alloc(E->p, sizeof *p->extents * pn);
  if (!p->extents) return false;
  for (uint32_t d = 0; d < pn; d++) {
    int64_t k = (int64_t)d - (int64_t)pn + (int64_t)on;
    if (k >= 0) {
      p->extents[d] = oext[k];
    } else {
      tl__elab_at(E, p->at);
      if (!(p->extents[d] = tl_ir_i32(E->mod, 1))) return tl__elab_builder_failed(E), false;
    }
  }
  return true;
}

/* A point region that stands for one element (T.fill, T.clear, T.atomic_add with a scalar). */
static bool unit_point(tl__elab *E, region *p) {
  if (p->form != TL_REGION_POINT || p->extents) return true;
  p->extents = tl__parse_alloc(E->p, sizeof *p->extents * p->buf->ndim);
  if (!p->extents) return false;
  tl__elab_at(E, p->at);
  for (uint32_t d = 0; d < p->buf->ndim; d++)
    if (!(p->extents[d] = tl_ir_i32(E->mod, 1))) return tl__elab_builder_failed(E), false;
  return true;
}

/* T.atomic_addx2/x4: an element names the `lanes` consecutive elements that start
 * there (along the last dimension); a slice must already have that many. */
static bool lanes_region(tl__elab *E, region *r, uint32_t lanes, const char *opname) {
  uint32_t n = r->buf->ndim;
  if (n == 0) {
    tl__elab_error(E, r->at, "%s adds %u consecutive elements: '%s' has no dimensions", opname, lanes, r->buf->name);
    return false;
  }
  if (r->form == TL_REGION_POINT && !r->extents) {
    if (!unit_point(E, r)) return false;
    tl__elab_at(E, r->at);
    if (!(r->extents[n - 1] = tl_ir_i32(E->mod, lanes))) return tl__elab_builder_failed(E), false;
    return true;
  }
  int64_t count = 1;
  for (uint32_t d = 0; d < n; d++) {
    tl_ir_expr *x = r->form == TL_REGION_FULL ? r->buf->shape[d] : r->extents[d];
    if (!x || x->kind != TL_EXPR_INT) {
      count = -1;
      break;
    }
    count *= x->u.int_value;
  }
  if (count == (int64_t)lanes) return true;
  tl__elab_error(E, r->at, "%s adds %u consecutive elements: give one element of '%s' or a region of %u elements",
                 opname, lanes, r->buf->name, lanes);
  return false;
}

/* T.any_of / T.all_of: the elements first..first+count-1 (row-major over the
 * region's extents) folded by || (&&) as a balanced tree, so that the expression's
 * depth grows with the log of the count. */
#define ANY_ALL_MAX 1024 /* elements: a bigger region would be a huge expression */
#define ANY_ALL_DIMS 16  /* as the interpreter's buffers */
static tl_ir_expr *any_all_fold(tl__elab *E, const region *r, const int64_t *ext, int64_t first, int64_t count,
                                bool all) {
  if (count > 1) {
    int64_t half = count / 2;
    tl_ir_expr *a = any_all_fold(E, r, ext, first, half, all);
    tl_ir_expr *b = a ? any_all_fold(E, r, ext, first + half, count - half, all) : NULL;
    return b ? tl_ir_binary(E->mod, all ? TL_BIN_AND : TL_BIN_OR, a, b) : NULL;
  }
  uint32_t n = r->buf->ndim;
  tl_ir_expr *idx[ANY_ALL_DIMS];
  for (uint32_t d = n; d-- > 0;) {
    int64_t k = first % ext[d];
    first /= ext[d];
    tl_ir_expr *lo = r->form == TL_REGION_FULL ? NULL : r->mins[d];
    idx[d] = !lo ? tl_ir_i32(E->mod, k) : k == 0 ? lo : tl_ir_binary(E->mod, TL_BIN_ADD, lo, tl_ir_int(E->mod, lo->dtype, k));
    if (!idx[d]) return NULL;
  }
  tl_ir_expr *x = tl_ir_load(E->mod, r->buf, n, idx);
  if (!x || tl_dtype_is_bool(x->dtype)) return x;
  tl_ir_expr *zero = tl_dtype_is_float(x->dtype) ? tl_ir_float(E->mod, x->dtype, 0.0) : tl_ir_int(E->mod, x->dtype, 0);
  return zero ? tl_ir_binary(E->mod, TL_BIN_NE, x, zero) : NULL;
}

tl__val *tl__elab_any_all(tl__elab *E, const tl__ast_expr *call, const char *opname, bool all) {
  static const char *const names[] = {"buffer"};
  const tl__ast_expr *a[1];
  region r;
  if (!tl__call_args(E, call, opname, names, 1, 1, a) || !eval_region(E, a[0], opname, &r, false, NULL)) return NULL;
  if (!unit_point(E, &r)) return NULL;
  uint32_t n = r.buf->ndim;
  if (n > ANY_ALL_DIMS) {
    tl__elab_error(E, r.at, "%s: buffer '%s' has more than %d dimensions", opname, r.buf->name, ANY_ALL_DIMS);
    return NULL;
  }
  int64_t ext[ANY_ALL_DIMS], count = 1;
  for (uint32_t d = 0; d < n; d++) {
    const tl_ir_expr *x = r.form == TL_REGION_FULL ? r.buf->shape[d] : r.extents[d];
    if (!x || x->kind != TL_EXPR_INT || x->u.int_value < 0) {
      tl__elab_error(E, r.at, "%s needs a region of '%s' whose extents are constants", opname, r.buf->name);
      return NULL;
    }
    ext[d] = x->u.int_value;
    count = count > ANY_ALL_MAX ? count : count * ext[d];
  }
  if (count > ANY_ALL_MAX) {
    tl__elab_error(E, r.at, "%s over more than %d elements of '%s' is not supported", opname, ANY_ALL_MAX, r.buf->name);
    return NULL;
  }
  tl__elab_at(E, POS(call));
  tl_ir_expr *e = count == 0 ? tl_ir_bool(E->mod, all) : any_all_fold(E, &r, ext, 0, count, all);
  if (!e) return tl__elab_builder_failed(E), NULL;
  return tl__val_expr(E, e);
}
#undef ANY_ALL_MAX
#undef ANY_ALL_DIMS

static tl_ir_expr *region_expr(tl__elab *E, const region *r) {
  tl__elab_at(E, r->at);
  tl_ir_expr *e = r->form == TL_REGION_FULL ? tl_ir_region(E->mod, r->buf, NULL, NULL, TL_REGION_FULL)
                                            : tl_ir_region(E->mod, r->buf, r->mins, r->extents, r->form);
  if (!e) tl__elab_builder_failed(E);
  return e;
}

static bool no_point(tl__elab *E, const region *r, const char *opname) {
  if (r->form != TL_REGION_POINT) return true;
  tl__elab_error(E, r->at, "%s needs whole buffers or slices, not a single element", opname);
  return false;
}

static tl_ir_expr *flag(tl__elab *E, const tl__ast_expr *a, const char *what, bool dflt) {
  bool b = dflt;
  if (a) {
    tl__val *v = tl__eval(E, a);
    if (!v || !tl__as_bool(E, v, POS(a), what, &b)) return NULL;
  }
  tl_ir_expr *e = tl_ir_i32(E->mod, b ? 1 : 0);
  if (!e) tl__elab_builder_failed(E);
  return e;
}

/* T.gemm's policy= as its value (0 Square, the default, as upstream): a
 * T.GemmWarpPolicy member (the front end keeps members as their names) or the
 * integer upstream's IntEnum is. A value only known at run time leaves the
 * default: the policy chooses how warps split C, never what is computed. */
static tl_ir_expr *warp_policy(tl__elab *E, const tl__ast_expr *a) {
  static const char *const names[] = TL__GEMM_POLICY_NAMES;
  int64_t p = 0;
  tl__val *v = a ? tl__try_eval(E, a, NULL) : NULL;
  if (a && !v && E->p->status != TL_OK) return NULL;
  /* T.GemmWarpPolicy.X must name a member */
  tl__val *obj = !v && a && a->kind == AE_ATTR ? tl__try_eval(E, a->u.attr.obj, NULL) : NULL;
  if (obj && obj->kind == V_BUILTIN && obj->u.bi.id == BI_WARP_POLICY && !tl__eval(E, a)) return NULL;
  if (v && v->kind == V_STR) {
    for (int64_t i = 0; i < TL__GEMM_POLICY_COUNT; i++)
      if (strlen(names[i]) == v->u.str.n && memcmp(names[i], v->u.str.s, v->u.str.n) == 0) p = i;
  } else if (v && v->kind == V_INT) {
    if (v->u.i < 0 || v->u.i >= TL__GEMM_POLICY_COUNT) {
      tl__elab_error(E, POS(a), "T.gemm: policy %lld is not a T.GemmWarpPolicy (0 Square, 1 FullRow, 2 FullCol)",
                     (long long)v->u.i);
      return NULL;
    }
    p = v->u.i;
  }
  tl_ir_expr *e = tl_ir_i32(E->mod, p);
  if (!e) tl__elab_builder_failed(E);
  return e;
}

/* A dimension argument, negative counting from the end of a rank-ndim buffer. */
static tl_ir_expr *dim_arg(tl__elab *E, const tl__ast_expr *a, int64_t dflt, uint32_t ndim, const char *opname,
                           tl__pos call_at) {
  int64_t d = dflt;
  if (a) {
    tl__val *v = tl__eval(E, a);
    if (!v || !tl__as_int(E, v, POS(a), "dim", &d)) return NULL;
  }
  int64_t norm = d < 0 ? d + (int64_t)ndim : d;
  if (norm < 0 || norm >= (int64_t)ndim) {
    tl__elab_error(E, a ? POS(a) : call_at, "%s: dim %lld is out of range for a %u-dimensional buffer", opname,
             (long long)d, ndim);
    return NULL;
  }
  tl_ir_expr *e = tl_ir_i32(E->mod, norm);
  if (!e) tl__elab_builder_failed(E);
  return e;
}

static tl_ir_stmt *eval_call(tl__elab *E, const tl__ast_expr *call, tl_ir_op op, uint32_t n, tl_ir_expr **args) {
  for (uint32_t i = 0; i < n; i++)
    if (!args[i]) return NULL;
  tl__elab_at(E, POS(call));
  tl_ir_expr *c = tl_ir_call(E->mod, op, TL_DT_HANDLE, n, args);
  tl_ir_stmt *s = c ? tl_ir_eval(E->mod, c) : NULL;
  if (!s) tl__elab_builder_failed(E);
  return s;
}

/* Keyword arguments of tile operations that are hints (recorded, elab_hints.c). */
static const char *const COPY_HINTS[] = {"disable_tma", "coalesced_width", "eviction_policy", "loop_layout"};
static const char *const GEMM_HINTS[] = {"k_pack", "wg_wait", "mbar", "use_2cta"}; /* policy= is an argument */
/* return_prev: the statement form drops the value, so it changes nothing there
 * (an atomic used as a value is an error in elab_expr.c). */
static const char *const ATOMIC_HINTS[] = {"memory_order", "return_prev", "use_tma"};

tl_ir_stmt *tl__elab_tile_op(tl__elab *E, const tl__ast_expr *call, const tl__builtin_info *bi) {
  const char *opname = bi->name; /* as written: "T.copy" */
  switch (bi->id) {
    case BI_COPY: if (!tl__elab_hint_kwargs(E, call, "copy", COPY_HINTS, 4, &call)) return NULL; break;
    case BI_GEMM: if (!tl__elab_hint_kwargs(E, call, "gemm", GEMM_HINTS, 4, &call)) return NULL; break;
    case BI_ATOMIC_ADDX:
      if (!tl__elab_hint_kwargs(E, call, bi->op == 2 ? "atomic_addx2" : "atomic_addx4", ATOMIC_HINTS, 2, &call)) return NULL;
      break;
    case BI_ATOMIC_ADD: /* T.atomic_add, T.atomic_max, T.atomic_min */
      if (!tl__elab_hint_kwargs(E, call, tl_ir_op_name((tl_ir_op)bi->op) + 2, ATOMIC_HINTS, 3, &call)) return NULL;
      break;
    default: break;
  }
  const tl__ast_expr *a[7];
  tl_ir_op op = bi->id == BI_ATOMIC_ADDX ? TL_OP_ATOMIC_ADD : (tl_ir_op)bi->op;
  region r0, r1, r2;
  tl_ir_expr *args[7];
  switch (bi->id) {
    case BI_COPY: {
      static const char *const names[] = {"src", "dst"};
      if (!tl__call_args(E, call, opname, names, 2, 2, a)) return NULL;
      if (!eval_region(E, a[0], opname, &r0, false, NULL) || !eval_region(E, a[1], opname, &r1, false, NULL)) return NULL;
      /* Both single elements: upstream stores dst[...] = src[...]; here a copy of
       * one element (converted to dst's dtype, as every T.copy is). */
      if (r0.form == TL_REGION_POINT && r1.form == TL_REGION_POINT && (!unit_point(E, &r0) || !unit_point(E, &r1)))
        return NULL;
      if (!resolve_point(E, &r0, &r1, opname) || !resolve_point(E, &r1, &r0, opname)) return NULL;
      args[0] = region_expr(E, &r0);
      args[1] = args[0] ? region_expr(E, &r1) : NULL;
      return eval_call(E, call, op, 2, args);
    }
    case BI_ATOMIC_ADDX: {
      /* Upstream's vectorised add of 2 (4) elements: elementwise the same as
       * T.atomic_add over those elements (each one atomic; the group is not). */
      static const char *const names[] = {"dst", "value"};
      if (!tl__call_args(E, call, opname, names, 2, 2, a)) return NULL;
      if (!eval_region(E, a[0], opname, &r0, false, NULL) || !eval_region(E, a[1], opname, &r1, false, NULL))
        return NULL;
      if (!lanes_region(E, &r0, (uint32_t)bi->op, opname) || !lanes_region(E, &r1, (uint32_t)bi->op, opname))
        return NULL;
      args[0] = region_expr(E, &r0);
      args[1] = args[0] ? region_expr(E, &r1) : NULL;
      tl_ir_stmt *st = eval_call(E, call, op, 2, args);
      /* In per-thread code (elab_simt.c) it is the thread's own vector atomic. */
      tl__addx_call *rec = st && E->fn ? tl__parse_alloc(E->p, sizeof *rec) : NULL;
      if (st && E->fn && !rec) return NULL;
      if (rec) {
        rec->call = st->u.eval.expr;
        rec->next = E->fn->kernel.addx;
        E->fn->kernel.addx = rec;
      }
      return st;
    }
    case BI_FILL: case BI_CLEAR: {
      static const char *const names[] = {"buffer", "value"};
      bool fill = bi->id == BI_FILL;
      if (!tl__call_args(E, call, opname, names, fill ? 2 : 1, fill ? 2 : 1, a)) return NULL;
      /* A T.alloc_var scalar: clearing (filling) it assigns it, as upstream does. */
      tl__val *slot = a[0]->kind == AE_NAME ? tl__try_eval(E, a[0], NULL) : NULL;
      if (slot && slot->kind == V_VARSLOT) {
        tl__val *v = fill ? tl__eval(E, a[1]) : tl__val_int(E, 0);
        tl_ir_expr *x = v ? tl__to_dtype(E, v, fill ? POS(a[1]) : POS(call), slot->u.buf->dtype) : NULL;
        if (!x) return NULL;
        tl__elab_at(E, POS(call));
        tl_ir_stmt *st = tl_ir_store(E->mod, slot->u.buf, 0, NULL, x);
        if (!st) tl__elab_builder_failed(E);
        return st;
      }
      if (!eval_region(E, a[0], opname, &r0, false, NULL) || !unit_point(E, &r0)) return NULL;
      args[0] = region_expr(E, &r0);
      if (!fill) return eval_call(E, call, op, 1, args);
      tl__val *v = tl__eval(E, a[1]);
      args[1] = v ? tl__to_dtype(E, v, POS(a[1]), r0.buf->dtype) : NULL;
      return eval_call(E, call, op, 2, args);
    }
    case BI_GEMM: {
      /* upstream's order: A, B, C, transpose_A, transpose_B, policy, clear_accum, k_pack, wg_wait */
      static const char *const names[] = {"A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum",
                                          "k_pack", "wg_wait"};
      const tl__ast_expr *g[9];
      if (!tl__call_args(E, call, opname, names, 9, 3, g)) return NULL;
      memcpy(a, g, sizeof a);
      for (int k = 7; k < 9; k++) /* positional k_pack, wg_wait: hints too */
        if (g[k]) {
          tl__sb sb = TL__SB_INIT;
          tl__val *hv = tl__try_eval(E, g[k], NULL);
          if (!hv && E->p->status != TL_OK) return NULL;
          if (hv && hv->kind == V_STR) tl__sb_appendf(&sb, "%s=%.*s", names[k], (int)hv->u.str.n, hv->u.str.s);
          else if (hv && hv->kind == V_INT) tl__sb_appendf(&sb, "%s=%lld", names[k], (long long)hv->u.i);
          else tl__sb_appendf(&sb, "%s=(an expression)", names[k]);
          bool ok = tl__sb_status(&sb) == TL_OK ? tl__elab_hint(E, POS(g[k]), "gemm", tl__sb_str(&sb))
                                                 : (tl__parse_oom(E->p), false);
          tl__sb_free(&sb);
          if (!ok) return NULL;
        }
      if (!eval_region(E, a[0], opname, &r0, false, NULL) || !eval_region(E, a[1], opname, &r1, false, NULL) ||
          !eval_region(E, a[2], opname, &r2, false, NULL))
        return NULL;
      if (!no_point(E, &r0, opname) || !no_point(E, &r1, opname) || !no_point(E, &r2, opname)) return NULL;
      args[0] = region_expr(E, &r0);
      args[1] = args[0] ? region_expr(E, &r1) : NULL;
      args[2] = args[1] ? region_expr(E, &r2) : NULL;
      if (!args[2]) return NULL;
      tl__elab_at(E, POS(call));
      args[3] = flag(E, a[3], "transpose_A", false);
      args[4] = args[3] ? flag(E, a[4], "transpose_B", false) : NULL;
      args[5] = args[4] ? flag(E, a[6], "clear_accum", false) : NULL;
      args[6] = args[5] ? warp_policy(E, g[5]) : NULL;
      return args[6] ? eval_call(E, call, op, 7, args) : NULL;
    }
    case BI_REDUCE: {
      static const char *const names[] = {"buffer", "out", "dim", "clear"};
      if (!tl__call_args(E, call, opname, names, 4, 2, a)) return NULL;
      if (!eval_region(E, a[0], opname, &r0, false, NULL) || !eval_region(E, a[1], opname, &r1, false, NULL)) return NULL;
      if (!no_point(E, &r0, opname) || !no_point(E, &r1, opname)) return NULL;
      args[0] = region_expr(E, &r0);
      args[1] = args[0] ? region_expr(E, &r1) : NULL;
      if (!args[1]) return NULL;
      tl__elab_at(E, POS(call));
      args[2] = dim_arg(E, a[2], -1, r0.buf->ndim, opname, POS(call));
      args[3] = args[2] ? flag(E, a[3], "clear", true) : NULL;
      return args[3] ? eval_call(E, call, op, 4, args) : NULL;
    }
    case BI_ATOMIC_ADD: {
      static const char *const names[] = {"dst", "value"};
      if (!tl__call_args(E, call, opname, names, 2, 2, a)) return NULL;
      tl__val *scalar;
      if (!eval_region(E, a[0], opname, &r0, false, NULL) || !eval_region(E, a[1], opname, &r1, true, &scalar))
        return NULL;
      if (scalar) {
        if (!unit_point(E, &r0)) return NULL;
        args[0] = region_expr(E, &r0);
        args[1] = args[0] ? tl__to_dtype(E, scalar, POS(a[1]), r0.buf->dtype) : NULL;
        return eval_call(E, call, op, 2, args);
      }
      if (!resolve_point(E, &r0, &r1, opname) || !resolve_point(E, &r1, &r0, opname)) return NULL;
      args[0] = region_expr(E, &r0);
      args[1] = args[0] ? region_expr(E, &r1) : NULL;
      return eval_call(E, call, op, 2, args);
    }
    case BI_CUMSUM: {
      static const char *const names[] = {"src", "dst", "dim", "reverse"};
      if (!tl__call_args(E, call, opname, names, 4, 1, a)) return NULL;
      if (!eval_region(E, a[0], opname, &r0, false, NULL)) return NULL;
      if (a[1] && !(a[1]->kind == AE_NONE)) {
        if (!eval_region(E, a[1], opname, &r1, false, NULL)) return NULL;
      } else {
        r1 = r0; /* in place */
        if (r1.form == TL_REGION_POINT) {
          tl__elab_error(E, r0.at, "%s in place needs a whole buffer or a slice", opname);
          return NULL;
        }
      }
      if (!resolve_point(E, &r0, &r1, opname) || !resolve_point(E, &r1, &r0, opname)) return NULL;
      args[0] = region_expr(E, &r0);
      args[1] = args[0] ? region_expr(E, &r1) : NULL;
      if (!args[1]) return NULL;
      tl__elab_at(E, POS(call));
      args[2] = dim_arg(E, a[2], 0, r0.buf->ndim, opname, POS(call));
      args[3] = args[2] ? flag(E, a[3], "reverse", false) : NULL;
      return args[3] ? eval_call(E, call, op, 4, args) : NULL;
    }
    case BI_SYNC_THREADS: {
      if (call->u.call.nargs || call->u.call.nkw) {
        tl__elab_error(E, POS(call), "T.sync_threads takes no arguments");
        return NULL;
      }
      tl__elab_at(E, POS(call));
      tl_ir_stmt *s = tl_ir_barrier(E->mod);
      if (!s) tl__elab_builder_failed(E);
      return s;
    }
    default:
      tl__elab_error(E, POS(call), "%s is not a tile operation", opname);
      return NULL;
  }
}
