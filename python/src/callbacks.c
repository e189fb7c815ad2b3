/* Trampolines: C function pointers that run Python callables. Each takes the GIL
 * (PyGILState_Ensure, so any thread may call it), lends the module to Python for the
 * duration of the call only, converts the result, and turns an exception into the
 * calling thread's C error (tlpy_error_from_python) so the library propagates it like
 * any component's failure. Predicates and availability checks cannot report a status:
 * their exceptions answer false and are re-raised when control returns to Python. */

#include "tlpy.h"

#include <string.h>

bool tlpy_tramp_predicate(const tl_target *target, void *user_data) {
  PyGILState_STATE g = PyGILState_Ensure();
  bool r = false;
  PyObject *t = tlpy_target_wrap(target);
  PyObject *res = t ? PyObject_CallOneArg((PyObject *)user_data, t) : NULL;
  Py_XDECREF(t);
  if (res) {
    int b = PyObject_IsTrue(res);
    Py_DECREF(res);
    if (b < 0) tlpy_defer_exception();
    else r = b;
  } else {
    tlpy_defer_exception();
  }
  PyGILState_Release(g);
  return r;
}

/* A module-in-place callable's result: None or the module it was given. */
static int check_in_place(PyObject *res, PyObject *view, const char *what) {
  if (res == Py_None || res == view) return 0;
  PyErr_Format(PyExc_TypeError,
               "%s must update the IRModule it is given in place and return it or None, not return %.100s", what,
               Py_TYPE(res)->tp_name);
  return -1;
}

tl_status tlpy_tramp_pipeline(tl_ir_module *mod, const tl_target *target, void *user_data) {
  PyGILState_STATE g = PyGILState_Ensure();
  tl_status s = TL_OK;
  PyObject *view = tlpy_ir_borrow(mod);
  PyObject *t = view ? tlpy_target_wrap(target) : NULL;
  PyObject *res = t ? PyObject_CallFunctionObjArgs((PyObject *)user_data, view, t, NULL) : NULL;
  if (!res || check_in_place(res, view, "a PassPipeline body") < 0) s = tlpy_error_from_python(NULL);
  Py_XDECREF(res);
  Py_XDECREF(t);
  tlpy_ir_invalidate(view);
  Py_XDECREF(view);
  PyGILState_Release(g);
  return s;
}

/* Shared by device and host codegens: fn(mod, target) -> Artifact or str. */
static tl_status codegen(tl_ir_module *mod, const tl_target *target, PyObject *fn, tl_artifact **out) {
  PyGILState_STATE g = PyGILState_Ensure();
  tl_status s = TL_OK;
  PyObject *view = tlpy_ir_borrow(mod);
  PyObject *t = view ? tlpy_target_wrap(target) : NULL;
  PyObject *res = t ? PyObject_CallFunctionObjArgs(fn, view, t, NULL) : NULL;
  if (!res || tlpy_artifact_from_result(res, tl_target_kind(target), out) < 0) s = tlpy_error_from_python(NULL);
  Py_XDECREF(res);
  Py_XDECREF(t);
  tlpy_ir_invalidate(view);
  Py_XDECREF(view);
  PyGILState_Release(g);
  return s;
}

tl_status tlpy_tramp_device_codegen(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out) {
  return codegen(mod, target, (PyObject *)user_data, out);
}

tl_status tlpy_tramp_host_codegen(tl_ir_module *mod, const tl_target *target_host, void *user_data,
                                  tl_artifact **out) {
  return codegen(mod, target_host, (PyObject *)user_data, out);
}

tl_status tlpy_tramp_hook(tl_ir_module *mod, const tl_target *target_host, const tl_target *target,
                          void *user_data) {
  PyGILState_STATE g = PyGILState_Ensure();
  tl_status s = TL_OK;
  PyObject *view = tlpy_ir_borrow(mod);
  PyObject *h = view ? tlpy_target_wrap(target_host) : NULL;
  PyObject *t = h ? tlpy_target_wrap(target) : NULL;
  PyObject *res = t ? PyObject_CallFunctionObjArgs((PyObject *)user_data, view, h, t, NULL) : NULL;
  if (!res || check_in_place(res, view, "a HostCodegenHook") < 0) s = tlpy_error_from_python(NULL);
  Py_XDECREF(res);
  Py_XDECREF(t);
  Py_XDECREF(h);
  tlpy_ir_invalidate(view);
  Py_XDECREF(view);
  PyGILState_Release(g);
  return s;
}

tl_status tlpy_tramp_packed(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  PyGILState_STATE g = PyGILState_Ensure();
  tl_status s = TL_OK;
  PyObject *views = PyList_New(0);
  PyObject *tuple = views ? PyTuple_New(nargs) : NULL;
  for (int i = 0; tuple && i < nargs; i++) {
    PyObject *v = tlpy_value_to_py(&args[i], views);
    if (!v) {
      Py_CLEAR(tuple);
      break;
    }
    PyTuple_SET_ITEM(tuple, i, v);
  }
  PyObject *res = tuple ? PyObject_Call((PyObject *)user_data, tuple, NULL) : NULL;
  if (!res || tlpy_value_ret(res, ret) < 0) s = tlpy_error_from_python(NULL);
  Py_XDECREF(res);
  Py_XDECREF(tuple);
  for (Py_ssize_t i = 0; views && i < PyList_GET_SIZE(views); i++) tlpy_ir_invalidate(PyList_GET_ITEM(views, i));
  Py_XDECREF(views);
  PyGILState_Release(g);
  return s;
}

/* ------------------------------------------------------ execution backend specs */

bool tlpy_tramp_spec_available(void *user_data) {
  const tlpy_spec_part *p = &((tlpy_spec_calls *)user_data)->is_available;
  if (p->fn) return ((bool (*)(void *))p->fn)(p->data);
  if (!p->callable) return true;
  PyGILState_STATE g = PyGILState_Ensure();
  bool r = false;
  PyObject *res = PyObject_CallNoArgs(p->callable);
  if (res) {
    int b = PyObject_IsTrue(res);
    Py_DECREF(res);
    if (b < 0) tlpy_defer_exception();
    else r = b;
  } else {
    tlpy_defer_exception();
  }
  PyGILState_Release(g);
  return r;
}

bool tlpy_tramp_spec_supports(const tl_target *target, void *user_data) {
  const tlpy_spec_part *p = &((tlpy_spec_calls *)user_data)->supports_target;
  if (p->fn) return ((tl_target_predicate)p->fn)(target, p->data);
  if (!p->callable) return true;
  return tlpy_tramp_predicate(target, p->callable);
}

const char *tlpy_tramp_spec_reason(void *user_data) {
  static _Thread_local char reason[512]; /* valid until this thread's next call */
  const tlpy_spec_part *p = &((tlpy_spec_calls *)user_data)->unavailable_reason;
  if (p->fn) return ((const char *(*)(void *))p->fn)(p->data);
  if (!p->callable) return NULL;
  PyGILState_STATE g = PyGILState_Ensure();
  const char *r = NULL;
  PyObject *res = PyObject_CallNoArgs(p->callable);
  if (res && res != Py_None) {
    PyObject *text = PyObject_Str(res);
    const char *u = text ? PyUnicode_AsUTF8(text) : NULL;
    if (u) {
      snprintf(reason, sizeof reason, "%s", u);
      r = reason;
    } else {
      tlpy_defer_exception();
    }
    Py_XDECREF(text);
  } else if (!res) {
    tlpy_defer_exception();
  }
  Py_XDECREF(res);
  PyGILState_Release(g);
  return r;
}
