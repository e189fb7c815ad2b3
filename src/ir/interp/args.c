/* tl_ir_interpret: checks every argument against the function's parameters before
 * anything runs (count, tensor or scalar, dtype, rank, constant and symbolic
 * dimensions, device, data, strides), binds them, and runs the body. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "ir/interp/interp.h"
#include "ir/module.h"

/* The tensor of a TL_VALUE_TENSOR. DLPack 0.6 declares DLTensor as an untagged
 * struct, so ffi.h's `struct DLTensor *` is only an opaque name for it. */
static const DLTensor *tensor_of(const tl_value *a) { return (const DLTensor *)(const void *)a->v.tensor; }

static const char *value_kind_name(tl_value_kind k) { return tl__interp_value_kind_name(k); }

static const char *dl_dtype_name(DLDataType d, char buf[48]) { return tl__interp_dl_dtype_name(d.code, d.bits, d.lanes, buf); }

static tl_status bind_scalar(tl__iframe *fr, const tl_ir_param *p, const tl_value *a) {
  char nb[32];
  const tl_ir_var *v = p->var;
  tl_dtype t = v->dtype;
  const char *tn = tl__interp_dtype_name(t, nb);
  tl__ival out;
  out.i = 0;
  if (a->kind == TL_VALUE_TENSOR)
    return tl__error(TL_EINVAL, "argument '%s': expected a scalar %s but got a tensor", p->name, tn);
  if (t.lanes != 1 || !(tl__iv_dtype_supported(t) || t.code == TL_DTYPE_HANDLE))
    return tl__error(TL_EUNSUPPORTED, "argument '%s': the interpreter does not support scalars of %s", p->name, tn);
  if (t.code == TL_DTYPE_HANDLE) {
    if (a->kind != TL_VALUE_PTR)
      return tl__error(TL_EINVAL, "argument '%s': expected a pointer but got %s", p->name, value_kind_name(a->kind));
    out.p = a->v.ptr;
  } else if (a->kind == TL_VALUE_INT || a->kind == TL_VALUE_BOOL) {
    int64_t x = a->kind == TL_VALUE_BOOL ? (int64_t)a->v.b : a->v.i;
    if (tl_dtype_is_int(t) && (tl__iv_wrap(t, x) != x || (t.code == TL_DTYPE_UINT && x < 0)))
      return tl__error(TL_EINVAL, "argument '%s': %" PRId64 " does not fit %s", p->name, x, tn);
    out = tl__iv_from_i64(t, x);
  } else if (a->kind == TL_VALUE_FLOAT) {
    double x = a->v.f;
    if (tl_dtype_is_int(t)) {
      tl__ival fv;
      fv.f = x;
      if (x != trunc(x))
        return tl__error(TL_EINVAL, "argument '%s': expected an integer (%s) but got %.17g", p->name, tn, x);
      if (tl__iv_cast(t, TL_DT_FLOAT64, fv, (tl_ir_span){NULL, 0, 0}, &out) != TL_OK)
        return tl__error(TL_EINVAL, "argument '%s': %.17g does not fit %s", p->name, x, tn);
    } else if (tl_dtype_is_bool(t)) {
      out.i = x != 0;
    } else {
      out.f = tl__iv_round(t, x);
    }
  } else {
    return tl__error(TL_EINVAL, "argument '%s': expected %s but got %s", p->name, tn, value_kind_name(a->kind));
  }
  tl__interp_bind(fr, v, out);
  return TL_OK;
}

/* Checks what a tensor argument is made of, before its shape. */
static tl_status check_tensor(const tl_ir_param *p, const tl_value *a) {
  char nb[32], db[48];
  const tl_ir_buffer *buf = p->buffer;
  if (a->kind != TL_VALUE_TENSOR)
    return tl__error(TL_EINVAL, "argument '%s': expected a tensor but got %s", p->name, value_kind_name(a->kind));
  const DLTensor *t = tensor_of(a);
  if (!t) return tl__error(TL_EINVAL, "argument '%s': the tensor is NULL", p->name);
  if (t->device.device_type != kDLCPU)
    return tl__error(TL_EINVAL, "argument '%s': expected a CPU tensor (kDLCPU) but got device type %d", p->name,
                     (int)t->device.device_type);
  if (t->dtype.code != buf->dtype.code || t->dtype.bits != buf->dtype.bits || t->dtype.lanes != buf->dtype.lanes)
    return tl__error(TL_EINVAL, "argument '%s': expected %s but got %s", p->name,
                     tl__interp_dtype_name(buf->dtype, nb), dl_dtype_name(t->dtype, db));
  if (!tl__iv_dtype_supported(tl_dtype_scalar(buf->dtype)) || buf->dtype.lanes != 1)
    return tl__error(TL_EUNSUPPORTED, "argument '%s': the interpreter does not support %s tensors", p->name,
                     tl__interp_dtype_name(buf->dtype, nb));
  if (t->ndim < 0 || (uint32_t)t->ndim != buf->ndim)
    return tl__error(TL_EINVAL, "argument '%s': expected %u dimension%s but got %d", p->name, buf->ndim,
                     buf->ndim == 1 ? "" : "s", t->ndim);
  if (buf->ndim && !t->shape) return tl__error(TL_EINVAL, "argument '%s': the tensor has no shape", p->name);
  for (uint32_t i = 0; i < buf->ndim; i++)
    if (t->shape[i] < 0)
      return tl__error(TL_EINVAL, "argument '%s': dimension %u is negative (%" PRId64 ")", p->name, i, t->shape[i]);
  return TL_OK;
}

/* Pass 1 over a tensor's shape: constants must match, a plain symbolic variable is
 * bound by its first use and checked at every later one. Other expressions wait
 * for pass 2, once every variable is bound. */
static tl_status bind_dims(tl__iframe *fr, const tl_ir_param *p, const DLTensor *t, const char **bound_by) {
  const tl_ir_buffer *buf = p->buffer;
  for (uint32_t i = 0; i < buf->ndim; i++) {
    const tl_ir_expr *e = buf->shape[i];
    int64_t got = t->shape[i];
    if (!e) return tl__error(TL_EINVAL, "argument '%s': dimension %u has no extent", p->name, i);
    if (e->kind == TL_EXPR_INT) {
      if (e->u.int_value != got)
        return tl__error(TL_EINVAL, "argument '%s': dimension %u expected %" PRId64 " but got %" PRId64, p->name, i,
                         e->u.int_value, got);
    } else if (e->kind == TL_EXPR_VAR) {
      const tl_ir_var *v = e->u.var;
      if (v->id >= fr->in->nvars)
        return tl__error(TL_EINVAL, "argument '%s': dimension %u uses a variable outside the module", p->name, i);
      if (fr->bound[v->id]) {
        if (fr->vals[v->id].i != got)
          return tl__error(TL_EINVAL,
                           "argument '%s': dimension %u (%s) expected %" PRId64 " as bound by argument '%s' but got %" PRId64,
                           p->name, i, v->name, fr->vals[v->id].i, bound_by[v->id] ? bound_by[v->id] : "?", got);
      } else {
        char nb[32];
        if (!tl_dtype_is_int(v->dtype) || tl__iv_wrap(v->dtype, got) != got)
          return tl__error(TL_EINVAL, "argument '%s': dimension %u (%s = %" PRId64 ") does not fit %s", p->name, i,
                           v->name, got, tl__interp_dtype_name(v->dtype, nb));
        tl__ival val;
        val.i = got;
        tl__interp_bind(fr, v, val);
        bound_by[v->id] = p->name;
      }
    }
  }
  return TL_OK;
}

/* Pass 2: composite dimensions, strides, and the storage behind the tensor. */
static tl_status bind_storage(tl__iframe *fr, const tl_ir_param *p, const DLTensor *t, tl__istore *st) {
  const tl_ir_buffer *buf = p->buffer;
  for (uint32_t i = 0; i < buf->ndim; i++) {
    const tl_ir_expr *e = buf->shape[i];
    if (e->kind == TL_EXPR_INT || e->kind == TL_EXPR_VAR) continue;
    int64_t want;
    tl_status s = tl__interp_eval_int(fr, e, &want);
    if (s != TL_OK) return tl__error_context(s, "argument '%s': dimension %u: ", p->name, i);
    if (want != t->shape[i])
      return tl__error(TL_EINVAL, "argument '%s': dimension %u expected %" PRId64 " but got %" PRId64, p->name, i,
                       want, t->shape[i]);
  }
  tl_status s = tl__interp_layout_eval(fr, buf, buf->span);
  if (s != TL_OK) return tl__error_context(s, "argument '%s': ", p->name);
  const int64_t *dims = fr->layouts[buf->id].dims, *strides = dims ? dims + buf->ndim : NULL;
  /* Strides of extent-1 dimensions never matter (PyTorch leaves them arbitrary). */
  int64_t expect_compact = 1;
  bool empty = false;
  for (uint32_t i = buf->ndim; i-- > 0;) {
    int64_t got = t->strides ? t->strides[i] : expect_compact;
    if (dims[i] > 1 && got != strides[i])
      return tl__error(TL_EINVAL,
                       "argument '%s': stride %" PRId64 " in dimension %u where the buffer has %" PRId64
                       " (tensors must be compact row-major)",
                       p->name, got, i, strides[i]);
    expect_compact *= dims[i];
    if (dims[i] == 0) empty = true;
  }
  size_t esz = tl_dtype_bytes(buf->dtype);
  uint64_t last = 0; /* offset of the last element */
  for (uint32_t i = 0; i < buf->ndim && !empty; i++) last += (uint64_t)(dims[i] - 1) * (uint64_t)strides[i];
  if (!empty && !t->data) return tl__error(TL_EINVAL, "argument '%s': the tensor's data is NULL", p->name);
  st->data = empty ? NULL : (char *)t->data + t->byte_offset;
  st->nbytes = empty ? 0 : (size_t)(last + 1) * esz;
  st->owned = false;
  st->global = true;
  st->buffer = buf;
  if (!buf->data || buf->data->id >= fr->in->nvars)
    return tl__error(TL_EINVAL, "argument '%s': the buffer has no data variable of the module", p->name);
  tl__interp_bind_storage(fr, buf->data, st);
  return TL_OK;
}

static tl_status bind_args(tl__iframe *fr, const tl_ir_func *f, const tl_value *args, int nargs, tl__istore *stores,
                           const char **bound_by) {
  if ((uint32_t)nargs != f->nparams)
    return tl__error(TL_EINVAL, "function '%s' takes %u argument%s but got %d", f->name, f->nparams,
                     f->nparams == 1 ? "" : "s", nargs);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    if (p->kind == TL_PARAM_BUFFER) {
      if (!p->buffer || (p->buffer->ndim && !p->buffer->shape))
        return tl__error(TL_EINVAL, "parameter '%s' has no buffer or shape", p->name);
      TL__TRY(check_tensor(p, &args[i]));
    } else {
      if (!p->var || p->var->id >= fr->in->nvars)
        return tl__error(TL_EINVAL, "parameter '%s' has no variable of the module", p->name);
      TL__TRY(bind_scalar(fr, p, &args[i]));
      bound_by[p->var->id] = p->name;
    }
  }
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_BUFFER) TL__TRY(bind_dims(fr, &f->params[i], tensor_of(&args[i]), bound_by));
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_BUFFER)
      TL__TRY(bind_storage(fr, &f->params[i], tensor_of(&args[i]), &stores[i]));
  return TL_OK;
}

tl_status tl_ir_interpret(const tl_ir_module *mod, const char *func_name, const tl_value *args, int nargs) {
  if (!mod || !func_name) return tl__error(TL_EINVAL, "tl_ir_interpret: a module and a function name are required");
  if (nargs < 0 || (nargs > 0 && !args)) return tl__error(TL_EINVAL, "tl_ir_interpret: bad argument array");
  const tl_ir_func *f = tl_ir_module_find_func(mod, func_name);
  if (!f) return tl__error(TL_ENOTFOUND, "no function '%s' in the module", func_name);
  if (f->callconv == TL_CALLCONV_DEVICE_KERNEL)
    return tl__error(TL_EINVAL, "function '%s' is a device kernel: interpret the host function that launches it",
                     func_name);
  TL__TRY(tl__interp_check_func(f));
  tl__interp in = {mod, mod->next_var_id, mod->next_buffer_id, 0, args, nargs};
  tl__iframe fr;
  TL__TRY(tl__iframe_init(&fr, &in, f));
  /* A host entry checks its arguments itself: its own messages come first. */
  if (f->callconv == TL_CALLCONV_PACKED) {
    tl_status hs = tl__interp_host_checks(&fr);
    if (hs != TL_OK) {
      tl__iframe_free(&fr);
      return hs;
    }
  }
  tl__istore *stores = tl__calloc(f->nparams ? f->nparams : 1, sizeof *stores);
  const char **bound_by = tl__calloc(in.nvars ? in.nvars : 1, sizeof *bound_by);
  tl_status s = stores && bound_by ? TL_OK : tl__oom();
  if (s == TL_OK) s = bind_args(&fr, f, args, nargs, stores, bound_by);
  if (s == TL_OK) s = tl__interp_run_func(&fr);
  tl__iframe_free(&fr);
  tl__free(stores);
  tl__free(bound_by);
  return s;
}
