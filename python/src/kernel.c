/* compile(...) and Kernel: tl_compile from Python, and the call path of a compiled
 * kernel. A call converts its arguments (tensors by DLPack, Python scalars),
 * allocates the jit-style outputs (parameters made by T.empty) with the inputs'
 * framework, and hands everything to tl_kernel_call, which checks every argument.
 * The call is a vectorcall that allocates nothing for up to TLPY_INLINE_ARGS
 * arguments beyond what the outputs need. */

#include "tlpy.h"

#include <string.h>
#include <time.h>

#include "tilelang/engine.h"
#include "tilelang/runtime.h"
#include "tlpy_tensor.h"

#define TLPY_INLINE_ARGS 16

typedef struct {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  tl_kernel *kernel;
  const tl_kernel_table *table; /* borrowed from kernel */
  uint32_t ninputs;             /* parameters the caller passes (not is_output) */
  int32_t device_type;          /* of the kernel's target */
} tlpy_KernelObject;

static PyTypeObject tlpy_KernelType;

static PyObject *s_empty, *s_device, *s_dtype, *s_stream;
static PyObject *g_numpy_empty;              /* numpy.empty */
static PyObject *g_torch, *g_torch_empty;    /* torch, torch.empty (once a torch tensor was seen) */
static PyObject *g_torch_raw_stream;         /* torch._C._cuda_getCurrentRawStream, or NULL */

/* ------------------------------------------------------------ outputs */

static int dtype_name(tl_dtype t, char *buf, size_t cap) {
  const char *n = tl_dtype_name(t, buf, cap);
  if (!n) {
    PyErr_SetString(PyExc_ValueError, "unnamed dtype in the kernel table");
    return -1;
  }
  if (n != buf) snprintf(buf, cap, "%s", n);
  return 0;
}

/* The value of symbolic dim `sym` from the inputs, if an input binds it. */
static int sym_value(tlpy_KernelObject *k, const tl_value *values, const uint8_t *given, uint32_t sym, int64_t *out) {
  const tl_host_sym *s = &k->table->syms[sym];
  if (s->param >= k->table->nparams || !given[s->param]) return 0;
  const tl_value *v = &values[s->param];
  if (s->dim < 0) {
    if (v->kind != TL_VALUE_INT) return 0;
    *out = v->v.i;
    return 1;
  }
  if (v->kind != TL_VALUE_TENSOR || !v->v.tensor) return 0;
  const DLTensor *t = (const DLTensor *)v->v.tensor;
  if (s->dim >= t->ndim) return 0;
  *out = t->shape[s->dim];
  return 1;
}

/* The framework that allocates outputs: that of the first tensor input. */
typedef enum { ALLOC_NUMPY, ALLOC_TORCH, ALLOC_MODULE, ALLOC_BUFFER } alloc_kind;

/* tilelang_backend.tensor.empty(shape, dtype): the outputs of calls whose inputs are
 * buffer-protocol objects (or when NumPy is not installed); set by the package. */
static PyObject *g_buffer_empty;

static PyObject *torch_dtype(const char *name) {
  return PyObject_GetAttrString(g_torch, strcmp(name, "bool") == 0 ? "bool" : name);
}

/* Allocates output parameter p. Dims that cannot be inferred (the inputs are wrong)
 * are 0: tl_kernel_call then reports the offending input, checked first. */
static PyObject *alloc_output(tlpy_KernelObject *k, uint32_t p, const tl_value *values, const uint8_t *given,
                              alloc_kind kind, PyObject *like) {
  const tl_host_param *hp = &k->table->params[p];
  PyObject *shape = PyTuple_New(hp->ndim);
  if (!shape) return NULL;
  for (uint32_t d = 0; d < hp->ndim; d++) {
    int64_t v = 0;
    if (hp->dims[d].sym < 0) v = hp->dims[d].value;
    else if (!sym_value(k, values, given, (uint32_t)hp->dims[d].sym, &v) || v < 0) v = 0;
    PyObject *i = PyLong_FromLongLong(v);
    if (!i) {
      Py_DECREF(shape);
      return NULL;
    }
    PyTuple_SET_ITEM(shape, d, i);
  }
  char name[32];
  if (dtype_name(hp->dtype, name, sizeof name) < 0) {
    Py_DECREF(shape);
    return NULL;
  }
  PyObject *r = NULL;
  if (kind == ALLOC_TORCH) {
    PyObject *dt = torch_dtype(name);
    PyObject *dev = dt ? PyObject_GetAttr(like, s_device) : NULL;
    if (dev) {
      PyObject *args[] = {shape, dt, dev};
      PyObject *kw = PyTuple_Pack(2, s_dtype, s_device);
      if (kw) r = PyObject_Vectorcall(g_torch_empty, args, 1, kw);
      Py_XDECREF(kw);
    }
    Py_XDECREF(dt);
    Py_XDECREF(dev);
  } else {
    PyObject *empty = NULL;
    if (kind == ALLOC_MODULE) {
      /* CuPy and the like: the root module of the input's type, if it has empty(). */
      PyObject *modname = PyObject_GetAttrString((PyObject *)Py_TYPE(like), "__module__");
      const char *mn = modname && PyUnicode_Check(modname) ? PyUnicode_AsUTF8(modname) : NULL;
      if (mn) {
        char root[64];
        snprintf(root, sizeof root, "%.*s", (int)strcspn(mn, "."), mn);
        PyObject *mod = PyImport_ImportModule(root);
        empty = mod ? PyObject_GetAttr(mod, s_empty) : NULL;
        Py_XDECREF(mod);
      }
      Py_XDECREF(modname);
      if (!empty) PyErr_Clear();
    }
    if (!empty && kind == ALLOC_BUFFER) empty = Py_NewRef(g_buffer_empty);
    if (!empty) empty = Py_NewRef(g_numpy_empty);
    PyObject *dt = PyUnicode_FromString(name);
    if (dt) {
      PyObject *args[] = {shape, dt};
      PyObject *kw = PyTuple_Pack(1, s_dtype);
      if (kw) r = PyObject_Vectorcall(empty, args, 1, kw);
      Py_XDECREF(kw);
      Py_DECREF(dt);
    }
    Py_DECREF(empty);
  }
  Py_DECREF(shape);
  return r;
}

/* NumPy's empty, else (NumPy not installed) the package's buffer factory. */
static int ensure_numpy(void) {
  if (g_numpy_empty) return 0;
  PyObject *np = PyImport_ImportModule("numpy");
  if (!np && g_buffer_empty && PyErr_ExceptionMatches(PyExc_ImportError)) {
    PyErr_Clear();
    g_numpy_empty = Py_NewRef(g_buffer_empty);
    return 0;
  }
  if (!np) return -1;
  g_numpy_empty = PyObject_GetAttr(np, s_empty);
  Py_DECREF(np);
  return g_numpy_empty ? 0 : -1;
}

static int ensure_torch(void) {
  if (g_torch_empty) return 0;
  g_torch = PyImport_ImportModule("torch");
  if (!g_torch) return -1;
  g_torch_empty = PyObject_GetAttr(g_torch, s_empty);
  PyObject *c = PyObject_GetAttrString(g_torch, "_C");
  g_torch_raw_stream = c ? PyObject_GetAttrString(c, "_cuda_getCurrentRawStream") : NULL;
  Py_XDECREF(c);
  PyErr_Clear();
  return g_torch_empty ? 0 : -1;
}

/* torch's current CUDA stream on `device` (the default stream: NULL). */
static int torch_current_stream(int device, void **out) {
  if (ensure_torch() < 0) return -1;
  PyObject *r;
  if (g_torch_raw_stream) {
    PyObject *dev = PyLong_FromLong(device);
    r = dev ? PyObject_CallOneArg(g_torch_raw_stream, dev) : NULL;
    Py_XDECREF(dev);
  } else {
    PyObject *cuda = PyObject_GetAttrString(g_torch, "cuda");
    PyObject *st = cuda ? PyObject_CallMethod(cuda, "current_stream", "i", device) : NULL;
    r = st ? PyObject_GetAttrString(st, "cuda_stream") : NULL;
    Py_XDECREF(st);
    Py_XDECREF(cuda);
  }
  if (!r) return -1;
  *out = PyLong_AsVoidPtr(r);
  Py_DECREF(r);
  return PyErr_Occurred() ? -1 : 0;
}

/* ------------------------------------------------------------- calling */

static PyObject *kernel_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  tlpy_KernelObject *k = (tlpy_KernelObject *)self;
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  PyObject *stream_o = Py_None;
  if (kwnames) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
      PyObject *key = PyTuple_GET_ITEM(kwnames, i);
      if (PyUnicode_Compare(key, s_stream) != 0) {
        PyErr_Format(PyExc_TypeError, "kernel got an unexpected keyword argument %R", key);
        return NULL;
      }
      stream_o = args[n + i];
    }
  }
  const uint32_t np = k->table->nparams;
  /* Outputs are allocated when exactly the inputs are given; otherwise the arguments
   * go to the library as they are (it reports a wrong count). */
  const int allocate = np != k->ninputs && (size_t)n == k->ninputs;
  const size_t total = allocate ? np : (size_t)n;
  tl_value vstack[TLPY_INLINE_ARGS];
  tlpy_tensor tstack[TLPY_INLINE_ARGS];
  uint8_t gstack[TLPY_INLINE_ARGS];
  PyObject *ostack[TLPY_INLINE_ARGS];
  tl_value *values = vstack;
  tlpy_tensor *tensors = tstack;
  uint8_t *given = gstack;
  PyObject **outs = ostack;
  if (total > TLPY_INLINE_ARGS) {
    values = PyMem_Calloc(total, sizeof *values);
    tensors = PyMem_Calloc(total, sizeof *tensors);
    given = PyMem_Calloc(total, 1);
    outs = PyMem_Calloc(total, sizeof *outs);
    if (!values || !tensors || !given || !outs) {
      PyMem_Free(values);
      PyMem_Free(tensors);
      PyMem_Free(given);
      PyMem_Free(outs);
      return PyErr_NoMemory();
    }
  }
  for (size_t i = 0; i < total; i++) tensors[i].keep = NULL; /* released below whatever happened */
  PyObject *result = NULL;
  size_t nouts = 0, converted = 0;
  PyObject *first_tensor = NULL;
  int first_is_torch = 0, first_is_buffer = 0;

  /* Inputs, into their parameter slots. */
  for (size_t i = 0, slot = 0; i < (size_t)n; i++, slot++) {
    if (allocate)
      while (k->table->params[slot].is_output) given[slot++] = 0;
    if (tlpy_args_convert(&args[i], 1, &values[slot], &tensors[slot]) < 0) goto out;
    given[slot] = 1;
    converted = slot + 1;
    if (values[slot].kind == TL_VALUE_TENSOR && !first_tensor) {
      first_tensor = args[i];
      first_is_torch = tensors[slot].is_torch;
      first_is_buffer = tensors[slot].is_buffer;
    }
  }
  if (allocate) {
    for (size_t slot = converted; slot < total; slot++) given[slot] = 0;
    alloc_kind kind = ALLOC_NUMPY;
    if (first_tensor && first_is_torch) {
      if (ensure_torch() < 0) goto out;
      kind = ALLOC_TORCH;
    } else if (first_tensor && first_is_buffer) {
      kind = ALLOC_BUFFER;
    } else if (first_tensor && !PyObject_HasAttrString((PyObject *)Py_TYPE(first_tensor), "__array_interface__")) {
      kind = ALLOC_MODULE;
    }
    if (kind == ALLOC_BUFFER && !g_buffer_empty) {
      PyErr_SetString(PyExc_RuntimeError, "no buffer factory installed (tilelang_backend.tensor)");
      goto out;
    }
    if (kind != ALLOC_BUFFER && ensure_numpy() < 0) goto out;
    for (uint32_t p = 0; p < np; p++) {
      if (!k->table->params[p].is_output) continue;
      PyObject *o = alloc_output(k, p, values, given, kind, first_tensor);
      if (!o) goto out;
      outs[nouts++] = o;
      if (tlpy_tensor_import(o, &tensors[p]) < 0) goto out;
      values[p] = tl_value_tensor((struct DLTensor *)tensors[p].tensor);
      if (p + 1 > converted) converted = p + 1;
    }
  }

  void *stream = NULL;
  if (stream_o != Py_None) {
    stream = PyLong_AsVoidPtr(stream_o);
    if (PyErr_Occurred()) goto out;
  } else if (first_is_torch) {
    const DLTensor *t = NULL;
    for (size_t i = 0; i < total && !t; i++)
      if (values[i].kind == TL_VALUE_TENSOR && tensors[i].is_torch) t = tensors[i].tensor;
    if (t && t->device.device_type == kDLCUDA && torch_current_stream(t->device.device_id, &stream) < 0) goto out;
  }

  tl_status s;
  TLPY_NOGIL(s = tl_kernel_call(k->kernel, values, (int)total, stream));
  if (s != TL_OK) {
    tlpy_raise(s);
    goto out;
  }
  if (!allocate || nouts == 0) {
    result = Py_NewRef(Py_None);
  } else if (nouts == 1) {
    result = Py_NewRef(outs[0]);
  } else {
    result = PyTuple_New((Py_ssize_t)nouts);
    for (size_t i = 0; result && i < nouts; i++) PyTuple_SET_ITEM(result, (Py_ssize_t)i, Py_NewRef(outs[i]));
  }
out:
  for (size_t i = 0; i < total; i++) tlpy_tensor_release(&tensors[i]);
  for (size_t i = 0; i < nouts; i++) Py_DECREF(outs[i]);
  if (values != vstack) {
    PyMem_Free(values);
    PyMem_Free(tensors);
    PyMem_Free(given);
    PyMem_Free(outs);
  }
  return result;
}

static void kernel_dealloc(tlpy_KernelObject *k) {
  tl_kernel_release(k->kernel);
  PyObject_Free(k);
}

static PyObject *k_name(tlpy_KernelObject *k, void *c) { return PyUnicode_FromString(tl_kernel_name(k->kernel)); }
static PyObject *k_exec(tlpy_KernelObject *k, void *c) {
  return PyUnicode_FromString(tl_kernel_execution_backend(k->kernel));
}
static PyObject *k_target(tlpy_KernelObject *k, void *c) { return tlpy_target_wrap(tl_kernel_target(k->kernel)); }
static PyObject *k_device_source(tlpy_KernelObject *k, void *c) {
  return PyUnicode_FromString(tl_kernel_device_source(k->kernel));
}
static PyObject *k_host_source(tlpy_KernelObject *k, void *c) {
  return PyUnicode_FromString(tl_kernel_host_source(k->kernel));
}
static PyObject *k_from_cache(tlpy_KernelObject *k, void *c) { return PyBool_FromLong(tl_kernel_from_cache(k->kernel)); }
static PyObject *k_table(tlpy_KernelObject *k, void *c) {
  char *json = tl_kernel_table_to_json(k->table);
  if (!json) return tlpy_raise(TL_ENOMEM);
  PyObject *text = PyUnicode_FromString(json);
  tl_free(json);
  if (!text) return NULL;
  PyObject *mod = PyImport_ImportModule("json");
  PyObject *r = mod ? PyObject_CallMethod(mod, "loads", "O", text) : NULL;
  Py_XDECREF(mod);
  Py_DECREF(text);
  return r;
}
static PyObject *k_params(tlpy_KernelObject *k, void *c) {
  PyObject *t = PyTuple_New(k->table->nparams);
  for (uint32_t i = 0; t && i < k->table->nparams; i++) {
    PyObject *s = PyUnicode_FromString(k->table->params[i].name);
    if (!s) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, i, s);
  }
  return t;
}
static PyObject *k_outputs(tlpy_KernelObject *k, void *c) {
  PyObject *l = PyList_New(0);
  for (uint32_t i = 0; l && i < k->table->nparams; i++) {
    if (!k->table->params[i].is_output) continue;
    PyObject *s = PyUnicode_FromString(k->table->params[i].name);
    if (!s || PyList_Append(l, s) < 0) Py_CLEAR(l);
    Py_XDECREF(s);
  }
  if (!l) return NULL;
  PyObject *t = PyList_AsTuple(l);
  Py_DECREF(l);
  return t;
}

static PyObject *kernel_repr(tlpy_KernelObject *k) {
  return PyUnicode_FromFormat("<Kernel %s (%s, %s)>", tl_kernel_name(k->kernel), tl_target_kind(tl_kernel_target(k->kernel)),
                              tl_kernel_execution_backend(k->kernel));
}

static PyGetSetDef kernel_getset[] = {
    {"name", (getter)k_name, NULL, "The kernel's (host entry's) name.", NULL},
    {"execution_backend", (getter)k_exec, NULL, "The execution backend that built it.", NULL},
    {"target", (getter)k_target, NULL, "The target it was compiled for.", NULL},
    {"params", (getter)k_params, NULL, "Parameter names, in order.", NULL},
    {"outputs", (getter)k_outputs, NULL, "Names of the parameters the kernel allocates and returns (T.empty).", NULL},
    {"device_source", (getter)k_device_source, NULL, "The generated device code ('' if none).", NULL},
    {"host_source", (getter)k_host_source, NULL, "The generated host code ('' if none).", NULL},
    {"from_cache", (getter)k_from_cache, NULL, "Whether the kernel came from the kernel cache.", NULL},
    {"kernel_table", (getter)k_table, NULL, "The launch metadata (kernel table) as a dict.", NULL},
    {NULL},
};

static PyTypeObject tlpy_KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilelang_backend.Kernel",
    .tp_basicsize = sizeof(tlpy_KernelObject),
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_repr = (reprfunc)kernel_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(tlpy_KernelObject, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A compiled, loaded kernel: kernel(*args, stream=None).\n\n"
              "Arguments in parameter order: tensors (any object with __dlpack__: torch, NumPy, CuPy) and\n"
              "Python scalars. Parameters made by T.empty are allocated (with the inputs' framework, on\n"
              "their device; NumPy otherwise) and returned when only the inputs are given. stream=None\n"
              "uses torch's current stream for torch CUDA tensors, else the default stream.",
    .tp_getset = kernel_getset,
};

/* -------------------------------------------------------------- compile */

/* _C.compile(module, func, target, target_host, execution_backend, pass_configs, cache) */
static PyObject *compile_kernel(PyObject *self, PyObject *args) {
  PyObject *mod_o, *func_o, *to, *ho, *eo, *configs_o;
  int disable_cache = 0;
  if (!PyArg_ParseTuple(args, "OOOOOO|p", &mod_o, &func_o, &to, &ho, &eo, &configs_o, &disable_cache)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  const char *func, *target, *host, *exec;
  PyObject *kt = NULL, *kh = NULL, *seq = NULL;
  const char **configs = NULL;
  PyObject *result = NULL;
  if (!mod || tlpy_str_arg(func_o, "func", 1, &func) < 0 || tlpy_str_arg(eo, "execution_backend", 1, &exec) < 0)
    return NULL;
  if (tlpy_target_spec(to, 1, &target, &kt) < 0) return NULL;
  if (tlpy_target_spec(ho, 1, &host, &kh) < 0) goto out;
  if (configs_o != Py_None) {
    if (!(seq = PySequence_Fast(configs_o, "pass_configs must be a sequence of 'key=value' strings"))) goto out;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (!(configs = PyMem_Calloc((size_t)n + 1, sizeof *configs))) {
      PyErr_NoMemory();
      goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++)
      if (tlpy_str_arg(PySequence_Fast_GET_ITEM(seq, i), "a pass config", 0, &configs[i]) < 0) goto out;
  }
  tl_compile_options opts;
  memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.target = target;
  opts.target_host = host;
  opts.execution_backend = exec;
  opts.pass_configs = configs;
  opts.disable_cache = disable_cache;
  tl_kernel *kernel = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_compile(mod, func, &opts, &kernel));
  if (s != TL_OK) {
    tlpy_raise(s);
    goto out;
  }
  if (tlpy_check_pending() < 0) {
    tl_kernel_release(kernel);
    goto out;
  }
  tlpy_KernelObject *k = PyObject_New(tlpy_KernelObject, &tlpy_KernelType);
  if (!k) {
    tl_kernel_release(kernel);
    goto out;
  }
  k->vectorcall = kernel_vectorcall;
  k->kernel = kernel;
  k->table = tl_kernel_get_table(kernel);
  k->ninputs = 0;
  for (uint32_t i = 0; i < k->table->nparams; i++) k->ninputs += !k->table->params[i].is_output;
  k->device_type = tl_target_device_type(tl_kernel_target(kernel));
  result = (PyObject *)k;
out:
  PyMem_Free(configs);
  Py_XDECREF(seq);
  Py_XDECREF(kt);
  Py_XDECREF(kh);
  return result;
}

/* _C.time_calls(kernel, iters, *args, stream=0): the C call alone, for benchmarks:
 * converts the arguments once (every parameter given), then calls tl_kernel_call
 * `iters` times with the GIL released; returns the elapsed nanoseconds. */
static PyObject *time_calls(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (nargs < 2 || !PyObject_TypeCheck(args[0], &tlpy_KernelType)) {
    PyErr_SetString(PyExc_TypeError, "time_calls(kernel, iters, *args, stream=0)");
    return NULL;
  }
  tlpy_KernelObject *k = (tlpy_KernelObject *)args[0];
  long iters = PyLong_AsLong(args[1]);
  if (iters < 0 && PyErr_Occurred()) return NULL;
  void *stream = NULL;
  if (kwnames && PyTuple_GET_SIZE(kwnames) == 1 && PyUnicode_Compare(PyTuple_GET_ITEM(kwnames, 0), s_stream) == 0) {
    stream = PyLong_AsVoidPtr(args[nargs]);
    if (PyErr_Occurred()) return NULL;
  } else if (kwnames && PyTuple_GET_SIZE(kwnames)) {
    PyErr_SetString(PyExc_TypeError, "time_calls takes only stream= as a keyword");
    return NULL;
  }
  Py_ssize_t n = nargs - 2;
  tl_value *values = PyMem_Calloc((size_t)n + 1, sizeof *values);
  tlpy_tensor *tensors = PyMem_Calloc((size_t)n + 1, sizeof *tensors);
  PyObject *r = NULL;
  if (!values || !tensors) {
    PyErr_NoMemory();
    goto out;
  }
  if (tlpy_args_convert(args + 2, n, values, tensors) < 0) goto out;
  tl_status s = TL_OK;
  struct timespec t0, t1;
  Py_BEGIN_ALLOW_THREADS
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < iters && s == TL_OK; i++) s = tl_kernel_call(k->kernel, values, (int)n, stream);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  Py_END_ALLOW_THREADS
  tlpy_args_release(tensors, n);
  if (s != TL_OK) {
    tlpy_raise(s);
    goto out;
  }
  r = PyLong_FromLongLong((long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
out:
  PyMem_Free(values);
  PyMem_Free(tensors);
  return r;
}

/* _C.tensor_info(obj): (shape, dtype name, DLPack device type) of a tensor argument,
 * read as a call reads it; None for what a call takes as a scalar (bool, int, float).
 * The user API's jit keys its cache on it. */
static PyObject *tensor_info(PyObject *self, PyObject *o) {
  if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o)) Py_RETURN_NONE;
  tlpy_tensor t;
  if (tlpy_tensor_import(o, &t) < 0) return NULL;
  const DLTensor *dl = t.tensor;
  PyObject *r = NULL, *shape = PyTuple_New(dl->ndim);
  char name[32];
  tl_dtype dt = {.code = dl->dtype.code, .bits = dl->dtype.bits, .lanes = dl->dtype.lanes};
  if (shape && dtype_name(dt, name, sizeof name) == 0) {
    int ok = 1;
    for (int i = 0; ok && i < dl->ndim; i++) {
      PyObject *d = PyLong_FromLongLong(dl->shape[i]);
      if (!d) ok = 0;
      else PyTuple_SET_ITEM(shape, i, d);
    }
    if (ok) r = Py_BuildValue("(Osi)", shape, name, (int)dl->device.device_type);
  }
  Py_XDECREF(shape);
  tlpy_tensor_release(&t);
  return r;
}

/* _C._set_buffer_factory(empty): empty(shape, dtype) makes a buffer-protocol output. */
static PyObject *set_buffer_factory(PyObject *self, PyObject *f) {
  if (!PyCallable_Check(f)) {
    PyErr_SetString(PyExc_TypeError, "the buffer factory must be callable");
    return NULL;
  }
  Py_XSETREF(g_buffer_empty, Py_NewRef(f));
  Py_RETURN_NONE;
}

static PyObject *kernel_cache_clear_memory(PyObject *self, PyObject *unused) {
  tl_kernel_cache_clear_memory();
  Py_RETURN_NONE;
}

PyMethodDef tlpy_kernel_methods[] = {
    {"compile", compile_kernel, METH_VARARGS, NULL},
    {"time_calls", (PyCFunction)(void (*)(void))time_calls, METH_FASTCALL | METH_KEYWORDS,
     "time_calls(kernel, iters, *args, stream=0): nanoseconds for `iters` tl_kernel_call calls (benchmarks)."},
    {"tensor_info", tensor_info, METH_O, "tensor_info(obj): (shape, dtype, device_type) of a tensor argument, None for a scalar."},
    {"_set_buffer_factory", set_buffer_factory, METH_O, "Sets the factory of buffer-protocol outputs."},
    {"kernel_cache_clear_memory", kernel_cache_clear_memory, METH_NOARGS,
     "Drop every kernel held in the in-memory kernel cache."},
    {NULL},
};

int tlpy_kernel_init(PyObject *m) {
  s_empty = PyUnicode_InternFromString("empty");
  s_device = PyUnicode_InternFromString("device");
  s_dtype = PyUnicode_InternFromString("dtype");
  s_stream = PyUnicode_InternFromString("stream");
  if (!s_empty || !s_device || !s_dtype || !s_stream || PyType_Ready(&tlpy_KernelType) < 0) return -1;
  Py_INCREF(&tlpy_KernelType);
  if (PyModule_AddObject(m, "Kernel", (PyObject *)&tlpy_KernelType) < 0) return -1;
  return PyModule_AddFunctions(m, tlpy_kernel_methods);
}
