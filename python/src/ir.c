/* IRModule (tvm.IRModule's place: a tl_ir_module) and Artifact (generated code: a
 * tl_artifact). A module handed to a Python callback is a borrowed view, valid for
 * the call only: afterwards the object refuses use instead of touching freed memory. */

#include "tlpy.h"

#include <string.h>

#include "tlpy_tensor.h"

/* ------------------------------------------------------------------ IRModule */

PyObject *tlpy_ir_borrow(tl_ir_module *mod) {
  tlpy_IRModuleObject *o = PyObject_New(tlpy_IRModuleObject, &tlpy_IRModuleType);
  if (!o) return NULL;
  o->mod = mod;
  o->owned = 0;
  return (PyObject *)o;
}

void tlpy_ir_invalidate(PyObject *view) {
  if (view && PyObject_TypeCheck(view, &tlpy_IRModuleType)) ((tlpy_IRModuleObject *)view)->mod = NULL;
}

PyObject *tlpy_ir_own(tl_ir_module *mod) {
  PyObject *o = tlpy_ir_borrow(mod);
  if (!o) {
    tl_ir_module_free(mod);
    return NULL;
  }
  ((tlpy_IRModuleObject *)o)->owned = 1;
  return o;
}

tl_ir_module *tlpy_ir_get(PyObject *o) {
  if (!PyObject_TypeCheck(o, &tlpy_IRModuleType)) {
    PyErr_Format(PyExc_TypeError, "expected an IRModule, not %.100s", Py_TYPE(o)->tp_name);
    return NULL;
  }
  tlpy_IRModuleObject *m = (tlpy_IRModuleObject *)o;
  if (!m->mod) {
    PyErr_SetString(PyExc_ValueError,
                    "this IRModule was lent to a callback and is no longer valid (the call it was lent for returned)");
    return NULL;
  }
  return m->mod;
}

static PyObject *ir_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  if (!PyArg_ParseTuple(args, ":IRModule") || (kwargs && PyDict_Size(kwargs))) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "IRModule() takes no arguments");
    return NULL;
  }
  tl_ir_module *mod = NULL;
  tl_status s = tl_ir_module_create(&mod);
  if (s != TL_OK) return tlpy_raise(s);
  tlpy_IRModuleObject *o = (tlpy_IRModuleObject *)type->tp_alloc(type, 0);
  if (!o) {
    tl_ir_module_free(mod);
    return NULL;
  }
  o->mod = mod;
  o->owned = 1;
  return (PyObject *)o;
}

static void ir_dealloc(tlpy_IRModuleObject *o) {
  if (o->owned) tl_ir_module_free(o->mod);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *ir_functions(PyObject *self, void *c) {
  tl_ir_module *mod = tlpy_ir_get(self);
  if (!mod) return NULL;
  size_t n = tl_ir_module_num_funcs(mod);
  PyObject *t = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; t && i < n; i++) {
    PyObject *s = PyUnicode_FromString(tl_ir_module_func(mod, i)->name);
    if (!s) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
  }
  return t;
}

static PyObject *ir_valid(PyObject *self, void *c) { return PyBool_FromLong(((tlpy_IRModuleObject *)self)->mod != NULL); }

static Py_ssize_t ir_len(PyObject *self) {
  tl_ir_module *mod = tlpy_ir_get(self);
  return mod ? (Py_ssize_t)tl_ir_module_num_funcs(mod) : -1;
}

static int ir_contains(PyObject *self, PyObject *name) {
  tl_ir_module *mod = tlpy_ir_get(self);
  const char *n;
  if (!mod || tlpy_str_arg(name, "function name", 0, &n) < 0) return -1;
  return tl_ir_module_find_func(mod, n) != NULL;
}

/* get_attr(key, default=None): a module attribute (int or str). */
static PyObject *ir_get_attr(PyObject *self, PyObject *args) {
  const char *key;
  PyObject *dflt = Py_None;
  if (!PyArg_ParseTuple(args, "s|O:get_attr", &key, &dflt)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(self);
  if (!mod) return NULL;
  const tl_ir_attr *a = tl_ir_module_attr(mod, key);
  if (!a) return Py_NewRef(dflt);
  return a->kind == TL_ATTR_INT ? PyLong_FromLongLong(a->i) : PyUnicode_FromString(a->s ? a->s : "");
}

/* set_attr(key, value): sets a module attribute (int or str) in place. */
static PyObject *ir_set_attr(PyObject *self, PyObject *args) {
  const char *key;
  PyObject *value;
  if (!PyArg_ParseTuple(args, "sO:set_attr", &key, &value)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(self);
  if (!mod) return NULL;
  tl_status s;
  if (PyLong_Check(value) && !PyBool_Check(value)) {
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) return NULL;
    s = tl_ir_module_set_attr_int(mod, key, v);
  } else if (PyUnicode_Check(value)) {
    s = tl_ir_module_set_attr_str(mod, key, PyUnicode_AsUTF8(value));
  } else {
    PyErr_Format(PyExc_TypeError, "module attributes are int or str, not %.100s", Py_TYPE(value)->tp_name);
    return NULL;
  }
  if (s != TL_OK) return tlpy_raise(s);
  Py_RETURN_NONE;
}

static PyObject *ir_copy(PyObject *self, PyObject *unused) {
  tl_ir_module *mod = tlpy_ir_get(self);
  if (!mod) return NULL;
  tl_ir_module *out = NULL;
  tl_status s = tl_ir_module_clone(mod, &out);
  if (s != TL_OK) return tlpy_raise(s);
  return tlpy_ir_own(out);
}

static PyObject *ir_verify(PyObject *self, PyObject *unused) {
  tl_ir_module *mod = tlpy_ir_get(self);
  if (!mod) return NULL;
  tl_status s = tl_ir_verify_module(mod);
  if (s != TL_OK) return tlpy_raise(s);
  Py_RETURN_NONE;
}

static PyObject *ir_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &tlpy_IRModuleType)) Py_RETURN_NOTIMPLEMENTED;
  tl_ir_module *ma = tlpy_ir_get(a), *mb = tlpy_ir_get(b);
  if (!ma || !mb) return NULL;
  bool eq = tl_ir_module_equal(ma, mb);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *ir_repr(PyObject *self) {
  tlpy_IRModuleObject *o = (tlpy_IRModuleObject *)self;
  if (!o->mod) return PyUnicode_FromString("<IRModule (no longer valid)>");
  size_t n = tl_ir_module_num_funcs(o->mod);
  if (n == 0) return PyUnicode_FromString("<IRModule: no functions>");
  (void)0;
  PyObject *names = ir_functions(self, NULL);
  if (!names) return NULL;
  PyObject *r = PyUnicode_FromFormat("<IRModule: %R>", names);
  Py_DECREF(names);
  return r;
}

/* Parse options from a params mapping (name -> value): bool as True/False, int and
 * float as their repr, str as given (a dtype name such as float16, or a quoted
 * literal). `keep` holds the strings. */
int tlpy_parse_options(PyObject *params, tl_ir_parse_options *opts, tl_ir_const_binding **bindings, PyObject *keep) {
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  *bindings = NULL;
  if (!params || params == Py_None) return 0;
  PyObject *items = PyMapping_Items(params);
  if (!items) return -1;
  Py_ssize_t n = PyList_GET_SIZE(items);
  tl_ir_const_binding *b = PyMem_Calloc((size_t)n + 1, sizeof *b);
  if (!b) {
    Py_DECREF(items);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *k = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 0), *v = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 1);
    PyObject *text = PyUnicode_Check(v) ? Py_NewRef(v)
                     : (PyBool_Check(v) || PyLong_Check(v) || PyFloat_Check(v)) ? PyObject_Repr(v)
                                                                                 : NULL;
    if (!text && !PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "params values must be bool, int, float or str, not %.100s", Py_TYPE(v)->tp_name);
    if (!text || PyList_Append(keep, text) < 0 || tlpy_str_arg(k, "a params key", 0, &b[i].name) < 0 ||
        !(b[i].value = PyUnicode_AsUTF8(text))) {
      Py_XDECREF(text);
      Py_DECREF(items);
      PyMem_Free(b);
      return -1;
    }
    Py_DECREF(text);
  }
  if (PyList_Append(keep, items) < 0) {
    Py_DECREF(items);
    PyMem_Free(b);
    return -1;
  }
  Py_DECREF(items);
  opts->consts = b;
  opts->nconsts = (size_t)n;
  *bindings = b;
  return 0;
}

/* IRModule.from_script(source, filename='<string>', params=None, func=None,
 * ignore_unused_params=False): func elaborates only that function (the others are
 * not run); ignore_unused_params drops bindings nothing reads (the user API binds
 * every value a function closes over). */
static PyObject *ir_from_script(PyObject *cls, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"source", "filename", "params", "func", "ignore_unused_params", NULL};
  const char *source, *filename = "<string>", *func = NULL;
  PyObject *params = Py_None;
  int ignore_unused = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|sOzp:from_script", kwlist, &source, &filename, &params, &func,
                                   &ignore_unused))
    return NULL;
  PyObject *keep = PyList_New(0);
  tl_ir_parse_options opts;
  tl_ir_const_binding *b;
  if (!keep || tlpy_parse_options(params, &opts, &b, keep) < 0) {
    Py_XDECREF(keep);
    return NULL;
  }
  opts.func = func;
  opts.ignore_unused_consts = ignore_unused;
  tl_ir_module *mod = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_ir_parse(source, filename, &opts, &mod));
  PyMem_Free(b);
  Py_DECREF(keep);
  if (s != TL_OK) return tlpy_raise(s);
  return tlpy_ir_own(mod);
}

static tl_ir_func *func_arg(tl_ir_module *mod, PyObject *name_o) {
  const char *name;
  if (tlpy_str_arg(name_o, "func", 1, &name) < 0) return NULL;
  if (!name && tl_ir_module_num_funcs(mod) == 1) return tl_ir_module_func(mod, 0);
  tl_ir_func *f = name ? tl_ir_module_find_func(mod, name) : NULL;
  if (!f) PyErr_Format(PyExc_ValueError, "the module has no function %s", name ? name : "(None: it has several)");
  return f;
}

/* One dimension as Python: an int, the name of a symbolic var, or None (an
 * expression of them). */
static PyObject *dim_value(const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_INT) return PyLong_FromLongLong(e->u.int_value);
  if (e->kind == TL_EXPR_VAR) return PyUnicode_FromString(e->u.var->name);
  Py_RETURN_NONE;
}

/* signature(func=None): the parameters as (name, kind, dtype, shape, is_output),
 * kind "tensor" (shape: a tuple of ints, symbolic names, None for expressions) or
 * "scalar" (shape None). The user API's jit binds T.const dims from it. */
static PyObject *ir_signature(PyObject *self, PyObject *args) {
  PyObject *name_o = Py_None;
  if (!PyArg_ParseTuple(args, "|O:signature", &name_o)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(self);
  tl_ir_func *f = mod ? func_arg(mod, name_o) : NULL;
  if (!f) return NULL;
  PyObject *list = PyTuple_New(f->nparams);
  for (uint32_t i = 0; list && i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    char dt[32];
    const tl_ir_buffer *b = p->kind == TL_PARAM_BUFFER ? p->buffer : NULL;
    const char *dn = tl_dtype_name(b ? b->dtype : p->var->dtype, dt, sizeof dt);
    PyObject *shape = Py_None;
    if (b) {
      shape = PyTuple_New(b->ndim);
      for (uint32_t d = 0; shape && d < b->ndim; d++) {
        PyObject *v = dim_value(b->shape[d]);
        if (!v) Py_CLEAR(shape);
        else PyTuple_SET_ITEM(shape, d, v);
      }
      if (!shape) Py_CLEAR(list);
    } else {
      Py_INCREF(shape);
    }
    PyObject *row = list ? Py_BuildValue("(ssNO)", p->name, b ? "tensor" : "scalar", shape, p->is_output ? Py_True : Py_False) : NULL;
    if (!row) {
      Py_CLEAR(list);
      break;
    }
    PyObject *full = Py_BuildValue("(OOsOO)", PyTuple_GET_ITEM(row, 0), PyTuple_GET_ITEM(row, 1), dn ? dn : "?",
                                   PyTuple_GET_ITEM(row, 2), PyTuple_GET_ITEM(row, 3));
    Py_DECREF(row);
    if (!full) {
      Py_CLEAR(list);
      break;
    }
    PyTuple_SET_ITEM(list, i, full);
  }
  return list;
}

/* set_out_idx(func, out_idx): marks parameters as outputs (upstream's
 * compile(..., out_idx=)): an int or a sequence of ints, negative from the end;
 * each must name a tensor parameter. Nothing changes on an error. */
static PyObject *ir_set_out_idx(PyObject *self, PyObject *args) {
  PyObject *name_o, *idx_o;
  if (!PyArg_ParseTuple(args, "OO:set_out_idx", &name_o, &idx_o)) return NULL;
  tl_ir_module *mod = tlpy_ir_get(self);
  tl_ir_func *f = mod ? func_arg(mod, name_o) : NULL;
  if (!f) return NULL;
  PyObject *seq = PyLong_Check(idx_o) ? PyTuple_Pack(1, idx_o) : PySequence_Tuple(idx_o);
  if (!seq) {
    if (PyErr_ExceptionMatches(PyExc_TypeError))
      PyErr_Format(PyExc_TypeError, "out_idx must be an int or a list of ints, not %.100s", Py_TYPE(idx_o)->tp_name);
    return NULL;
  }
  Py_ssize_t n = PyTuple_GET_SIZE(seq);
  uint8_t *mark = PyMem_Calloc(f->nparams + 1, 1);
  if (!mark) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *x = PyTuple_GET_ITEM(seq, i);
    if (!PyLong_Check(x) || PyBool_Check(x)) {
      PyErr_Format(PyExc_TypeError, "out_idx must be an int or a list of ints, not a list holding %.100s",
                   Py_TYPE(x)->tp_name);
      goto fail;
    }
    long long k = PyLong_AsLongLong(x), j = k < 0 ? k + f->nparams : k;
    if (PyErr_Occurred()) goto fail;
    if (j < 0 || j >= (long long)f->nparams) {
      PyErr_Format(PyExc_ValueError, "out_idx %lld is out of range for %u parameters of '%s'", k, f->nparams, f->name);
      goto fail;
    }
    if (f->params[j].kind != TL_PARAM_BUFFER) {
      PyErr_Format(PyExc_ValueError, "out_idx %lld names the scalar parameter '%s'; outputs must be tensors", k,
                   f->params[j].name);
      goto fail;
    }
    mark[j] = 1;
  }
  for (uint32_t i = 0; i < f->nparams; i++) f->params[i].is_output |= mark[i];
  PyMem_Free(mark);
  Py_DECREF(seq);
  Py_RETURN_NONE;
fail:
  PyMem_Free(mark);
  Py_DECREF(seq);
  return NULL;
}

/* IRModule.from_file(path, params=None) */
static PyObject *ir_from_file(PyObject *cls, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"path", "params", NULL};
  PyObject *path_o, *params = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|O:from_file", kwlist, PyUnicode_FSConverter, &path_o, &params))
    return NULL;
  PyObject *keep = PyList_New(0);
  tl_ir_parse_options opts;
  tl_ir_const_binding *b;
  if (!keep || tlpy_parse_options(params, &opts, &b, keep) < 0) {
    Py_XDECREF(keep);
    Py_DECREF(path_o);
    return NULL;
  }
  tl_ir_module *mod = NULL;
  tl_status s;
  const char *path = PyBytes_AS_STRING(path_o);
  TLPY_NOGIL(s = tl_ir_parse_file(path, &opts, &mod));
  PyMem_Free(b);
  Py_DECREF(keep);
  Py_DECREF(path_o);
  if (s != TL_OK) return tlpy_raise(s);
  return tlpy_ir_own(mod);
}

static PyObject *ir_script(PyObject *self, PyObject *unused) {
  tl_ir_module *mod = tlpy_ir_get(self);
  if (!mod) return NULL;
  char *text = tl_ir_print_module(mod);
  if (!text) return tlpy_raise(TL_ENOMEM);
  PyObject *r = PyUnicode_FromString(text);
  tl_free(text);
  return r;
}

/* interpret(func, *args): runs `func` with the reference interpreter on CPU tensors
 * (any __dlpack__ object; updated in place) and scalars, every parameter given. */
static PyObject *ir_interpret(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  tl_ir_module *mod = tlpy_ir_get(self);
  if (!mod) return NULL;
  if (nargs < 1) {
    PyErr_SetString(PyExc_TypeError, "interpret(func, *args) needs the function's name (or None)");
    return NULL;
  }
  const char *func;
  if (tlpy_str_arg(args[0], "func", 1, &func) < 0) return NULL;
  if (!func && tl_ir_module_num_funcs(mod) == 1) func = tl_ir_module_func(mod, 0)->name;
  Py_ssize_t n = nargs - 1;
  tl_value *values = PyMem_Calloc((size_t)n + 1, sizeof *values);
  tlpy_tensor *tensors = PyMem_Calloc((size_t)n + 1, sizeof *tensors);
  PyObject *r = NULL;
  if (!values || !tensors) {
    PyErr_NoMemory();
    goto out;
  }
  if (tlpy_args_convert(args + 1, n, values, tensors) < 0) goto out;
  tl_status s;
  TLPY_NOGIL(s = tl_ir_interpret(mod, func, values, (int)n));
  tlpy_args_release(tensors, n);
  r = s == TL_OK ? Py_NewRef(Py_None) : tlpy_raise(s);
out:
  PyMem_Free(values);
  PyMem_Free(tensors);
  return r;
}

static PyMappingMethods ir_as_mapping = {.mp_length = ir_len};
static PySequenceMethods ir_as_sequence = {.sq_length = ir_len, .sq_contains = ir_contains};

static PyMethodDef ir_methods[] = {
    {"get_attr", ir_get_attr, METH_VARARGS, "get_attr(key, default=None): a module attribute (int or str)."},
    {"set_attr", ir_set_attr, METH_VARARGS, "set_attr(key, value): set a module attribute (int or str) in place."},
    {"copy", ir_copy, METH_NOARGS, "A deep copy of the module."},
    {"from_script", (PyCFunction)(void (*)(void))ir_from_script, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "IRModule.from_script(source, filename='<string>', params=None, func=None, ignore_unused_params=False): parse TileLang script (params bind\n"
     "module-level constants: bool/int/float, or a str such as a dtype name)."},
    {"signature", ir_signature, METH_VARARGS,
     "signature(func=None): the parameters as (name, 'tensor'|'scalar', dtype, shape, is_output)."},
    {"set_out_idx", ir_set_out_idx, METH_VARARGS,
     "set_out_idx(func, out_idx): marks the parameters out_idx names (int or list, negative from the end) as outputs."},
    {"from_file", (PyCFunction)(void (*)(void))ir_from_file, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "IRModule.from_file(path, params=None): parse a TileLang script file."},
    {"script", ir_script, METH_NOARGS, "The module as TileLang script text."},
    {"interpret", (PyCFunction)(void (*)(void))ir_interpret, METH_FASTCALL,
     "interpret(func, *args): run function `func` (None: the only one) with the reference interpreter on CPU\n"
     "tensors (any __dlpack__ object, written in place) and scalars; every parameter is given."},
    {"verify", ir_verify, METH_NOARGS, "Run the IR verifier; raises TileLangError on the first problem."},
    {NULL},
};

static PyGetSetDef ir_getset[] = {
    {"functions", ir_functions, NULL, "The names of the module's functions, in order.", NULL},
    {"valid", ir_valid, NULL, "False once a module lent to a callback has been returned.", NULL},
    {NULL},
};

PyTypeObject tlpy_IRModuleType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilelang_backend.IRModule",
    .tp_basicsize = sizeof(tlpy_IRModuleObject),
    .tp_dealloc = (destructor)ir_dealloc,
    .tp_repr = ir_repr,
    .tp_as_mapping = &ir_as_mapping,
    .tp_as_sequence = &ir_as_sequence,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_richcompare = ir_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "IRModule()\n--\n\n"
              "A module of the library's IR (the place of tvm.IRModule). IRModule() is empty;\n"
              "IRModule.from_script(text) parses TileLang script. Passes and codegens written in Python\n"
              "receive a module lent for the duration of their call.",
    .tp_methods = ir_methods,
    .tp_getset = ir_getset,
    .tp_new = ir_new,
};

/* ------------------------------------------------------------------ Artifact */

PyObject *tlpy_artifact_take(tl_artifact *a) {
  tlpy_ArtifactObject *o = PyObject_New(tlpy_ArtifactObject, &tlpy_ArtifactType);
  if (!o) {
    tl_artifact_release(a);
    return NULL;
  }
  o->artifact = a;
  return (PyObject *)o;
}

int tlpy_artifact_from_result(PyObject *o, const char *default_format, tl_artifact **out) {
  if (PyObject_TypeCheck(o, &tlpy_ArtifactType)) {
    *out = tl_artifact_retain(((tlpy_ArtifactObject *)o)->artifact);
    return 0;
  }
  if (PyUnicode_Check(o)) {
    const char *src = PyUnicode_AsUTF8(o);
    if (!src) return -1;
    tl_status s = tl_artifact_create(default_format, src, out);
    return s == TL_OK ? 0 : tlpy_raise_int(s);
  }
  PyErr_Format(PyExc_TypeError, "a codegen must return an Artifact or a str, not %.100s", Py_TYPE(o)->tp_name);
  return -1;
}

/* Artifact(format, source='', binary=None) */
static PyObject *artifact_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"format", "source", "binary", NULL};
  const char *format, *source = "";
  Py_buffer bin = {0};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|sz*:Artifact", kwlist, &format, &source, &bin)) return NULL;
  tl_artifact *a = NULL;
  tl_status s = bin.buf ? tl_artifact_create_binary(format, source, bin.buf, (size_t)bin.len, &a)
                        : tl_artifact_create(format, source, &a);
  if (bin.obj) PyBuffer_Release(&bin);
  if (s != TL_OK) return tlpy_raise(s);
  tlpy_ArtifactObject *o = (tlpy_ArtifactObject *)type->tp_alloc(type, 0);
  if (!o) {
    tl_artifact_release(a);
    return NULL;
  }
  o->artifact = a;
  return (PyObject *)o;
}

static void artifact_dealloc(tlpy_ArtifactObject *o) {
  tl_artifact_release(o->artifact);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *art_format(tlpy_ArtifactObject *o, void *c) { return PyUnicode_FromString(tl_artifact_format(o->artifact)); }
static PyObject *art_source(tlpy_ArtifactObject *o, void *c) { return PyUnicode_FromString(tl_artifact_source(o->artifact)); }
static PyObject *art_binary(tlpy_ArtifactObject *o, void *c) {
  size_t n = 0;
  const void *b = tl_artifact_binary(o->artifact, &n);
  if (!b) Py_RETURN_NONE;
  return PyBytes_FromStringAndSize(b, (Py_ssize_t)n);
}

static PyObject *artifact_repr(tlpy_ArtifactObject *o) {
  size_t n = 0;
  const void *b = tl_artifact_binary(o->artifact, &n);
  return PyUnicode_FromFormat("<Artifact format=%s, %zu characters of source%s>", tl_artifact_format(o->artifact),
                              strlen(tl_artifact_source(o->artifact)), b ? ", with binary" : "");
}

static PyGetSetDef artifact_getset[] = {
    {"format", (getter)art_format, NULL, "'c', 'cuda', 'ptx', 'cubin', 'so', ...", NULL},
    {"source", (getter)art_source, NULL, "The source text ('' if none).", NULL},
    {"binary", (getter)art_binary, NULL, "The compiled bytes, or None.", NULL},
    {NULL},
};

PyTypeObject tlpy_ArtifactType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilelang_backend.Artifact",
    .tp_basicsize = sizeof(tlpy_ArtifactObject),
    .tp_dealloc = (destructor)artifact_dealloc,
    .tp_repr = (reprfunc)artifact_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Artifact(format, source='', binary=None)\n--\n\n"
              "Generated code: what device and host codegens return (format, source text, optional\n"
              "compiled bytes). A Python codegen may return an Artifact or a str (the source; the\n"
              "format is then the target's kind).",
    .tp_getset = artifact_getset,
    .tp_new = artifact_new,
};

int tlpy_ir_init(PyObject *m) {
  if (tlpy_dlpack_init() < 0) return -1;
  if (PyType_Ready(&tlpy_IRModuleType) < 0 || PyType_Ready(&tlpy_ArtifactType) < 0) return -1;
  Py_INCREF(&tlpy_IRModuleType);
  if (PyModule_AddObject(m, "IRModule", (PyObject *)&tlpy_IRModuleType) < 0) return -1;
  Py_INCREF(&tlpy_ArtifactType);
  return PyModule_AddObject(m, "Artifact", (PyObject *)&tlpy_ArtifactType);
}
