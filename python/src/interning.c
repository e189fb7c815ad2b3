/* The two maps between Python objects and C descriptors.
 *
 * Python -> C: a component object (hashed by value, so equal components share one
 * descriptor, as upstream compares manifests with ==) -> the address of its
 * descriptor. Objects that cannot be hashed are recorded on the object itself (an
 * attribute), by identity.
 * C -> Python: a descriptor's or manifest's address -> its Python object, so that a
 * C object has one Python object (the first one recorded wins). */

#include "tlpy.h"

static PyObject *g_py2c;            /* component object -> int (descriptor address) */
static PyObject *g_c2py;            /* int (descriptor or manifest address) -> Python object */
static PyObject *g_attr_descriptor; /* "_tl_descriptor" */

int tlpy_interned_desc(PyObject *o, void **out) {
  *out = NULL;
  PyObject *v = PyDict_GetItemWithError(g_py2c, o);
  if (!v && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
    PyErr_Clear(); /* unhashable: recorded by identity on the object */
    v = PyObject_GenericGetAttr(o, g_attr_descriptor);
    if (!v) {
      if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
      PyErr_Clear();
      return 0;
    }
    *out = PyLong_AsVoidPtr(v);
    Py_DECREF(v);
    return *out || !PyErr_Occurred() ? 0 : -1;
  }
  if (v) *out = PyLong_AsVoidPtr(v);
  return *out || !PyErr_Occurred() ? 0 : -1;
}

/* o -> addr in the Python -> C map; *by_identity says where it went. */
static int record_py2c(PyObject *o, PyObject *addr, int *by_identity) {
  *by_identity = 0;
  if (PyDict_SetItem(g_py2c, o, addr) == 0) return 0;
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
  PyErr_Clear();
  *by_identity = 1;
  return PyObject_GenericSetAttr(o, g_attr_descriptor, addr);
}

/* Undoes record_py2c (on a later failure), keeping the exception being raised. */
static void forget_py2c(PyObject *o, int by_identity) {
  tlpy_saved_error saved = tlpy_save_error();
  if ((by_identity ? PyObject_GenericSetAttr(o, g_attr_descriptor, NULL) : PyDict_DelItem(g_py2c, o)) < 0)
    PyErr_Clear();
  tlpy_restore_error(saved);
}

int tlpy_intern(PyObject *o, const void *desc) {
  PyObject *addr = PyLong_FromVoidPtr((void *)desc);
  if (!addr) return -1;
  int by_identity;
  int rc = record_py2c(o, addr, &by_identity);
  if (rc == 0) {
    rc = tlpy_record_py_of(desc, o);
    if (rc < 0) forget_py2c(o, by_identity); /* never leave a map entry to a descriptor being freed */
  }
  Py_DECREF(addr);
  return rc;
}

int tlpy_record_py_of(const void *desc, PyObject *o) {
  PyObject *addr = PyLong_FromVoidPtr((void *)desc);
  if (!addr) return -1;
  int rc = PyDict_SetDefault(g_c2py, addr, o) ? 0 : -1;
  Py_DECREF(addr);
  return rc;
}

PyObject *tlpy_py_of(const void *desc) {
  PyObject *addr = PyLong_FromVoidPtr((void *)desc);
  if (!addr) return NULL;
  PyObject *o = PyDict_GetItemWithError(g_c2py, addr);
  Py_DECREF(addr);
  return o ? Py_NewRef(o) : NULL;
}

int tlpy_interning_init(void) {
  g_py2c = PyDict_New();
  g_c2py = PyDict_New();
  g_attr_descriptor = PyUnicode_InternFromString("_tl_descriptor");
  return g_py2c && g_c2py && g_attr_descriptor ? 0 : -1;
}
