/* PreLowerSemanticCheck: what must hold of a tile-level module before any
 * backend's pipeline lowers it. Shared by every backend; changes nothing.
 *
 *  1. The verifier (types, definitions, ranks, scopes, tile-op conventions).
 *  2. Every tile-level function has a T.Kernel (device code lives in one).
 *  3. Every symbolic dim can be bound at a call: it is a whole dimension of some
 *     buffer parameter, or a scalar parameter.
 *  4. Tile ops are used on legal scopes with legal types:
 *     - T.gemm: A and B staged on chip (shared, fragment or local, not global),
 *       C an accumulator (fragment or local); integer C with integer A and B of
 *       at most 32 bits, float C with float A and B;
 *     - reductions read and write on-chip buffers (shared, fragment, local);
 *     - T.atomic_add (max, min) writes a numeric buffer.
 *  5. Regions of on-chip buffers stay inside them wherever their bounds are
 *     constants (only global regions are clipped at the edge, by T.copy).
 * Errors carry the offending node's file:line:col. */
#include <inttypes.h>
#include <stdio.h>

#include "base/error.h"
#include "ir/op_table.h"
#include "transform/pass.h"
#include "transform/util.h"

typedef struct check_ctx {
  const tl_ir_func *f;
  tl_status st;
  int kernels;
} check_ctx;

static bool on_chip(tl_ir_scope s) { return s != TL_SCOPE_GLOBAL; }
static bool accumulator(tl_ir_scope s) { return s == TL_SCOPE_LOCAL_FRAGMENT || s == TL_SCOPE_LOCAL; }

static tl_status region_in_bounds(const tl_ir_expr *call, const tl_ir_expr *r) {
  const tl_ir_buffer *b = r->u.region.buffer;
  if (b->scope == TL_SCOPE_GLOBAL) return TL_OK;
  for (uint32_t d = 0; d < r->u.region.ndim; d++) {
    int64_t lo, ext, n;
    if (!tl__is_const_int(r->u.region.mins[d], &lo) || !tl__is_const_int(r->u.region.extents[d], &ext) ||
        !tl__is_const_int(b->shape[d], &n))
      continue;
    if (lo < 0 || lo + ext > n)
      return tl__pass_error(TL_EINVAL, r->span.line ? r->span : call->span,
                            "%s: the region [%" PRId64 ":%" PRId64 "] of dimension %u of buffer '%s' (%s, extent %" PRId64
                            ") runs past its end; only global buffers are clipped",
                            tl_ir_op_name(call->u.call.op), lo, lo + ext, d, b->name, tl_ir_scope_name(b->scope), n);
  }
  return TL_OK;
}

static tl_status scope_error(const tl_ir_expr *call, const char *what, const tl_ir_buffer *b, const char *want) {
  return tl__pass_error(TL_EINVAL, call->span, "%s: %s (buffer '%s') is in %s memory; it must be %s",
                        tl_ir_op_name(call->u.call.op), what, b->name, tl_ir_scope_name(b->scope), want);
}

static tl_status check_gemm(const tl_ir_expr *call) {
  const tl_ir_buffer *a = call->u.call.args[0]->u.region.buffer, *b = call->u.call.args[1]->u.region.buffer,
                     *c = call->u.call.args[2]->u.region.buffer;
  if (!on_chip(a->scope)) return scope_error(call, "A", a, "staged in shared memory or a fragment (T.copy it there)");
  if (!on_chip(b->scope)) return scope_error(call, "B", b, "staged in shared memory or a fragment (T.copy it there)");
  if (!accumulator(c->scope)) return scope_error(call, "C", c, "a fragment (T.alloc_fragment) or local buffer");
  char na[32], nb[32], nc[32];
  bool int_c = tl_dtype_is_int(c->dtype), float_c = tl_dtype_is_float(c->dtype);
  bool ok = int_c ? tl_dtype_is_int(a->dtype) && tl_dtype_is_int(b->dtype) && a->dtype.bits <= 32 && b->dtype.bits <= 32
          : float_c ? tl_dtype_is_float(a->dtype) && tl_dtype_is_float(b->dtype)
                    : false;
  if (!ok)
    return tl__pass_error(TL_EINVAL, call->span,
                          "T.gemm: cannot multiply %s (A, buffer '%s') by %s (B, buffer '%s') into %s (C, buffer '%s'); "
                          "integer C needs integer A and B of at most 32 bits, float C float A and B",
                          tl_dtype_name(a->dtype, na, sizeof na), a->name, tl_dtype_name(b->dtype, nb, sizeof nb),
                          b->name, tl_dtype_name(c->dtype, nc, sizeof nc), c->name);
  return TL_OK;
}

static tl_status check_reduce(const tl_ir_expr *call) {
  for (uint32_t i = 0; i < 2; i++) {
    const tl_ir_buffer *b = call->u.call.args[i]->u.region.buffer;
    if (!on_chip(b->scope))
      return scope_error(call, i ? "the destination" : "the source", b, "a fragment, shared or local buffer");
  }
  return TL_OK;
}

static tl_status check_atomic_add(const tl_ir_expr *call) {
  const tl_ir_buffer *b = call->u.call.args[0]->u.region.buffer;
  if (!tl_dtype_is_int(b->dtype) && !tl_dtype_is_float(b->dtype)) {
    char n[32];
    return tl__pass_error(TL_EINVAL, call->span, "%s: buffer '%s' holds %s, not numbers",
                          tl_ir_op_name(call->u.call.op), b->name, tl_dtype_name(b->dtype, n, sizeof n));
  }
  return TL_OK;
}

/* The CHECK column of the op table (ir/op_table.h). */
typedef tl_status (*check_fn)(const tl_ir_expr *call);
#define check_none NULL
#define CHECK_ROW(op, name, front, sig, args, defaults, written, written_read, fold, verify, interp, check, ...) \
  [TL_OP_##op] = check_##check,
static const check_fn k_check[TL_OP__COUNT] = {TL__TILE_OPS(CHECK_ROW)};
#undef CHECK_ROW
#undef check_none

static tl_status check_tile_op(const tl_ir_expr *call) {
  for (uint32_t i = 0; i < call->u.call.nargs; i++)
    if (call->u.call.args[i]->kind == TL_EXPR_REGION) TL__TRY(region_in_bounds(call, call->u.call.args[i]));
  check_fn check = (unsigned)call->u.call.op < TL_OP__COUNT ? k_check[call->u.call.op] : NULL;
  return check ? check(call) : TL_OK;
}

static bool visit_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  check_ctx *c = v->ctx;
  if (c->st != TL_OK) return false;
  if (s->kind == TL_STMT_KERNEL) c->kernels++;
  if (s->kind == TL_STMT_EVAL && s->u.eval.expr->kind == TL_EXPR_CALL && tl_ir_op_is_tile(s->u.eval.expr->u.call.op))
    c->st = check_tile_op(s->u.eval.expr);
  return c->st == TL_OK;
}

/* A symbolic dim is bindable: a whole dimension of a buffer parameter or a
 * scalar parameter. */
static bool bindable(const tl_ir_func *f, const tl_ir_var *v) {
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind == TL_PARAM_SCALAR && p->var == v) return true;
    if (p->kind != TL_PARAM_BUFFER) continue;
    for (uint32_t d = 0; d < p->buffer->ndim; d++)
      if (p->buffer->shape[d]->kind == TL_EXPR_VAR && p->buffer->shape[d]->u.var == v) return true;
  }
  return false;
}

typedef struct sym_ctx {
  const tl_ir_func *f;
  const tl_ir_var *bad;
} sym_ctx;

static bool visit_shape(tl_ir_visitor *v, const tl_ir_expr *e) {
  sym_ctx *c = v->ctx;
  if (!c->bad && e->kind == TL_EXPR_VAR && !bindable(c->f, e->u.var)) c->bad = e->u.var;
  return !c->bad;
}

static tl_status check_symbolic_dims(const tl_ir_func *f) {
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER) continue;
    sym_ctx c = {f, NULL};
    tl_ir_visitor v = {visit_shape, NULL, &c};
    for (uint32_t d = 0; d < b->ndim && !c.bad; d++) {
      tl_ir_visit_expr(&v, b->shape[d]);
      if (b->strides) tl_ir_visit_expr(&v, b->strides[d]);
    }
    if (c.bad)
      return tl__pass_error(TL_EINVAL, b->span.line ? b->span : f->span,
                            "symbolic dim '%s' in the shape of parameter '%s' is not a whole dimension of any "
                            "parameter, so a call cannot bind it",
                            c.bad->name, f->params[i].name);
  }
  return TL_OK;
}

tl_status tl__pass_semantic_check(tl_ir_module *mod, const tl_target *target) {
  (void)target;
  TL__TRY(tl_ir_verify_module(mod));
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    const tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_DEFAULT) continue;
    TL__TRY(check_symbolic_dims(f));
    check_ctx c = {f, TL_OK, 0};
    tl_ir_visitor v = {NULL, visit_stmt, &c};
    tl_ir_visit_stmt(&v, f->body);
    TL__TRY(c.st);
    if (c.kernels == 0)
      return tl__pass_error(TL_EINVAL, f->span,
                            "function '%s' has no T.Kernel: device code must be inside `with T.Kernel(...)`", f->name);
  }
  return TL_OK;
}
