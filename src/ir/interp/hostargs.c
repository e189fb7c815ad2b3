/* Host entries (TL_CALLCONV_PACKED): the TL_OP_ARG_* builtins read the arguments
 * as the caller passed them, and failed asserts fill their message placeholders
 * from them, exactly as generated host code does (docs/lowering.md). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "ir/interp/interp.h"

const char *tl__interp_value_kind_name(tl_value_kind k) {
  switch (k) {
  case TL_VALUE_NONE: return "none";
  case TL_VALUE_INT: return "an int";
  case TL_VALUE_FLOAT: return "a float";
  case TL_VALUE_BOOL: return "a bool";
  case TL_VALUE_STR: return "a string";
  case TL_VALUE_BYTES: return "bytes";
  case TL_VALUE_PTR: return "a pointer";
  case TL_VALUE_TARGET: return "a target";
  case TL_VALUE_IR_MODULE: return "an IR module";
  case TL_VALUE_ARTIFACT: return "an artifact";
  case TL_VALUE_TENSOR: return "a tensor";
  }
  return "an unknown value";
}

const char *tl__interp_dl_dtype_name(uint8_t code, uint8_t bits, uint16_t lanes, char buf[48]) {
  tl_dtype t = {code, bits, lanes};
  bool known = code == kDLInt || code == kDLUInt || code == kDLFloat || code == kDLBfloat || code == TL_DTYPE_BOOL ||
               code == kDLOpaqueHandle;
  const char *n = known ? tl_dtype_name(t, buf, 48) : NULL;
  if (n) return n;
  snprintf(buf, 48, "dtype(code=%u, bits=%u, lanes=%u)", (unsigned)code, (unsigned)bits, (unsigned)lanes);
  return buf;
}

static const DLTensor *tensor_at(const tl__interp *in, int64_t i) {
  return (const DLTensor *)(const void *)in->args[i].v.tensor;
}

/* Checks the builtin's preconditions; *t is the tensor when it needs one. */
static tl_status arg_pre(tl__iframe *fr, const tl_ir_expr *e, int64_t *i, int64_t *d, const DLTensor **t) {
  const tl__interp *in = fr->in;
  tl_ir_op op = e->u.call.op;
  const char *name = tl_ir_op_name(op);
  *i = *d = 0;
  *t = NULL;
  if (fr->func->callconv != TL_CALLCONV_PACKED || fr->in->depth != 0)
    return tl__interp_error(TL_EINVAL, e->span, "%s reads host-entry arguments; it runs only in a packed host function",
                            name);
  if (op == TL_OP_ARG_NUM) return TL_OK;
  for (uint32_t k = 0; k < e->u.call.nargs && k < 2; k++) {
    const tl_ir_expr *a = e->u.call.args[k];
    if (!a || a->kind != TL_EXPR_INT || a->u.int_value < 0)
      return tl__interp_error(TL_EINVAL, e->span, "%s: arguments must be non-negative integer constants", name);
    *(k ? d : i) = a->u.int_value;
  }
  if (*i >= in->nargs)
    return tl__interp_error(TL_ERUNTIME, e->span, "%s(%" PRId64 "): only %d arguments were passed", name, *i, in->nargs);
  const tl_value *a = &in->args[*i];
  if (op == TL_OP_ARG_KIND) return TL_OK;
  if (op == TL_OP_ARG_INT || op == TL_OP_ARG_FLOAT) {
    if (a->kind != TL_VALUE_INT && a->kind != TL_VALUE_BOOL && !(op == TL_OP_ARG_FLOAT && a->kind == TL_VALUE_FLOAT))
      return tl__interp_error(TL_ERUNTIME, e->span, "%s(%" PRId64 "): the argument is %s", name, *i,
                              tl__interp_value_kind_name(a->kind));
    return TL_OK;
  }
  if (a->kind != TL_VALUE_TENSOR || !a->v.tensor)
    return tl__interp_error(TL_ERUNTIME, e->span, "%s(%" PRId64 "): the argument is not a tensor", name, *i);
  *t = tensor_at(in, *i);
  if ((op == TL_OP_ARG_SHAPE || op == TL_OP_ARG_STRIDE) && (*d >= (*t)->ndim || !(*t)->shape))
    return tl__interp_error(TL_ERUNTIME, e->span, "%s(%" PRId64 ", %" PRId64 "): the tensor has %d dimensions", name, *i,
                            *d, (*t)->ndim);
  return TL_OK;
}

static int64_t compact_stride(const DLTensor *t, int64_t d) {
  int64_t s = 1;
  for (int64_t k = d + 1; k < t->ndim; k++) s *= t->shape[k];
  return s;
}

static bool strides_compact(const DLTensor *t) {
  if (!t->strides) return true;
  int64_t want = 1;
  for (int64_t d = t->ndim; d-- > 0;) {
    if (t->shape[d] != 1 && t->strides[d] != want) return false;
    want *= t->shape[d];
  }
  return true;
}

tl_status tl__interp_arg_op(tl__iframe *fr, const tl_ir_expr *e, tl__ival *out) {
  int64_t i, d;
  const DLTensor *t;
  TL__TRY(arg_pre(fr, e, &i, &d, &t));
  const tl_value *a = fr->in->args ? &fr->in->args[i] : NULL;
  switch (e->u.call.op) {
  case TL_OP_ARG_NUM: out->i = fr->in->nargs; break;
  case TL_OP_ARG_KIND: out->i = a->kind; break;
  case TL_OP_ARG_DTYPE_CODE: out->i = t->dtype.code; break;
  case TL_OP_ARG_DTYPE_BITS: out->i = t->dtype.bits; break;
  case TL_OP_ARG_DTYPE_LANES: out->i = t->dtype.lanes; break;
  case TL_OP_ARG_NDIM: out->i = t->ndim; break;
  case TL_OP_ARG_SHAPE: out->i = t->shape[d]; break;
  case TL_OP_ARG_STRIDE: out->i = t->strides ? t->strides[d] : compact_stride(t, d); break;
  case TL_OP_ARG_STRIDES_COMPACT: out->i = strides_compact(t); break;
  case TL_OP_ARG_DEVICE_TYPE: out->i = t->device.device_type; break;
  case TL_OP_ARG_DATA_IS_NULL: out->i = t->data == NULL; break;
  case TL_OP_ARG_DATA_ALIGNED:
    if (d < 1 || (d & (d - 1)) != 0)
      return tl__interp_error(TL_EINVAL, e->span, "%s: the alignment must be a power of two", tl_ir_op_name(e->u.call.op));
    out->i = ((uintptr_t)t->data + (uintptr_t)t->byte_offset) % (uint64_t)d == 0;
    break;
  case TL_OP_ARG_INT: out->i = a->kind == TL_VALUE_BOOL ? (int64_t)a->v.b : a->v.i; break;
  case TL_OP_ARG_FLOAT:
    out->f = a->kind == TL_VALUE_FLOAT ? a->v.f : a->kind == TL_VALUE_BOOL ? (double)a->v.b : (double)a->v.i;
    break;
  default: return tl__interp_error(TL_EINVAL, e->span, "%s is not an argument builtin", tl_ir_op_name(e->u.call.op));
  }
  return TL_OK;
}

/* ------------------------------------------------------------ placeholders */

/* Fills one placeholder `name(i[,d])` (without braces) into sb; false if it is not
 * one or its argument does not have what it reads. */
static bool fill_placeholder(const tl__interp *in, const char *p, size_t n, tl__sb *sb) {
  char name[16];
  long long i = 0, d = 0;
  int used = 0;
  char text[64];
  if (n >= sizeof text) return false;
  memcpy(text, p, n);
  text[n] = '\0';
  if (strcmp(text, "nargs") == 0) {
    tl__sb_appendf(sb, "%d", in->nargs);
    return true;
  }
  int got = sscanf(text, "%15[a-z](%lld,%lld)%n", name, &i, &d, &used);
  if (got < 3) {
    used = 0;
    got = sscanf(text, "%15[a-z](%lld)%n", name, &i, &used);
    if (got < 2) return false;
    d = -1;
  }
  if ((size_t)used != n || i < 0 || i >= in->nargs) return false;
  const tl_value *a = &in->args[i];
  if (strcmp(name, "kind") == 0 && d < 0) {
    tl__sb_append(sb, tl__interp_value_kind_name(a->kind));
    return true;
  }
  if (strcmp(name, "int") == 0 && d < 0) {
    if (a->kind != TL_VALUE_INT && a->kind != TL_VALUE_BOOL) return false;
    tl__sb_appendf(sb, "%" PRId64, a->kind == TL_VALUE_BOOL ? (int64_t)a->v.b : a->v.i);
    return true;
  }
  if (a->kind != TL_VALUE_TENSOR || !a->v.tensor) return false;
  const DLTensor *t = tensor_at(in, i);
  if (strcmp(name, "dtype") == 0 && d < 0) {
    char buf[48];
    tl__sb_append(sb, tl__interp_dl_dtype_name(t->dtype.code, t->dtype.bits, t->dtype.lanes, buf));
  } else if (strcmp(name, "ndim") == 0 && d < 0) {
    tl__sb_appendf(sb, "%d", t->ndim);
  } else if (strcmp(name, "device") == 0 && d < 0) {
    tl__sb_appendf(sb, "%d", (int)t->device.device_type);
  } else if ((strcmp(name, "shape") == 0 || strcmp(name, "stride") == 0) && d >= 0 && d < t->ndim && t->shape) {
    int64_t v = name[1] == 'h' ? t->shape[d] : t->strides ? t->strides[d] : compact_stride(t, d);
    tl__sb_appendf(sb, "%" PRId64, v);
  } else {
    return false;
  }
  return true;
}

char *tl__interp_assert_message(tl__iframe *fr, const char *msg) {
  tl__sb sb = TL__SB_INIT;
  for (const char *p = msg ? msg : "assertion failed"; *p; p++) {
    if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
      tl__sb_putc(&sb, *p++);
      continue;
    }
    const char *end = p[0] == '{' ? strchr(p, '}') : NULL;
    if (end && fr->in->args && fill_placeholder(fr->in, p + 1, (size_t)(end - p - 1), &sb)) {
      p = end;
      continue;
    }
    tl__sb_putc(&sb, *p);
  }
  return tl__sb_finish(&sb);
}

static bool reads_state(tl_ir_visitor *v, const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_VAR || e->kind == TL_EXPR_LOAD) *(bool *)v->ctx = true;
  return true;
}

/* An assert whose condition reads only argument metadata and constants. */
static bool checks_args_only(const tl_ir_stmt *s) {
  bool state = false;
  tl_ir_visitor v = {reads_state, NULL, &state};
  tl_ir_visit_expr(&v, s->u.assert_.cond);
  return !state;
}

tl_status tl__interp_host_checks(tl__iframe *fr) {
  const tl_ir_stmt *body = fr->func->body;
  if (!body) return TL_OK;
  const tl_ir_stmt *const *items = &body;
  uint32_t n = 1;
  if (body->kind == TL_STMT_SEQ) {
    items = (const tl_ir_stmt *const *)body->u.seq.stmts;
    n = body->u.seq.n;
  }
  for (uint32_t k = 0; k < n && items[k] && items[k]->kind == TL_STMT_ASSERT && checks_args_only(items[k]); k++)
    TL__TRY(tl__interp_exec(fr, items[k]));
  return TL_OK;
}
