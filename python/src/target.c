/* Target: tvm.target.Target's Python surface over tl_target (an immutable,
 * refcounted C value). Construction parses with the library (tl_target_parse): a tag,
 * a JSON object, a bare kind, or a dict (sent as JSON). Equality is structural
 * (tl_target_equal), with a consistent hash (tl_target_hash). */

#include "tlpy.h"

#include <string.h>

static PyObject *g_json_dumps, *g_json_loads;

static int ensure_json(void) {
  if (g_json_dumps) return 0;
  PyObject *json = PyImport_ImportModule("json");
  if (!json) return -1;
  g_json_dumps = PyObject_GetAttrString(json, "dumps");
  g_json_loads = PyObject_GetAttrString(json, "loads");
  Py_DECREF(json);
  return g_json_dumps && g_json_loads ? 0 : -1;
}

PyObject *tlpy_target_wrap(const tl_target *t) {
  if (!t) Py_RETURN_NONE;
  tlpy_TargetObject *o = PyObject_New(tlpy_TargetObject, &tlpy_TargetType);
  if (!o) return NULL;
  o->target = tl_target_retain(t);
  o->attrs = NULL;
  return (PyObject *)o;
}

int tlpy_target_spec(PyObject *o, int allow_none, const char **out, PyObject **keep) {
  *keep = NULL;
  if (o == Py_None && allow_none) {
    *out = NULL;
    return 0;
  }
  if (PyUnicode_Check(o)) {
    *out = PyUnicode_AsUTF8(o);
    return *out ? 0 : -1;
  }
  if (PyObject_TypeCheck(o, &tlpy_TargetType)) {
    *out = tl_target_str(((tlpy_TargetObject *)o)->target);
    return 0;
  }
  if (PyDict_Check(o)) {
    if (ensure_json() < 0) return -1;
    PyObject *text = PyObject_CallOneArg(g_json_dumps, o);
    if (!text) return -1;
    *out = PyUnicode_AsUTF8(text);
    if (!*out) {
      Py_DECREF(text);
      return -1;
    }
    *keep = text;
    return 0;
  }
  PyErr_Format(PyExc_TypeError, "a target must be a str, a dict or a Target%s, not %.100s",
               allow_none ? " (or None)" : "", Py_TYPE(o)->tp_name);
  return -1;
}

int tlpy_target_from_py(PyObject *o, tl_target **out) {
  if (PyObject_TypeCheck(o, &tlpy_TargetType)) {
    *out = tl_target_retain(((tlpy_TargetObject *)o)->target);
    return 0;
  }
  const char *spec;
  PyObject *keep;
  if (tlpy_target_spec(o, 0, &spec, &keep) < 0) return -1;
  tl_status s;
  TLPY_NOGIL(s = tl_target_parse(spec, out));
  Py_XDECREF(keep);
  return s == TL_OK ? 0 : tlpy_raise_int(s);
}

const tl_target *tlpy_target_arg(PyObject *o, tl_target **tmp) {
  *tmp = NULL;
  if (PyObject_TypeCheck(o, &tlpy_TargetType)) return ((tlpy_TargetObject *)o)->target;
  if (tlpy_target_from_py(o, tmp) < 0) return NULL;
  return *tmp;
}

/* What Target() takes: a str, a dict or a Target (tvm's Target raises ValueError for
 * anything else, with its wording). */
static int is_target_input(PyObject *o) { return PyUnicode_Check(o) || PyDict_Check(o) || PyObject_TypeCheck(o, &tlpy_TargetType); }

/* Target(target, host=None) */
static PyObject *target_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"target", "host", NULL};
  PyObject *spec, *host = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:Target", kwlist, &spec, &host)) return NULL;
  if (!is_target_input(spec)) {
    PyObject *cls = PyObject_Repr((PyObject *)Py_TYPE(spec));
    if (cls) PyErr_Format(PyExc_ValueError, "target has to be a string or dictionary. instead get %U", cls);
    Py_XDECREF(cls);
    return NULL;
  }
  if (host != Py_None && !is_target_input(host)) {
    PyErr_SetString(PyExc_ValueError, "target host has to be a string or dictionary.");
    return NULL;
  }
  tl_target *t = NULL;
  if (tlpy_target_from_py(spec, &t) < 0) return NULL;
  if (host != Py_None) {
    tl_target *h = NULL, *with = NULL;
    if (tlpy_target_from_py(host, &h) < 0) {
      tl_target_release(t);
      return NULL;
    }
    tl_status s = tl_target_with_host(t, h, &with);
    tl_target_release(h);
    tl_target_release(t);
    if (s != TL_OK) return tlpy_raise(s);
    t = with;
  }
  tlpy_TargetObject *o = (tlpy_TargetObject *)type->tp_alloc(type, 0);
  if (!o) {
    tl_target_release(t);
    return NULL;
  }
  o->target = t;
  o->attrs = NULL;
  return (PyObject *)o;
}

static void target_dealloc(tlpy_TargetObject *o) {
  tl_target_release(o->target);
  Py_XDECREF(o->attrs);
  Py_TYPE(o)->tp_free((PyObject *)o);
}

static PyObject *target_str(tlpy_TargetObject *o) { return PyUnicode_FromString(tl_target_str(o->target)); }

static PyObject *target_repr(tlpy_TargetObject *o) {
  PyObject *s = PyUnicode_FromString(tl_target_str(o->target));
  if (!s) return NULL;
  PyObject *r = PyUnicode_FromFormat("Target(%R)", s);
  Py_DECREF(s);
  return r;
}

static PyObject *target_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, &tlpy_TargetType)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = tl_target_equal(((tlpy_TargetObject *)a)->target, ((tlpy_TargetObject *)b)->target);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t target_hash(tlpy_TargetObject *o) {
  Py_hash_t h = (Py_hash_t)tl_target_hash(o->target);
  return h == -1 ? -2 : h;
}

static PyObject *target_export(tlpy_TargetObject *o, PyObject *unused) {
  if (ensure_json() < 0) return NULL;
  PyObject *text = PyUnicode_FromString(tl_target_str(o->target));
  if (!text) return NULL;
  PyObject *d = PyObject_CallOneArg(g_json_loads, text);
  Py_DECREF(text);
  return d;
}

static PyObject *target_json(tlpy_TargetObject *o, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"indent", NULL};
  int indent = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|i:json", kwlist, &indent)) return NULL;
  char *text = tl_target_export_indent(o->target, indent);
  if (!text) return tlpy_raise(TL_ENOMEM);
  PyObject *r = PyUnicode_FromString(text);
  tl_free(text);
  return r;
}

static PyObject *target_with_host(tlpy_TargetObject *o, PyObject *host) {
  tl_target *h = NULL, *out = NULL;
  if (host != Py_None && tlpy_target_from_py(host, &h) < 0) return NULL;
  tl_status s = tl_target_with_host(o->target, h, &out);
  tl_target_release(h);
  if (s != TL_OK) return tlpy_raise(s);
  PyObject *r = tlpy_target_wrap(out);
  tl_target_release(out);
  return r;
}

static PyObject *target_has_key(tlpy_TargetObject *o, PyObject *key) {
  const char *k;
  if (tlpy_str_arg(key, "key", 0, &k) < 0) return NULL;
  return PyBool_FromLong(tl_target_has_key(o->target, k));
}

/* ---------------------------------------------------------------- TargetKind */

/* tvm's TargetKind, as upstream code uses it (`target.kind.name == "cuda"`): a str
 * subclass, so str(kind) and `kind == "cuda"` are the name as well. One object per
 * kind name. */
static PyTypeObject tlpy_TargetKindType;
static PyObject *g_kinds; /* name -> TargetKind */

static PyObject *kind_name(PyObject *self, void *c) { return PyUnicode_FromObject(self); }

static PyGetSetDef kind_getset[] = {
    {"name", (getter)kind_name, NULL, "The kind's name ('cuda'), a plain str.", NULL},
    {NULL},
};

static PyTypeObject tlpy_TargetKindType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilelang_backend.TargetKind",
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = kind_getset,
    .tp_doc = "A target kind (tvm's TargetKind): `.name` is its name; as a str it is the name too.",
};

static PyObject *target_kind_object(const char *name) {
  PyObject *kind = PyDict_GetItemString(g_kinds, name);
  if (kind) return Py_NewRef(kind);
  PyObject *text = PyUnicode_FromString(name);
  if (!text) return NULL;
  kind = PyObject_CallOneArg((PyObject *)&tlpy_TargetKindType, text);
  Py_DECREF(text);
  if (kind && PyDict_SetItemString(g_kinds, name, kind) < 0) Py_CLEAR(kind);
  return kind;
}

static PyObject *get_kind(tlpy_TargetObject *o, void *c) { return target_kind_object(tl_target_kind(o->target)); }
static PyObject *get_tag(tlpy_TargetObject *o, void *c) { return PyUnicode_FromString(tl_target_tag(o->target)); }
static PyObject *get_host(tlpy_TargetObject *o, void *c) { return tlpy_target_wrap(tl_target_host(o->target)); }
static PyObject *get_device_type(tlpy_TargetObject *o, void *c) {
  return PyLong_FromLong(tl_target_device_type(o->target));
}

static PyObject *get_keys(tlpy_TargetObject *o, void *c) {
  size_t n = tl_target_num_keys(o->target);
  PyObject *t = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; t && i < n; i++) {
    PyObject *s = PyUnicode_FromString(tl_target_key(o->target, i));
    if (!s) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
  }
  return t;
}

/* The attributes (every key of the JSON text but kind, tag, keys and host), in the
 * text's order, as Python values. */
static PyObject *get_attrs(tlpy_TargetObject *o, void *c) {
  if (!o->attrs) {
    PyObject *d = target_export(o, NULL);
    if (!d) return NULL;
    static const char *const drop[] = {"kind", "tag", "keys", "host"};
    for (size_t i = 0; i < sizeof drop / sizeof *drop; i++) {
      if (PyDict_DelItemString(d, drop[i]) < 0) PyErr_Clear();
    }
    o->attrs = d;
  }
  return PyDictProxy_New(o->attrs);
}

static PyMethodDef target_methods[] = {
    {"export", (PyCFunction)target_export, METH_NOARGS, "The target as a dict (its JSON text, parsed)."},
    {"json", (PyCFunction)(void (*)(void))target_json, METH_VARARGS | METH_KEYWORDS,
     "json(indent=0): the target's JSON text (attributes in schema order)."},
    {"with_host", (PyCFunction)target_with_host, METH_O, "with_host(host): this target with `host` as its host."},
    {"has_key", (PyCFunction)target_has_key, METH_O, "has_key(key): whether the target lists the key."},
    {NULL},
};

static PyGetSetDef target_getset[] = {
    {"kind", (getter)get_kind, NULL, "The target kind (a TargetKind: `.name`, and a str of the name).", NULL},
    {"tag", (getter)get_tag, NULL, "The recorded tag, '' if none.", NULL},
    {"keys", (getter)get_keys, NULL, "The keys, in order.", NULL},
    {"attrs", (getter)get_attrs, NULL, "The attributes (a read-only mapping).", NULL},
    {"host", (getter)get_host, NULL, "The host target, or None.", NULL},
    {"device_type", (getter)get_device_type, NULL, "The DLPack device type.", NULL},
    {NULL},
};

PyTypeObject tlpy_TargetType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilelang_backend.Target",
    .tp_basicsize = sizeof(tlpy_TargetObject),
    .tp_dealloc = (destructor)target_dealloc,
    .tp_repr = (reprfunc)target_repr,
    .tp_str = (reprfunc)target_str,
    .tp_hash = (hashfunc)target_hash,
    .tp_richcompare = target_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Target(target, host=None)\n--\n\n"
              "A compilation target (tvm.target.Target): a tag ('nvidia/nvidia-h100'), a JSON object or a\n"
              "dict ({'kind': 'cuda', 'arch': 'sm_90'}), a bare kind ('c'), or another Target; `host`\n"
              "attaches a host target. Immutable. str() is the JSON text; == compares structurally.",
    .tp_methods = target_methods,
    .tp_getset = target_getset,
    .tp_new = target_new,
};

/* determine_target(spec='auto'): the library's target resolution (auto detection,
 * TILELANG_DEFAULT_TARGET, normalizers, then parsing). */
static PyObject *determine_target(PyObject *self, PyObject *args) {
  PyObject *spec = NULL;
  if (!PyArg_ParseTuple(args, "|O:determine_target", &spec)) return NULL;
  const char *text = NULL;
  PyObject *keep = NULL;
  if (spec && tlpy_target_spec(spec, 1, &text, &keep) < 0) return NULL;
  tl_target *t = NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_determine_target(text, &t));
  Py_XDECREF(keep);
  if (s != TL_OK) return tlpy_raise(s);
  PyObject *r = tlpy_target_wrap(t);
  tl_target_release(t);
  return r;
}

static PyObject *list_target_kinds(PyObject *self, PyObject *unused) {
  const char *names[64];
  size_t n = tl_list_target_kinds(names, 64);
  return tlpy_str_tuple(names, n < 64 ? n : 64);
}

static PyObject *list_target_tags(PyObject *self, PyObject *unused) {
  size_t n = tl_list_target_tags(NULL, 0);
  const char **names = PyMem_Malloc((n + 1) * sizeof *names);
  if (!names) return PyErr_NoMemory();
  n = tl_list_target_tags(names, n);
  PyObject *r = tlpy_str_tuple(names, n);
  PyMem_Free(names);
  return r;
}

static PyMethodDef target_module_methods[] = {
    {"determine_target", determine_target, METH_VARARGS,
     "determine_target(target='auto'): resolve a target as create_backend_context does."},
    {"list_target_kinds", list_target_kinds, METH_NOARGS, "The known target kinds."},
    {"list_target_tags", list_target_tags, METH_NOARGS, "The registered target tags."},
    {NULL},
};

int tlpy_target_init(PyObject *m) {
  tlpy_TargetKindType.tp_base = &PyUnicode_Type;
  if (!(g_kinds = PyDict_New()) || PyType_Ready(&tlpy_TargetKindType) < 0) return -1;
  Py_INCREF(&tlpy_TargetKindType);
  if (PyModule_AddObject(m, "TargetKind", (PyObject *)&tlpy_TargetKindType) < 0) return -1;
  if (PyType_Ready(&tlpy_TargetType) < 0) return -1;
  Py_INCREF(&tlpy_TargetType);
  if (PyModule_AddObject(m, "Target", (PyObject *)&tlpy_TargetType) < 0) return -1;
  return PyModule_AddFunctions(m, target_module_methods);
}
