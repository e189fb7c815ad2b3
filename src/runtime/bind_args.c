/* tl_kernel_table_bind_args: the argument checks of a generated host entry, for
 * runtimes that launch device code without host code (nvrtc, opencl). Same checks,
 * same order, same messages as make_packed_api's asserts (docs/lowering.md, "The
 * argument checks"): the count; per parameter its kind, dtype, rank, device, data
 * and constant dimensions (tensors) or kind and range (scalars); per parameter its
 * symbolic dimensions; per tensor its strides; per tensor its data alignment (where
 * the device code uses vector accesses). Then the symbolic dims are bound. */
#include <inttypes.h>

#include <dlpack/dlpack.h>

#include "base/error.h"
#include "kernel_table/kernel_table.h"
#include "tilelang/runtime.h"
#include "runtime/dl_names.h"

/* DLPack 0.6 declares DLTensor as an untagged struct: ffi.h's `struct DLTensor *`
 * is only an opaque name for it. */
static const DLTensor *tensor_of(const tl_value *a) { return (const DLTensor *)(const void *)a->v.tensor; }

/* T.arg_kind: a tensor value holding NULL counts as none, so no check reads it. */
static int32_t arg_kind(const tl_value *a) {
  if (a->kind == TL_VALUE_TENSOR && !a->v.tensor) return TL_VALUE_NONE;
  return (int32_t)a->kind;
}

/* T.arg_int */
static int64_t arg_int(const tl_value *a) { return a->kind == TL_VALUE_BOOL ? (a->v.b ? 1 : 0) : a->v.i; }

static bool scalar_kind_ok(tl_dtype t, int32_t kind) {
  if (t.code == TL_DTYPE_HANDLE) return kind == TL_VALUE_PTR;
  if (tl_dtype_is_float(t)) return kind == TL_VALUE_FLOAT || kind == TL_VALUE_INT || kind == TL_VALUE_BOOL;
  return kind == TL_VALUE_INT || kind == TL_VALUE_BOOL;
}

/* The range of an integer type narrower than 64 bits; false for other types. */
static bool int_range(tl_dtype t, int64_t *lo, int64_t *hi) {
  if (!tl_dtype_is_int(t) || t.bits >= 64) return false;
  if (t.code == TL_DTYPE_UINT) {
    *lo = 0;
    *hi = (int64_t)((UINT64_C(1) << t.bits) - 1);
  } else {
    *lo = -(INT64_C(1) << (t.bits - 1));
    *hi = (INT64_C(1) << (t.bits - 1)) - 1;
  }
  return true;
}

static tl_status check_tensor(const tl_host_param *p, const tl_value *a, int32_t device_type) {
  char want[48], got[48];
  int32_t kind = arg_kind(a);
  if (kind != TL_VALUE_TENSOR)
    return tl__error(TL_EINVAL, "argument '%s': expected a tensor but got %s", p->name, tl__value_kind_words(kind));
  const DLTensor *x = tensor_of(a);
  if (x->dtype.code != p->dtype.code || x->dtype.bits != p->dtype.bits || x->dtype.lanes != p->dtype.lanes)
    return tl__error(TL_EINVAL, "argument '%s': expected %s but got %s", p->name,
                     tl__dl_dtype_name(p->dtype.code, p->dtype.bits, p->dtype.lanes, want, sizeof want),
                     tl__dl_dtype_name(x->dtype.code, x->dtype.bits, x->dtype.lanes, got, sizeof got));
  if (x->ndim != (int)p->ndim)
    return tl__error(TL_EINVAL, "argument '%s': expected %u dimension%s but got %d", p->name, p->ndim,
                     p->ndim == 1 ? "" : "s", x->ndim);
  if ((int32_t)x->device.device_type != device_type) {
    const char *words = tl__dl_device_words(device_type);
    if (words)
      return tl__error(TL_EINVAL, "argument '%s': expected %s but got device type %d", p->name, words,
                       (int)x->device.device_type);
    return tl__error(TL_EINVAL, "argument '%s': expected device type %d but got device type %d", p->name,
                     (int)device_type, (int)x->device.device_type);
  }
  if (!x->data) {
    bool empty = false;
    for (uint32_t d = 0; d < p->ndim; d++) empty = empty || x->shape[d] == 0;
    if (!empty) return tl__error(TL_EINVAL, "argument '%s': the tensor's data is NULL", p->name);
  }
  for (uint32_t d = 0; d < p->ndim; d++)
    if (p->dims[d].sym < 0 && x->shape[d] != p->dims[d].value)
      return tl__error(TL_EINVAL, "argument '%s': dimension %u must be %" PRId64 " but is %" PRId64, p->name, d,
                       p->dims[d].value, x->shape[d]);
  return TL_OK;
}

static tl_status check_scalar(const tl_host_param *p, const tl_value *a) {
  char name[48];
  int32_t kind = arg_kind(a);
  const char *dt = tl__dl_dtype_name(p->dtype.code, p->dtype.bits, p->dtype.lanes, name, sizeof name);
  if (p->dtype.code == TL_DTYPE_HANDLE && kind != TL_VALUE_PTR)
    return tl__error(TL_EINVAL, "argument '%s': expected a pointer but got %s", p->name, tl__value_kind_words(kind));
  if (!scalar_kind_ok(p->dtype, kind))
    return tl__error(TL_EINVAL, "argument '%s': expected a scalar %s but got %s", p->name, dt,
                     tl__value_kind_words(kind));
  int64_t lo, hi, v = arg_int(a);
  if (int_range(p->dtype, &lo, &hi) && (v < lo || v > hi))
    return tl__error(TL_EINVAL, "argument '%s': %" PRId64 " does not fit %s", p->name, v, dt);
  return TL_OK;
}

/* The value bound to symbolic dim s (its binding parameter's dimension or value). */
static int64_t sym_value(const tl_kernel_table *t, const tl_host_sym *s, const tl_value *args) {
  const tl_value *a = &args[s->param];
  return s->dim >= 0 ? tensor_of(a)->shape[s->dim] : arg_int(a);
}

static tl_status check_syms(const tl_kernel_table *t, uint32_t i, const tl_value *args) {
  const tl_host_param *p = &t->params[i];
  const DLTensor *x = tensor_of(&args[i]);
  for (uint32_t d = 0; d < p->ndim; d++) {
    int32_t k = p->dims[d].sym;
    if (k < 0) continue;
    const tl_host_sym *s = &t->syms[k];
    int64_t got = x->shape[d];
    if (s->param == i && s->dim == (int32_t)d) {
      if (got < 0 || got > INT32_MAX)
        return tl__error(TL_EINVAL, "argument '%s': dimension %u (%s = %" PRId64 ") does not fit int32", p->name, d,
                         s->name, got);
      continue;
    }
    int64_t want = sym_value(t, s, args);
    if (got != want)
      return tl__error(TL_EINVAL, "argument '%s': dimension %u must equal %s (=%" PRId64 " from argument '%s') but is %" PRId64,
                       p->name, d, s->name, want, t->params[s->param].name, got);
  }
  return TL_OK;
}

/* T.arg_strides_compact: no strides, or row-major strides (extent-1 dims ignored). */
static bool compact(const DLTensor *x) {
  if (!x->strides) return true;
  int64_t expect = 1;
  for (int d = x->ndim; d-- > 0;) {
    if (x->shape[d] != 1 && x->strides[d] != expect) return false;
    expect *= x->shape[d];
  }
  return true;
}

tl_status tl_kernel_table_bind_args(const tl_kernel_table *t, const tl_value *args, int nargs, int32_t device_type,
                                    int64_t *syms) {
  if (!t) return tl__error(TL_EINVAL, "tl_kernel_table_bind_args: table must not be NULL");
  if (nargs < 0 || (nargs > 0 && !args) || (t->nsyms > 0 && !syms))
    return tl__error(TL_EINVAL, "tl_kernel_table_bind_args: bad argument array");
  if ((uint32_t)nargs != t->nparams)
    return tl__error(TL_EINVAL, "function '%s' takes %u argument%s but got %d", t->entry, t->nparams,
                     t->nparams == 1 ? "" : "s", nargs);
  for (uint32_t i = 0; i < t->nparams; i++) {
    const tl_host_param *p = &t->params[i];
    TL__TRY(p->is_tensor ? check_tensor(p, &args[i], device_type) : check_scalar(p, &args[i]));
  }
  for (uint32_t i = 0; i < t->nparams; i++)
    if (t->params[i].is_tensor) TL__TRY(check_syms(t, i, args));
  for (uint32_t i = 0; i < t->nparams; i++)
    if (t->params[i].is_tensor && !compact(tensor_of(&args[i])))
      return tl__error(TL_EINVAL, "argument '%s': the tensor must be compact (row-major contiguous)", t->params[i].name);
  for (uint32_t i = 0; i < t->nparams; i++) {
    const tl_host_param *p = &t->params[i];
    const DLTensor *x = p->is_tensor ? tensor_of(&args[i]) : NULL;
    if (x && p->data_alignment > 1 && ((uintptr_t)x->data + x->byte_offset) % p->data_alignment != 0)
      return tl__error(TL_EINVAL, "argument '%s': the tensor's data must be aligned to %u bytes (the kernel uses vector accesses)",
                       p->name, (unsigned)p->data_alignment);
  }
  for (uint32_t k = 0; k < t->nsyms; k++) syms[k] = sym_value(t, &t->syms[k], args);
  return TL_OK;
}
