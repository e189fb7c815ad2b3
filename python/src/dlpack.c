/* Tensors from Python: any object with __dlpack__ (NumPy, CuPy, JAX, torch) becomes a
 * DLTensor borrowed for the duration of one call. The capsule __dlpack__ returns is
 * kept, never consumed, so its own destructor calls the producer's deleter afterwards
 * (the DLPack rule for a consumer that does not take ownership). Both capsule forms
 * are read: "dltensor" (DLManagedTensor) and "dltensor_versioned"
 * (DLManagedTensorVersioned, DLPack >= 1.0).
 *
 * Objects without __dlpack__ that export a writable buffer (the buffer protocol:
 * array.array, memoryview, bytearray, ctypes arrays) are CPU tensors: the buffer's
 * format is the dtype, its shape and strides the tensor's. A memoryview of the
 * object holds the buffer for the call.
 *
 * torch tensors take a faster path: torch's __dlpack__ is Python code costing
 * microseconds, so the few fields needed (data_ptr, shape, strides, dtype, device) are
 * read from the tensor's C methods into a DLTensor owned by the call. */

#include "tlpy.h"

#include <dlpack/dlpack.h>
#include <string.h>

#include "tlpy_tensor.h"

/* DLPack >= 1.0's versioned managed tensor (the installed dlpack.h may predate it);
 * only read, never freed here. */
typedef struct tlpy_dl_versioned {
  struct {
    uint32_t major, minor;
  } version;
  void *manager_ctx;
  void (*deleter)(struct tlpy_dl_versioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} tlpy_dl_versioned;

static PyObject *g_torch_tensor;  /* torch.Tensor, once torch is imported by the user */
static PyObject *g_torch_dtypes;  /* torch.dtype -> int (code | bits << 8) */
static PyObject *s_dlpack, *s_data_ptr, *s_stride, *s_shape, *s_dtype, *s_get_device, *s_is_cuda;

static int torch_ready(void) {
  if (g_torch_tensor) return 1;
  static PyObject *key;
  if (!key && !(key = PyUnicode_InternFromString("torch"))) {
    PyErr_Clear();
    return 0;
  }
  PyObject *torch = PyDict_GetItemWithError(PyImport_GetModuleDict(), key); /* borrowed; never imported here */
  if (!torch) {
    PyErr_Clear();
    return 0;
  }
  PyObject *tensor = PyObject_GetAttrString(torch, "Tensor");
  PyObject *map = tensor ? PyDict_New() : NULL;
  static const struct {
    const char *name;
    int code, bits;
  } dts[] = {
      {"float32", kDLFloat, 32}, {"float16", kDLFloat, 16}, {"float64", kDLFloat, 64}, {"bfloat16", 4, 16},
      {"int8", kDLInt, 8},       {"int16", kDLInt, 16},     {"int32", kDLInt, 32},     {"int64", kDLInt, 64},
      {"uint8", kDLUInt, 8},     {"bool", 6, 8},
  };
  for (size_t i = 0; map && i < sizeof dts / sizeof *dts; i++) {
    PyObject *dt = PyObject_GetAttrString(torch, dts[i].name);
    PyObject *v = dt ? PyLong_FromLong(dts[i].code | (dts[i].bits << 8)) : NULL;
    if (!v || PyDict_SetItem(map, dt, v) < 0) Py_CLEAR(map);
    Py_XDECREF(dt);
    Py_XDECREF(v);
  }
  if (!map) {
    Py_XDECREF(tensor);
    PyErr_Clear();
    return 0;
  }
  g_torch_tensor = tensor;
  g_torch_dtypes = map;
  return 1;
}

int tlpy_is_torch_tensor(PyObject *o) {
  return torch_ready() && PyObject_TypeCheck(o, (PyTypeObject *)g_torch_tensor);
}

static int64_t as_i64(PyObject *o) { return PyLong_AsLongLong(o); }

/* The torch path: fields read from the tensor's methods. */
static int torch_import(PyObject *o, tlpy_tensor *out) {
  PyObject *shape = PyObject_GetAttr(o, s_shape);
  if (!shape) return -1;
  Py_ssize_t nd = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : -1;
  if (nd < 0 || nd > TLPY_MAX_NDIM) {
    Py_DECREF(shape);
    PyErr_Format(PyExc_ValueError, "tensors of rank %zd are not supported (at most %d)", nd, TLPY_MAX_NDIM);
    return -1;
  }
  for (Py_ssize_t i = 0; i < nd; i++) out->shape[i] = as_i64(PyTuple_GET_ITEM(shape, i));
  Py_DECREF(shape);
  PyObject *strides = PyObject_CallMethodNoArgs(o, s_stride);
  if (!strides) return -1;
  for (Py_ssize_t i = 0; i < nd && i < PyTuple_GET_SIZE(strides); i++)
    out->strides[i] = as_i64(PyTuple_GET_ITEM(strides, i));
  Py_DECREF(strides);
  PyObject *ptr = PyObject_CallMethodNoArgs(o, s_data_ptr);
  if (!ptr) return -1;
  void *data = PyLong_AsVoidPtr(ptr);
  Py_DECREF(ptr);
  PyObject *dt = PyObject_GetAttr(o, s_dtype);
  if (!dt) return -1;
  PyObject *code = PyDict_GetItemWithError(g_torch_dtypes, dt);
  if (!code) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "unsupported torch dtype %R", dt);
    Py_DECREF(dt);
    return -1;
  }
  Py_DECREF(dt);
  long c = PyLong_AsLong(code);
  PyObject *dev = PyObject_CallMethodNoArgs(o, s_get_device);
  if (!dev) return -1;
  long index = PyLong_AsLong(dev);
  Py_DECREF(dev);
  if (PyErr_Occurred()) return -1;
  DLTensor *t = &out->own;
  memset(t, 0, sizeof *t);
  t->data = data;
  t->device.device_type = index < 0 ? kDLCPU : kDLCUDA;
  t->device.device_id = index < 0 ? 0 : (int32_t)index;
  t->ndim = (int32_t)nd;
  t->dtype.code = (uint8_t)(c & 0xff);
  t->dtype.bits = (uint8_t)(c >> 8);
  t->dtype.lanes = 1;
  t->shape = out->shape;
  t->strides = out->strides;
  t->byte_offset = 0;
  out->tensor = t;
  out->keep = Py_NewRef(o);
  out->is_torch = 1;
  return 0;
}

/* The DLPack dtype of a struct-module format ("f", "<f", "=d", ...); -1 if none. */
static int buffer_dtype(const char *fmt, Py_ssize_t itemsize, DLDataType *out) {
  if (!fmt) fmt = "B";
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++; /* native or little-endian (this library's hosts) */
  if (!fmt[0] || fmt[1]) return -1;
  int code;
  switch (fmt[0]) {
  case 'e': case 'f': case 'd': code = kDLFloat; break;
  case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': code = kDLInt; break;
  case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': code = kDLUInt; break;
  case '?': code = 6; break; /* kDLBool */
  default: return -1;
  }
  out->code = (uint8_t)code;
  out->bits = (uint8_t)(itemsize * 8);
  out->lanes = 1;
  return 0;
}

/* The buffer-protocol path: a writable CPU buffer as a DLTensor owned by the call. */
static int buffer_import(PyObject *o, tlpy_tensor *out) {
  PyObject *mv = PyMemoryView_FromObject(o);
  if (!mv) return -1;
  const Py_buffer *b = PyMemoryView_GET_BUFFER(mv);
  DLTensor *t = &out->own;
  memset(t, 0, sizeof *t);
  if (b->readonly) {
    PyErr_Format(PyExc_TypeError, "a %.100s is a read-only buffer; kernels take writable ones (bytearray, array.array)",
                 Py_TYPE(o)->tp_name);
    goto fail;
  }
  if (buffer_dtype(b->format, b->itemsize, &t->dtype) < 0) {
    PyErr_Format(PyExc_TypeError, "buffer format '%s' of a %.100s has no tensor dtype (use f, d, e, b, B, h, H, i, I, q, Q, ?)",
                 b->format ? b->format : "B", Py_TYPE(o)->tp_name);
    goto fail;
  }
  if (b->ndim > TLPY_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "tensors of rank %d are not supported (at most %d)", b->ndim, TLPY_MAX_NDIM);
    goto fail;
  }
  for (int i = 0; i < b->ndim; i++) {
    out->shape[i] = b->shape[i];
    Py_ssize_t st = b->strides ? b->strides[i] : 0;
    if (b->strides && st % b->itemsize != 0) {
      PyErr_SetString(PyExc_ValueError, "buffer strides that are not a multiple of the item size are not supported");
      goto fail;
    }
    out->strides[i] = b->strides ? st / b->itemsize : 0;
  }
  if (!b->strides) { /* C-contiguous */
    int64_t acc = 1;
    for (int i = b->ndim - 1; i >= 0; i--) {
      out->strides[i] = acc;
      acc *= b->shape[i];
    }
  }
  t->data = b->buf;
  t->device.device_type = kDLCPU;
  t->ndim = b->ndim;
  t->shape = out->shape;
  t->strides = out->strides;
  out->tensor = t;
  out->keep = mv;
  out->is_buffer = 1;
  return 0;
fail:
  Py_DECREF(mv);
  return -1;
}

int tlpy_tensor_import(PyObject *o, tlpy_tensor *out) {
  memset(out, 0, sizeof *out);
  if (tlpy_is_torch_tensor(o)) return torch_import(o, out);
  if (PyObject_CheckBuffer(o) && !PyObject_HasAttr(o, s_dlpack)) return buffer_import(o, out);
  PyObject *cap = PyObject_CallMethodNoArgs(o, s_dlpack);
  if (!cap) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError,
                   "expected a tensor (an object with __dlpack__ or a writable buffer) or a Python scalar, not %.100s",
                   Py_TYPE(o)->tp_name);
    }
    return -1;
  }
  if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    out->tensor = &m->dl_tensor;
  } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    tlpy_dl_versioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
    if (m->version.major != 1) {
      Py_DECREF(cap);
      PyErr_Format(PyExc_ValueError, "unsupported DLPack version %u.%u", m->version.major, m->version.minor);
      return -1;
    }
    out->tensor = &m->dl_tensor;
  } else {
    Py_DECREF(cap);
    PyErr_Format(PyExc_TypeError, "%.100s.__dlpack__() did not return a DLPack capsule", Py_TYPE(o)->tp_name);
    return -1;
  }
  out->keep = cap; /* the capsule's destructor calls the producer's deleter later */
  return 0;
}

void tlpy_tensor_release(tlpy_tensor *t) { Py_CLEAR(t->keep); }

int tlpy_args_convert(PyObject *const *args, Py_ssize_t n, tl_value *values, tlpy_tensor *tensors) {
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *a = args[i];
    tensors[i].keep = NULL;
    if (PyBool_Check(a)) {
      values[i] = tl_value_bool(a == Py_True);
    } else if (PyLong_Check(a)) {
      long long v = PyLong_AsLongLong(a);
      if (v == -1 && PyErr_Occurred()) goto fail;
      values[i] = tl_value_int(v);
    } else if (PyFloat_Check(a)) {
      values[i] = tl_value_float(PyFloat_AS_DOUBLE(a));
    } else {
      if (tlpy_tensor_import(a, &tensors[i]) < 0) goto fail;
      values[i] = tl_value_tensor((struct DLTensor *)tensors[i].tensor);
    }
    continue;
  fail:
    for (Py_ssize_t j = 0; j < i; j++) tlpy_tensor_release(&tensors[j]);
    return -1;
  }
  return 0;
}

void tlpy_args_release(tlpy_tensor *tensors, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; i++) tlpy_tensor_release(&tensors[i]);
}

int tlpy_dlpack_init(void) {
  s_dlpack = PyUnicode_InternFromString("__dlpack__");
  s_data_ptr = PyUnicode_InternFromString("data_ptr");
  s_stride = PyUnicode_InternFromString("stride");
  s_shape = PyUnicode_InternFromString("shape");
  s_dtype = PyUnicode_InternFromString("dtype");
  s_get_device = PyUnicode_InternFromString("get_device");
  s_is_cuda = PyUnicode_InternFromString("is_cuda");
  return s_dlpack && s_data_ptr && s_stride && s_shape && s_dtype && s_get_device && s_is_cuda ? 0 : -1;
}
