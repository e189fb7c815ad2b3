/* Builders for variables, buffers, expressions and statements. Every node is
 * allocated in the module's arena and stamped with the module's current location;
 * a NULL node argument (an earlier failure) makes the result NULL without a new
 * message, so a whole tree can be built and checked once. */
#include <string.h>

#include "base/error.h"
#include "module.h"

/* A caller error (not a propagated NULL): sets the message and records it. */
static void *invalid(tl_ir_module *mod, const char *what) {
  tl__ir_fail(mod, tl__error(TL_EINVAL, "%s", what));
  return NULL;
}

/* Copies n node pointers into the arena; NULL if any is NULL or on OOM. n == 0
 * gives NULL with *ok set, so callers tell "empty" from "failed". */
static void *copy_nodes(tl_ir_module *mod, const void *const *src, uint32_t n, bool *ok, const char *who) {
  *ok = false;
  if (n == 0) {
    *ok = true;
    return NULL;
  }
  if (!src) return invalid(mod, who);
  for (uint32_t i = 0; i < n; i++)
    if (!src[i]) return NULL;
  void *dst = tl__ir_copy_ptrs(mod, src, n);
  *ok = dst != NULL;
  return dst;
}

tl_ir_var *tl_ir_var_new(tl_ir_module *mod, const char *name, tl_dtype dtype) {
  if (!name) return invalid(mod, "tl_ir_var_new: name is NULL");
  tl_ir_var *v = tl__ir_alloc(mod, sizeof *v);
  if (!v) return NULL;
  v->name = tl__ir_intern(mod, name);
  if (!v->name) return NULL;
  v->dtype = dtype;
  v->id = mod->next_var_id++;
  v->span = mod->loc;
  return v;
}

tl_ir_buffer *tl_ir_buffer_new(tl_ir_module *mod, const char *name, tl_dtype dtype, uint32_t ndim,
                               tl_ir_expr *const *shape, tl_ir_expr *const *strides, tl_ir_scope scope) {
  if (!name) return invalid(mod, "tl_ir_buffer_new: name is NULL");
  bool ok;
  tl_ir_expr **sh = copy_nodes(mod, (const void *const *)shape, ndim, &ok, "tl_ir_buffer_new: shape is NULL");
  if (!ok) return NULL;
  tl_ir_expr **st = NULL;
  if (strides) {
    st = copy_nodes(mod, (const void *const *)strides, ndim, &ok, "tl_ir_buffer_new: strides is NULL");
    if (!ok) return NULL;
  }
  tl_ir_buffer *b = tl__ir_alloc(mod, sizeof *b);
  if (!b) return NULL;
  b->name = tl__ir_intern(mod, name);
  if (!b->name) return NULL;
  b->data = tl_ir_var_new(mod, name, TL_DT_HANDLE);
  if (!b->data) return NULL;
  b->dtype = dtype;
  b->ndim = ndim;
  b->shape = sh;
  b->strides = st;
  b->scope = scope;
  b->id = mod->next_buffer_id++;
  b->span = mod->loc;
  return b;
}

/* ------------------------------------------------------------ expressions */

static tl_ir_expr *new_expr(tl_ir_module *mod, tl_ir_expr_kind kind, tl_dtype dtype) {
  tl_ir_expr *e = tl__ir_alloc(mod, sizeof *e);
  if (!e) return NULL;
  e->kind = kind;
  e->dtype = dtype;
  e->span = mod->loc;
  return e;
}

tl_ir_expr *tl_ir_int(tl_ir_module *mod, tl_dtype dtype, int64_t value) {
  tl_ir_expr *e = new_expr(mod, TL_EXPR_INT, dtype);
  if (e) e->u.int_value = value;
  return e;
}

tl_ir_expr *tl_ir_i32(tl_ir_module *mod, int64_t value) { return tl_ir_int(mod, TL_DT_INT32, value); }

tl_ir_expr *tl_ir_bool(tl_ir_module *mod, bool value) { return tl_ir_int(mod, TL_DT_BOOL, value ? 1 : 0); }

tl_ir_expr *tl_ir_float(tl_ir_module *mod, tl_dtype dtype, double value) {
  tl_ir_expr *e = new_expr(mod, TL_EXPR_FLOAT, dtype);
  if (e) e->u.float_value = value;
  return e;
}

tl_ir_expr *tl_ir_str(tl_ir_module *mod, const char *s) {
  if (!s) return invalid(mod, "tl_ir_str: string is NULL");
  const char *d = tl__ir_intern(mod, s);
  if (!d) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_STR, TL_DT_HANDLE);
  if (e) e->u.str = d;
  return e;
}

tl_ir_expr *tl_ir_var_ref(tl_ir_module *mod, tl_ir_var *var) {
  if (!var) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_VAR, var->dtype);
  if (e) e->u.var = var;
  return e;
}

tl_dtype tl__ir_binary_dtype(tl_ir_binop op, tl_dtype a) {
  switch (op) {
  case TL_BIN_EQ: case TL_BIN_NE: case TL_BIN_LT: case TL_BIN_LE: case TL_BIN_GT: case TL_BIN_GE:
  case TL_BIN_AND: case TL_BIN_OR:
    return tl_dtype_with_lanes(TL_DT_BOOL, a.lanes);
  default:
    return a;
  }
}

tl_dtype tl__ir_unary_dtype(tl_ir_unop op, tl_dtype a) {
  return op == TL_UN_NOT ? tl_dtype_with_lanes(TL_DT_BOOL, a.lanes) : a;
}

tl_dtype tl__ir_load_dtype(const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices) {
  tl_dtype t = buf->dtype;
  if (n > 0 && indices[n - 1]->dtype.lanes > 1) t.lanes = indices[n - 1]->dtype.lanes;
  return t;
}

tl_ir_expr *tl_ir_binary(tl_ir_module *mod, tl_ir_binop op, tl_ir_expr *a, tl_ir_expr *b) {
  if (!a || !b) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_BINARY, tl__ir_binary_dtype(op, a->dtype));
  if (!e) return NULL;
  e->u.binary.op = op;
  e->u.binary.a = a;
  e->u.binary.b = b;
  return e;
}

tl_ir_expr *tl_ir_unary(tl_ir_module *mod, tl_ir_unop op, tl_ir_expr *a) {
  if (!a) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_UNARY, tl__ir_unary_dtype(op, a->dtype));
  if (!e) return NULL;
  e->u.unary.op = op;
  e->u.unary.a = a;
  return e;
}

tl_ir_expr *tl_ir_select(tl_ir_module *mod, tl_ir_expr *cond, tl_ir_expr *t, tl_ir_expr *f) {
  if (!cond || !t || !f) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_SELECT, t->dtype);
  if (!e) return NULL;
  e->u.select.cond = cond;
  e->u.select.t = t;
  e->u.select.f = f;
  return e;
}

tl_ir_expr *tl_ir_cast(tl_ir_module *mod, tl_dtype dtype, tl_ir_expr *value) {
  if (!value) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_CAST, dtype);
  if (e) e->u.cast.value = value;
  return e;
}

tl_ir_expr *tl_ir_load(tl_ir_module *mod, tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices) {
  if (!buf) return NULL;
  bool ok;
  tl_ir_expr **idx = copy_nodes(mod, (const void *const *)indices, n, &ok, "tl_ir_load: indices is NULL");
  if (!ok) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_LOAD, tl__ir_load_dtype(buf, n, idx));
  if (!e) return NULL;
  e->u.load.buffer = buf;
  e->u.load.n = n;
  e->u.load.indices = idx;
  return e;
}

tl_ir_expr *tl_ir_call(tl_ir_module *mod, tl_ir_op op, tl_dtype dtype, uint32_t nargs, tl_ir_expr *const *args) {
  bool ok;
  tl_ir_expr **a = copy_nodes(mod, (const void *const *)args, nargs, &ok, "tl_ir_call: args is NULL");
  if (!ok) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_CALL, dtype);
  if (!e) return NULL;
  e->u.call.op = op;
  e->u.call.nargs = nargs;
  e->u.call.args = a;
  return e;
}

tl_ir_expr *tl_ir_region(tl_ir_module *mod, tl_ir_buffer *buf, tl_ir_expr *const *mins, tl_ir_expr *const *extents,
                         tl_ir_region_form form) {
  if (!buf) return NULL;
  uint32_t n = buf->ndim;
  tl_ir_expr **mn, **ex;
  bool ok;
  if (!mins && !extents) {
    /* The whole buffer: zero starts, the shape's extents (shared nodes). */
    form = TL_REGION_FULL;
    mn = n ? tl__ir_alloc(mod, sizeof *mn * n) : NULL;
    if (n && !mn) return NULL;
    for (uint32_t i = 0; i < n; i++)
      if (!(mn[i] = tl_ir_i32(mod, 0))) return NULL;
    ex = copy_nodes(mod, (const void *const *)buf->shape, n, &ok, "tl_ir_region: buffer has no shape");
    if (!ok) return NULL;
  } else {
    if (n > 0 && (!mins || !extents)) return invalid(mod, "tl_ir_region: give both mins and extents, or neither");
    mn = copy_nodes(mod, (const void *const *)mins, n, &ok, "tl_ir_region: mins is NULL");
    if (!ok) return NULL;
    ex = copy_nodes(mod, (const void *const *)extents, n, &ok, "tl_ir_region: extents is NULL");
    if (!ok) return NULL;
  }
  tl_ir_expr *e = new_expr(mod, TL_EXPR_REGION, TL_DT_HANDLE);
  if (!e) return NULL;
  e->u.region.buffer = buf;
  e->u.region.ndim = n;
  e->u.region.mins = mn;
  e->u.region.extents = ex;
  e->u.region.form = form;
  return e;
}

tl_ir_expr *tl_ir_ramp(tl_ir_module *mod, tl_ir_expr *base, int64_t stride, uint16_t lanes) {
  if (!base) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_RAMP, tl_dtype_with_lanes(base->dtype, lanes));
  if (!e) return NULL;
  e->u.ramp.base = base;
  e->u.ramp.stride = stride;
  return e;
}

tl_ir_expr *tl_ir_broadcast(tl_ir_module *mod, tl_ir_expr *value, uint16_t lanes) {
  if (!value) return NULL;
  tl_ir_expr *e = new_expr(mod, TL_EXPR_BROADCAST, tl_dtype_with_lanes(value->dtype, lanes));
  if (e) e->u.broadcast.value = value;
  return e;
}

/* ------------------------------------------------------------- statements */

static tl_ir_stmt *new_stmt(tl_ir_module *mod, tl_ir_stmt_kind kind) {
  tl_ir_stmt *s = tl__ir_alloc(mod, sizeof *s);
  if (!s) return NULL;
  s->kind = kind;
  s->span = mod->loc;
  return s;
}

tl_ir_stmt *tl_ir_seq(tl_ir_module *mod, uint32_t n, tl_ir_stmt *const *stmts) {
  bool ok;
  tl_ir_stmt **a = copy_nodes(mod, (const void *const *)stmts, n, &ok, "tl_ir_seq: stmts is NULL");
  if (!ok) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_SEQ);
  if (!s) return NULL;
  s->u.seq.n = n;
  s->u.seq.stmts = a;
  return s;
}

tl_ir_stmt *tl_ir_for(tl_ir_module *mod, tl_ir_for_kind kind, uint32_t n, tl_ir_var *const *vars,
                      tl_ir_expr *const *mins, tl_ir_expr *const *extents, tl_ir_stmt *body) {
  if (n == 0) return invalid(mod, "tl_ir_for: a loop needs at least one variable");
  if (!body) return NULL;
  bool ok;
  tl_ir_var **v = copy_nodes(mod, (const void *const *)vars, n, &ok, "tl_ir_for: vars is NULL");
  if (!ok) return NULL;
  tl_ir_expr **ex = copy_nodes(mod, (const void *const *)extents, n, &ok, "tl_ir_for: extents is NULL");
  if (!ok) return NULL;
  tl_ir_expr **mn;
  if (mins) {
    mn = copy_nodes(mod, (const void *const *)mins, n, &ok, "tl_ir_for: mins is NULL");
    if (!ok) return NULL;
  } else {
    /* Zero starts, typed as their loop variable. */
    mn = tl__ir_alloc(mod, sizeof *mn * n);
    if (!mn) return NULL;
    for (uint32_t i = 0; i < n; i++)
      if (!(mn[i] = tl_ir_int(mod, v[i]->dtype, 0))) return NULL;
  }
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_FOR);
  if (!s) return NULL;
  s->u.loop.kind = kind;
  s->u.loop.n = n;
  s->u.loop.vars = v;
  s->u.loop.mins = mn;
  s->u.loop.extents = ex;
  s->u.loop.body = body;
  return s;
}

tl_ir_stmt *tl_ir_if(tl_ir_module *mod, tl_ir_expr *cond, tl_ir_stmt *then_, tl_ir_stmt *else_) {
  if (!cond || !then_) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_IF);
  if (!s) return NULL;
  s->u.if_.cond = cond;
  s->u.if_.then_ = then_;
  s->u.if_.else_ = else_;
  return s;
}

tl_ir_stmt *tl_ir_store(tl_ir_module *mod, tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices,
                        tl_ir_expr *value) {
  if (!buf || !value) return NULL;
  bool ok;
  tl_ir_expr **idx = copy_nodes(mod, (const void *const *)indices, n, &ok, "tl_ir_store: indices is NULL");
  if (!ok) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_STORE);
  if (!s) return NULL;
  s->u.store.buffer = buf;
  s->u.store.n = n;
  s->u.store.indices = idx;
  s->u.store.value = value;
  return s;
}

tl_ir_stmt *tl_ir_let(tl_ir_module *mod, tl_ir_var *var, tl_ir_expr *value, tl_ir_stmt *body) {
  if (!var || !value || !body) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_LET);
  if (!s) return NULL;
  s->u.let.var = var;
  s->u.let.value = value;
  s->u.let.body = body;
  return s;
}

tl_ir_stmt *tl_ir_alloc(tl_ir_module *mod, tl_ir_buffer *buf) {
  if (!buf) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_ALLOC);
  if (s) s->u.alloc.buffer = buf;
  return s;
}

tl_ir_stmt *tl_ir_eval(tl_ir_module *mod, tl_ir_expr *call) {
  if (!call) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_EVAL);
  if (s) s->u.eval.expr = call;
  return s;
}

tl_ir_stmt *tl_ir_kernel(tl_ir_module *mod, uint32_t grid_ndim, tl_ir_expr *const *grid, uint32_t threads_ndim,
                         tl_ir_expr *const *threads, tl_ir_var *const *block_vars, tl_ir_stmt *body) {
  if (grid_ndim < 1 || grid_ndim > 3) return invalid(mod, "tl_ir_kernel: grid_ndim must be 1, 2 or 3");
  if (threads_ndim < 1 || threads_ndim > 3) return invalid(mod, "tl_ir_kernel: threads_ndim must be 1, 2 or 3");
  if (!grid || !threads) return invalid(mod, "tl_ir_kernel: grid and threads must not be NULL");
  if (!body) return NULL;
  for (uint32_t i = 0; i < grid_ndim; i++)
    if (!grid[i]) return NULL;
  for (uint32_t i = 0; i < threads_ndim; i++)
    if (!threads[i]) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_KERNEL);
  if (!s) return NULL;
  s->u.kernel.grid_ndim = grid_ndim;
  s->u.kernel.threads_ndim = threads_ndim;
  for (uint32_t i = 0; i < grid_ndim; i++) {
    s->u.kernel.grid[i] = grid[i];
    s->u.kernel.block_vars[i] = block_vars ? block_vars[i] : NULL;
  }
  for (uint32_t i = 0; i < threads_ndim; i++) s->u.kernel.threads[i] = threads[i];
  s->u.kernel.body = body;
  return s;
}

tl_ir_stmt *tl_ir_barrier(tl_ir_module *mod) { return new_stmt(mod, TL_STMT_BARRIER); }

tl_ir_stmt *tl_ir_assert(tl_ir_module *mod, tl_ir_expr *cond, const char *message) {
  if (!cond) return NULL;
  const char *m = tl__ir_intern(mod, message ? message : "");
  if (!m) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_ASSERT);
  if (!s) return NULL;
  s->u.assert_.cond = cond;
  s->u.assert_.message = m;
  return s;
}

tl_ir_stmt *tl_ir_launch(tl_ir_module *mod, const char *kernel, uint32_t nargs, tl_ir_expr *const *args,
                         tl_ir_expr *const grid[3], tl_ir_expr *const block[3], tl_ir_expr *dyn_shared_bytes) {
  if (!kernel) return invalid(mod, "tl_ir_launch: kernel name is NULL");
  if (!grid || !block) return invalid(mod, "tl_ir_launch: grid and block must not be NULL");
  for (int i = 0; i < 3; i++)
    if (!grid[i] || !block[i]) return NULL;
  bool ok;
  tl_ir_expr **a = copy_nodes(mod, (const void *const *)args, nargs, &ok, "tl_ir_launch: args is NULL");
  if (!ok) return NULL;
  const char *k = tl__ir_intern(mod, kernel);
  if (!k) return NULL;
  tl_ir_stmt *s = new_stmt(mod, TL_STMT_LAUNCH);
  if (!s) return NULL;
  s->u.launch.kernel = k;
  s->u.launch.nargs = nargs;
  s->u.launch.args = a;
  for (int i = 0; i < 3; i++) {
    s->u.launch.grid[i] = grid[i];
    s->u.launch.block[i] = block[i];
  }
  s->u.launch.dyn_shared_bytes = dyn_shared_bytes;
  return s;
}
