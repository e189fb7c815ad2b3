/* The components' methods (matches, lower, is_available, ...): the descriptor
 * (components.c), then the library. And _C._install_classes, by which the package
 * hands over the classes the conversions build. */

#include "tlpy.h"

tlpy_classes tlpy_cls;

/* _C._install_classes(BackendModule=..., ...): the Python classes the C side builds. */
static PyObject *install_classes(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"BackendModule", "PassPipeline", "DeviceCodegen", "HostCodegen", "HostCodegenHook",
                           "ExecutionBackendSpec", "BackendContext", NULL};
  tlpy_classes c = {0};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOO:_install_classes", kwlist, &c.BackendModule,
                                   &c.PassPipeline, &c.DeviceCodegen, &c.HostCodegen, &c.HostCodegenHook,
                                   &c.ExecutionBackendSpec, &c.BackendContext))
    return NULL;
  PyObject **all[] = {&c.BackendModule, &c.PassPipeline, &c.DeviceCodegen, &c.HostCodegen, &c.HostCodegenHook,
                      &c.ExecutionBackendSpec, &c.BackendContext};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) Py_INCREF(*all[i]);
  tlpy_cls = c;
  Py_RETURN_NONE;
}

static PyObject *pass_pipeline_lower(PyObject *self, PyObject *args) {
  PyObject *p, *mod_o, *target_o;
  if (!PyArg_ParseTuple(args, "OOO", &p, &mod_o, &target_o)) return NULL;
  const void *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_component_to_c(TLPY_PASS_PIPELINE, p, &d) < 0) return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(target_o, &tmp);
  if (!t) return NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_pass_pipeline_lower(d, mod, t));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  return Py_NewRef(mod_o);
}

/* Whether a component accepts a target, by its class's match function. */
static bool component_match(tlpy_component which, const void *d, const tl_target *t) {
  switch (which) {
  case TLPY_DEVICE_CODEGEN: return tl_device_codegen_matches(d, t);
  case TLPY_HOST_CODEGEN: return tl_host_codegen_matches(d, t);
  case TLPY_HOST_CODEGEN_HOOK: return tl_host_codegen_hook_matches(d, t);
  case TLPY_EXECUTION_BACKEND_SPEC: return tl_execution_backend_spec_matches(d, t);
  default: return false; /* pass pipelines have no predicate (refused below) */
  }
}

/* _C.component_matches(which, component, target) */
static PyObject *component_matches(PyObject *self, PyObject *args) {
  int which;
  PyObject *c, *target_o;
  if (!PyArg_ParseTuple(args, "iOO", &which, &c, &target_o)) return NULL;
  if (tlpy_component_arg(which, "component_matches") < 0 || which == TLPY_PASS_PIPELINE) {
    if (which == TLPY_PASS_PIPELINE) PyErr_SetString(PyExc_ValueError, "a pass pipeline has no supports_target");
    return NULL;
  }
  const void *d = NULL;
  if (tlpy_component_to_c(which, c, &d) < 0) return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(target_o, &tmp);
  if (!t) return NULL;
  bool r;
  TLPY_NOGIL(r = component_match(which, d, t));
  tl_target_release(tmp);
  if (tlpy_check_pending() < 0) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *device_codegen_lower(PyObject *self, PyObject *args) {
  PyObject *c, *mod_o, *target_o;
  int compile_device;
  if (!PyArg_ParseTuple(args, "OOOp", &c, &mod_o, &target_o, &compile_device)) return NULL;
  const void *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_component_to_c(TLPY_DEVICE_CODEGEN, c, &d) < 0) return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(target_o, &tmp);
  if (!t) return NULL;
  tl_artifact *a = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_device_codegen_lower(d, mod, t, compile_device, &a));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  return tlpy_artifact_take(a);
}

static PyObject *host_codegen_lower(PyObject *self, PyObject *args) {
  PyObject *c, *mod_o, *target_o;
  if (!PyArg_ParseTuple(args, "OOO", &c, &mod_o, &target_o)) return NULL;
  const void *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_component_to_c(TLPY_HOST_CODEGEN, c, &d) < 0) return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(target_o, &tmp);
  if (!t) return NULL;
  tl_artifact *a = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_host_codegen_lower(d, mod, t, &a));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  return tlpy_artifact_take(a);
}

static PyObject *hook_lower(PyObject *self, PyObject *args) {
  PyObject *c, *mod_o, *host_o, *target_o;
  if (!PyArg_ParseTuple(args, "OOOO", &c, &mod_o, &host_o, &target_o)) return NULL;
  const void *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_component_to_c(TLPY_HOST_CODEGEN_HOOK, c, &d) < 0) return NULL;
  tl_target *tmp_h = NULL, *tmp_t = NULL;
  const tl_target *h = NULL;
  if (host_o != Py_None && !(h = tlpy_target_arg(host_o, &tmp_h))) return NULL;
  const tl_target *t = tlpy_target_arg(target_o, &tmp_t);
  if (!t) {
    tl_target_release(tmp_h);
    return NULL;
  }
  tl_status s;
  TLPY_NOGIL(s = tl_host_codegen_hook_lower(d, mod, h, t));
  tl_target_release(tmp_h);
  tl_target_release(tmp_t);
  if (s != TL_OK) return tlpy_raise(s);
  return Py_NewRef(mod_o);
}

static PyObject *spec_is_available(PyObject *self, PyObject *spec) {
  const void *d;
  if (tlpy_component_to_c(TLPY_EXECUTION_BACKEND_SPEC, spec, &d) < 0) return NULL;
  bool r;
  TLPY_NOGIL(r = tl_execution_backend_spec_is_available(d));
  if (tlpy_check_pending() < 0) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *spec_unavailable_reason(PyObject *self, PyObject *spec) {
  const void *d;
  if (tlpy_component_to_c(TLPY_EXECUTION_BACKEND_SPEC, spec, &d) < 0) return NULL;
  const char *r;
  TLPY_NOGIL(r = tl_execution_backend_spec_unavailable_reason(d));
  if (tlpy_check_pending() < 0) return NULL;
  return r ? PyUnicode_FromString(r) : Py_NewRef(Py_None);
}

static PyMethodDef tlpy_component_methods[] = {
    {"_install_classes", (PyCFunction)(void (*)(void))install_classes, METH_VARARGS | METH_KEYWORDS, NULL},
    {"pass_pipeline_lower", pass_pipeline_lower, METH_VARARGS, NULL},
    {"component_matches", component_matches, METH_VARARGS, NULL},
    {"device_codegen_lower", device_codegen_lower, METH_VARARGS, NULL},
    {"host_codegen_lower", host_codegen_lower, METH_VARARGS, NULL},
    {"hook_lower", hook_lower, METH_VARARGS, NULL},
    {"spec_is_available", spec_is_available, METH_O, NULL},
    {"spec_unavailable_reason", spec_unavailable_reason, METH_O, NULL},
    {NULL},
};


int tlpy_component_arg(int which, const char *function) {
  if (which >= 0 && which < TLPY_COMPONENT_COUNT) return 0;
  PyErr_Format(PyExc_ValueError, "%s: no component class %d", function, which);
  return -1;
}

int tlpy_components_init(PyObject *m) {
  static const struct {
    const char *name;
    tlpy_component which;
  } classes[] = {
      {"DEVICE_CODEGEN", TLPY_DEVICE_CODEGEN},
      {"HOST_CODEGEN", TLPY_HOST_CODEGEN},
      {"HOST_CODEGEN_HOOK", TLPY_HOST_CODEGEN_HOOK},
      {"EXECUTION_BACKEND_SPEC", TLPY_EXECUTION_BACKEND_SPEC},
      {"PASS_PIPELINE", TLPY_PASS_PIPELINE},
  };
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
    if (PyModule_AddIntConstant(m, classes[i].name, classes[i].which) < 0) return -1;
  if (tlpy_interning_init() < 0) return -1;
  PyObject *always = tlpy_always_available();
  if (!always || PyModule_AddObject(m, "always_available", always) < 0) {
    Py_XDECREF(always);
    return -1;
  }
  return PyModule_AddFunctions(m, tlpy_component_methods);
}
