/* CFunction: a Python callable wrapping a C function pointer of the backend system
 * (a predicate, pipeline, codegen, hook, availability check or packed function) with
 * its user_data. C-registered components appear in Python with these as their
 * callables; when such a callable is put into a Python-declared component, the
 * descriptor gets the original pointer back (no trampoline, same identity). One object
 * exists per (kind, function, data), so equal wrappers are the same object. */
#include "tlpy.h"

static PyObject *g_interned; /* (kind, fn, data) -> CFunction */

static const char *const kind_names[TLPY_FN_KIND_COUNT] = {
    "target predicate", "pass pipeline",     "device codegen", "host codegen",
    "host codegen hook", "availability check", "unavailable reason", "packed function",
};

PyObject *tlpy_cfunc_get(tlpy_fn_kind kind, void (*fn)(void), void *data, const char *name) {
  if (!fn) Py_RETURN_NONE;
  PyObject *key = Py_BuildValue("(iKK)", (int)kind, (unsigned long long)(uintptr_t)fn,
                                (unsigned long long)(uintptr_t)data);
  if (!key) return NULL;
  PyObject *o = PyDict_GetItemWithError(g_interned, key);
  if (o || PyErr_Occurred()) {
    Py_DECREF(key);
    return o ? Py_NewRef(o) : NULL;
  }
  tlpy_CFunctionObject *f = PyObject_New(tlpy_CFunctionObject, &tlpy_CFunctionType);
  if (!f) {
    Py_DECREF(key);
    return NULL;
  }
  f->kind = kind;
  f->fn = fn;
  f->data = data;
  f->name = name ? PyUnicode_FromString(name) : NULL;
  if (name && !f->name) PyErr_Clear();
  int rc = PyDict_SetItem(g_interned, key, (PyObject *)f);
  Py_DECREF(key);
  if (rc < 0) {
    Py_DECREF(f);
    return NULL;
  }
  return (PyObject *)f;
}

int tlpy_cfunc_is(PyObject *o, tlpy_fn_kind kind, void (**fn)(void), void **data) {
  if (!o || !PyObject_TypeCheck(o, &tlpy_CFunctionType)) return 0;
  tlpy_CFunctionObject *f = (tlpy_CFunctionObject *)o;
  if (f->kind != kind) return 0;
  *fn = f->fn;
  *data = f->data;
  return 1;
}

static void cfunc_dealloc(tlpy_CFunctionObject *f) {
  Py_XDECREF(f->name);
  PyObject_Free(f);
}

static PyObject *cfunc_repr(tlpy_CFunctionObject *f) {
  if (f->name) return PyUnicode_FromFormat("<C %s %U at %p>", kind_names[f->kind], f->name, (void *)f->fn);
  return PyUnicode_FromFormat("<C %s at %p>", kind_names[f->kind], (void *)f->fn);
}

static int nargs_ok(tlpy_CFunctionObject *f, Py_ssize_t n, Py_ssize_t want) {
  if (n == want) return 1;
  PyErr_Format(PyExc_TypeError, "this C %s takes %zd arguments (%zd given)", kind_names[f->kind], want, n);
  return 0;
}

/* Calls the wrapped function with Python arguments converted as its kind says. */
static PyObject *cfunc_call(tlpy_CFunctionObject *f, PyObject *args, PyObject *kwargs) {
  if (kwargs && PyDict_Size(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "C functions take positional arguments only");
    return NULL;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  tl_target *tmp1 = NULL, *tmp2 = NULL;
  tl_status s = TL_OK;
  PyObject *result = NULL;
  switch (f->kind) {
    case TLPY_FN_PREDICATE: {
      if (!nargs_ok(f, n, 1)) return NULL;
      const tl_target *t = tlpy_target_arg(PyTuple_GET_ITEM(args, 0), &tmp1);
      if (!t) return NULL;
      bool r;
      TLPY_NOGIL(r = ((tl_target_predicate)f->fn)(t, f->data));
      tl_target_release(tmp1);
      if (tlpy_check_pending() < 0) return NULL;
      return PyBool_FromLong(r);
    }
    case TLPY_FN_PIPELINE: {
      if (!nargs_ok(f, n, 2)) return NULL;
      tl_ir_module *mod = tlpy_ir_get(PyTuple_GET_ITEM(args, 0));
      const tl_target *t = mod ? tlpy_target_arg(PyTuple_GET_ITEM(args, 1), &tmp1) : NULL;
      if (!t) return NULL;
      tl_status (*lower)(tl_ir_module *, const tl_target *, void *) =
          (tl_status(*)(tl_ir_module *, const tl_target *, void *))f->fn;
      TLPY_NOGIL(s = lower(mod, t, f->data));
      tl_target_release(tmp1);
      return s == TL_OK ? Py_NewRef(PyTuple_GET_ITEM(args, 0)) : tlpy_raise(s);
    }
    case TLPY_FN_DEVICE_CODEGEN:
    case TLPY_FN_HOST_CODEGEN: {
      if (!nargs_ok(f, n, 2)) return NULL;
      tl_ir_module *mod = tlpy_ir_get(PyTuple_GET_ITEM(args, 0));
      const tl_target *t = mod ? tlpy_target_arg(PyTuple_GET_ITEM(args, 1), &tmp1) : NULL;
      if (!t) return NULL;
      tl_artifact *a = NULL;
      if (f->kind == TLPY_FN_DEVICE_CODEGEN) TLPY_NOGIL(s = ((tl_device_codegen_fn)f->fn)(mod, t, f->data, &a));
      else TLPY_NOGIL(s = ((tl_host_codegen_fn)f->fn)(mod, t, f->data, &a));
      tl_target_release(tmp1);
      if (s != TL_OK) return tlpy_raise(s);
      if (!a) {
        PyErr_SetString(PyExc_RuntimeError, "the C codegen succeeded without producing an artifact");
        return NULL;
      }
      return tlpy_artifact_take(a);
    }
    case TLPY_FN_HOOK: {
      if (!nargs_ok(f, n, 3)) return NULL;
      tl_ir_module *mod = tlpy_ir_get(PyTuple_GET_ITEM(args, 0));
      const tl_target *h = NULL, *t = NULL;
      if (mod && PyTuple_GET_ITEM(args, 1) != Py_None) h = tlpy_target_arg(PyTuple_GET_ITEM(args, 1), &tmp1);
      if (mod && (h || PyTuple_GET_ITEM(args, 1) == Py_None)) t = tlpy_target_arg(PyTuple_GET_ITEM(args, 2), &tmp2);
      if (!t) {
        tl_target_release(tmp1);
        return NULL;
      }
      TLPY_NOGIL(s = ((tl_host_codegen_hook_fn)f->fn)(mod, h, t, f->data));
      tl_target_release(tmp1);
      tl_target_release(tmp2);
      return s == TL_OK ? Py_NewRef(PyTuple_GET_ITEM(args, 0)) : tlpy_raise(s);
    }
    case TLPY_FN_IS_AVAILABLE: {
      if (!nargs_ok(f, n, 0)) return NULL;
      bool r;
      TLPY_NOGIL(r = ((bool (*)(void *))f->fn)(f->data));
      if (tlpy_check_pending() < 0) return NULL;
      return PyBool_FromLong(r);
    }
    case TLPY_FN_UNAVAILABLE_REASON: {
      if (!nargs_ok(f, n, 0)) return NULL;
      const char *r;
      TLPY_NOGIL(r = ((const char *(*)(void *))f->fn)(f->data));
      if (tlpy_check_pending() < 0) return NULL;
      if (!r) Py_RETURN_NONE;
      return PyUnicode_FromString(r);
    }
    case TLPY_FN_PACKED: {
      if (n > 64) {
        PyErr_SetString(PyExc_TypeError, "packed functions take at most 64 arguments");
        return NULL;
      }
      tl_value values[64];
      PyObject *keep = PyList_New(0);
      if (!keep) return NULL;
      for (Py_ssize_t i = 0; i < n; i++) {
        if (tlpy_value_arg(PyTuple_GET_ITEM(args, i), &values[i], keep) < 0) {
          Py_DECREF(keep);
          return NULL;
        }
      }
      tl_value ret = {TL_VALUE_NONE, 0, {0}};
      TLPY_NOGIL(s = ((tl_packed_fn)f->fn)(values, (int)n, &ret, f->data));
      Py_DECREF(keep);
      if (s != TL_OK) {
        tl_value_clear(&ret);
        return tlpy_raise(s);
      }
      PyObject *views = PyList_New(0);
      result = views ? tlpy_value_to_py(&ret, views) : NULL;
      Py_XDECREF(views);
      tl_value_clear(&ret);
      return result;
    }
    default:
      break;
  }
  PyErr_SetString(PyExc_SystemError, "CFunction of an unknown kind");
  return NULL;
}

static PyObject *cfunc_kind(tlpy_CFunctionObject *f, void *c) { return PyUnicode_FromString(kind_names[f->kind]); }

static PyGetSetDef cfunc_getset[] = {
    {"kind", (getter)cfunc_kind, NULL, "What the C function is ('device codegen', ...).", NULL},
    {NULL},
};

PyTypeObject tlpy_CFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilelang_backend.CFunction",
    .tp_basicsize = sizeof(tlpy_CFunctionObject),
    .tp_dealloc = (destructor)cfunc_dealloc,
    .tp_repr = (reprfunc)cfunc_repr,
    .tp_call = (ternaryfunc)cfunc_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A C function of a component registered from C (a built-in or plugin backend), callable\n"
              "from Python with the arguments its Python counterpart takes.",
    .tp_getset = cfunc_getset,
};

int tlpy_cfunc_init(PyObject *m) {
  if (PyType_Ready(&tlpy_CFunctionType) < 0) return -1;
  g_interned = PyDict_New();
  if (!g_interned) return -1;
  Py_INCREF(&tlpy_CFunctionType);
  return PyModule_AddObject(m, "CFunction", (PyObject *)&tlpy_CFunctionType);
}
