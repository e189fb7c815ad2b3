/* The verifier: types, definitions before use, buffer ranks, scopes and the
 * placement of kernels, barriers and launches. Tile-op conventions are in
 * verify_ops.c. The first problem found is returned as TL_EINVAL with the
 * offending node's location. */
#include <stdarg.h>
#include <stdio.h>

#include "base/error.h"
#include "base/str.h"
#include "module.h"
#include "verify.h"

tl__dtype_str_buf tl__dtype_str(tl_dtype t) {
  tl__dtype_str_buf n;
  const char *s = tl_dtype_name(t, n.s, sizeof n.s);
  if (s != n.s) snprintf(n.s, sizeof n.s, "%s", s);
  return n;
}

tl_status tl__verify_error(const tl__verify_ctx *c, tl_ir_span at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (at.line == 0) at = c->loc;
  if (at.line == 0 && c->f) at = c->f->span;
  if (at.line == 0) return tl__error(TL_EINVAL, "%s", msg);
  return tl__error(TL_EINVAL, "%s:%u:%u: %s", at.file ? at.file : "<unknown>", (unsigned)at.line, (unsigned)at.col,
                   msg);
}

/* ----------------------------------------------------------------- types */

static bool dtype_valid(tl_dtype t) {
  char buf[32];
  const char *n = tl_dtype_name(tl_dtype_scalar(t), buf, sizeof buf);
  return t.lanes >= 1 && n != buf; /* a static name: a scalar type the IR has */
}

static bool is_numeric(tl_dtype t) { return tl_dtype_is_int(t) || tl_dtype_is_float(t); }

static bool int_fits(tl_dtype t, int64_t v) {
  if (t.code == TL_DTYPE_BOOL) return v == 0 || v == 1;
  if (t.bits >= 64) return true; /* int64 is the storage; uint64 constants are stored as their bits */
  int64_t span = (int64_t)1 << t.bits;
  if (t.code == TL_DTYPE_INT) return v >= -span / 2 && v < span / 2;
  return v >= 0 && v < span;
}

static const char *binop_name(tl_ir_binop op) {
  static const char *const names[] = {
      [TL_BIN_ADD] = "+",     [TL_BIN_SUB] = "-",       [TL_BIN_MUL] = "*",     [TL_BIN_DIV] = "/",
      [TL_BIN_FLOORDIV] = "//", [TL_BIN_FLOORMOD] = "%", [TL_BIN_MIN] = "T.min", [TL_BIN_MAX] = "T.max",
      [TL_BIN_EQ] = "==",     [TL_BIN_NE] = "!=",       [TL_BIN_LT] = "<",      [TL_BIN_LE] = "<=",
      [TL_BIN_GT] = ">",      [TL_BIN_GE] = ">=",       [TL_BIN_AND] = "and",   [TL_BIN_OR] = "or",
      [TL_BIN_BITAND] = "&",  [TL_BIN_BITOR] = "|",     [TL_BIN_BITXOR] = "^",  [TL_BIN_SHL] = "<<",
      [TL_BIN_SHR] = ">>",
  };
  return (unsigned)op < sizeof names / sizeof names[0] && names[op] ? names[op] : "<invalid operator>";
}

static const char *unop_name(tl_ir_unop op) {
  switch (op) {
  case TL_UN_NEG: return "-";
  case TL_UN_NOT: return "not";
  case TL_UN_BITNOT: return "~";
  }
  return "<invalid operator>";
}

/* An expression that must be an integer scalar (extents, starts, launch sizes). */
static tl_status check_int_scalar(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e, const char *what) {
  TL__TRY(tl__verify_expr(c, b, e));
  if (!tl_dtype_is_int(e->dtype) || e->dtype.lanes != 1)
    return tl__verify_error(c, e->span, "%s must be an integer, not %s", what, tl__dtype_str(e->dtype).s);
  return TL_OK;
}

static tl_status check_cond(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e, const char *what) {
  TL__TRY(tl__verify_expr(c, b, e));
  if (!tl_dtype_eq(e->dtype, TL_DT_BOOL))
    return tl__verify_error(c, e->span, "%s must be bool, not %s", what, tl__dtype_str(e->dtype).s);
  return TL_OK;
}

/* ------------------------------------------------------------ expressions */

tl_status tl__verify_buffer_use(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_buffer *buf, uint32_t n,
                                tl_ir_span at, const char *what) {
  if (!buf) return tl__verify_error(c, at, "%s has no buffer", what);
  if (tl__ir_resolve_buffer(c->f, b, buf).kind == TL__REF_FREE)
    return tl__verify_error(c, at, "use of undefined buffer '%s'", buf->name);
  if (n != buf->ndim)
    return tl__verify_error(c, at, "%s of buffer '%s' has %u %s; the buffer has %u", what, buf->name, (unsigned)n,
                    n == 1 ? "index" : "indices", (unsigned)buf->ndim);
  return TL_OK;
}

/* Indices of a load or store: integers; only the last may be a vector. */
static tl_status check_indices(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_buffer *buf,
                               tl_ir_expr *const *idx, uint32_t n) {
  if (n && !idx) return tl__verify_error(c, (tl_ir_span){0}, "access to buffer '%s' lacks its indices", buf->name);
  for (uint32_t i = 0; i < n; i++) {
    TL__TRY(tl__verify_expr(c, b, idx[i]));
    if (!tl_dtype_is_int(idx[i]->dtype))
      return tl__verify_error(c, idx[i]->span, "index %u of buffer '%s' is %s; indices must be integers", (unsigned)i,
                      buf->name, tl__dtype_str(idx[i]->dtype).s);
    if (idx[i]->dtype.lanes > 1 && i + 1 < n)
      return tl__verify_error(c, idx[i]->span, "index %u of buffer '%s' is a vector; only the last index may be", (unsigned)i,
                      buf->name);
  }
  return TL_OK;
}

tl_status tl__verify_region(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  const tl_ir_buffer *buf = e->u.region.buffer;
  if (!buf) return tl__verify_error(c, e->span, "region has no buffer");
  if (tl__ir_resolve_buffer(c->f, b, buf).kind == TL__REF_FREE)
    return tl__verify_error(c, e->span, "use of undefined buffer '%s'", buf->name);
  if (e->u.region.ndim != buf->ndim)
    return tl__verify_error(c, e->span, "region of buffer '%s' has %u dimensions; the buffer has %u", buf->name,
                    (unsigned)e->u.region.ndim, (unsigned)buf->ndim);
  if ((unsigned)e->u.region.form > TL_REGION_SLICE) return tl__verify_error(c, e->span, "region of buffer '%s' has an invalid form", buf->name);
  for (uint32_t i = 0; i < e->u.region.ndim; i++) {
    if (!e->u.region.mins || !e->u.region.extents || !e->u.region.mins[i] || !e->u.region.extents[i])
      return tl__verify_error(c, e->span, "region of buffer '%s' lacks the range of dimension %u", buf->name, (unsigned)i);
    TL__TRY(check_int_scalar(c, b, e->u.region.mins[i], "a region start"));
    TL__TRY(check_int_scalar(c, b, e->u.region.extents[i], "a region extent"));
  }
  return TL_OK;
}

static tl_status verify_binary(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  const tl_ir_expr *x = e->u.binary.a, *y = e->u.binary.b;
  tl_ir_binop op = e->u.binary.op;
  const char *name = binop_name(op);
  TL__TRY(tl__verify_expr(c, b, x));
  TL__TRY(tl__verify_expr(c, b, y));
  if (!tl_dtype_eq(x->dtype, y->dtype))
    return tl__verify_error(c, e->span, "operands of %s differ in type: %s and %s", name, tl__dtype_str(x->dtype).s,
                    tl__dtype_str(y->dtype).s);
  tl_dtype t = x->dtype;
  if ((unsigned)op > TL_BIN_SHR) return tl__verify_error(c, e->span, "invalid binary operator %d", (int)op);
  switch (op) {
  case TL_BIN_AND:
  case TL_BIN_OR:
    if (!tl_dtype_is_bool(t)) return tl__verify_error(c, e->span, "operands of %s must be bool, not %s", name, tl__dtype_str(t).s);
    break;
  case TL_BIN_EQ:
  case TL_BIN_NE:
    if (!is_numeric(t) && !tl_dtype_is_bool(t))
      return tl__verify_error(c, e->span, "operands of %s must be numbers or bools, not %s", name, tl__dtype_str(t).s);
    break;
  case TL_BIN_BITAND:
  case TL_BIN_BITOR:
  case TL_BIN_BITXOR:
  case TL_BIN_SHL:
  case TL_BIN_SHR:
    if (!tl_dtype_is_int(t)) return tl__verify_error(c, e->span, "operands of %s must be integers, not %s", name, tl__dtype_str(t).s);
    break;
  default:
    if (!is_numeric(t)) return tl__verify_error(c, e->span, "operands of %s must be numbers, not %s", name, tl__dtype_str(t).s);
    break;
  }
  tl_dtype want = tl__ir_binary_dtype(op, t);
  if (!tl_dtype_eq(e->dtype, want))
    return tl__verify_error(c, e->span, "%s on %s yields %s, but the node says %s", name, tl__dtype_str(t).s, tl__dtype_str(want).s,
                    tl__dtype_str(e->dtype).s);
  return TL_OK;
}

static tl_status verify_unary(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  const tl_ir_expr *x = e->u.unary.a;
  TL__TRY(tl__verify_expr(c, b, x));
  tl_ir_unop op = e->u.unary.op;
  const char *name = unop_name(op);
  bool ok = op == TL_UN_NEG ? is_numeric(x->dtype) : op == TL_UN_NOT ? tl_dtype_is_bool(x->dtype)
                                                   : op == TL_UN_BITNOT && tl_dtype_is_int(x->dtype);
  if (!ok) return tl__verify_error(c, e->span, "operator %s does not apply to %s", name, tl__dtype_str(x->dtype).s);
  tl_dtype want = tl__ir_unary_dtype(op, x->dtype);
  if (!tl_dtype_eq(e->dtype, want))
    return tl__verify_error(c, e->span, "%s on %s yields %s, but the node says %s", name, tl__dtype_str(x->dtype).s,
                    tl__dtype_str(want).s, tl__dtype_str(e->dtype).s);
  return TL_OK;
}

static tl_status verify_cast(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  const tl_ir_expr *x = e->u.cast.value;
  TL__TRY(tl__verify_expr(c, b, x));
  bool from_handle = x->dtype.code == TL_DTYPE_HANDLE, to_handle = e->dtype.code == TL_DTYPE_HANDLE;
  if (from_handle != to_handle || x->dtype.lanes != e->dtype.lanes)
    return tl__verify_error(c, e->span, "cannot cast %s to %s", tl__dtype_str(x->dtype).s, tl__dtype_str(e->dtype).s);
  return TL_OK;
}

static tl_status verify_load(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  const tl_ir_buffer *buf = e->u.load.buffer;
  TL__TRY(tl__verify_buffer_use(c, b, buf, e->u.load.n, e->span, "load"));
  TL__TRY(check_indices(c, b, buf, e->u.load.indices, e->u.load.n));
  tl_dtype want = tl__ir_load_dtype(buf, e->u.load.n, e->u.load.indices);
  if (!tl_dtype_eq(e->dtype, want))
    return tl__verify_error(c, e->span, "load from buffer '%s' yields %s, but the node says %s", buf->name, tl__dtype_str(want).s,
                    tl__dtype_str(e->dtype).s);
  return TL_OK;
}

static bool valid_thread_tag(const char *t);

/* A device kernel's block and thread indices may be free: the launch binds them
 * (docs/lowering.md, GPU-lowered device kernels). */
static bool launch_index(const tl__verify_ctx *c, const tl_ir_var *v) {
  return c->f && c->f->callconv == TL_CALLCONV_DEVICE_KERNEL && v->thread_tag && valid_thread_tag(v->thread_tag) &&
         tl_dtype_is_int(v->dtype) && v->dtype.lanes == 1;
}

static tl_status verify_var_use(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  const tl_ir_var *v = e->u.var;
  if (!v) return tl__verify_error(c, e->span, "variable reference without a variable");
  if (tl__ir_resolve_var(c->f, b, v).kind == TL__REF_FREE && !launch_index(c, v))
    return tl__verify_error(c, e->span, "use of undefined variable '%s'", v->name);
  if (!tl_dtype_eq(e->dtype, v->dtype))
    return tl__verify_error(c, e->span, "variable '%s' is %s but is used as %s", v->name, tl__dtype_str(v->dtype).s,
                    tl__dtype_str(e->dtype).s);
  return TL_OK;
}

tl_status tl__verify_expr(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e) {
  if (!e) return tl__verify_error(c, (tl_ir_span){0}, "missing expression");
  if (!dtype_valid(e->dtype)) return tl__verify_error(c, e->span, "invalid dtype %s", tl__dtype_str(e->dtype).s);
  switch (e->kind) {
  case TL_EXPR_INT:
    if ((!tl_dtype_is_int(e->dtype) && !tl_dtype_is_bool(e->dtype)) || e->dtype.lanes != 1)
      return tl__verify_error(c, e->span, "integer constant of type %s", tl__dtype_str(e->dtype).s);
    if (!int_fits(e->dtype, e->u.int_value))
      return tl__verify_error(c, e->span, "constant %lld does not fit in %s", (long long)e->u.int_value, tl__dtype_str(e->dtype).s);
    return TL_OK;
  case TL_EXPR_FLOAT:
    if (!tl_dtype_is_float(e->dtype) || e->dtype.lanes != 1)
      return tl__verify_error(c, e->span, "float constant of type %s", tl__dtype_str(e->dtype).s);
    return TL_OK;
  case TL_EXPR_STR:
    if (!e->u.str) return tl__verify_error(c, e->span, "string constant without a string");
    return TL_OK;
  case TL_EXPR_VAR:
    return verify_var_use(c, b, e);
  case TL_EXPR_BINARY:
    return verify_binary(c, b, e);
  case TL_EXPR_UNARY:
    return verify_unary(c, b, e);
  case TL_EXPR_SELECT:
    TL__TRY(tl__verify_expr(c, b, e->u.select.cond));
    TL__TRY(tl__verify_expr(c, b, e->u.select.t));
    TL__TRY(tl__verify_expr(c, b, e->u.select.f));
    if (!tl_dtype_is_bool(e->u.select.cond->dtype) ||
        (e->u.select.cond->dtype.lanes != 1 && e->u.select.cond->dtype.lanes != e->dtype.lanes))
      return tl__verify_error(c, e->u.select.cond->span, "condition of T.if_then_else must be bool, not %s",
                      tl__dtype_str(e->u.select.cond->dtype).s);
    if (!tl_dtype_eq(e->u.select.t->dtype, e->u.select.f->dtype))
      return tl__verify_error(c, e->span, "branches of T.if_then_else differ in type: %s and %s",
                      tl__dtype_str(e->u.select.t->dtype).s, tl__dtype_str(e->u.select.f->dtype).s);
    if (!tl_dtype_eq(e->dtype, e->u.select.t->dtype))
      return tl__verify_error(c, e->span, "T.if_then_else yields %s, but the node says %s", tl__dtype_str(e->u.select.t->dtype).s,
                      tl__dtype_str(e->dtype).s);
    return TL_OK;
  case TL_EXPR_CAST:
    return verify_cast(c, b, e);
  case TL_EXPR_LOAD:
    return verify_load(c, b, e);
  case TL_EXPR_CALL:
    if ((unsigned)e->u.call.op >= TL_OP__COUNT) return tl__verify_error(c, e->span, "invalid op %d", (int)e->u.call.op);
    if (tl_ir_op_is_tile(e->u.call.op))
      return tl__verify_error(c, e->span, "%s is a statement, not a value", tl_ir_op_name(e->u.call.op));
    if (e->u.call.nargs && !e->u.call.args)
      return tl__verify_error(c, e->span, "%s lacks its arguments", tl_ir_op_name(e->u.call.op));
    for (uint32_t i = 0; i < e->u.call.nargs; i++) TL__TRY(tl__verify_expr(c, b, e->u.call.args[i]));
    return tl__verify_value_call(c, e);
  case TL_EXPR_REGION:
    return tl__verify_error(c, e->span, "a region of buffer '%s' can only be an argument of a tile op",
                    e->u.region.buffer ? e->u.region.buffer->name : "?");
  case TL_EXPR_RAMP:
    TL__TRY(tl__verify_expr(c, b, e->u.ramp.base));
    if (!tl_dtype_is_int(e->u.ramp.base->dtype) || e->u.ramp.base->dtype.lanes != 1)
      return tl__verify_error(c, e->span, "ramp base must be a scalar integer, not %s", tl__dtype_str(e->u.ramp.base->dtype).s);
    if (e->dtype.lanes < 2 || !tl_dtype_eq(tl_dtype_scalar(e->dtype), e->u.ramp.base->dtype))
      return tl__verify_error(c, e->span, "ramp of %s must have type %sxN with N >= 2, not %s",
                      tl__dtype_str(e->u.ramp.base->dtype).s, tl__dtype_str(e->u.ramp.base->dtype).s, tl__dtype_str(e->dtype).s);
    return TL_OK;
  case TL_EXPR_BROADCAST:
    TL__TRY(tl__verify_expr(c, b, e->u.broadcast.value));
    if (e->u.broadcast.value->dtype.lanes != 1)
      return tl__verify_error(c, e->span, "broadcast of a vector (%s)", tl__dtype_str(e->u.broadcast.value->dtype).s);
    if (e->dtype.lanes < 2 || !tl_dtype_eq(tl_dtype_scalar(e->dtype), e->u.broadcast.value->dtype))
      return tl__verify_error(c, e->span, "broadcast of %s must have type %sxN with N >= 2, not %s",
                      tl__dtype_str(e->u.broadcast.value->dtype).s, tl__dtype_str(e->u.broadcast.value->dtype).s,
                      tl__dtype_str(e->dtype).s);
    return TL_OK;
  }
  return tl__verify_error(c, e->span, "invalid expression kind %d", (int)e->kind);
}

/* ------------------------------------------------------------- statements */

static tl_status verify_stmt(tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s);

/* A variable being defined: valid, and not already defined where it is bound. */
static tl_status check_def(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_var *v, tl_ir_span at, bool integer) {
  if (!v) return tl__verify_error(c, at, "missing variable in a definition");
  if (!dtype_valid(v->dtype) || v->dtype.lanes != 1)
    return tl__verify_error(c, at, "variable '%s' has invalid type %s", v->name, tl__dtype_str(v->dtype).s);
  if (integer && !tl_dtype_is_int(v->dtype))
    return tl__verify_error(c, at, "variable '%s' must be an integer, not %s", v->name, tl__dtype_str(v->dtype).s);
  if (tl__ir_resolve_var(c->f, b, v).kind != TL__REF_FREE)
    return tl__verify_error(c, at, "variable '%s' is defined twice", v->name);
  return TL_OK;
}

static const char *const k_thread_tags[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                            "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};

static bool valid_thread_tag(const char *t) {
  for (size_t i = 0; i < sizeof k_thread_tags / sizeof k_thread_tags[0]; i++)
    if (tl__str_eq(t, k_thread_tags[i])) return true;
  return false;
}

static tl_status verify_for(tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s) {
  uint32_t n = s->u.loop.n;
  if (n == 0 || !s->u.loop.vars || !s->u.loop.mins || !s->u.loop.extents)
    return tl__verify_error(c, s->span, "loop without variables");
  for (uint32_t i = 0; i < n; i++) {
    TL__TRY(check_def(c, b, s->u.loop.vars[i], s->span, true));
    for (uint32_t j = 0; j < i; j++)
      if (s->u.loop.vars[j] == s->u.loop.vars[i])
        return tl__verify_error(c, s->span, "variable '%s' is defined twice", s->u.loop.vars[i]->name);
    TL__TRY(check_int_scalar(c, b, s->u.loop.mins[i], "a loop start"));
    TL__TRY(check_int_scalar(c, b, s->u.loop.extents[i], "a loop extent"));
  }
  if ((unsigned)s->u.loop.kind > TL_FOR_THREAD) return tl__verify_error(c, s->span, "invalid loop kind %d", (int)s->u.loop.kind);
  if (s->u.loop.kind == TL_FOR_PIPELINED) {
    if (s->u.loop.num_stages < 0)
      return tl__verify_error(c, s->span, "T.Pipelined has num_stages %d", (int)s->u.loop.num_stages);
  } else if (s->u.loop.num_stages != 0) {
    return tl__verify_error(c, s->span, "num_stages is only for T.Pipelined loops");
  }
  if (s->u.loop.kind == TL_FOR_THREAD) {
    if (!valid_thread_tag(s->u.loop.thread_tag))
      return tl__verify_error(c, s->span, "thread loop over '%s' has thread tag '%s'", s->u.loop.vars[0]->name,
                      s->u.loop.thread_tag ? s->u.loop.thread_tag : "(none)");
    if (!c->in_kernel)
      return tl__verify_error(c, s->span, "thread loop over '%s' outside a kernel", s->u.loop.vars[0]->name);
  } else if (s->u.loop.thread_tag) {
    return tl__verify_error(c, s->span, "loop over '%s' has a thread tag but is not a thread loop", s->u.loop.vars[0]->name);
  }
  tl__ir_bind nb = {b, s};
  return verify_stmt(c, &nb, s->u.loop.body);
}

static tl_status verify_alloc(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s) {
  const tl_ir_buffer *buf = s->u.alloc.buffer;
  if (!buf) return tl__verify_error(c, s->span, "allocation without a buffer");
  if (tl__ir_resolve_buffer(c->f, b, buf).kind != TL__REF_FREE)
    return tl__verify_error(c, buf->span, "buffer '%s' is defined twice", buf->name);
  if (!dtype_valid(buf->dtype) || buf->dtype.code == TL_DTYPE_HANDLE)
    return tl__verify_error(c, buf->span, "buffer '%s' has invalid element type %s", buf->name, tl__dtype_str(buf->dtype).s);
  if (buf->scope == TL_SCOPE_GLOBAL && !buf->view)
    return tl__verify_error(c, buf->span, "buffer '%s' is allocated in global scope; global buffers can only be parameters",
                    buf->name);
  if ((unsigned)buf->scope > TL_SCOPE_LOCAL_VAR)
    return tl__verify_error(c, buf->span, "buffer '%s' has invalid scope %d", buf->name, (int)buf->scope);
  if (!c->in_kernel)
    return tl__verify_error(c, buf->span, "buffer '%s' (%s) is allocated outside T.Kernel", buf->name,
                    tl_ir_scope_name(buf->scope));
  if (buf->scope == TL_SCOPE_LOCAL_VAR && buf->ndim != 0)
    return tl__verify_error(c, buf->span, "local.var buffer '%s' must have no dimensions, not %u", buf->name,
                    (unsigned)buf->ndim);
  for (uint32_t i = 0; i < buf->ndim; i++) {
    if (!buf->shape || !buf->shape[i]) return tl__verify_error(c, buf->span, "buffer '%s' lacks its shape", buf->name);
    TL__TRY(check_int_scalar(c, b, buf->shape[i], "a buffer dimension"));
    if (buf->strides) TL__TRY(check_int_scalar(c, b, buf->strides[i], "a buffer stride"));
  }
  if (buf->view) { /* T.reshape / T.view: the storage of a buffer in scope */
    if (!buf->data || tl__ir_resolve_var(c->f, b, buf->data).kind == TL__REF_FREE)
      return tl__verify_error(c, buf->span, "view '%s' of storage that is not in scope", buf->name);
    if (buf->strides)
      return tl__verify_error(c, buf->span, "view '%s' has strides", buf->name);
    return TL_OK;
  }
  if (buf->data && tl__ir_resolve_var(c->f, b, buf->data).kind != TL__REF_FREE)
    return tl__verify_error(c, buf->span, "variable '%s' is defined twice", buf->data->name);
  return TL_OK;
}

/* Statements i.. of a sequence; an ALLOC's buffer is live for the rest of it. */
static tl_status verify_seq_from(tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s, uint32_t i) {
  for (; i < s->u.seq.n; i++) {
    const tl_ir_stmt *x = s->u.seq.stmts[i];
    TL__TRY(verify_stmt(c, b, x));
    if (x->kind == TL_STMT_ALLOC) {
      tl__ir_bind nb = {b, x};
      return verify_seq_from(c, &nb, s, i + 1);
    }
  }
  return TL_OK;
}

static tl_status verify_kernel(tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s) {
  if (c->in_kernel)
    return tl__verify_error(c, s->span, c->f && c->f->callconv == TL_CALLCONV_DEVICE_KERNEL
                                    ? "T.Kernel inside a device kernel"
                                    : "T.Kernel cannot be nested");
  uint32_t gn = s->u.kernel.grid_ndim, tn = s->u.kernel.threads_ndim;
  if (gn < 1 || gn > 3) return tl__verify_error(c, s->span, "T.Kernel has %u grid dimensions; 1 to 3 are allowed", (unsigned)gn);
  if (tn < 1 || tn > 3)
    return tl__verify_error(c, s->span, "T.Kernel has %u thread dimensions; 1 to 3 are allowed", (unsigned)tn);
  for (uint32_t i = 0; i < 3; i++) {
    if (i < gn) {
      TL__TRY(check_int_scalar(c, b, s->u.kernel.grid[i], "a grid extent"));
    } else if (s->u.kernel.grid[i] || s->u.kernel.block_vars[i]) {
      return tl__verify_error(c, s->span, "T.Kernel sets grid dimension %u past grid_ndim %u", (unsigned)i, (unsigned)gn);
    }
    if (i < tn)
      TL__TRY(check_int_scalar(c, b, s->u.kernel.threads[i], "a thread extent"));
    else if (s->u.kernel.threads[i])
      return tl__verify_error(c, s->span, "T.Kernel sets thread dimension %u past threads_ndim %u", (unsigned)i, (unsigned)tn);
  }
  for (int i = 0; i < 6; i++) {
    const tl_ir_var *v = i < 3 ? s->u.kernel.block_vars[i] : s->u.kernel.thread_vars[i - 3];
    if (!v) continue;
    TL__TRY(check_def(c, b, v, s->span, true));
    for (int j = 0; j < i; j++)
      if ((j < 3 ? s->u.kernel.block_vars[j] : s->u.kernel.thread_vars[j - 3]) == v)
        return tl__verify_error(c, s->span, "variable '%s' is defined twice", v->name);
  }
  tl__ir_bind nb = {b, s};
  c->in_kernel = true;
  tl_status st = verify_stmt(c, &nb, s->u.kernel.body);
  c->in_kernel = false;
  return st;
}

static tl_status verify_launch_target(const tl__verify_ctx *c, const tl_ir_stmt *s) {
  const char *name = s->u.launch.kernel;
  const tl_ir_func *k = tl_ir_module_find_func(c->mod, name);
  if (!k) return tl__verify_error(c, s->span, "launch of '%s': the module has no such function", name);
  if (k->callconv != TL_CALLCONV_DEVICE_KERNEL)
    return tl__verify_error(c, s->span, "launch of '%s': the function is not a device kernel", name);
  if (k->nparams != s->u.launch.nargs)
    return tl__verify_error(c, s->span, "launch of '%s' passes %u arguments; the kernel takes %u", name,
                    (unsigned)s->u.launch.nargs, (unsigned)k->nparams);
  for (uint32_t i = 0; i < k->nparams; i++) {
    const tl_ir_param *p = &k->params[i];
    if (p->kind != TL_PARAM_BUFFER && !p->var) return tl__verify_error(c, k->span, "parameter '%s' of '%s' has no variable", p->name, name);
    tl_dtype want = p->kind == TL_PARAM_BUFFER ? TL_DT_HANDLE : p->var->dtype;
    tl_dtype got = s->u.launch.args[i]->dtype;
    if (!tl_dtype_eq(want, got))
      return tl__verify_error(c, s->u.launch.args[i]->span, "launch of '%s': argument %u is %s; parameter '%s' takes %s", name,
                      (unsigned)i, tl__dtype_str(got).s, p->name, tl__dtype_str(want).s);
  }
  return TL_OK;
}

static tl_status verify_launch(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s) {
  if (!s->u.launch.kernel) return tl__verify_error(c, s->span, "launch without a kernel name");
  if (c->in_kernel) return tl__verify_error(c, s->span, "launch of '%s' inside a kernel", s->u.launch.kernel);
  if (s->u.launch.nargs && !s->u.launch.args) return tl__verify_error(c, s->span, "launch of '%s' lacks its arguments", s->u.launch.kernel);
  for (uint32_t i = 0; i < s->u.launch.nargs; i++) TL__TRY(tl__verify_expr(c, b, s->u.launch.args[i]));
  for (int i = 0; i < 3; i++) {
    TL__TRY(check_int_scalar(c, b, s->u.launch.grid[i], "a launch grid extent"));
    TL__TRY(check_int_scalar(c, b, s->u.launch.block[i], "a launch block extent"));
  }
  if (s->u.launch.dyn_shared_bytes)
    TL__TRY(check_int_scalar(c, b, s->u.launch.dyn_shared_bytes, "the dynamic shared memory size"));
  return c->mod ? verify_launch_target(c, s) : TL_OK;
}

static tl_status verify_stmt_inner(tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s) {
  switch (s->kind) {
  case TL_STMT_SEQ:
    if (s->u.seq.n && !s->u.seq.stmts) return tl__verify_error(c, s->span, "sequence lacks its statements");
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      if (!s->u.seq.stmts[i]) return tl__verify_error(c, s->span, "missing statement %u in a sequence", (unsigned)i);
    return verify_seq_from(c, b, s, 0);
  case TL_STMT_FOR:
    return verify_for(c, b, s);
  case TL_STMT_IF:
    TL__TRY(check_cond(c, b, s->u.if_.cond, "an if condition"));
    TL__TRY(verify_stmt(c, b, s->u.if_.then_));
    return s->u.if_.else_ ? verify_stmt(c, b, s->u.if_.else_) : TL_OK;
  case TL_STMT_STORE: {
    const tl_ir_buffer *buf = s->u.store.buffer;
    TL__TRY(tl__verify_buffer_use(c, b, buf, s->u.store.n, s->span, "store"));
    TL__TRY(check_indices(c, b, buf, s->u.store.indices, s->u.store.n));
    TL__TRY(tl__verify_expr(c, b, s->u.store.value));
    tl_dtype want = tl__ir_load_dtype(buf, s->u.store.n, s->u.store.indices);
    if (!tl_dtype_eq(s->u.store.value->dtype, want))
      return tl__verify_error(c, s->u.store.value->span, "value stored to buffer '%s' is %s; the store needs %s", buf->name,
                      tl__dtype_str(s->u.store.value->dtype).s, tl__dtype_str(want).s);
    return TL_OK;
  }
  case TL_STMT_LET: {
    const tl_ir_var *v = s->u.let.var;
    TL__TRY(tl__verify_expr(c, b, s->u.let.value));
    TL__TRY(check_def(c, b, v, s->span, false));
    if (!tl_dtype_eq(v->dtype, s->u.let.value->dtype))
      return tl__verify_error(c, s->u.let.value->span, "variable '%s' is %s but is bound to a %s value", v->name,
                      tl__dtype_str(v->dtype).s, tl__dtype_str(s->u.let.value->dtype).s);
    tl__ir_bind nb = {b, s};
    return verify_stmt(c, &nb, s->u.let.body);
  }
  case TL_STMT_ALLOC:
    return verify_alloc(c, b, s);
  case TL_STMT_EVAL: {
    const tl_ir_expr *e = s->u.eval.expr;
    if (e && e->kind == TL_EXPR_CALL && (unsigned)e->u.call.op < TL_OP__COUNT && tl_ir_op_is_tile(e->u.call.op)) {
      if (!c->in_kernel) return tl__verify_error(c, e->span, "%s outside T.Kernel", tl_ir_op_name(e->u.call.op));
      return tl__verify_tile_op(c, b, e);
    }
    return tl__verify_expr(c, b, e);
  }
  case TL_STMT_KERNEL:
    return verify_kernel(c, b, s);
  case TL_STMT_BARRIER:
    if (!c->in_kernel) return tl__verify_error(c, s->span, "barrier outside T.Kernel");
    return TL_OK;
  case TL_STMT_ASSERT:
    TL__TRY(check_cond(c, b, s->u.assert_.cond, "an assert condition"));
    if (!s->u.assert_.message) return tl__verify_error(c, s->span, "assert without a message");
    return TL_OK;
  case TL_STMT_LAUNCH:
    return verify_launch(c, b, s);
  }
  return tl__verify_error(c, s->span, "invalid statement kind %d", (int)s->kind);
}

static tl_status verify_stmt(tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_stmt *s) {
  if (!s) return tl__verify_error(c, (tl_ir_span){0}, "missing statement");
  tl_ir_span outer = c->loc;
  if (s->span.line) c->loc = s->span;
  tl_status st = verify_stmt_inner(c, b, s);
  c->loc = outer;
  return st;
}

/* -------------------------------------------------------------- functions */

static tl_status verify_params(tl__verify_ctx *c) {
  const tl_ir_func *f = c->f;
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (!p->name || !p->var) return tl__verify_error(c, f->span, "parameter %u of function '%s' is incomplete", (unsigned)i, f->name);
    for (uint32_t j = 0; j < i; j++)
      if (tl__str_eq(f->params[j].name, p->name))
        return tl__verify_error(c, f->span, "parameter '%s' appears twice", p->name);
    for (uint32_t j = 0; j < i; j++)
      if (f->params[j].var == p->var || (p->buffer && f->params[j].buffer == p->buffer))
        return tl__verify_error(c, f->span, "parameter '%s' repeats an earlier parameter", p->name);
    if (p->kind == TL_PARAM_SCALAR) {
      if (!dtype_valid(p->var->dtype) || p->var->dtype.lanes != 1)
        return tl__verify_error(c, p->var->span, "parameter '%s' has invalid type %s", p->name, tl__dtype_str(p->var->dtype).s);
      continue;
    }
    const tl_ir_buffer *buf = p->buffer;
    if (p->kind != TL_PARAM_BUFFER || !buf)
      return tl__verify_error(c, f->span, "parameter '%s' is neither a buffer nor a scalar", p->name);
    if (buf->scope != TL_SCOPE_GLOBAL)
      return tl__verify_error(c, buf->span, "parameter '%s' has scope %s; buffer parameters must be global", p->name,
                      tl_ir_scope_name(buf->scope));
    if (p->var != buf->data)
      return tl__verify_error(c, buf->span, "parameter '%s' must carry its buffer's data variable", p->name);
    if (!dtype_valid(buf->dtype) || buf->dtype.code == TL_DTYPE_HANDLE)
      return tl__verify_error(c, buf->span, "buffer '%s' has invalid element type %s", buf->name, tl__dtype_str(buf->dtype).s);
    for (uint32_t d = 0; d < buf->ndim; d++) {
      if (!buf->shape || !buf->shape[d]) return tl__verify_error(c, buf->span, "buffer '%s' lacks its shape", buf->name);
      TL__TRY(check_int_scalar(c, NULL, buf->shape[d], "a buffer dimension"));
      if (buf->strides) TL__TRY(check_int_scalar(c, NULL, buf->strides[d], "a buffer stride"));
    }
  }
  return TL_OK;
}

static tl_status verify_func(const tl_ir_module *mod, const tl_ir_func *f) {
  if (!f) return tl__error(TL_EINVAL, "tl_ir_verify_func: function is NULL");
  tl__verify_ctx c = {mod, f, {0}, f->callconv == TL_CALLCONV_DEVICE_KERNEL};
  if ((unsigned)f->callconv > TL_CALLCONV_DEVICE_KERNEL)
    return tl__verify_error(&c, f->span, "function '%s' has invalid calling convention %d", f->name, (int)f->callconv);
  TL__TRY(verify_params(&c));
  if (!f->body) return tl__verify_error(&c, f->span, "function '%s' has no body", f->name);
  return verify_stmt(&c, NULL, f->body);
}

tl_status tl_ir_verify_func(const tl_ir_func *f) { return verify_func(NULL, f); }

tl_status tl_ir_verify_module(const tl_ir_module *mod) {
  if (!mod) return tl__error(TL_EINVAL, "tl_ir_verify_module: module is NULL");
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) TL__TRY(verify_func(mod, tl_ir_module_func(mod, i)));
  return TL_OK;
}
