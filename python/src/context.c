/* BackendContext: create_backend_context resolves with the library
 * (tl_create_backend_context) and wraps the C context in the Python dataclass; a
 * BackendContext constructed directly is validated by tl_backend_context_create (the
 * checks of upstream's __post_init__). Either way the object holds its C context. */
#include "tlpy.h"

/* The C context a BackendContext being built on this thread wraps. */
static _Thread_local const tl_backend_context *g_adopting;
static PyObject *g_attr_context;             /* "_tl_context" */

static void context_capsule_free(PyObject *cap) {
  tl_backend_context_release(PyCapsule_GetPointer(cap, "tilelang_backend.context"));
}

static int set_context(PyObject *ctx, const tl_backend_context *c) {
  PyObject *cap = PyCapsule_New((void *)c, "tilelang_backend.context", context_capsule_free);
  if (!cap) {
    tl_backend_context_release(c);
    return -1;
  }
  int rc = PyObject_GenericSetAttr(ctx, g_attr_context, cap);
  Py_DECREF(cap);
  return rc;
}

const tl_backend_context *tlpy_context_of(PyObject *ctx) {
  PyObject *cap = PyObject_GenericGetAttr(ctx, g_attr_context);
  if (!cap) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "expected a BackendContext, not %.100s", Py_TYPE(ctx)->tp_name);
    }
    return NULL;
  }
  const tl_backend_context *c = PyCapsule_GetPointer(cap, "tilelang_backend.context");
  Py_DECREF(cap);
  return c;
}

/* _C.context_init(ctx): BackendContext.__post_init__. */
static PyObject *context_init(PyObject *self, PyObject *ctx) {
  if (g_adopting) {
    const tl_backend_context *c = g_adopting;
    g_adopting = NULL;
    if (set_context(ctx, tl_backend_context_retain(c)) < 0) return NULL;
    Py_RETURN_NONE;
  }
  PyObject *module = PyObject_GetAttrString(ctx, "module");
  PyObject *target = module ? PyObject_GetAttrString(ctx, "target") : NULL;
  PyObject *host = target ? PyObject_GetAttrString(ctx, "target_host") : NULL;
  PyObject *spec = host ? PyObject_GetAttrString(ctx, "execution_backend") : NULL;
  PyObject *result = NULL;
  const tl_backend_module *m;
  const void *sd;
  tl_target *tmp_t = NULL, *tmp_h = NULL;
  const tl_target *t = NULL, *h = NULL;
  if (!spec || !(m = tlpy_manifest_of(module)) || tlpy_component_to_c(TLPY_EXECUTION_BACKEND_SPEC, spec, &sd) < 0) goto out;
  if (!sd) {
    PyErr_SetString(PyExc_TypeError, "BackendContext.execution_backend must be an ExecutionBackendSpec");
    goto out;
  }
  if (!(t = tlpy_target_arg(target, &tmp_t))) goto out;
  if (host != Py_None && !(h = tlpy_target_arg(host, &tmp_h))) goto out;
  tl_backend_context *c = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_backend_context_create(m, t, h, sd, &c));
  if (s != TL_OK) {
    tlpy_raise(s);
    goto out;
  }
  if (tlpy_check_pending() < 0) {
    tl_backend_context_release(c);
    goto out;
  }
  if (set_context(ctx, c) == 0) result = Py_NewRef(Py_None);
out:
  tl_target_release(tmp_t);
  tl_target_release(tmp_h);
  Py_XDECREF(module);
  Py_XDECREF(target);
  Py_XDECREF(host);
  Py_XDECREF(spec);
  return result;
}

/* Wraps a C context (a reference the caller gives up) in a BackendContext. */
static PyObject *context_py(tl_backend_context *c) {
  PyObject *module = tlpy_manifest_py(tl_backend_context_module(c));
  PyObject *target = module ? tlpy_target_wrap(tl_backend_context_target(c)) : NULL;
  PyObject *host = target ? tlpy_target_wrap(tl_backend_context_target_host(c)) : NULL;
  PyObject *spec = host ? tlpy_component_to_py(TLPY_EXECUTION_BACKEND_SPEC, tl_backend_context_execution_backend(c)) : NULL;
  PyObject *r = NULL;
  if (spec) {
    g_adopting = c;
    r = PyObject_CallFunctionObjArgs(tlpy_cls.BackendContext, module, target, host, spec, NULL);
    g_adopting = NULL;
  }
  tl_backend_context_release(c);
  Py_XDECREF(module);
  Py_XDECREF(target);
  Py_XDECREF(host);
  Py_XDECREF(spec);
  return r;
}

static PyObject *create_backend_context(PyObject *self, PyObject *args) {
  PyObject *to, *ho, *eo;
  if (!PyArg_ParseTuple(args, "OOO", &to, &ho, &eo)) return NULL;
  const char *t, *h, *e;
  PyObject *kt = NULL, *kh = NULL;
  if (tlpy_target_spec(to, 1, &t, &kt) < 0) return NULL;
  if (tlpy_target_spec(ho, 1, &h, &kh) < 0 || tlpy_str_arg(eo, "execution_backend", 1, &e) < 0) {
    Py_XDECREF(kt);
    Py_XDECREF(kh);
    return NULL;
  }
  tl_backend_context *c = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_create_backend_context(t, h, e, &c));
  Py_XDECREF(kt);
  Py_XDECREF(kh);
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) {
    tl_backend_context_release(c);
    return NULL;
  }
  return context_py(c);
}

static PyObject *context_name(PyObject *self, PyObject *ctx) {
  const tl_backend_context *c = tlpy_context_of(ctx);
  return c ? PyUnicode_FromString(tl_backend_context_name(c)) : NULL;
}

/* The context's stages that take only the module. */
typedef enum context_stage {
  STAGE_LOWER,                   /* the module in place */
  STAGE_PREPROCESS_HOST_CODEGEN, /* the module in place */
  STAGE_CODEGEN_HOST,            /* an artifact */
} context_stage;

static PyObject *run_stage(PyObject *args, context_stage stage) {
  PyObject *ctx, *mod_o;
  if (!PyArg_ParseTuple(args, "OO", &ctx, &mod_o)) return NULL;
  const tl_backend_context *c = tlpy_context_of(ctx);
  tl_ir_module *mod = c ? tlpy_ir_get(mod_o) : NULL;
  if (!mod) return NULL;
  tl_artifact *a = NULL;
  tl_status s;
  TLPY_NOGIL(s = stage == STAGE_LOWER                     ? tl_backend_context_lower(c, mod)
                 : stage == STAGE_PREPROCESS_HOST_CODEGEN ? tl_backend_context_preprocess_host_codegen(c, mod)
                                                          : tl_backend_context_codegen_host(c, mod, &a));
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) {
    tl_artifact_release(a);
    return NULL;
  }
  return stage == STAGE_CODEGEN_HOST ? tlpy_artifact_take(a) : Py_NewRef(mod_o);
}

static PyObject *context_lower(PyObject *self, PyObject *args) { return run_stage(args, STAGE_LOWER); }
static PyObject *context_preprocess_host_codegen(PyObject *self, PyObject *args) {
  return run_stage(args, STAGE_PREPROCESS_HOST_CODEGEN);
}
static PyObject *context_codegen_host(PyObject *self, PyObject *args) { return run_stage(args, STAGE_CODEGEN_HOST); }

static PyObject *context_codegen_device(PyObject *self, PyObject *args) {
  PyObject *ctx, *mod_o, *cd;
  if (!PyArg_ParseTuple(args, "OOO", &ctx, &mod_o, &cd)) return NULL;
  const tl_backend_context *c = tlpy_context_of(ctx);
  tl_ir_module *mod = c ? tlpy_ir_get(mod_o) : NULL;
  if (!mod) return NULL;
  int compile_device = -1;
  if (cd != Py_None) {
    int b = PyObject_IsTrue(cd);
    if (b < 0) return NULL;
    compile_device = b;
  }
  tl_artifact *a = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_backend_context_codegen_device(c, mod, compile_device, &a));
  if (s != TL_OK) return tlpy_raise(s);
  if (tlpy_check_pending() < 0) {
    tl_artifact_release(a);
    return NULL;
  }
  return tlpy_artifact_take(a);
}

PyMethodDef tlpy_context_methods[] = {
    {"context_init", context_init, METH_O, "BackendContext.__post_init__: validate with the library."},
    {"create_backend_context", create_backend_context, METH_VARARGS, NULL},
    {"context_name", context_name, METH_O, NULL},
    {"context_lower", context_lower, METH_VARARGS, NULL},
    {"context_preprocess_host_codegen", context_preprocess_host_codegen, METH_VARARGS, NULL},
    {"context_codegen_host", context_codegen_host, METH_VARARGS, NULL},
    {"context_codegen_device", context_codegen_device, METH_VARARGS, NULL},
    {NULL},
};

int tlpy_context_init(PyObject *m);
int tlpy_context_init(PyObject *m) {
  g_attr_context = PyUnicode_InternFromString("_tl_context");
  if (!g_attr_context) return -1;
  return PyModule_AddFunctions(m, tlpy_context_methods);
}
