/* Test-only: out-of-memory injection for the extension's out-of-memory sweep
 * (python/tests/oom). Compiled only into the test variant of the extension
 * (tl_python_ext_oom: TLPY_TEST_HOOKS, linked with the library's objects, so the
 * library's allocation hook is reachable), never into the installed one.
 *
 * _C._oom_call(source, n, fn, *args) calls fn(*args) with one source of allocations
 * made to fail:
 *   "python":  the nth allocation of CPython's allocators (raw, mem and object
 *              domains: the extension's own memory and every object created), and
 *              only that one, so that cleanup code still runs;
 *   "library": the nth allocation of the C library and every later one (its hook,
 *              tl__alloc_fail_after, as the C OOM sweeps use it).
 * _C._component_to_c(which, component) runs one Python -> C conversion by itself.
 * _C._oom_reached() says whether the last call got as far as the nth allocation: a
 * sweep over n ends when a call succeeds without reaching it. */

#include "tlpy.h"

#include "base/alloc.h"

#include <stdatomic.h>
#include <string.h>

enum { DOMAINS = 3 };
static const PyMemAllocatorDomain domains[DOMAINS] = {PYMEM_DOMAIN_RAW, PYMEM_DOMAIN_MEM, PYMEM_DOMAIN_OBJ};
static PyMemAllocatorEx g_original[DOMAINS];
static atomic_long g_count;   /* Python allocations since armed */
static atomic_long g_fail_at; /* 0: off */
static atomic_int g_reached;  /* the last call made its nth allocation fail */

static int should_fail(void) {
  long at = atomic_load(&g_fail_at);
  if (at <= 0) return 0;
  if (atomic_fetch_add(&g_count, 1) + 1 != at) return 0;
  atomic_store(&g_reached, 1);
  return 1;
}

static void *failing_malloc(void *ctx, size_t size) {
  PyMemAllocatorEx *a = ctx;
  return should_fail() ? NULL : a->malloc(a->ctx, size);
}
static void *failing_calloc(void *ctx, size_t n, size_t size) {
  PyMemAllocatorEx *a = ctx;
  return should_fail() ? NULL : a->calloc(a->ctx, n, size);
}
static void *failing_realloc(void *ctx, void *p, size_t size) {
  PyMemAllocatorEx *a = ctx;
  return should_fail() ? NULL : a->realloc(a->ctx, p, size);
}
static void passing_free(void *ctx, void *p) {
  PyMemAllocatorEx *a = ctx;
  a->free(a->ctx, p);
}

static void python_arm(long n) {
  atomic_store(&g_count, 0);
  atomic_store(&g_reached, 0);
  for (int d = 0; d < DOMAINS; d++) {
    PyMem_GetAllocator(domains[d], &g_original[d]);
    PyMemAllocatorEx hook = {&g_original[d], failing_malloc, failing_calloc, failing_realloc, passing_free};
    PyMem_SetAllocator(domains[d], &hook);
  }
  atomic_store(&g_fail_at, n);
}

static void python_disarm(void) {
  atomic_store(&g_fail_at, 0);
  for (int d = 0; d < DOMAINS; d++) PyMem_SetAllocator(domains[d], &g_original[d]);
}

static PyObject *oom_call(PyObject *self, PyObject *args) {
  Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  const char *source;
  long n;
  PyObject *fn;
  if (nargs < 3) {
    PyErr_SetString(PyExc_TypeError, "_oom_call(source, n, fn, *args)");
    return NULL;
  }
  if (!PyArg_Parse(PyTuple_GET_ITEM(args, 0), "s", &source) || !PyArg_Parse(PyTuple_GET_ITEM(args, 1), "l", &n))
    return NULL;
  int python = strcmp(source, "python") == 0;
  if (!python && strcmp(source, "library") != 0) {
    PyErr_Format(PyExc_ValueError, "_oom_call: source must be 'python' or 'library', not '%s'", source);
    return NULL;
  }
  if (n < 1) {
    PyErr_SetString(PyExc_ValueError, "_oom_call: n must be at least 1");
    return NULL;
  }
  fn = PyTuple_GET_ITEM(args, 2);
  PyObject *rest = PyTuple_GetSlice(args, 3, nargs);
  if (!rest) return NULL;
  if (python) python_arm(n);
  else tl__alloc_fail_after(n);
  PyObject *result = PyObject_Call(fn, rest, NULL);
  if (python) {
    python_disarm();
  } else {
    atomic_store(&g_reached, tl__alloc_failed());
    tl__alloc_fail_after(0);
  }
  Py_DECREF(rest);
  return result;
}

static PyObject *oom_reached(PyObject *self, PyObject *unused) { return PyBool_FromLong(atomic_load(&g_reached)); }

/* _C._component_to_c(which, component): the descriptor's address (the conversion
 * alone, for the sweep). */
static PyObject *component_to_c(PyObject *self, PyObject *args) {
  int which;
  PyObject *o;
  if (!PyArg_ParseTuple(args, "iO", &which, &o) || tlpy_component_arg(which, "_component_to_c") < 0) return NULL;
  const void *d;
  if (tlpy_component_to_c(which, o, &d) < 0) return NULL;
  return PyLong_FromVoidPtr((void *)d);
}

static PyMethodDef oom_methods[] = {
    {"_component_to_c", component_to_c, METH_VARARGS, "_component_to_c(which, component): its descriptor's address."},
    {"_oom_call", oom_call, METH_VARARGS, "_oom_call(source, n, fn, *args): fn(*args) with allocation n failing."},
    {"_oom_reached", oom_reached, METH_NOARGS, "Whether the last _oom_call reached its failing allocation."},
    {NULL},
};

int tlpy_test_hooks_init(PyObject *m);
int tlpy_test_hooks_init(PyObject *m) { return PyModule_AddFunctions(m, oom_methods); }
