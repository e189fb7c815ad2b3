/* tilelang_backend._C: the extension module. Each concern registers its types and
 * functions here; the Python package (tilelang_backend) holds the seed API's
 * dataclasses and calls into these. */
#include "tlpy.h"

int tlpy_registry_init(PyObject *m);
#ifdef TLPY_TEST_HOOKS
int tlpy_test_hooks_init(PyObject *m); /* test_hooks/oom.c: the test variant only */
#endif
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
  if (tlpy_errors_init(m) < 0 || tlpy_target_init(m) < 0 || tlpy_target_detection_init(m) < 0 ||
      tlpy_ir_init(m) < 0 || tlpy_cfunc_init(m) < 0 ||
      tlpy_components_init(m) < 0 || tlpy_manifests_init(m) < 0 || tlpy_registry_init(m) < 0 ||
      tlpy_context_init(m) < 0 || tlpy_kernel_init(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
#ifdef TLPY_TEST_HOOKS
  if (tlpy_test_hooks_init(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
#endif
  return m;
}
