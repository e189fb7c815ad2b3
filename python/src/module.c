/* tilelang_backend._C: the extension module. Each concern registers its types and
 * functions here; the Python package (tilelang_backend) holds the seed API's
 * dataclasses and calls into these. */
#include "tlpy.h"

int tlpy_descriptors_init(PyObject *m);
int tlpy_registry_init(PyObject *m);
int tlpy_context_init(PyObject *m);

static PyObject *version(PyObject *self, PyObject *unused) { return PyUnicode_FromString(tl_version()); }

static PyMethodDef module_methods[] = {
    {"version", version, METH_NOARGS, "The C library's version."},
    {NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tilelang_backend._C",
    .m_doc = "The tilelang-backend C library, for the tilelang_backend package.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__C(void);
PyMODINIT_FUNC PyInit__C(void) {
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (tlpy_errors_init(m) < 0 || tlpy_target_init(m) < 0 || tlpy_ir_init(m) < 0 || tlpy_cfunc_init(m) < 0 ||
      tlpy_descriptors_init(m) < 0 || tlpy_registry_init(m) < 0 || tlpy_context_init(m) < 0 ||
      tlpy_kernel_init(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
