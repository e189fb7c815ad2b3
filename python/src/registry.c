/* The registries, from Python: backend manifests (register/get/list and the
 * BackendModule methods), the device and host codegen registries, lazy imports and
 * global functions. Each function converts its arguments, calls the library with the
 * GIL released (callbacks take it again) and converts the result. */

#include "tlpy.h"

#include "tilelang/backend_registry.h"

#include <string.h>

/* ------------------------------------------------------------ manifests */

static PyObject *register_backend(PyObject *self, PyObject *bm) {
  const tl_backend_module *m = tlpy_manifest_of(bm), *out = NULL;
  if (!m) return NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_register_backend(m, &out));
  if (s != TL_OK) return tlpy_raise(s);
  if (out == m) {
    /* The library now keeps the manifest: so does the extension, and `bm` is the
     * Python object of that manifest from now on (unless it already had one). */
    PyObject *known = tlpy_manifest_find(m);
    if (known || PyErr_Occurred()) return known;
    if (tlpy_manifest_registered(bm, m) < 0) return NULL;
    return Py_NewRef(bm);
  }
  return tlpy_manifest_py(out);
}

/* Registered backends are never removed or replaced, so a name found once names the
 * same manifest (and so the same BackendModule) for the life of the process, and a
 * listing stands while the registry's generation does: neither needs a library call
 * then (tl_backend_registry_generation is one atomic load). */
static PyObject *g_found;          /* name -> BackendModule, every name get_backend found */
static PyObject *g_listed;         /* the last list_backends result, or NULL */
static uint64_t g_listed_generation; /* the registry's generation before it was made */

static PyObject *get_backend(PyObject *self, PyObject *name_o) {
  if (PyUnicode_CheckExact(name_o)) {
    PyObject *known = PyDict_GetItemWithError(g_found, name_o);
    if (known) return Py_NewRef(known);
    if (PyErr_Occurred()) return NULL;
  }
  const char *name;
  if (tlpy_str_arg(name_o, "name", 1, &name) < 0) return NULL;
  const tl_backend_module *m = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_get_backend(name ? name : "", &m));
  if (s != TL_OK) return tlpy_raise(s);
  PyObject *bm = tlpy_manifest_py(m);
  if (bm && PyUnicode_CheckExact(name_o) && PyDict_SetItem(g_found, name_o, bm) < 0) Py_CLEAR(bm);
  return bm;
}

static PyObject *list_backends(PyObject *self, PyObject *unused) {
  uint64_t generation = tl_backend_registry_generation();
  if (g_listed && generation == g_listed_generation) return PyDict_Copy(g_listed);
  size_t n;
  const tl_backend_module *stack[32], **ms = stack;
  TLPY_NOGIL(n = tl_list_backends(stack, 32));
  if (n == 0 && *tl_last_error()) return tlpy_raise(TL_EUNAVAILABLE);
  if (n > 32) {
    ms = PyMem_Malloc(n * sizeof *ms);
    if (!ms) return PyErr_NoMemory();
    size_t again;
    TLPY_NOGIL(again = tl_list_backends(ms, n));
    if (again < n) n = again;
  }
  PyObject *d = PyDict_New();
  for (size_t i = 0; d && i < n; i++) {
    PyObject *bm = tlpy_manifest_py(ms[i]);
    if (!bm || PyDict_SetItemString(d, ms[i]->name, bm) < 0) Py_CLEAR(d);
    Py_XDECREF(bm);
  }
  if (ms != stack) PyMem_Free(ms);
  if (!d) return NULL;
  Py_XSETREF(g_listed, d);
  g_listed_generation = generation; /* a registration meanwhile makes the next call list again */
  return PyDict_Copy(d);
}

/* Parses (bm, target[, ...]) into the manifest and a borrowed target. */
static int manifest_and_target(PyObject *bm, PyObject *target_o, const tl_backend_module **m, const tl_target **t,
                               tl_target **tmp) {
  *tmp = NULL;
  if (!(*m = tlpy_manifest_of(bm))) return -1;
  if (!(*t = tlpy_target_arg(target_o, tmp))) return -1;
  return 0;
}

static PyObject *module_matches(PyObject *self, PyObject *args) {
  PyObject *bm, *to;
  if (!PyArg_ParseTuple(args, "OO", &bm, &to)) return NULL;
  const tl_backend_module *m;
  const tl_target *t;
  tl_target *tmp;
  if (manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  bool r;
  TLPY_NOGIL(r = tl_backend_module_matches(m, t));
  tl_target_release(tmp);
  if (tlpy_check_pending() < 0) return NULL;
  return PyBool_FromLong(r);
}

/* _C.module_get(which, bm, target): the manifest's PASS_PIPELINE, DEVICE_CODEGEN or
 * HOST_CODEGEN for a target. */
static PyObject *module_get(PyObject *self, PyObject *args) {
  PyObject *bm, *to;
  int which;
  if (!PyArg_ParseTuple(args, "iOO", &which, &bm, &to)) return NULL;
  if (which != TLPY_PASS_PIPELINE && which != TLPY_DEVICE_CODEGEN && which != TLPY_HOST_CODEGEN) {
    PyErr_Format(PyExc_ValueError, "module_get: no such component class %d", which);
    return NULL;
  }
  const tl_backend_module *m;
  const tl_target *t;
  tl_target *tmp;
  if (manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  const void *d = NULL;
  tl_status s;
  TLPY_NOGIL(s = which == TLPY_PASS_PIPELINE    ? tl_backend_module_get_pipeline(m, t, (const tl_pass_pipeline **)&d)
                 : which == TLPY_DEVICE_CODEGEN ? tl_backend_module_get_device_codegen(m, t, (const tl_device_codegen **)&d)
                             : tl_backend_module_get_host_codegen(m, t, (const tl_host_codegen **)&d));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) return NULL;
  return tlpy_component_to_py(which, d);
}

static PyObject *module_lower(PyObject *self, PyObject *args) {
  PyObject *bm, *mod_o, *to;
  if (!PyArg_ParseTuple(args, "OOO", &bm, &mod_o, &to)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  const tl_backend_module *m;
  const tl_target *t;
  tl_target *tmp;
  if (!mod || manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_backend_module_lower(m, mod, t));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) return NULL;
  return Py_NewRef(mod_o);
}

static PyObject *module_codegen_device(PyObject *self, PyObject *args) {
  PyObject *bm, *mod_o, *to;
  int compile_device;
  if (!PyArg_ParseTuple(args, "OOOp", &bm, &mod_o, &to, &compile_device)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  const tl_backend_module *m;
  const tl_target *t;
  tl_target *tmp;
  if (!mod || manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  tl_artifact *a = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_backend_module_codegen_device(m, mod, t, compile_device, &a));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) {
    tl_artifact_release(a);
    return NULL;
  }
  return tlpy_artifact_take(a);
}

static PyObject *module_codegen_host(PyObject *self, PyObject *args) {
  PyObject *bm, *mod_o, *to;
  if (!PyArg_ParseTuple(args, "OOO", &bm, &mod_o, &to)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  const tl_backend_module *m;
  const tl_target *t;
  tl_target *tmp;
  if (!mod || manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  tl_artifact *a = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_backend_module_codegen_host(m, mod, t, &a));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) {
    tl_artifact_release(a);
    return NULL;
  }
  return tlpy_artifact_take(a);
}

static PyObject *module_preprocess_host_codegen(PyObject *self, PyObject *args) {
  PyObject *bm, *mod_o, *ho, *to;
  if (!PyArg_ParseTuple(args, "OOOO", &bm, &mod_o, &ho, &to)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  const tl_backend_module *m;
  const tl_target *t, *h = NULL;
  tl_target *tmp, *tmp_h = NULL;
  if (!mod || manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  if (ho != Py_None && !(h = tlpy_target_arg(ho, &tmp_h))) {
    tl_target_release(tmp);
    return NULL;
  }
  tl_status s;
  TLPY_NOGIL(s = tl_backend_module_preprocess_host_codegen(m, mod, h, t));
  tl_target_release(tmp);
  tl_target_release(tmp_h);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) return NULL;
  return Py_NewRef(mod_o);
}

static PyObject *module_allowed_execution_backends(PyObject *self, PyObject *args) {
  PyObject *bm, *to;
  int include_unavailable;
  if (!PyArg_ParseTuple(args, "OOp", &bm, &to, &include_unavailable)) return NULL;
  const tl_backend_module *m;
  const tl_target *t;
  tl_target *tmp;
  if (manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  const char *names[64];
  size_t n;
  TLPY_NOGIL(n = tl_backend_module_allowed_execution_backends(m, t, include_unavailable, names, 64));
  tl_target_release(tmp);
  if (n == 0 && *tl_last_error()) return tlpy_raise(TL_EINVAL);
  if (tlpy_check_pending() < 0) return NULL;
  return tlpy_str_tuple(names, n < 64 ? n : 64);
}

static PyObject *module_resolve_execution_backend(PyObject *self, PyObject *args) {
  PyObject *bm, *req_o, *to;
  if (!PyArg_ParseTuple(args, "OOO", &bm, &req_o, &to)) return NULL;
  const char *req;
  if (tlpy_str_arg(req_o, "requested", 1, &req) < 0) return NULL;
  const tl_backend_module *m;
  const tl_target *t;
  tl_target *tmp;
  if (manifest_and_target(bm, to, &m, &t, &tmp) < 0) return NULL;
  const tl_execution_backend_spec *spec = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_backend_module_resolve_execution_backend(m, req, t, &spec));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) return NULL;
  return tlpy_component_to_py(TLPY_EXECUTION_BACKEND_SPEC, spec);
}

/* ------------------------------------------------------- codegen registries */

/* A codegen registry's number from Python (DEVICE_CODEGEN, HOST_CODEGEN, and
 * HOST_CODEGEN_HOOK where hooks have one): 0, or -1 with ValueError. */
static int codegen_registry_arg(int which, int hooks_allowed, const char *function) {
  if (which == TLPY_DEVICE_CODEGEN || which == TLPY_HOST_CODEGEN || (hooks_allowed && which == TLPY_HOST_CODEGEN_HOOK))
    return 0;
  PyErr_Format(PyExc_ValueError, "%s: no codegen registry %d", function, which);
  return -1;
}

/* which: DEVICE_CODEGEN, HOST_CODEGEN or HOST_CODEGEN_HOOK */
static PyObject *register_component(PyObject *self, PyObject *args) {
  int which, override;
  PyObject *kind_o, *c;
  if (!PyArg_ParseTuple(args, "iOOp", &which, &kind_o, &c, &override)) return NULL;
  const char *kind;
  if (tlpy_str_arg(kind_o, "target kind", 0, &kind) < 0) return NULL;
  const void *d = NULL;
  if (codegen_registry_arg(which, 1, "register_component") < 0 || tlpy_component_to_c(which, c, &d) < 0)
    return NULL;
  if (!d) {
    PyErr_SetString(PyExc_TypeError, "the component must not be None");
    return NULL;
  }
  tl_status s;
  TLPY_NOGIL(s = which == TLPY_DEVICE_CODEGEN ? tl_register_device_codegen(kind, d, override)
                 : which == TLPY_HOST_CODEGEN ? tl_register_host_codegen(kind, d, override)
                              : tl_register_host_codegen_hook(kind, d, override));
  if (s != TL_OK) return tlpy_raise(s);
  Py_RETURN_NONE;
}

static PyObject *register_lazy(PyObject *self, PyObject *args) {
  int which;
  PyObject *kind_o, *path_o;
  if (!PyArg_ParseTuple(args, "iOO", &which, &kind_o, &path_o) || codegen_registry_arg(which, 1, "register_lazy") < 0)
    return NULL;
  const char *kind, *path;
  if (tlpy_str_arg(kind_o, "target kind", 0, &kind) < 0 || tlpy_str_arg(path_o, "import_path", 0, &path) < 0)
    return NULL;
  tl_status s;
  TLPY_NOGIL(s = which == TLPY_DEVICE_CODEGEN ? tl_register_lazy_device_codegen(kind, path)
                 : which == TLPY_HOST_CODEGEN ? tl_register_lazy_host_codegen(kind, path)
                              : tl_register_lazy_host_codegen_hooks(kind, path));
  if (s != TL_OK) return tlpy_raise(s);
  Py_RETURN_NONE;
}

static PyObject *allowed_codegens(PyObject *self, PyObject *args) {
  int which;
  PyObject *to;
  if (!PyArg_ParseTuple(args, "iO", &which, &to) || codegen_registry_arg(which, 0, "allowed_codegens") < 0)
    return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(to, &tmp);
  if (!t) return NULL;
  const char *stack[64], **names = stack;
  size_t n;
  TLPY_NOGIL(n = which == TLPY_DEVICE_CODEGEN ? tl_allowed_device_codegens_for_target(t, stack, 64)
                            : tl_allowed_host_codegens_for_target(t, stack, 64));
  if (n == 0 && *tl_last_error()) {
    tl_target_release(tmp);
    return tlpy_raise(TL_EUNAVAILABLE); /* the lazy import failed: its message */
  }
  if (n > 64) {
    names = PyMem_Malloc(n * sizeof *names);
    if (!names) {
      tl_target_release(tmp);
      return PyErr_NoMemory();
    }
    size_t again;
    TLPY_NOGIL(again = which == TLPY_DEVICE_CODEGEN ? tl_allowed_device_codegens_for_target(t, names, n)
                                  : tl_allowed_host_codegens_for_target(t, names, n));
    if (again < n) n = again;
  }
  tl_target_release(tmp);
  if (tlpy_check_pending() < 0) return NULL;
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (size_t i = 0; list && i < n; i++) {
    PyObject *s = PyUnicode_FromString(names[i]);
    if (!s) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)i, s);
  }
  if (names != stack) PyMem_Free(names);
  return list;
}

static PyObject *resolve_codegen(PyObject *self, PyObject *args) {
  int which;
  PyObject *to;
  if (!PyArg_ParseTuple(args, "iO", &which, &to) || codegen_registry_arg(which, 0, "resolve_codegen") < 0)
    return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(to, &tmp);
  if (!t) return NULL;
  const void *d = NULL;
  tl_status s;
  TLPY_NOGIL(s = which == TLPY_DEVICE_CODEGEN ? tl_resolve_device_codegen(t, (const tl_device_codegen **)&d)
                            : tl_resolve_host_codegen(t, (const tl_host_codegen **)&d));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) return NULL;
  return tlpy_component_to_py(which, d);
}

static PyObject *apply_host_codegen_hooks(PyObject *self, PyObject *args) {
  PyObject *mod_o, *ho, *to;
  if (!PyArg_ParseTuple(args, "OOO", &mod_o, &ho, &to)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod) return NULL;
  tl_target *tmp_h = NULL, *tmp_t = NULL;
  const tl_target *h = NULL, *t = NULL;
  if (ho != Py_None && !(h = tlpy_target_arg(ho, &tmp_h))) return NULL;
  if (to != Py_None && !(t = tlpy_target_arg(to, &tmp_t))) {
    tl_target_release(tmp_h);
    return NULL;
  }
  tl_status s;
  TLPY_NOGIL(s = tl_apply_host_codegen_hooks(mod, h, t));
  tl_target_release(tmp_h);
  tl_target_release(tmp_t);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) return NULL;
  return Py_NewRef(mod_o);
}

/* global_func_device_codegen(name) / global_func_host_codegen(name): the library's
 * global-function codegen calls, as CFunctions (the name is kept for the life of the
 * process, one copy per name). */
static PyObject *g_names; /* name -> int (address of the kept copy) */

static PyObject *global_func_codegen(PyObject *self, PyObject *args) {
  int which;
  PyObject *name_o;
  if (!PyArg_ParseTuple(args, "iU", &which, &name_o) || codegen_registry_arg(which, 0, "global_func_codegen") < 0)
    return NULL;
  PyObject *addr = PyDict_GetItemWithError(g_names, name_o);
  void *copy;
  if (addr) {
    copy = PyLong_AsVoidPtr(addr);
  } else {
    if (PyErr_Occurred()) return NULL;
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(name_o, &n);
    if (!u) return NULL;
    copy = PyMem_RawMalloc((size_t)n + 1);
    if (!copy) return PyErr_NoMemory();
    memcpy(copy, u, (size_t)n + 1);
    PyObject *a = PyLong_FromVoidPtr(copy);
    if (!a || PyDict_SetItem(g_names, name_o, a) < 0) {
      Py_XDECREF(a);
      PyMem_RawFree(copy);
      return NULL;
    }
    Py_DECREF(a);
  }
  return which == TLPY_HOST_CODEGEN ? tlpy_cfunc_get(TLPY_FN_HOST_CODEGEN, (void (*)(void))tl_host_codegen_via_global_func, copy, copy)
              : tlpy_cfunc_get(TLPY_FN_DEVICE_CODEGEN, (void (*)(void))tl_device_codegen_via_global_func, copy, copy);
}

/* ------------------------------------------------------- global functions */

static PyObject *register_global_func(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"name", "func", "override", NULL};
  const char *name;
  PyObject *fn;
  int override = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|p:register_global_func", kwlist, &name, &fn, &override))
    return NULL;
  void (*cf)(void);
  void *data;
  tl_packed_fn packed = tlpy_tramp_packed;
  if (tlpy_cfunc_is(fn, TLPY_FN_PACKED, &cf, &data)) {
    packed = (tl_packed_fn)cf;
  } else if (PyCallable_Check(fn)) {
    data = fn;
  } else {
    PyErr_Format(PyExc_TypeError, "func must be callable, not %.100s", Py_TYPE(fn)->tp_name);
    return NULL;
  }
  tl_status s;
  TLPY_NOGIL(s = tl_register_global_func(name, packed, data, override));
  if (s != TL_OK) return tlpy_raise(s);
  if (packed == tlpy_tramp_packed) Py_INCREF(fn); /* the library keeps it: so do we, forever */
  Py_RETURN_NONE;
}

static PyObject *get_global_func(PyObject *self, PyObject *args) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s:get_global_func", &name)) return NULL;
  tl_packed_fn fn;
  void *data;
  tl_status s = tl_get_global_func(name, &fn, &data);
  if (s != TL_OK) return tlpy_raise(s);
  if (fn == tlpy_tramp_packed) return Py_NewRef((PyObject *)data); /* registered from Python */
  return tlpy_cfunc_get(TLPY_FN_PACKED, (void (*)(void))fn, data, name);
}

/* call_global_func(name, *args): tl_call_global_func, whoever registered it. */
static PyObject *call_global_func(PyObject *self, PyObject *args) {
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n < 1) {
    PyErr_SetString(PyExc_TypeError, "call_global_func(name, *args) needs a name");
    return NULL;
  }
  const char *name;
  if (tlpy_str_arg(PyTuple_GET_ITEM(args, 0), "name", 0, &name) < 0) return NULL;
  if (n - 1 > 64) {
    PyErr_SetString(PyExc_TypeError, "global functions take at most 64 arguments");
    return NULL;
  }
  tl_value values[64];
  PyObject *keep = PyList_New(0);
  if (!keep) return NULL;
  for (Py_ssize_t i = 1; i < n; i++) {
    if (tlpy_value_arg(PyTuple_GET_ITEM(args, i), &values[i - 1], keep) < 0) {
      Py_DECREF(keep);
      return NULL;
    }
  }
  tl_value ret = {TL_VALUE_NONE, 0, {0}};
  tl_status s;
  TLPY_NOGIL(s = tl_call_global_func(name, values, (int)(n - 1), &ret));
  Py_DECREF(keep);
  if (s != TL_OK) {
    tl_value_clear(&ret);
    return tlpy_raise(s);
  }
  PyObject *views = PyList_New(0);
  PyObject *r = views ? tlpy_value_to_py(&ret, views) : NULL;
  Py_XDECREF(views);
  tl_value_clear(&ret);
  return r;
}

static PyObject *list_global_funcs(PyObject *self, PyObject *unused) {
  size_t n = tl_list_global_funcs(NULL, 0);
  const char **names = PyMem_Malloc((n + 1) * sizeof *names);
  if (!names) return PyErr_NoMemory();
  n = tl_list_global_funcs(names, n);
  PyObject *r = tlpy_str_tuple(names, n);
  PyMem_Free(names);
  return r;
}

PyMethodDef tlpy_registry_methods[] = {
    {"register_backend", register_backend, METH_O, NULL},
    {"get_backend", get_backend, METH_O,
     "get_backend(name)\n--\n\nReturn a registered backend module by name (the same object each time)."},
    {"list_backends", list_backends, METH_NOARGS,
     "list_backends()\n--\n\nReturn a copy of the registered backend modules, in registration order."},
    {"module_matches", module_matches, METH_VARARGS, NULL},
    {"module_get", module_get, METH_VARARGS, NULL},
    {"module_lower", module_lower, METH_VARARGS, NULL},
    {"module_codegen_device", module_codegen_device, METH_VARARGS, NULL},
    {"module_codegen_host", module_codegen_host, METH_VARARGS, NULL},
    {"module_preprocess_host_codegen", module_preprocess_host_codegen, METH_VARARGS, NULL},
    {"module_allowed_execution_backends", module_allowed_execution_backends, METH_VARARGS, NULL},
    {"module_resolve_execution_backend", module_resolve_execution_backend, METH_VARARGS, NULL},
    {"register_component", register_component, METH_VARARGS, NULL},
    {"register_lazy", register_lazy, METH_VARARGS, NULL},
    {"allowed_codegens", allowed_codegens, METH_VARARGS, NULL},
    {"resolve_codegen", resolve_codegen, METH_VARARGS, NULL},
    {"apply_host_codegen_hooks", apply_host_codegen_hooks, METH_VARARGS, NULL},
    {"global_func_codegen", global_func_codegen, METH_VARARGS, NULL},
    {"register_global_func", (PyCFunction)(void (*)(void))register_global_func, METH_VARARGS | METH_KEYWORDS,
     "register_global_func(name, func, override=False): publish a Python function as a global function."},
    {"get_global_func", get_global_func, METH_VARARGS, "get_global_func(name): a global function as a callable."},
    {"call_global_func", call_global_func, METH_VARARGS, "call_global_func(name, *args): call a global function."},
    {"list_global_funcs", list_global_funcs, METH_NOARGS, "The global functions' names, in registration order."},
    {NULL},
};

/* The "python" import scheme: "python:pkg.backend" imports that module (which
 * registers its backend), once per path, when a lazy registration is first used. */
static tl_status import_python_module(const char *name, void *user_data) {
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *mod = PyImport_ImportModule(name);
  tl_status s = mod ? TL_OK : tlpy_error_from_python(NULL);
  Py_XDECREF(mod);
  PyGILState_Release(g);
  return s;
}

int tlpy_registry_init(PyObject *m);
int tlpy_registry_init(PyObject *m) {
  g_names = PyDict_New();
  g_found = PyDict_New();
  if (!g_names || !g_found) return -1;
  tl_status s = tl_register_import_scheme("python", import_python_module, NULL, true);
  if (s != TL_OK) return tlpy_raise_int(s);
  return PyModule_AddFunctions(m, tlpy_registry_methods);
}
