/* Python components <-> C descriptors.
 *
 * A Python component (PassPipeline, DeviceCodegen, HostCodegen, HostCodegenHook,
 * ExecutionBackendSpec: frozen dataclasses) gets one C descriptor, interned by value:
 * equal components share it, as upstream compares manifests with ==. The library
 * keeps descriptors by pointer for the life of the process, so interned descriptors
 * (and the Python callables they reference) are never freed. Callables become
 * trampolines (callbacks.c), except CFunctions, which give back their C pointers.
 *
 * A BackendModule's manifest is built by its __post_init__ and validated by the
 * library (tl_backend_module_validate); it is freed with the object unless it was
 * registered, after which it lives for the life of the process.
 *
 * The other way, a C descriptor (a built-in or plugin component) becomes a Python
 * object of the same class whose callables are CFunctions; the mapping is kept, so a
 * C object has one Python object. */

#include "tlpy.h"

#include <string.h>

tlpy_classes tlpy_cls;

static PyObject *g_py2c;  /* component object -> int (descriptor address) */
static PyObject *g_c2py;  /* int (descriptor or manifest address) -> Python object */
static PyObject *g_kept;  /* manifests' capsules kept for the life of the process */
/* The C manifest a BackendModule being built on this thread wraps (thread-local: the
 * interpreter may switch threads between setting it and __post_init__ reading it). */
static _Thread_local const tl_backend_module *g_wrapping;
static PyObject *g_attr_descriptor; /* "_tl_descriptor" */

/* ---------------------------------------------------------------- helpers */

static char *dup_str(const char *s) {
  size_t n = strlen(s);
  char *d = PyMem_RawMalloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

/* An attribute as a string copy (never freed: descriptors live forever). None and a
 * missing str stay NULL for the library to judge (empty names are its rules). */
static int attr_str(PyObject *o, const char *attr, char **out, int (*keep)(void *, void *), void *ctx) {
  *out = NULL;
  PyObject *v = PyObject_GetAttrString(o, attr);
  if (!v) return -1;
  if (v == Py_None) {
    Py_DECREF(v);
    return 0;
  }
  if (!PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "%s.%s must be a str, not %.100s", Py_TYPE(o)->tp_name, attr, Py_TYPE(v)->tp_name);
    Py_DECREF(v);
    return -1;
  }
  const char *u = PyUnicode_AsUTF8(v);
  if (!u) {
    Py_DECREF(v);
    return -1;
  }
  *out = dup_str(u);
  Py_DECREF(v);
  if (!*out) {
    PyErr_NoMemory();
    return -1;
  }
  if (keep && keep(ctx, *out) < 0) return -1;
  return 0;
}

static int attr_bool(PyObject *o, const char *attr, bool *out) {
  PyObject *v = PyObject_GetAttrString(o, attr);
  if (!v) return -1;
  int b = PyObject_IsTrue(v);
  Py_DECREF(v);
  if (b < 0) return -1;
  *out = b;
  return 0;
}

/* A callable attribute: NULL for None; a CFunction of `kind` gives its pointer and data;
 * another callable gives the trampoline with the callable (a new, never released,
 * reference) as data. */
static int attr_fn(PyObject *o, const char *attr, tlpy_fn_kind kind, void (*tramp)(void), void (**fn)(void),
                   void **data) {
  *fn = NULL;
  *data = NULL;
  PyObject *v = PyObject_GetAttrString(o, attr);
  if (!v) return -1;
  if (v == Py_None) {
    Py_DECREF(v);
    return 0;
  }
  if (tlpy_cfunc_is(v, kind, fn, data)) {
    Py_DECREF(v);
    return 0;
  }
  if (!PyCallable_Check(v)) {
    PyErr_Format(PyExc_TypeError, "%s.%s must be callable or None, not %.100s", Py_TYPE(o)->tp_name, attr,
                 Py_TYPE(v)->tp_name);
    Py_DECREF(v);
    return -1;
  }
  *fn = tramp;
  *data = v; /* the reference is kept by the descriptor */
  return 0;
}

int tlpy_predicate_c(PyObject *o, tl_target_predicate *fn, void **data, PyObject *keep) {
  void (*f)(void) = NULL;
  *fn = NULL;
  *data = NULL;
  if (o == Py_None) return 0;
  if (tlpy_cfunc_is(o, TLPY_FN_PREDICATE, &f, data)) {
    *fn = (tl_target_predicate)f;
    return 0;
  }
  if (!PyCallable_Check(o)) {
    PyErr_Format(PyExc_TypeError, "supports_target must be callable or None, not %.100s", Py_TYPE(o)->tp_name);
    return -1;
  }
  if (keep && PyList_Append(keep, o) < 0) return -1;
  if (!keep) Py_INCREF(o); /* kept forever */
  *fn = tlpy_tramp_predicate;
  *data = o;
  return 0;
}

static int is_instance(PyObject *o, PyObject *cls, const char *what) {
  if (!cls) {
    PyErr_SetString(PyExc_RuntimeError, "tilelang_backend._C: the Python classes are not installed");
    return -1;
  }
  int r = PyObject_IsInstance(o, cls);
  if (r == 0)
    PyErr_Format(PyExc_TypeError, "expected a %s, not %.100s", what, Py_TYPE(o)->tp_name);
  return r == 1 ? 0 : -1;
}

/* The interned descriptor for o, or NULL (no error) if none yet; -1 on error. Objects
 * that cannot be hashed are interned by identity (an attribute on the object). */
static int lookup(PyObject *o, void **out) {
  *out = NULL;
  PyObject *v = PyDict_GetItemWithError(g_py2c, o);
  if (!v && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
    PyErr_Clear();
    v = PyObject_GenericGetAttr(o, g_attr_descriptor);
    if (!v) {
      if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
      PyErr_Clear();
      return 0;
    }
    *out = PyLong_AsVoidPtr(v);
    Py_DECREF(v);
    return 0;
  }
  if (v) *out = PyLong_AsVoidPtr(v);
  return 0;
}

/* Records o <-> desc (both directions; the first Python object wins for c2py). */
static int intern(PyObject *o, const void *desc) {
  PyObject *addr = PyLong_FromVoidPtr((void *)desc);
  if (!addr) return -1;
  int rc = PyDict_SetItem(g_py2c, o, addr);
  if (rc < 0 && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    rc = PyObject_GenericSetAttr(o, g_attr_descriptor, addr);
  }
  if (rc == 0 && !PyDict_GetItemWithError(g_c2py, addr)) rc = PyErr_Occurred() ? -1 : PyDict_SetItem(g_c2py, addr, o);
  Py_DECREF(addr);
  return rc;
}

static PyObject *c2py_find(const void *desc) {
  PyObject *addr = PyLong_FromVoidPtr((void *)desc);
  if (!addr) return NULL;
  PyObject *o = PyDict_GetItemWithError(g_c2py, addr);
  Py_DECREF(addr);
  return o ? Py_NewRef(o) : NULL;
}

/* The start of every Python -> C conversion below: 1 with *d the descriptor when o
 * is None (*d NULL) or was converted before; 0 when it must be built; -1 on error
 * (o not an instance of cls). */
static int find_interned(PyObject *o, PyObject *cls, const char *what, void **d) {
  *d = NULL;
  if (o == Py_None) return 1;
  if (is_instance(o, cls, what) < 0 || lookup(o, d) < 0) return -1;
  return *d != NULL;
}

/* o.supports_target as a C predicate. */
static int attr_predicate(PyObject *o, tl_target_predicate *fn, void **data) {
  PyObject *pred = PyObject_GetAttrString(o, "supports_target");
  if (!pred) return -1;
  int r = tlpy_predicate_c(pred, fn, data, NULL);
  Py_DECREF(pred);
  return r;
}

/* --------------------------------------------------- Python -> C descriptors */

int tlpy_pipeline_desc(PyObject *o, const tl_pass_pipeline **out) {
  *out = NULL;
  void *d;
  int found = find_interned(o, tlpy_cls.PassPipeline, "PassPipeline", &d);
  if (found != 0) {
    *out = d;
    return found < 0 ? -1 : 0;
  }
  tl_pass_pipeline *p = PyMem_RawCalloc(1, sizeof *p);
  if (!p) return (PyErr_NoMemory(), -1);
  char *name;
  void (*fn)(void);
  if (attr_str(o, "name", &name, NULL, NULL) < 0 ||
      attr_fn(o, "body", TLPY_FN_PIPELINE, (void (*)(void))tlpy_tramp_pipeline, &fn, &p->user_data) < 0)
    return -1; /* p is leaked on this rare path rather than risk a dangling reference */
  p->name = name;
  p->lower = (tl_status(*)(tl_ir_module *, const tl_target *, void *))fn;
  if (intern(o, p) < 0) return -1;
  *out = p;
  return 0;
}

int tlpy_device_codegen_desc(PyObject *o, const tl_device_codegen **out) {
  *out = NULL;
  void *d;
  int found = find_interned(o, tlpy_cls.DeviceCodegen, "DeviceCodegen", &d);
  if (found != 0) {
    *out = d;
    return found < 0 ? -1 : 0;
  }
  tl_device_codegen *c = PyMem_RawCalloc(1, sizeof *c);
  if (!c) return (PyErr_NoMemory(), -1);
  char *name;
  void (*b)(void), (*bw)(void);
  if (attr_str(o, "name", &name, NULL, NULL) < 0 ||
      attr_fn(o, "build", TLPY_FN_DEVICE_CODEGEN, (void (*)(void))tlpy_tramp_device_codegen, &b,
              &c->build.user_data) < 0 ||
      attr_fn(o, "build_without_compile", TLPY_FN_DEVICE_CODEGEN, (void (*)(void))tlpy_tramp_device_codegen, &bw,
              &c->build_without_compile.user_data) < 0 ||
      attr_predicate(o, &c->supports_target, &c->predicate_data) < 0)
    return -1;
  c->name = name;
  c->build.fn = (tl_device_codegen_fn)b;
  c->build_without_compile.fn = (tl_device_codegen_fn)bw;
  if (intern(o, c) < 0) return -1;
  *out = c;
  return 0;
}

int tlpy_host_codegen_desc(PyObject *o, const tl_host_codegen **out) {
  *out = NULL;
  void *d;
  int found = find_interned(o, tlpy_cls.HostCodegen, "HostCodegen", &d);
  if (found != 0) {
    *out = d;
    return found < 0 ? -1 : 0;
  }
  tl_host_codegen *c = PyMem_RawCalloc(1, sizeof *c);
  if (!c) return (PyErr_NoMemory(), -1);
  char *name;
  void (*b)(void);
  if (attr_str(o, "name", &name, NULL, NULL) < 0 ||
      attr_fn(o, "build", TLPY_FN_HOST_CODEGEN, (void (*)(void))tlpy_tramp_host_codegen, &b, &c->user_data) < 0 ||
      attr_predicate(o, &c->supports_target, &c->predicate_data) < 0)
    return -1;
  c->name = name;
  c->build = (tl_host_codegen_fn)b;
  if (intern(o, c) < 0) return -1;
  *out = c;
  return 0;
}

int tlpy_hook_desc(PyObject *o, const tl_host_codegen_hook **out) {
  *out = NULL;
  void *d;
  int found = find_interned(o, tlpy_cls.HostCodegenHook, "HostCodegenHook", &d);
  if (found != 0) {
    *out = d;
    return found < 0 ? -1 : 0;
  }
  tl_host_codegen_hook *h = PyMem_RawCalloc(1, sizeof *h);
  if (!h) return (PyErr_NoMemory(), -1);
  char *name;
  void (*a)(void);
  if (attr_str(o, "name", &name, NULL, NULL) < 0 ||
      attr_fn(o, "apply", TLPY_FN_HOOK, (void (*)(void))tlpy_tramp_hook, &a, &h->user_data) < 0 ||
      attr_predicate(o, &h->supports_target, &h->predicate_data) < 0)
    return -1;
  h->name = name;
  h->apply = (tl_host_codegen_hook_fn)a;
  if (intern(o, h) < 0) return -1;
  *out = h;
  return 0;
}

/* One part of a spec: a CFunction of `kind` (its pointer and data) or a Python callable. */
static int spec_part(PyObject *o, const char *attr, tlpy_fn_kind kind, PyObject **py, void (**cfn)(void),
                     void **cdata) {
  *py = NULL;
  *cfn = NULL;
  *cdata = NULL;
  PyObject *v = PyObject_GetAttrString(o, attr);
  if (!v) return -1;
  if (v == Py_None || tlpy_cfunc_is(v, kind, cfn, cdata)) {
    Py_DECREF(v);
    return 0;
  }
  if (!PyCallable_Check(v)) {
    PyErr_Format(PyExc_TypeError, "ExecutionBackendSpec.%s must be callable or None, not %.100s", attr,
                 Py_TYPE(v)->tp_name);
    Py_DECREF(v);
    return -1;
  }
  *py = v; /* kept forever */
  return 0;
}

int tlpy_spec_desc(PyObject *o, const tl_execution_backend_spec **out) {
  *out = NULL;
  void *d;
  int found = find_interned(o, tlpy_cls.ExecutionBackendSpec, "ExecutionBackendSpec", &d);
  if (found != 0) {
    *out = d;
    return found < 0 ? -1 : 0;
  }
  tl_execution_backend_spec *s = PyMem_RawCalloc(1, sizeof *s);
  tlpy_spec_calls *c = PyMem_RawCalloc(1, sizeof *c);
  if (!s || !c) return (PyErr_NoMemory(), -1);
  char *name;
  void (*fa)(void), (*fs)(void), (*fr)(void);
  void *da, *ds, *dr;
  if (attr_str(o, "name", &name, NULL, NULL) < 0 || attr_bool(o, "enable_host_codegen", &s->enable_host_codegen) < 0 ||
      attr_bool(o, "enable_device_compile", &s->enable_device_compile) < 0 ||
      spec_part(o, "is_available", TLPY_FN_IS_AVAILABLE, &c->is_available, &fa, &da) < 0 ||
      spec_part(o, "supports_target", TLPY_FN_PREDICATE, &c->supports_target, &fs, &ds) < 0 ||
      spec_part(o, "unavailable_reason", TLPY_FN_UNAVAILABLE_REASON, &c->unavailable_reason, &fr, &dr) < 0)
    return -1;
  s->name = name;
  int any_py = c->is_available || c->supports_target || c->unavailable_reason;
  /* All parts C functions sharing one user_data (a wrapped C spec): the original pointers. */
  int shared = (!fa || !fs || da == ds) && (!fa || !fr || da == dr) && (!fs || !fr || ds == dr);
  if (!any_py && shared) {
    s->is_available = (bool (*)(void *))fa;
    s->supports_target = (tl_target_predicate)fs;
    s->unavailable_reason = (const char *(*)(void *))fr;
    s->user_data = fa ? da : fs ? ds : dr;
    PyMem_RawFree(c);
  } else {
    c->c_available = (bool (*)(void *))fa;
    c->c_available_data = da;
    c->c_supports = (tl_target_predicate)fs;
    c->c_supports_data = ds;
    c->c_reason = (const char *(*)(void *))fr;
    c->c_reason_data = dr;
    s->is_available = (c->is_available || fa) ? tlpy_tramp_spec_available : NULL;
    s->supports_target = (c->supports_target || fs) ? tlpy_tramp_spec_supports : NULL;
    s->unavailable_reason = (c->unavailable_reason || fr) ? tlpy_tramp_spec_reason : NULL;
    s->user_data = c;
  }
  if (intern(o, s) < 0) return -1;
  *out = s;
  return 0;
}

/* --------------------------------------------------- C descriptors -> Python */

/* Calls cls(**kwargs) built from "name", value pairs (values are new references,
 * consumed; a NULL value fails the call). */
static PyObject *construct(PyObject *cls, int n, ...) {
  va_list ap;
  va_start(ap, n);
  PyObject *kw = PyDict_New();
  int ok = kw != NULL;
  for (int i = 0; i < n; i++) {
    const char *k = va_arg(ap, const char *);
    PyObject *v = va_arg(ap, PyObject *);
    if (!v || !ok || PyDict_SetItemString(kw, k, v) < 0) ok = 0;
    Py_XDECREF(v);
  }
  va_end(ap);
  PyObject *empty = ok ? PyTuple_New(0) : NULL;
  PyObject *r = empty ? PyObject_Call(cls, empty, kw) : NULL;
  Py_XDECREF(empty);
  Py_XDECREF(kw);
  return r;
}

static PyObject *str_or_none(const char *s) { return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None); }
#define FN(kind, f, data, name) tlpy_cfunc_get((kind), (void (*)(void))(f), (data), (name))

/* Wraps desc with `make` unless a Python object is known for it; interns the result. */
#define WRAP_OR_FIND(desc, make)              \
  do {                                        \
    if (!(desc)) Py_RETURN_NONE;              \
    PyObject *found = c2py_find(desc);        \
    if (found || PyErr_Occurred()) return found; \
    PyObject *made = (make);                  \
    if (!made || intern(made, (desc)) < 0) {  \
      Py_XDECREF(made);                       \
      return NULL;                            \
    }                                         \
    Py_DECREF(made);                          \
    return c2py_find(desc); /* the first one interned, if threads raced */ \
  } while (0)

PyObject *tlpy_pipeline_py(const tl_pass_pipeline *p) {
  WRAP_OR_FIND(p, construct(tlpy_cls.PassPipeline, 2, "name", str_or_none(p->name), "body",
                            FN(TLPY_FN_PIPELINE, p->lower, p->user_data, p->name)));
}

PyObject *tlpy_device_codegen_py(const tl_device_codegen *c) {
  WRAP_OR_FIND(c, construct(tlpy_cls.DeviceCodegen, 4, "name", str_or_none(c->name), "build",
                            FN(TLPY_FN_DEVICE_CODEGEN, c->build.fn, c->build.user_data, c->name),
                            "build_without_compile",
                            FN(TLPY_FN_DEVICE_CODEGEN, c->build_without_compile.fn,
                               c->build_without_compile.user_data, c->name),
                            "supports_target", FN(TLPY_FN_PREDICATE, c->supports_target, c->predicate_data, c->name)));
}

PyObject *tlpy_host_codegen_py(const tl_host_codegen *c) {
  WRAP_OR_FIND(c, construct(tlpy_cls.HostCodegen, 3, "name", str_or_none(c->name), "build",
                            FN(TLPY_FN_HOST_CODEGEN, c->build, c->user_data, c->name), "supports_target",
                            FN(TLPY_FN_PREDICATE, c->supports_target, c->predicate_data, c->name)));
}

PyObject *tlpy_hook_py(const tl_host_codegen_hook *h) {
  WRAP_OR_FIND(h, construct(tlpy_cls.HostCodegenHook, 3, "name", str_or_none(h->name), "apply",
                            FN(TLPY_FN_HOOK, h->apply, h->user_data, h->name), "supports_target",
                            FN(TLPY_FN_PREDICATE, h->supports_target, h->predicate_data, h->name)));
}

PyObject *tlpy_spec_py(const tl_execution_backend_spec *s) {
  WRAP_OR_FIND(s, construct(tlpy_cls.ExecutionBackendSpec, 6, "name", str_or_none(s->name), "is_available",
                            FN(TLPY_FN_IS_AVAILABLE, s->is_available, s->user_data, s->name), "supports_target",
                            FN(TLPY_FN_PREDICATE, s->supports_target, s->user_data, s->name), "enable_host_codegen",
                            PyBool_FromLong(s->enable_host_codegen), "enable_device_compile",
                            PyBool_FromLong(s->enable_device_compile), "unavailable_reason",
                            FN(TLPY_FN_UNAVAILABLE_REASON, s->unavailable_reason, s->user_data, s->name)));
}

/* ------------------------------------------------------------- manifests */

typedef struct manifest_holder {
  tl_backend_module m;
  PyObject *refs;  /* Python objects the manifest points into (predicate, callbacks) */
  void **allocs;
  size_t nallocs, cap;
} manifest_holder;

static void *holder_alloc(manifest_holder *h, size_t size) {
  if (h->nallocs == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    void **a = PyMem_RawRealloc(h->allocs, cap * sizeof *a);
    if (!a) return NULL;
    h->allocs = a;
    h->cap = cap;
  }
  void *p = PyMem_RawCalloc(1, size ? size : 1);
  if (p) h->allocs[h->nallocs++] = p;
  return p;
}

static const char *holder_str(manifest_holder *h, PyObject *o, const char *what) {
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(o)->tp_name);
    return NULL;
  }
  Py_ssize_t n;
  const char *u = PyUnicode_AsUTF8AndSize(o, &n);
  if (!u) return NULL;
  char *d = holder_alloc(h, (size_t)n + 1);
  if (!d) return (PyErr_NoMemory(), NULL);
  memcpy(d, u, (size_t)n + 1);
  return d;
}

static void holder_free(manifest_holder *h) {
  for (size_t i = 0; i < h->nallocs; i++) PyMem_RawFree(h->allocs[i]);
  PyMem_RawFree(h->allocs);
  Py_XDECREF(h->refs);
  PyMem_RawFree(h);
}

static void holder_capsule_free(PyObject *cap) {
  manifest_holder *h = PyCapsule_GetPointer(cap, "tilelang_backend.manifest");
  if (h) holder_free(h);
}

/* The items of a mapping field (a list of (key, value) pairs), or NULL for None / empty. */
static PyObject *mapping_items(PyObject *o, const char *field, PyObject **items) {
  *items = NULL;
  PyObject *v = PyObject_GetAttrString(o, field);
  if (!v) return NULL;
  if (v == Py_None) return v;
  if (!PyMapping_Check(v) || PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "BackendModule.%s must be a mapping, not %.100s", field, Py_TYPE(v)->tp_name);
    Py_DECREF(v);
    return NULL;
  }
  *items = PyMapping_Items(v);
  if (!*items) {
    Py_DECREF(v);
    return NULL;
  }
  return v;
}

/* Builds the C manifest of a BackendModule's fields. */
static int build_manifest(PyObject *bm, manifest_holder *h) {
  tl_backend_module *m = &h->m;
  m->struct_size = sizeof *m;
  int rc = -1;
  PyObject *name = NULL, *kinds = NULL, *kinds_seq = NULL, *specs = NULL, *specs_seq = NULL, *pred = NULL;
  PyObject *f = NULL, *items = NULL;

  if (!(name = PyObject_GetAttrString(bm, "name"))) goto out;
  if (name != Py_None && !(m->name = holder_str(h, name, "BackendModule.name"))) goto out;

  if (!(kinds = PyObject_GetAttrString(bm, "target_kinds"))) goto out;
  if (kinds != Py_None) {
    if (PyUnicode_Check(kinds)) {
      PyErr_SetString(PyExc_TypeError, "BackendModule.target_kinds must be a tuple of str, not a str");
      goto out;
    }
    if (!(kinds_seq = PySequence_Fast(kinds, "BackendModule.target_kinds must be a tuple of str"))) goto out;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(kinds_seq);
    const char **arr = holder_alloc(h, ((size_t)n + 1) * sizeof *arr);
    if (!arr) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++)
      if (!(arr[i] = holder_str(h, PySequence_Fast_GET_ITEM(kinds_seq, i), "a target kind"))) goto out;
    m->target_kinds = arr;
  }

  /* pipelines, device_codegens, host_codegens: kind -> component */
  if (!(f = mapping_items(bm, "pipelines", &items))) goto out;
  if (items) {
    Py_ssize_t n = PyList_GET_SIZE(items);
    tl_pipeline_entry *e = holder_alloc(h, ((size_t)n + 1) * sizeof *e);
    if (!e) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *kv = PyList_GET_ITEM(items, i);
      if (!(e[i].target_kind = holder_str(h, PyTuple_GET_ITEM(kv, 0), "a pipelines key")) ||
          tlpy_pipeline_desc(PyTuple_GET_ITEM(kv, 1), &e[i].pipeline) < 0)
        goto out;
    }
    m->pipelines = e;
  }
  Py_CLEAR(f);
  Py_CLEAR(items);

  if (!(f = mapping_items(bm, "device_codegens", &items))) goto out;
  if (items) {
    Py_ssize_t n = PyList_GET_SIZE(items);
    tl_device_codegen_entry *e = holder_alloc(h, ((size_t)n + 1) * sizeof *e);
    if (!e) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *kv = PyList_GET_ITEM(items, i);
      if (!(e[i].target_kind = holder_str(h, PyTuple_GET_ITEM(kv, 0), "a device_codegens key")) ||
          tlpy_device_codegen_desc(PyTuple_GET_ITEM(kv, 1), &e[i].codegen) < 0)
        goto out;
    }
    m->device_codegens = e;
  }
  Py_CLEAR(f);
  Py_CLEAR(items);

  if (!(specs = PyObject_GetAttrString(bm, "execution_backends"))) goto out;
  if (specs != Py_None) {
    if (!(specs_seq = PySequence_Fast(specs, "BackendModule.execution_backends must be a tuple"))) goto out;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(specs_seq);
    const tl_execution_backend_spec **arr = holder_alloc(h, ((size_t)n + 1) * sizeof *arr);
    if (!arr) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *s = PySequence_Fast_GET_ITEM(specs_seq, i);
      if (s == Py_None) {
        PyErr_SetString(PyExc_TypeError, "BackendModule.execution_backends must not contain None");
        goto out;
      }
      if (tlpy_spec_desc(s, &arr[i]) < 0) goto out;
    }
    m->execution_backends = arr;
  }

  if (!(pred = PyObject_GetAttrString(bm, "supports_target"))) goto out;
  if (tlpy_predicate_c(pred, &m->supports_target, &m->predicate_data, h->refs) < 0) goto out;

  if (!(f = mapping_items(bm, "host_codegens", &items))) goto out;
  if (items) {
    Py_ssize_t n = PyList_GET_SIZE(items);
    tl_host_codegen_entry *e = holder_alloc(h, ((size_t)n + 1) * sizeof *e);
    if (!e) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *kv = PyList_GET_ITEM(items, i);
      if (!(e[i].target_host_kind = holder_str(h, PyTuple_GET_ITEM(kv, 0), "a host_codegens key")) ||
          tlpy_host_codegen_desc(PyTuple_GET_ITEM(kv, 1), &e[i].codegen) < 0)
        goto out;
    }
    m->host_codegens = e;
  }
  Py_CLEAR(f);
  Py_CLEAR(items);

  if (!(f = mapping_items(bm, "host_codegen_hooks", &items))) goto out;
  if (items) {
    Py_ssize_t n = PyList_GET_SIZE(items);
    tl_host_codegen_hooks_entry *e = holder_alloc(h, ((size_t)n + 1) * sizeof *e);
    if (!e) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *kv = PyList_GET_ITEM(items, i);
      if (!(e[i].target_kind = holder_str(h, PyTuple_GET_ITEM(kv, 0), "a host_codegen_hooks key"))) goto out;
      PyObject *seq = PySequence_Fast(PyTuple_GET_ITEM(kv, 1), "host codegen hooks must be a tuple of HostCodegenHook");
      if (!seq) goto out;
      Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
      const tl_host_codegen_hook **hooks = holder_alloc(h, ((size_t)k + 1) * sizeof *hooks);
      int bad = !hooks;
      for (Py_ssize_t j = 0; !bad && j < k; j++) {
        PyObject *hk = PySequence_Fast_GET_ITEM(seq, j);
        if (hk == Py_None) {
          PyErr_SetString(PyExc_TypeError, "host codegen hook lists must not contain None");
          bad = 1;
        } else if (tlpy_hook_desc(hk, &hooks[j]) < 0) {
          bad = 1;
        }
      }
      Py_DECREF(seq);
      if (!hooks) goto nomem;
      if (bad) goto out;
      e[i].hooks = hooks;
    }
    m->host_codegen_hooks = e;
  }
  Py_CLEAR(f);
  Py_CLEAR(items);

  if (!(f = mapping_items(bm, "callbacks", &items))) goto out;
  if (items) {
    Py_ssize_t n = PyList_GET_SIZE(items);
    tl_callback_entry *e = holder_alloc(h, ((size_t)n + 1) * sizeof *e);
    if (!e) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *kv = PyList_GET_ITEM(items, i), *fn = PyTuple_GET_ITEM(kv, 1);
      if (!(e[i].name = holder_str(h, PyTuple_GET_ITEM(kv, 0), "a callback name"))) goto out;
      void (*cf)(void);
      if (fn == Py_None) continue; /* the library refuses a callback without a function */
      if (tlpy_cfunc_is(fn, TLPY_FN_PACKED, &cf, &e[i].user_data)) {
        e[i].fn = (tl_packed_fn)cf;
      } else if (PyCallable_Check(fn)) {
        if (PyList_Append(h->refs, fn) < 0) goto out;
        e[i].fn = tlpy_tramp_packed;
        e[i].user_data = fn;
      } else {
        PyErr_Format(PyExc_TypeError, "callback '%s' must be callable, not %.100s", e[i].name, Py_TYPE(fn)->tp_name);
        goto out;
      }
    }
    m->callbacks = e;
  }
  rc = 0;
  goto out;
nomem:
  PyErr_NoMemory();
out:
  Py_XDECREF(name);
  Py_XDECREF(kinds);
  Py_XDECREF(kinds_seq);
  Py_XDECREF(specs);
  Py_XDECREF(specs_seq);
  Py_XDECREF(pred);
  Py_XDECREF(f);
  Py_XDECREF(items);
  return rc;
}

static PyObject *g_attr_manifest; /* "_tl_manifest" */

/* _C.backend_module_init(bm): BackendModule.__post_init__ (the library validates). */
static PyObject *backend_module_init(PyObject *self, PyObject *bm) {
  if (g_wrapping) {
    PyObject *cap = PyCapsule_New((void *)g_wrapping, "tilelang_backend.cmanifest", NULL);
    if (!cap) return NULL;
    int rc = PyObject_GenericSetAttr(bm, g_attr_manifest, cap);
    Py_DECREF(cap);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
  }
  manifest_holder *h = PyMem_RawCalloc(1, sizeof *h);
  if (!h) return PyErr_NoMemory();
  h->refs = PyList_New(0);
  if (!h->refs || build_manifest(bm, h) < 0) {
    holder_free(h);
    return NULL;
  }
  tl_status s = tl_backend_module_validate(&h->m);
  if (s != TL_OK) {
    holder_free(h);
    return tlpy_raise(s);
  }
  PyObject *cap = PyCapsule_New(h, "tilelang_backend.manifest", holder_capsule_free);
  if (!cap) {
    holder_free(h);
    return NULL;
  }
  int rc = PyObject_GenericSetAttr(bm, g_attr_manifest, cap);
  Py_DECREF(cap);
  if (rc < 0) return NULL;
  Py_RETURN_NONE;
}

const tl_backend_module *tlpy_manifest_of(PyObject *bm) {
  if (is_instance(bm, tlpy_cls.BackendModule, "BackendModule") < 0) return NULL;
  PyObject *cap = PyObject_GenericGetAttr(bm, g_attr_manifest);
  if (!cap) return NULL;
  const tl_backend_module *m = NULL;
  if (PyCapsule_IsValid(cap, "tilelang_backend.manifest")) m = &((manifest_holder *)PyCapsule_GetPointer(cap, "tilelang_backend.manifest"))->m;
  else if (PyCapsule_IsValid(cap, "tilelang_backend.cmanifest")) m = PyCapsule_GetPointer(cap, "tilelang_backend.cmanifest");
  else PyErr_SetString(PyExc_TypeError, "BackendModule has no manifest (was __post_init__ skipped?)");
  Py_DECREF(cap);
  return m;
}

int tlpy_manifest_registered(PyObject *bm, const tl_backend_module *m) {
  PyObject *addr = PyLong_FromVoidPtr((void *)m);
  if (!addr) return -1;
  int rc = PyDict_SetItem(g_c2py, addr, bm);
  Py_DECREF(addr);
  if (rc == 0) {
    /* The capsule (and so the manifest) now lives for the life of the process. */
    PyObject *cap = PyObject_GenericGetAttr(bm, g_attr_manifest);
    rc = cap ? PyList_Append(g_kept, cap) : -1;
    Py_XDECREF(cap);
  }
  return rc;
}

/* A dict kind -> Python component from a {NULL}-terminated entry array. */
#define ENTRIES_DICT(dict, arr, keyfield, valexpr)                          \
  do {                                                                      \
    dict = PyDict_New();                                                    \
    for (size_t i_ = 0; dict && (arr) && (arr)[i_].keyfield; i_++) {        \
      PyObject *v_ = (valexpr);                                             \
      if (!v_ || PyDict_SetItemString(dict, (arr)[i_].keyfield, v_) < 0) Py_CLEAR(dict); \
      Py_XDECREF(v_);                                                       \
    }                                                                       \
  } while (0)

static PyObject *hooks_tuple(const tl_host_codegen_hook *const *hooks) {
  size_t n = 0;
  while (hooks && hooks[n]) n++;
  PyObject *t = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; t && i < n; i++) {
    PyObject *h = tlpy_hook_py(hooks[i]);
    if (!h) {
      Py_CLEAR(t);
      break;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, h);
  }
  return t;
}

PyObject *tlpy_manifest_find(const tl_backend_module *m) { return c2py_find(m); }

PyObject *tlpy_manifest_py(const tl_backend_module *m) {
  PyObject *found = c2py_find(m);
  if (found || PyErr_Occurred()) return found;
  size_t nk = 0, ns = 0;
  while (m->target_kinds && m->target_kinds[nk]) nk++;
  while (m->execution_backends && m->execution_backends[ns]) ns++;
  PyObject *kinds = tlpy_str_tuple(m->target_kinds, nk);
  PyObject *specs = PyTuple_New((Py_ssize_t)ns);
  for (size_t i = 0; specs && i < ns; i++) {
    PyObject *s = tlpy_spec_py(m->execution_backends[i]);
    if (!s) {
      Py_CLEAR(specs);
      break;
    }
    PyTuple_SET_ITEM(specs, (Py_ssize_t)i, s);
  }
  PyObject *pipelines, *device, *host, *hooks, *callbacks;
  ENTRIES_DICT(pipelines, m->pipelines, target_kind, tlpy_pipeline_py(m->pipelines[i_].pipeline));
  ENTRIES_DICT(device, m->device_codegens, target_kind, tlpy_device_codegen_py(m->device_codegens[i_].codegen));
  ENTRIES_DICT(host, m->host_codegens, target_host_kind, tlpy_host_codegen_py(m->host_codegens[i_].codegen));
  ENTRIES_DICT(hooks, m->host_codegen_hooks, target_kind, hooks_tuple(m->host_codegen_hooks[i_].hooks));
  ENTRIES_DICT(callbacks, m->callbacks, name,
               FN(TLPY_FN_PACKED, m->callbacks[i_].fn, m->callbacks[i_].user_data, m->callbacks[i_].name));
  g_wrapping = m;
  PyObject *bm = construct(tlpy_cls.BackendModule, 9, "name", str_or_none(m->name), "target_kinds", kinds,
                           "pipelines", pipelines, "device_codegens", device, "execution_backends", specs,
                           "supports_target", FN(TLPY_FN_PREDICATE, m->supports_target, m->predicate_data, m->name),
                           "host_codegens", host, "host_codegen_hooks", hooks, "callbacks", callbacks);
  g_wrapping = NULL;
  if (!bm) return NULL;
  PyObject *raced = c2py_find(m); /* another thread wrapped it meanwhile: one object per manifest */
  if (raced || PyErr_Occurred()) {
    Py_DECREF(bm);
    return raced;
  }
  if (tlpy_manifest_registered(bm, m) < 0) Py_CLEAR(bm);
  return bm;
}

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

/* Component methods: the descriptor, then the library. */
static PyObject *pass_pipeline_lower(PyObject *self, PyObject *args) {
  PyObject *p, *mod_o, *target_o;
  if (!PyArg_ParseTuple(args, "OOO", &p, &mod_o, &target_o)) return NULL;
  const tl_pass_pipeline *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_pipeline_desc(p, &d) < 0) return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(target_o, &tmp);
  if (!t) return NULL;
  tl_status s;
  TLPY_NOGIL(s = tl_pass_pipeline_lower(d, mod, t));
  tl_target_release(tmp);
  if (s != TL_OK) return tlpy_raise(s);
  return Py_NewRef(mod_o);
}

/* kind: 0 device codegen, 1 host codegen, 2 hook, 3 spec */
static PyObject *component_matches(PyObject *self, PyObject *args) {
  int kind;
  PyObject *c, *target_o;
  if (!PyArg_ParseTuple(args, "iOO", &kind, &c, &target_o)) return NULL;
  const void *d = NULL;
  int rc = kind == 0   ? tlpy_device_codegen_desc(c, (const tl_device_codegen **)&d)
           : kind == 1 ? tlpy_host_codegen_desc(c, (const tl_host_codegen **)&d)
           : kind == 2 ? tlpy_hook_desc(c, (const tl_host_codegen_hook **)&d)
                       : tlpy_spec_desc(c, (const tl_execution_backend_spec **)&d);
  if (rc < 0) return NULL;
  tl_target *tmp;
  const tl_target *t = tlpy_target_arg(target_o, &tmp);
  if (!t) return NULL;
  bool r;
  TLPY_NOGIL(r = kind == 0   ? tl_device_codegen_matches(d, t)
                 : kind == 1 ? tl_host_codegen_matches(d, t)
                 : kind == 2 ? tl_host_codegen_hook_matches(d, t)
                             : tl_execution_backend_spec_matches(d, t));
  tl_target_release(tmp);
  if (tlpy_check_pending() < 0) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *device_codegen_lower(PyObject *self, PyObject *args) {
  PyObject *c, *mod_o, *target_o;
  int compile_device;
  if (!PyArg_ParseTuple(args, "OOOp", &c, &mod_o, &target_o, &compile_device)) return NULL;
  const tl_device_codegen *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_device_codegen_desc(c, &d) < 0) return NULL;
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
  const tl_host_codegen *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_host_codegen_desc(c, &d) < 0) return NULL;
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
  const tl_host_codegen_hook *d;
  tl_ir_module *mod = tlpy_ir_get(mod_o);
  if (!mod || tlpy_hook_desc(c, &d) < 0) return NULL;
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
  const tl_execution_backend_spec *d;
  if (tlpy_spec_desc(spec, &d) < 0) return NULL;
  bool r;
  TLPY_NOGIL(r = tl_execution_backend_spec_is_available(d));
  if (tlpy_check_pending() < 0) return NULL;
  return PyBool_FromLong(r);
}

static PyObject *spec_unavailable_reason(PyObject *self, PyObject *spec) {
  const tl_execution_backend_spec *d;
  if (tlpy_spec_desc(spec, &d) < 0) return NULL;
  const char *r;
  TLPY_NOGIL(r = tl_execution_backend_spec_unavailable_reason(d));
  if (tlpy_check_pending() < 0) return NULL;
  return str_or_none(r);
}

PyMethodDef tlpy_descriptor_methods[] = {
    {"_install_classes", (PyCFunction)(void (*)(void))install_classes, METH_VARARGS | METH_KEYWORDS, NULL},
    {"backend_module_init", backend_module_init, METH_O, "BackendModule.__post_init__: validate with the library."},
    {"pass_pipeline_lower", pass_pipeline_lower, METH_VARARGS, NULL},
    {"component_matches", component_matches, METH_VARARGS, NULL},
    {"device_codegen_lower", device_codegen_lower, METH_VARARGS, NULL},
    {"host_codegen_lower", host_codegen_lower, METH_VARARGS, NULL},
    {"hook_lower", hook_lower, METH_VARARGS, NULL},
    {"spec_is_available", spec_is_available, METH_O, NULL},
    {"spec_unavailable_reason", spec_unavailable_reason, METH_O, NULL},
    {NULL},
};

int tlpy_descriptors_init(PyObject *m);
int tlpy_descriptors_init(PyObject *m) {
  g_py2c = PyDict_New();
  g_c2py = PyDict_New();
  g_kept = PyList_New(0);
  g_attr_manifest = PyUnicode_InternFromString("_tl_manifest");
  g_attr_descriptor = PyUnicode_InternFromString("_tl_descriptor");
  if (!g_attr_descriptor || !g_py2c || !g_c2py || !g_kept || !g_attr_manifest) return -1;
  return PyModule_AddFunctions(m, tlpy_descriptor_methods);
}
