/* tl_value <-> Python, for packed functions (backend callbacks, global functions). */
#include "tlpy.h"

PyObject *tlpy_value_to_py(const tl_value *v, PyObject *views) {
  switch (v->kind) {
    case TL_VALUE_NONE: Py_RETURN_NONE;
    case TL_VALUE_INT: return PyLong_FromLongLong(v->v.i);
    case TL_VALUE_FLOAT: return PyFloat_FromDouble(v->v.f);
    case TL_VALUE_BOOL: return PyBool_FromLong(v->v.b);
    case TL_VALUE_STR: return PyUnicode_FromStringAndSize(v->v.s ? v->v.s : "", v->v.s ? (Py_ssize_t)v->size : 0);
    case TL_VALUE_BYTES: return PyBytes_FromStringAndSize(v->v.bytes, (Py_ssize_t)v->size);
    case TL_VALUE_PTR: return PyLong_FromVoidPtr(v->v.ptr);
    case TL_VALUE_TARGET: return tlpy_target_wrap(v->v.target);
    case TL_VALUE_ARTIFACT: return v->v.artifact ? tlpy_artifact_take(tl_artifact_retain(v->v.artifact)) : Py_NewRef(Py_None);
    case TL_VALUE_IR_MODULE: {
      if (!v->v.mod) Py_RETURN_NONE;
      PyObject *o = tlpy_ir_borrow(v->v.mod);
      if (o && PyList_Append(views, o) < 0) Py_CLEAR(o);
      return o;
    }
    case TL_VALUE_TENSOR:
      /* The DLTensor's address: a tensor argument is borrowed for the call. */
      return PyLong_FromVoidPtr(v->v.tensor);
    default:
      PyErr_Format(PyExc_TypeError, "unknown tl_value kind %d", (int)v->kind);
      return NULL;
  }
}

int tlpy_value_arg(PyObject *o, tl_value *out, PyObject *keep) {
  if (o == Py_None) {
    *out = (tl_value){TL_VALUE_NONE, 0, {0}};
  } else if (PyBool_Check(o)) {
    *out = tl_value_bool(o == Py_True);
  } else if (PyLong_Check(o)) {
    long long i = PyLong_AsLongLong(o);
    if (i == -1 && PyErr_Occurred()) return -1;
    *out = tl_value_int(i);
  } else if (PyFloat_Check(o)) {
    *out = tl_value_float(PyFloat_AS_DOUBLE(o));
  } else if (PyUnicode_Check(o)) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s) return -1;
    *out = (tl_value){TL_VALUE_STR, (size_t)n, {.s = s}};
  } else if (PyBytes_Check(o)) {
    *out = tl_value_bytes(PyBytes_AS_STRING(o), (size_t)PyBytes_GET_SIZE(o));
  } else if (PyObject_TypeCheck(o, &tlpy_TargetType)) {
    *out = tl_value_target(((tlpy_TargetObject *)o)->target);
  } else if (PyObject_TypeCheck(o, &tlpy_ArtifactType)) {
    *out = tl_value_artifact(((tlpy_ArtifactObject *)o)->artifact);
  } else if (PyObject_TypeCheck(o, &tlpy_IRModuleType)) {
    tl_ir_module *mod = tlpy_ir_get(o);
    if (!mod) return -1;
    *out = tl_value_module(mod);
  } else {
    PyErr_Format(PyExc_TypeError,
                 "cannot pass %.100s to a packed function (None, bool, int, float, str, bytes, Target, "
                 "Artifact or IRModule)",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  return PyList_Append(keep, o);
}

int tlpy_value_ret(PyObject *o, tl_value *ret) {
  tl_status s = TL_OK;
  if (o == Py_None) {
    ret->kind = TL_VALUE_NONE;
  } else if (PyBool_Check(o)) {
    *ret = tl_value_bool(o == Py_True);
  } else if (PyLong_Check(o)) {
    long long i = PyLong_AsLongLong(o);
    if (i == -1 && PyErr_Occurred()) return -1;
    *ret = tl_value_int(i);
  } else if (PyFloat_Check(o)) {
    *ret = tl_value_float(PyFloat_AS_DOUBLE(o));
  } else if (PyUnicode_Check(o)) {
    const char *str = PyUnicode_AsUTF8(o);
    if (!str) return -1;
    s = tl_value_set_str(ret, str);
  } else if (PyBytes_Check(o)) {
    s = tl_value_set_bytes(ret, PyBytes_AS_STRING(o), (size_t)PyBytes_GET_SIZE(o));
  } else if (PyObject_TypeCheck(o, &tlpy_TargetType)) {
    ret->kind = TL_VALUE_TARGET;
    ret->v.target = tl_target_retain(((tlpy_TargetObject *)o)->target);
  } else if (PyObject_TypeCheck(o, &tlpy_ArtifactType)) {
    ret->kind = TL_VALUE_ARTIFACT;
    ret->v.artifact = tl_artifact_retain(((tlpy_ArtifactObject *)o)->artifact);
  } else {
    PyErr_Format(PyExc_TypeError,
                 "a packed function cannot return %.100s (None, bool, int, float, str, bytes, Target or Artifact)",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  return s == TL_OK ? 0 : tlpy_raise_int(s);
}
