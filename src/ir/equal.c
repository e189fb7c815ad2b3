/* Structural equality of functions and modules.
 *
 * Two trees are walked side by side. A use of a variable or buffer is resolved to
 * where it is defined (scope.h: the enclosing FOR/LET/KERNEL/ALLOC by distance,
 * a parameter by index, a symbolic dim by its first mention in the parameters'
 * shapes), and the two uses must resolve to the same place; so local names do not
 * matter while parameter names, function names, dtypes, shapes, scopes, constants
 * and attributes do. Spans and ids never count. Nothing is allocated, so equality
 * cannot fail. equal_hash.c hashes exactly what is compared here. */
#include <math.h>
#include <string.h>

#include "base/str.h"
#include "equal.h"
#include "module.h"
#include "scope.h"

typedef struct eq_ctx {
  const tl_ir_func *fa, *fb;
} eq_ctx;

bool tl__ir_float_bits_equal(double a, double b) {
  if (isnan(a) && isnan(b)) return true; /* every NaN is the same constant */
  return memcmp(&a, &b, sizeof a) == 0; /* bitwise: -0.0 differs from 0.0 */
}

static bool eq_expr(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_expr *a,
                    const tl_ir_expr *b);
static bool eq_stmt(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_stmt *a,
                    const tl_ir_stmt *b);

/* A variable's own properties, compared at every definition and use. */
static bool eq_var_props(const tl_ir_var *a, const tl_ir_var *b) {
  return tl_dtype_eq(a->dtype, b->dtype) && tl__str_eq(a->thread_tag, b->thread_tag);
}

static bool eq_ref(tl__ir_ref a, tl__ir_ref b) { return a.kind == b.kind && a.a == b.a && a.b == b.b; }

static bool eq_var_use(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_var *a,
                       const tl_ir_var *b) {
  if (!a || !b) return a == b;
  if (!eq_var_props(a, b)) return false;
  tl__ir_ref ra = tl__ir_resolve_var(c->fa, ba, a), rb = tl__ir_resolve_var(c->fb, bb, b);
  if (!eq_ref(ra, rb)) return false;
  /* Variables defined nowhere are matched by name. */
  return ra.kind != TL__REF_FREE || tl__str_eq(a->name, b->name);
}

static bool eq_exprs(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, tl_ir_expr *const *a,
                     tl_ir_expr *const *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!eq_expr(c, ba, bb, a ? a[i] : NULL, b ? b[i] : NULL)) return false;
  return true;
}

/* A buffer's definition: everything but its name and id. */
static bool eq_buffer_def(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_buffer *a,
                          const tl_ir_buffer *b) {
  if (!a || !b) return a == b;
  if (!tl_dtype_eq(a->dtype, b->dtype) || a->ndim != b->ndim || a->scope != b->scope) return false;
  if (!eq_exprs(c, ba, bb, a->shape, b->shape, a->ndim)) return false;
  if (!a->strides != !b->strides) return false;
  if (a->strides && !eq_exprs(c, ba, bb, a->strides, b->strides, a->ndim)) return false;
  if (!a->data != !b->data || a->view != b->view) return false;
  /* A view (T.reshape) is also the storage it shares: its source's data variable. */
  if (a->view) return eq_var_use(c, ba, bb, a->data, b->data);
  return !a->data || eq_var_props(a->data, b->data);
}

static bool eq_buffer_use(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_buffer *a,
                          const tl_ir_buffer *b) {
  if (!a || !b) return a == b;
  tl__ir_ref ra = tl__ir_resolve_buffer(c->fa, ba, a), rb = tl__ir_resolve_buffer(c->fb, bb, b);
  if (!eq_ref(ra, rb)) return false;
  if (ra.kind != TL__REF_FREE) return true;
  return tl__str_eq(a->name, b->name) && eq_buffer_def(c, ba, bb, a, b);
}

static bool eq_expr(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_expr *a,
                    const tl_ir_expr *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || !tl_dtype_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case TL_EXPR_INT:
    return a->u.int_value == b->u.int_value;
  case TL_EXPR_FLOAT:
    return tl__ir_float_bits_equal(a->u.float_value, b->u.float_value);
  case TL_EXPR_STR:
    return tl__str_eq(a->u.str, b->u.str);
  case TL_EXPR_VAR:
    return eq_var_use(c, ba, bb, a->u.var, b->u.var);
  case TL_EXPR_BINARY:
    return a->u.binary.op == b->u.binary.op && eq_expr(c, ba, bb, a->u.binary.a, b->u.binary.a) &&
           eq_expr(c, ba, bb, a->u.binary.b, b->u.binary.b);
  case TL_EXPR_UNARY:
    return a->u.unary.op == b->u.unary.op && eq_expr(c, ba, bb, a->u.unary.a, b->u.unary.a);
  case TL_EXPR_SELECT:
    return eq_expr(c, ba, bb, a->u.select.cond, b->u.select.cond) && eq_expr(c, ba, bb, a->u.select.t, b->u.select.t) &&
           eq_expr(c, ba, bb, a->u.select.f, b->u.select.f);
  case TL_EXPR_CAST:
    return eq_expr(c, ba, bb, a->u.cast.value, b->u.cast.value);
  case TL_EXPR_LOAD:
    return a->u.load.n == b->u.load.n && eq_buffer_use(c, ba, bb, a->u.load.buffer, b->u.load.buffer) &&
           eq_exprs(c, ba, bb, a->u.load.indices, b->u.load.indices, a->u.load.n);
  case TL_EXPR_CALL:
    return a->u.call.op == b->u.call.op && a->u.call.nargs == b->u.call.nargs &&
           eq_exprs(c, ba, bb, a->u.call.args, b->u.call.args, a->u.call.nargs);
  case TL_EXPR_REGION:
    return a->u.region.ndim == b->u.region.ndim && a->u.region.form == b->u.region.form &&
           eq_buffer_use(c, ba, bb, a->u.region.buffer, b->u.region.buffer) &&
           eq_exprs(c, ba, bb, a->u.region.mins, b->u.region.mins, a->u.region.ndim) &&
           eq_exprs(c, ba, bb, a->u.region.extents, b->u.region.extents, a->u.region.ndim);
  case TL_EXPR_RAMP:
    return a->u.ramp.stride == b->u.ramp.stride && eq_expr(c, ba, bb, a->u.ramp.base, b->u.ramp.base);
  case TL_EXPR_BROADCAST:
    return eq_expr(c, ba, bb, a->u.broadcast.value, b->u.broadcast.value);
  }
  return false;
}

/* Statements i.. of two sequences; an ALLOC scopes the rest of its sequence. */
static bool eq_seq_from(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_stmt *a,
                        const tl_ir_stmt *b, uint32_t i) {
  if (!a->u.seq.stmts || !b->u.seq.stmts) return a->u.seq.stmts == b->u.seq.stmts || a->u.seq.n == 0;
  for (; i < a->u.seq.n; i++) {
    const tl_ir_stmt *x = a->u.seq.stmts[i], *y = b->u.seq.stmts[i];
    if (!eq_stmt(c, ba, bb, x, y)) return false;
    if (x && x->kind == TL_STMT_ALLOC) {
      tl__ir_bind na = {ba, x}, nb = {bb, y};
      return eq_seq_from(c, &na, &nb, a, b, i + 1);
    }
  }
  return true;
}

static bool eq_triple(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, tl_ir_expr *const a[3],
                      tl_ir_expr *const b[3]) {
  for (int i = 0; i < 3; i++)
    if (!eq_expr(c, ba, bb, a[i], b[i])) return false;
  return true;
}

static bool eq_def_vars(tl_ir_var *const *a, tl_ir_var *const *b, uint32_t n) {
  if (!a || !b) return !a == !b;
  for (uint32_t i = 0; i < n; i++) {
    if (!a[i] || !b[i]) {
      if (a[i] != b[i]) return false;
    } else if (!eq_var_props(a[i], b[i])) {
      return false;
    }
  }
  return true;
}

static bool eq_stmt(const eq_ctx *c, const tl__ir_bind *ba, const tl__ir_bind *bb, const tl_ir_stmt *a,
                    const tl_ir_stmt *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case TL_STMT_SEQ:
    return a->u.seq.n == b->u.seq.n && eq_seq_from(c, ba, bb, a, b, 0);
  case TL_STMT_FOR: {
    if (a->u.loop.kind != b->u.loop.kind || a->u.loop.n != b->u.loop.n ||
        a->u.loop.num_stages != b->u.loop.num_stages || !tl__str_eq(a->u.loop.thread_tag, b->u.loop.thread_tag))
      return false;
    if (!eq_def_vars(a->u.loop.vars, b->u.loop.vars, a->u.loop.n)) return false;
    if (!eq_exprs(c, ba, bb, a->u.loop.mins, b->u.loop.mins, a->u.loop.n) ||
        !eq_exprs(c, ba, bb, a->u.loop.extents, b->u.loop.extents, a->u.loop.n))
      return false;
    tl__ir_bind na = {ba, a}, nb = {bb, b};
    return eq_stmt(c, &na, &nb, a->u.loop.body, b->u.loop.body);
  }
  case TL_STMT_IF:
    return eq_expr(c, ba, bb, a->u.if_.cond, b->u.if_.cond) && eq_stmt(c, ba, bb, a->u.if_.then_, b->u.if_.then_) &&
           eq_stmt(c, ba, bb, a->u.if_.else_, b->u.if_.else_);
  case TL_STMT_STORE:
    return a->u.store.n == b->u.store.n && eq_buffer_use(c, ba, bb, a->u.store.buffer, b->u.store.buffer) &&
           eq_exprs(c, ba, bb, a->u.store.indices, b->u.store.indices, a->u.store.n) &&
           eq_expr(c, ba, bb, a->u.store.value, b->u.store.value);
  case TL_STMT_LET: {
    if (!eq_def_vars(&a->u.let.var, &b->u.let.var, 1) || !eq_expr(c, ba, bb, a->u.let.value, b->u.let.value))
      return false;
    tl__ir_bind na = {ba, a}, nb = {bb, b};
    return eq_stmt(c, &na, &nb, a->u.let.body, b->u.let.body);
  }
  case TL_STMT_ALLOC:
    return eq_buffer_def(c, ba, bb, a->u.alloc.buffer, b->u.alloc.buffer);
  case TL_STMT_EVAL:
    return eq_expr(c, ba, bb, a->u.eval.expr, b->u.eval.expr);
  case TL_STMT_KERNEL: {
    if (a->u.kernel.grid_ndim != b->u.kernel.grid_ndim || a->u.kernel.threads_ndim != b->u.kernel.threads_ndim)
      return false;
    if (!eq_triple(c, ba, bb, a->u.kernel.grid, b->u.kernel.grid) ||
        !eq_triple(c, ba, bb, a->u.kernel.threads, b->u.kernel.threads))
      return false;
    if (!eq_def_vars(a->u.kernel.block_vars, b->u.kernel.block_vars, 3) ||
        !eq_def_vars(a->u.kernel.thread_vars, b->u.kernel.thread_vars, 3))
      return false;
    tl__ir_bind na = {ba, a}, nb = {bb, b};
    return eq_stmt(c, &na, &nb, a->u.kernel.body, b->u.kernel.body);
  }
  case TL_STMT_BARRIER:
    return true;
  case TL_STMT_ASSERT:
    return tl__str_eq(a->u.assert_.message, b->u.assert_.message) &&
           eq_expr(c, ba, bb, a->u.assert_.cond, b->u.assert_.cond);
  case TL_STMT_LAUNCH:
    return tl__str_eq(a->u.launch.kernel, b->u.launch.kernel) && a->u.launch.nargs == b->u.launch.nargs &&
           eq_exprs(c, ba, bb, a->u.launch.args, b->u.launch.args, a->u.launch.nargs) &&
           eq_triple(c, ba, bb, a->u.launch.grid, b->u.launch.grid) &&
           eq_triple(c, ba, bb, a->u.launch.block, b->u.launch.block) &&
           eq_expr(c, ba, bb, a->u.launch.dyn_shared_bytes, b->u.launch.dyn_shared_bytes);
  }
  return false;
}

static bool eq_attr_value(const tl_ir_attr *a, const tl_ir_attr *b) {
  if (a->kind != b->kind) return false;
  return a->kind == TL_ATTR_INT ? a->i == b->i : tl__str_eq(a->s, b->s);
}

bool tl__ir_attrs_equal(const tl_ir_attr *a, size_t na, const tl_ir_attr *b, size_t nb) {
  if (na != nb) return false;
  /* Keys are unique, so equal counts and every key of a matching in b is set equality. */
  for (size_t i = 0; i < na; i++) {
    size_t j = 0;
    while (j < nb && !tl__str_eq(a[i].key, b[j].key)) j++;
    if (j == nb || !eq_attr_value(&a[i], &b[j])) return false;
  }
  return true;
}

static bool eq_param(const eq_ctx *c, const tl_ir_param *a, const tl_ir_param *b) {
  if (a->kind != b->kind || a->is_output != b->is_output || !tl__str_eq(a->name, b->name)) return false;
  if (!a->var != !b->var || (a->var && !eq_var_props(a->var, b->var))) return false;
  if (a->kind == TL_PARAM_BUFFER) return eq_buffer_def(c, NULL, NULL, a->buffer, b->buffer);
  return true;
}

bool tl_ir_func_equal(const tl_ir_func *a, const tl_ir_func *b) {
  if (!a || !b) return a == b;
  if (!tl__str_eq(a->name, b->name) || a->callconv != b->callconv || a->nparams != b->nparams) return false;
  eq_ctx c = {a, b};
  for (uint32_t i = 0; i < a->nparams; i++)
    if (!eq_param(&c, &a->params[i], &b->params[i])) return false;
  if (!tl__ir_attrs_equal(a->attrs, a->nattrs, b->attrs, b->nattrs)) return false;
  return eq_stmt(&c, NULL, NULL, a->body, b->body);
}

bool tl_ir_module_equal(const tl_ir_module *a, const tl_ir_module *b) {
  if (!a || !b) return a == b;
  size_t n = tl_ir_module_num_funcs(a);
  if (n != tl_ir_module_num_funcs(b)) return false;
  if (!tl__ir_attrs_equal(a->attrs.data, a->attrs.len, b->attrs.data, b->attrs.len)) return false;
  for (size_t i = 0; i < n; i++)
    if (!tl_ir_func_equal(tl_ir_module_func(a, i), tl_ir_module_func(b, i))) return false;
  return true;
}
