/* Target detectors and normalizers written in Python, in the library's registries
 * (upstream tilelang/backend/target.py: register_target_detector,
 * register_target_normalizer, auto_detect_target, list_target_detectors).
 *
 * A Python detector or normalizer becomes a trampoline whose user_data is the
 * callable (kept for the life of the process: the library may still be calling a
 * replaced one on another thread). What it returns (a str, a dict or a Target; None
 * for "nothing here" / "not mine") is parsed by the library. An exception becomes the
 * detector's failure, which tl_auto_detect_target lists after "Tried:", as upstream. */

#include "tlpy.h"

static PyObject *g_callables; /* every registered Python detector and normalizer */
static PyObject *g_json_loads;
/* What the Python detector that found the target returned, as it was: upstream's
 * auto_detect_target returns the detector's value itself (a str stays a str). */
static _Thread_local PyObject *t_detected;

static void forget_detected(void) { Py_CLEAR(t_detected); }

/* A detector's or normalizer's result as a new target reference (None: NULL). */
static tl_status result_to_target(PyObject *res, const char *what, tl_target **out) {
  *out = NULL;
  if (res == Py_None) return TL_OK;
  if (tlpy_target_from_py(res, out) == 0) return TL_OK;
  return tlpy_error_from_python(what);
}

static tl_status detect_trampoline(void *user_data, tl_target **out) {
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *res = PyObject_CallNoArgs((PyObject *)user_data);
  tl_status s = res ? result_to_target(res, NULL, out) : tlpy_error_from_python(NULL);
  if (s == TL_OK && *out) {
    Py_XSETREF(t_detected, Py_NewRef(res));
  }
  Py_XDECREF(res);
  tlpy_clear_pending(); /* auto detection lists the failure and goes on */
  PyGILState_Release(g);
  return s;
}

/* The spec as upstream's normalizers see it: a dict for a JSON object, else the str. */
static PyObject *spec_for_python(const char *spec) {
  if (spec[0] != '{') return PyUnicode_FromString(spec);
  if (!g_json_loads) {
    PyObject *json = PyImport_ImportModule("json");
    g_json_loads = json ? PyObject_GetAttrString(json, "loads") : NULL;
    Py_XDECREF(json);
    if (!g_json_loads) return NULL;
  }
  PyObject *text = PyUnicode_FromString(spec);
  PyObject *d = text ? PyObject_CallOneArg(g_json_loads, text) : NULL;
  Py_XDECREF(text);
  return d;
}

static tl_status normalize_trampoline(const char *spec, void *user_data, tl_target **out) {
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *arg = spec_for_python(spec);
  PyObject *res = arg ? PyObject_CallOneArg((PyObject *)user_data, arg) : NULL;
  tl_status s = res ? result_to_target(res, NULL, out) : tlpy_error_from_python(NULL);
  Py_XDECREF(res);
  Py_XDECREF(arg);
  PyGILState_Release(g);
  return s;
}

typedef enum { DETECTOR, NORMALIZER } registry_kind;

static PyObject *register_python(PyObject *args, registry_kind kind) {
  PyObject *name_o, *fn;
  int override;
  if (!PyArg_ParseTuple(args, "OOp", &name_o, &fn, &override)) return NULL;
  const char *name;
  if (tlpy_str_arg(name_o, "name", 0, &name) < 0) return NULL;
  if (!PyCallable_Check(fn)) {
    PyErr_Format(PyExc_TypeError, "a target %s must be callable, not %.100s",
                 kind == DETECTOR ? "detector" : "normalizer", Py_TYPE(fn)->tp_name);
    return NULL;
  }
  if (PyList_Append(g_callables, fn) < 0) return NULL;
  tl_status s;
  TLPY_NOGIL(s = kind == DETECTOR ? tl_register_target_detector(name, detect_trampoline, fn, override)
                                  : tl_register_target_normalizer(name, normalize_trampoline, fn, override));
  if (s != TL_OK) return tlpy_raise(s);
  Py_RETURN_NONE;
}

static PyObject *register_target_detector(PyObject *self, PyObject *args) { return register_python(args, DETECTOR); }
static PyObject *register_target_normalizer(PyObject *self, PyObject *args) {
  return register_python(args, NORMALIZER);
}

/* _C.auto_detect_target(): what the first detector that finds a target returned (a
 * Python detector's value as it was; a C detector's target as a Target). */
static PyObject *auto_detect_target(PyObject *self, PyObject *unused) {
  forget_detected();
  tl_target *t = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_auto_detect_target(&t));
  if (s != TL_OK) {
    forget_detected();
    return tlpy_raise(s);
  }
  PyObject *r = t_detected ? Py_NewRef(t_detected) : tlpy_target_wrap(t);
  forget_detected();
  tl_target_release(t);
  return r;
}

static PyObject *names_tuple(size_t (*list)(const char **, size_t)) {
  size_t n = list(NULL, 0);
  const char **names = PyMem_Malloc((n + 1) * sizeof *names);
  if (!names) return PyErr_NoMemory();
  n = list(names, n);
  PyObject *r = tlpy_str_tuple(names, n);
  PyMem_Free(names);
  return r;
}

static PyObject *list_target_detectors(PyObject *self, PyObject *unused) {
  return names_tuple(tl_list_target_detectors);
}
static PyObject *list_target_normalizers(PyObject *self, PyObject *unused) {
  return names_tuple(tl_list_target_normalizers);
}

static PyMethodDef detection_methods[] = {
    {"register_target_detector", register_target_detector, METH_VARARGS,
     "register_target_detector(name, detect, override): a Python detector in the library's registry."},
    {"register_target_normalizer", register_target_normalizer, METH_VARARGS,
     "register_target_normalizer(name, normalize, override): a Python normalizer in the library's registry."},
    {"auto_detect_target", auto_detect_target, METH_NOARGS, "The first registered detector's find."},
    {"list_target_detectors", list_target_detectors, METH_NOARGS, "Detector names, in order."},
    {"list_target_normalizers", list_target_normalizers, METH_NOARGS, "Normalizer names, in order."},
    {NULL},
};

int tlpy_target_detection_init(PyObject *m) {
  if (!(g_callables = PyList_New(0))) return -1;
  return PyModule_AddFunctions(m, detection_methods);
}
