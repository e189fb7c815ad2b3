/* make_packed_api: a host entry checks every argument before anything runs and
 * binds the symbolic dims (docs/lowering.md, "The argument checks").
 *
 * For each TL_CALLCONV_PACKED function the body becomes
 *   ASSERT count
 *   per parameter:  ASSERTs kind, dtype, ndim, device, data, constant dims   (tensors)
 *                   ASSERTs kind, range                                     (scalars)
 *   per parameter:  ASSERTs symbolic dims (the binding dim fits int32, later
 *                   uses equal it, composite dims equal their expression)
 *   per tensor:     ASSERT strides (compact, or the declared ones)
 *   per tensor:     ASSERT data alignment, where a launched kernel needs it
 *                   (its attribute tl.data_alignment.<param>, from gpu_vectorize)
 *   LET N = T.Cast("int32", T.arg_shape(i, d)) ...   (one per symbolic dim)
 *     the launches, with the symbolic dims replaced by the LET variables
 * Every condition reads argument metadata through the TL_OP_ARG_* builtins and
 * only what earlier asserts established (a tensor's fields after its kind check,
 * its dims after its ndim check), so the host entry is safe on any input; the
 * first failure is reported by parameter name, with the actual value through the
 * message placeholders ({dtype(i)}, {shape(i,d)}, ...). The expected device type
 * is the target's (tl_target_device_type). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "base/vec.h"
#include "transform/pass.h"
#include "transform/util.h"

/* Where a symbolic dim is bound: tensor parameter `param`, dimension `dim`, or the
 * scalar parameter `param` itself (dim = -1). */
typedef struct sym_binding {
  tl_ir_var *var;
  uint32_t param;
  int32_t dim;
  tl_ir_var *let; /* the host entry's LET variable (shape-bound dims) */
} sym_binding;

typedef struct papi {
  tl_ir_module *mod;
  tl_ir_func *f;
  tl__vec asserts; /* tl_ir_stmt* */
  tl__vec syms;    /* sym_binding */
  int device_type;
} papi;

/* ----------------------------------------------------------- construction */

static tl_ir_expr *arg_call(tl_ir_module *mod, tl_ir_op op, tl_dtype t, int64_t i, int64_t d) {
  tl_ir_expr *a[2] = {tl_ir_i32(mod, i), tl_ir_i32(mod, d)};
  uint32_t n = op == TL_OP_ARG_NUM                                                                 ? 0
               : op == TL_OP_ARG_SHAPE || op == TL_OP_ARG_STRIDE || op == TL_OP_ARG_DATA_ALIGNED ? 2
                                                                                                 : 1;
  return tl_ir_call(mod, op, t, n, a);
}

static tl_ir_expr *eq(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) { return tl_ir_binary(mod, TL_BIN_EQ, a, b); }
static tl_ir_expr *or_(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) { return tl_ir_binary(mod, TL_BIN_OR, a, b); }
static tl_ir_expr *and_(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b) { return tl_ir_binary(mod, TL_BIN_AND, a, b); }

/* A parameter name for a message: braces doubled (they start placeholders). */
static void esc(tl__sb *sb, const char *s) {
  for (; *s; s++) {
    tl__sb_putc(sb, *s);
    if (*s == '{' || *s == '}') tl__sb_putc(sb, *s);
  }
}

/* Appends ASSERT(cond, message); the message is "argument 'P': " + fmt unless
 * param is NULL. */
static tl_status add_assert(papi *p, tl_ir_expr *cond, const char *param, const char *fmt, ...) TL_PRINTF(4, 5);
static tl_status add_assert(papi *p, tl_ir_expr *cond, const char *param, const char *fmt, ...) {
  TL__TRY(tl__built(p->mod, cond));
  tl__sb sb = TL__SB_INIT;
  if (param) {
    tl__sb_append(&sb, "argument '");
    esc(&sb, param);
    tl__sb_append(&sb, "': ");
  }
  va_list ap;
  va_start(ap, fmt);
  tl__sb_vappendf(&sb, fmt, ap);
  va_end(ap);
  char *msg = tl__sb_finish(&sb);
  if (!msg) return TL_ENOMEM;
  tl_ir_stmt *s = tl_ir_assert(p->mod, cond, msg);
  tl__free(msg);
  TL__TRY(tl__built(p->mod, s));
  return tl__vec_push(&p->asserts, &s);
}

static const char *device_words(int t) {
  switch (t) {
  case 1: return "a CPU tensor (kDLCPU)";
  case 2: return "a CUDA tensor (kDLCUDA)";
  case 3: return "a pinned CUDA host tensor (kDLCUDAHost)";
  case 4: return "an OpenCL tensor (kDLOpenCL)";
  case 7: return "a Vulkan tensor (kDLVulkan)";
  case 8: return "a Metal tensor (kDLMetal)";
  case 10: return "a ROCm tensor (kDLROCM)";
  case 15: return "a WebGPU tensor (kDLWebGPU)";
  default: return NULL;
  }
}

/* ------------------------------------------------------ symbolic bindings */

static sym_binding *binding_of(papi *p, const tl_ir_var *v) {
  for (size_t i = 0; i < p->syms.len; i++)
    if (TL__VEC_AT(&p->syms, sym_binding, i).var == v) return &TL__VEC_AT(&p->syms, sym_binding, i);
  return NULL;
}

static int scalar_param_index(const tl_ir_func *f, const tl_ir_var *v) {
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_SCALAR && f->params[i].var == v) return (int)i;
  return -1;
}

typedef struct unbound_ctx {
  papi *p;
  const tl_ir_var *found;
} unbound_ctx;

static bool find_unbound(tl_ir_visitor *vis, const tl_ir_expr *e) {
  unbound_ctx *u = vis->ctx;
  if (!u->found && e->kind == TL_EXPR_VAR && !binding_of(u->p, e->u.var) && scalar_param_index(u->p->f, e->u.var) < 0)
    u->found = e->u.var;
  return !u->found;
}

static tl_status find_bindings(papi *p) {
  const tl_ir_func *f = p->f;
  /* Scalar parameters that shapes mention bind themselves. */
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !b) continue;
    for (uint32_t d = 0; d < b->ndim; d++) {
      const tl_ir_expr *e = b->shape[d];
      if (e->kind != TL_EXPR_VAR || binding_of(p, e->u.var)) continue;
      int sp = scalar_param_index(f, e->u.var);
      sym_binding sb = {e->u.var, sp >= 0 ? (uint32_t)sp : i, sp >= 0 ? -1 : (int32_t)d, NULL};
      TL__TRY(tl__vec_push(&p->syms, &sb));
    }
  }
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !b) continue;
    unbound_ctx u = {p, NULL};
    tl_ir_visitor vis = {find_unbound, NULL, &u};
    for (uint32_t d = 0; d < b->ndim && !u.found; d++) {
      tl_ir_visit_expr(&vis, b->shape[d]);
      if (b->strides) tl_ir_visit_expr(&vis, b->strides[d]);
    }
    if (u.found)
      return tl__pass_error(TL_EUNSUPPORTED, b->span.line ? b->span : f->span,
                            "symbolic dim '%s' of parameter '%s' is not a whole dimension of any parameter, so a call "
                            "cannot bind it; give it its own dimension or a scalar parameter",
                            u.found->name, f->params[i].name);
  }
  return TL_OK;
}

/* The run-time value of a symbolic dim, as int64, read from the arguments. */
static tl_ir_expr *sym_value(papi *p, const sym_binding *sb) {
  if (sb->dim < 0) return arg_call(p->mod, TL_OP_ARG_INT, TL_DT_INT64, sb->param, 0);
  return arg_call(p->mod, TL_OP_ARG_SHAPE, TL_DT_INT64, sb->param, sb->dim);
}

/* An integer shape or stride expression evaluated in int64 from the arguments.
 * NULL with an error for what a shape cannot contain. */
static tl_ir_expr *to_i64(papi *p, const tl_ir_expr *e, tl_status *st) {
  tl_ir_module *mod = p->mod;
  if (*st != TL_OK) return NULL;
  switch (e->kind) {
  case TL_EXPR_INT: return tl_ir_int(mod, TL_DT_INT64, e->u.int_value);
  case TL_EXPR_VAR: {
    const sym_binding *sb = binding_of(p, e->u.var);
    if (sb) return sym_value(p, sb);
    int sp = scalar_param_index(p->f, e->u.var);
    if (sp >= 0) return arg_call(mod, TL_OP_ARG_INT, TL_DT_INT64, sp, 0);
    break;
  }
  case TL_EXPR_CAST:
    if (tl_dtype_is_int(e->u.cast.value->dtype)) return to_i64(p, e->u.cast.value, st);
    break;
  case TL_EXPR_BINARY:
    switch (e->u.binary.op) {
    case TL_BIN_ADD:
    case TL_BIN_SUB:
    case TL_BIN_MUL:
    case TL_BIN_FLOORDIV:
    case TL_BIN_FLOORMOD:
    case TL_BIN_MIN:
    case TL_BIN_MAX: {
      tl_ir_expr *a = to_i64(p, e->u.binary.a, st), *b = to_i64(p, e->u.binary.b, st);
      return a && b ? tl_ir_binary(mod, e->u.binary.op, a, b) : NULL;
    }
    default: break;
    }
    break;
  case TL_EXPR_CALL:
    if (e->u.call.op == TL_OP_CEILDIV && e->u.call.nargs == 2) {
      tl_ir_expr *a[2] = {to_i64(p, e->u.call.args[0], st), to_i64(p, e->u.call.args[1], st)};
      return a[0] && a[1] ? tl_ir_call(mod, TL_OP_CEILDIV, TL_DT_INT64, 2, a) : NULL;
    }
    break;
  default: break;
  }
  *st = tl__pass_error(TL_EUNSUPPORTED, e->span, "a parameter shape may only use integer arithmetic of symbolic dims");
  return NULL;
}

/* ------------------------------------------------------------------ checks */

static tl_status check_tensor(papi *p, uint32_t i) {
  tl_ir_module *mod = p->mod;
  const tl_ir_param *prm = &p->f->params[i];
  const tl_ir_buffer *b = prm->buffer;
  const char *name = prm->name;
  char dn[32];
  const char *dname = tl_dtype_name(b->dtype, dn, sizeof dn);
  TL__TRY(add_assert(p, eq(mod, arg_call(mod, TL_OP_ARG_KIND, TL_DT_INT32, i, 0), tl_ir_i32(mod, TL_VALUE_TENSOR)), name,
                     "expected a tensor but got {kind(%u)}", i));
  tl_ir_expr *dt = and_(mod,
                        and_(mod, eq(mod, arg_call(mod, TL_OP_ARG_DTYPE_CODE, TL_DT_INT32, i, 0), tl_ir_i32(mod, b->dtype.code)),
                             eq(mod, arg_call(mod, TL_OP_ARG_DTYPE_BITS, TL_DT_INT32, i, 0), tl_ir_i32(mod, b->dtype.bits))),
                        eq(mod, arg_call(mod, TL_OP_ARG_DTYPE_LANES, TL_DT_INT32, i, 0), tl_ir_i32(mod, b->dtype.lanes)));
  TL__TRY(add_assert(p, dt, name, "expected %s but got {dtype(%u)}", dname, i));
  TL__TRY(add_assert(p, eq(mod, arg_call(mod, TL_OP_ARG_NDIM, TL_DT_INT32, i, 0), tl_ir_i32(mod, b->ndim)), name,
                     "expected %u dimension%s but got {ndim(%u)}", b->ndim, b->ndim == 1 ? "" : "s", i));
  const char *dw = device_words(p->device_type);
  tl_ir_expr *dev = eq(mod, arg_call(mod, TL_OP_ARG_DEVICE_TYPE, TL_DT_INT32, i, 0), tl_ir_i32(mod, p->device_type));
  if (dw) TL__TRY(add_assert(p, dev, name, "expected %s but got device type {device(%u)}", dw, i));
  else TL__TRY(add_assert(p, dev, name, "expected device type %d but got device type {device(%u)}", p->device_type, i));
  /* An empty tensor may come without data. */
  tl_ir_expr *data = tl_ir_unary(mod, TL_UN_NOT, arg_call(mod, TL_OP_ARG_DATA_IS_NULL, TL_DT_BOOL, i, 0));
  for (uint32_t d = 0; d < b->ndim; d++)
    data = or_(mod, data, eq(mod, arg_call(mod, TL_OP_ARG_SHAPE, TL_DT_INT64, i, d), tl_ir_int(mod, TL_DT_INT64, 0)));
  TL__TRY(add_assert(p, data, name, "the tensor's data is NULL"));
  for (uint32_t d = 0; d < b->ndim; d++) {
    int64_t v;
    if (!tl__is_const_int(b->shape[d], &v)) continue;
    TL__TRY(add_assert(p, eq(mod, arg_call(mod, TL_OP_ARG_SHAPE, TL_DT_INT64, i, d), tl_ir_int(mod, TL_DT_INT64, v)),
                       name, "dimension %u must be %lld but is {shape(%u,%u)}", d, (long long)v, i, d));
  }
  return TL_OK;
}

static tl_status check_scalar(papi *p, uint32_t i) {
  tl_ir_module *mod = p->mod;
  const tl_ir_param *prm = &p->f->params[i];
  tl_dtype t = prm->var->dtype;
  char dn[32];
  const char *dname = tl_dtype_name(t, dn, sizeof dn);
  tl_ir_expr *kind = arg_call(mod, TL_OP_ARG_KIND, TL_DT_INT32, i, 0);
  tl_ir_expr *is_int = eq(mod, kind, tl_ir_i32(mod, TL_VALUE_INT)), *is_bool = eq(mod, kind, tl_ir_i32(mod, TL_VALUE_BOOL));
  if (t.code == TL_DTYPE_HANDLE)
    return add_assert(p, eq(mod, kind, tl_ir_i32(mod, TL_VALUE_PTR)), prm->name, "expected a pointer but got {kind(%u)}", i);
  tl_ir_expr *ok = or_(mod, is_int, is_bool);
  if (tl_dtype_is_float(t)) ok = or_(mod, eq(mod, kind, tl_ir_i32(mod, TL_VALUE_FLOAT)), ok);
  TL__TRY(add_assert(p, ok, prm->name, "expected a scalar %s but got {kind(%u)}", dname, i));
  if (tl_dtype_is_int(t) && t.bits < 64) {
    int64_t lo, hi;
    tl__dtype_range(t, &lo, &hi);
    tl_ir_expr *v = arg_call(mod, TL_OP_ARG_INT, TL_DT_INT64, i, 0);
    tl_ir_expr *in = and_(mod, tl_ir_binary(mod, TL_BIN_GE, v, tl_ir_int(mod, TL_DT_INT64, lo)),
                          tl_ir_binary(mod, TL_BIN_LE, arg_call(mod, TL_OP_ARG_INT, TL_DT_INT64, i, 0),
                                       tl_ir_int(mod, TL_DT_INT64, hi)));
    TL__TRY(add_assert(p, in, prm->name, "{int(%u)} does not fit %s", i, dname));
  }
  return TL_OK;
}

/* The text of a shape expression for a message (braces cannot occur in it). */
static char *expr_text(const tl_ir_expr *e) {
  char *s = tl_ir_print_expr(e);
  if (!s) tl__oom();
  return s;
}

static tl_status check_sym_dims(papi *p, uint32_t i) {
  tl_ir_module *mod = p->mod;
  const tl_ir_param *prm = &p->f->params[i];
  const tl_ir_buffer *b = prm->buffer;
  for (uint32_t d = 0; d < b->ndim; d++) {
    const tl_ir_expr *e = b->shape[d];
    if (e->kind == TL_EXPR_INT) continue;
    tl_ir_expr *got = arg_call(mod, TL_OP_ARG_SHAPE, TL_DT_INT64, i, d);
    if (e->kind == TL_EXPR_VAR) {
      const sym_binding *sb = binding_of(p, e->u.var);
      if (sb->dim >= 0 && sb->param == i && sb->dim == (int32_t)d) {
        int64_t lo, hi;
        tl__dtype_range(e->u.var->dtype, &lo, &hi);
        if (lo < 0) lo = 0;
        tl_ir_expr *in = and_(mod, tl_ir_binary(mod, TL_BIN_GE, got, tl_ir_int(mod, TL_DT_INT64, lo)),
                              tl_ir_binary(mod, TL_BIN_LE, arg_call(mod, TL_OP_ARG_SHAPE, TL_DT_INT64, i, d),
                                           tl_ir_int(mod, TL_DT_INT64, hi)));
        char dn[32];
        TL__TRY(add_assert(p, in, prm->name, "dimension %u (%s = {shape(%u,%u)}) does not fit %s", d, e->u.var->name,
                           i, d, tl_dtype_name(e->u.var->dtype, dn, sizeof dn)));
        continue;
      }
      const char *from = p->f->params[sb->param].name;
      if (sb->dim >= 0)
        TL__TRY(add_assert(p, eq(mod, got, sym_value(p, sb)), prm->name,
                           "dimension %u must equal %s (={shape(%u,%d)} from argument '%s') but is {shape(%u,%u)}", d,
                           e->u.var->name, sb->param, sb->dim, from, i, d));
      else
        TL__TRY(add_assert(p, eq(mod, got, sym_value(p, sb)), prm->name,
                           "dimension %u must equal %s (={int(%u)} from argument '%s') but is {shape(%u,%u)}", d,
                           e->u.var->name, sb->param, from, i, d));
      continue;
    }
    tl_status st = TL_OK;
    tl_ir_expr *want = to_i64(p, e, &st);
    TL__TRY(st);
    char *text = expr_text(e);
    if (!text) return TL_ENOMEM;
    st = add_assert(p, eq(mod, got, want), prm->name, "dimension %u must be %s but is {shape(%u,%u)}", d, text, i, d);
    tl_free(text);
    TL__TRY(st);
  }
  return TL_OK;
}

static tl_status check_strides(papi *p, uint32_t i) {
  tl_ir_module *mod = p->mod;
  const tl_ir_param *prm = &p->f->params[i];
  const tl_ir_buffer *b = prm->buffer;
  if (!b->strides) {
    if (b->ndim == 0) return TL_OK;
    return add_assert(p, arg_call(mod, TL_OP_ARG_STRIDES_COMPACT, TL_DT_BOOL, i, 0), prm->name,
                      "the tensor must be compact (row-major contiguous)");
  }
  for (uint32_t d = 0; d < b->ndim; d++) {
    tl_status st = TL_OK;
    tl_ir_expr *want = to_i64(p, b->strides[d], &st);
    TL__TRY(st);
    tl_ir_expr *ok = or_(mod, eq(mod, arg_call(mod, TL_OP_ARG_SHAPE, TL_DT_INT64, i, d), tl_ir_int(mod, TL_DT_INT64, 1)),
                         eq(mod, arg_call(mod, TL_OP_ARG_STRIDE, TL_DT_INT64, i, d), want));
    char *text = expr_text(b->strides[d]);
    if (!text) return TL_ENOMEM;
    st = add_assert(p, ok, prm->name, "stride of dimension %u must be %s but is {stride(%u,%u)}", d, text, i, d);
    tl_free(text);
    TL__TRY(st);
  }
  return TL_OK;
}

/* The alignment the device kernels need of each tensor's data: the int
 * attribute tl.data_alignment.<param> of a launched kernel (gpu_vectorize) for
 * the host parameter whose data the launch passes there. */
typedef struct align_ctx {
  papi *p;
  int64_t *need; /* per host parameter, bytes (0: none) */
} align_ctx;

static bool launch_align(tl_ir_visitor *v, const tl_ir_stmt *s) {
  align_ctx *a = v->ctx;
  if (s->kind != TL_STMT_LAUNCH) return true;
  const tl_ir_func *k = tl_ir_module_find_func(a->p->mod, s->u.launch.kernel);
  if (!k || k->nparams != s->u.launch.nargs) return false;
  for (uint32_t i = 0; i < k->nparams; i++) {
    if (k->params[i].kind != TL_PARAM_BUFFER) continue;
    char key[300];
    snprintf(key, sizeof key, "tl.data_alignment.%s", k->params[i].name);
    const tl_ir_attr *at = tl_ir_func_attr(k, key);
    const tl_ir_expr *arg = s->u.launch.args[i];
    if (!at || at->kind != TL_ATTR_INT || !arg || arg->kind != TL_EXPR_VAR) continue;
    for (uint32_t h = 0; h < a->p->f->nparams; h++)
      if (a->p->f->params[h].kind == TL_PARAM_BUFFER && a->p->f->params[h].var == arg->u.var && at->i > a->need[h])
        a->need[h] = at->i;
  }
  return false;
}

static tl_status check_alignment(papi *p) {
  tl_ir_module *mod = p->mod;
  const tl_ir_func *f = p->f;
  if (f->nparams == 0) return TL_OK;
  int64_t *need = tl__calloc(f->nparams, sizeof *need);
  if (!need) return tl__oom();
  align_ctx a = {p, need};
  tl_ir_visitor v = {NULL, launch_align, &a};
  tl_ir_visit_stmt(&v, f->body);
  tl_status st = TL_OK;
  for (uint32_t i = 0; st == TL_OK && i < f->nparams; i++) {
    if (need[i] <= 1) continue;
    tl_ir_builder_set_loc(mod, f->params[i].buffer->span);
    tl_ir_expr *cond = arg_call(mod, TL_OP_ARG_DATA_ALIGNED, TL_DT_BOOL, i, need[i]);
    st = add_assert(p, cond, f->params[i].name, "the tensor's data must be aligned to %lld bytes (the kernel uses vector accesses)",
                    (long long)need[i]);
  }
  tl__free(need);
  return st;
}

/* ---------------------------------------------------------------- the pass */

static tl_status make_api(papi *p) {
  tl_ir_module *mod = p->mod;
  tl_ir_func *f = p->f;
  TL__TRY(find_bindings(p));
  tl_ir_span old = tl__loc_push(mod, f->span);
  tl_status st = add_assert(p, eq(mod, arg_call(mod, TL_OP_ARG_NUM, TL_DT_INT32, 0, 0), tl_ir_i32(mod, f->nparams)), NULL,
                            "function '%s' takes %u argument%s but got {nargs}", f->name, f->nparams,
                            f->nparams == 1 ? "" : "s");
  for (uint32_t i = 0; st == TL_OK && i < f->nparams; i++) {
    tl_ir_builder_set_loc(mod, f->params[i].buffer ? f->params[i].buffer->span : f->params[i].var->span);
    st = f->params[i].kind == TL_PARAM_BUFFER ? check_tensor(p, i) : check_scalar(p, i);
  }
  for (uint32_t i = 0; st == TL_OK && i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_BUFFER) {
      tl_ir_builder_set_loc(mod, f->params[i].buffer->span);
      st = check_sym_dims(p, i);
    }
  for (uint32_t i = 0; st == TL_OK && i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_BUFFER) {
      tl_ir_builder_set_loc(mod, f->params[i].buffer->span);
      st = check_strides(p, i);
    }
  if (st == TL_OK) st = check_alignment(p);
  tl_ir_builder_set_loc(mod, f->span);
  /* LET-bound copies of the shape-bound dims replace them in the launches. */
  tl_ir_var *from[128];
  tl_ir_expr *to[128];
  uint32_t n = 0;
  for (size_t k = 0; st == TL_OK && k < p->syms.len; k++) {
    sym_binding *sb = &TL__VEC_AT(&p->syms, sym_binding, k);
    if (sb->dim < 0) continue;
    if (n == 128) {
      st = tl__pass_error(TL_EUNSUPPORTED, f->span, "more than 128 symbolic dims");
      break;
    }
    sb->let = tl_ir_var_new(mod, sb->var->name, sb->var->dtype);
    from[n] = sb->var;
    to[n] = sb->let ? tl_ir_var_ref(mod, sb->let) : NULL;
    st = tl__built(mod, to[n++]);
  }
  tl_ir_stmt *body = NULL;
  if (st == TL_OK) {
    body = n ? tl_ir_substitute_stmt(mod, f->body, n, from, to) : f->body;
    for (size_t k = p->syms.len; body && k-- > 0;) {
      sym_binding *sb = &TL__VEC_AT(&p->syms, sym_binding, k);
      if (sb->dim < 0) continue;
      body = tl_ir_let(mod, sb->let, tl__cast_int(mod, sb->var->dtype, sym_value(p, sb)), body);
    }
    st = tl__built(mod, body);
  }
  if (st == TL_OK) st = tl__vec_push(&p->asserts, &body);
  if (st == TL_OK) {
    tl_ir_stmt *seq = tl_ir_seq(mod, (uint32_t)p->asserts.len, (tl_ir_stmt *const *)p->asserts.data);
    st = tl__built(mod, seq);
    if (st == TL_OK) f->body = seq;
  }
  tl_ir_builder_set_loc(mod, old);
  return st;
}

tl_status tl__pass_make_packed_api(tl_ir_module *mod, const tl_target *target) {
  int device_type = target ? tl_target_device_type(target) : 1;
  if (device_type <= 0) device_type = 1;
  for (size_t i = 0; i < tl_ir_module_num_funcs(mod); i++) {
    tl_ir_func *f = tl_ir_module_func(mod, i);
    if (f->callconv != TL_CALLCONV_PACKED || !f->body) continue;
    papi p = {mod, f, {0}, {0}, device_type};
    tl__vec_init(&p.asserts, sizeof(tl_ir_stmt *));
    tl__vec_init(&p.syms, sizeof(sym_binding));
    tl_status st = make_api(&p);
    tl__vec_free(&p.asserts);
    tl__vec_free(&p.syms);
    TL__TRY(st);
  }
  return TL_OK;
}
