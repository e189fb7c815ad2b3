/* BackendModule objects <-> C manifests (tl_backend_module), both directions driven
 * by one field table.
 *
 * A BackendModule's manifest is built by its __post_init__ and validated by the
 * library (tl_backend_module_validate). Its strings and arrays belong to a holder,
 * freed with the object (or at once when building fails) unless the module was
 * registered, after which it lives for the life of the process. Its components are
 * interned descriptors (components.c), which always do.
 *
 * The other way, a registered C manifest becomes a BackendModule object wrapping it
 * (no copy), the same object each time. */

#include "tlpy.h"

#include <stddef.h>
#include <string.h>

static PyObject *g_kept;          /* registered manifests' capsules: kept for the life of the process */
static PyObject *g_attr_manifest; /* "_tl_manifest" */
/* The C manifest a BackendModule being built on this thread wraps (thread-local: the
 * interpreter may switch threads between setting it and __post_init__ reading it). */
static _Thread_local const tl_backend_module *g_wrapping;

#define OWNED_CAPSULE "tilelang_backend.manifest"    /* a manifest_holder */
#define WRAPPED_CAPSULE "tilelang_backend.cmanifest" /* a registered C manifest */

typedef enum manifest_field_type {
  MANIFEST_NAME,      /* const char * */
  MANIFEST_KINDS,     /* NULL-terminated const char *const * (a tuple of str) */
  MANIFEST_SPECS,     /* NULL-terminated execution backend specs (a tuple) */
  MANIFEST_PREDICATE, /* supports_target and predicate_data */
  MANIFEST_MAPPING,   /* a {NULL}-terminated entry array (a mapping) */
} manifest_field_type;

/* What a mapping's values are. */
typedef enum entry_value {
  ENTRY_COMPONENT, /* a component descriptor */
  ENTRY_HOOKS,     /* a NULL-terminated array of hook descriptors (a tuple) */
  ENTRY_CALLBACK,  /* a packed function and its user_data */
} entry_value;

typedef struct manifest_field {
  const char *attr;
  manifest_field_type type;
  size_t member; /* of the value in tl_backend_module */
  /* MANIFEST_MAPPING: */
  const char *key_what; /* names a bad key in errors */
  size_t entry_size;    /* the key is an entry's first member */
  size_t value_offset;
  entry_value value;
  tlpy_component component; /* ENTRY_COMPONENT, ENTRY_HOOKS */
  size_t data_offset;       /* ENTRY_CALLBACK */
} manifest_field;

#define MAPPING(field, what, T, value_member, kind, comp, data) \
  {#field, MANIFEST_MAPPING, offsetof(tl_backend_module, field), what, sizeof(T), offsetof(T, value_member), kind, comp, data}

/* In the order of the dataclass (the first bad field is the one reported). */
static const manifest_field manifest_fields[] = {
    {.attr = "name", .type = MANIFEST_NAME, .member = offsetof(tl_backend_module, name)},
    {.attr = "target_kinds", .type = MANIFEST_KINDS, .member = offsetof(tl_backend_module, target_kinds)},
    MAPPING(pipelines, "a pipelines key", tl_pipeline_entry, pipeline, ENTRY_COMPONENT, TLPY_PASS_PIPELINE, 0),
    MAPPING(device_codegens, "a device_codegens key", tl_device_codegen_entry, codegen, ENTRY_COMPONENT,
            TLPY_DEVICE_CODEGEN, 0),
    {.attr = "execution_backends", .type = MANIFEST_SPECS, .member = offsetof(tl_backend_module, execution_backends)},
    {.attr = "supports_target", .type = MANIFEST_PREDICATE}, /* supports_target and predicate_data */
    MAPPING(host_codegens, "a host_codegens key", tl_host_codegen_entry, codegen, ENTRY_COMPONENT,
            TLPY_HOST_CODEGEN, 0),
    MAPPING(host_codegen_hooks, "a host_codegen_hooks key", tl_host_codegen_hooks_entry, hooks, ENTRY_HOOKS,
            TLPY_HOST_CODEGEN_HOOK, 0),
    MAPPING(callbacks, "a callback name", tl_callback_entry, fn, ENTRY_CALLBACK, 0,
            offsetof(tl_callback_entry, user_data)),
};
enum { MANIFEST_FIELD_COUNT = sizeof manifest_fields / sizeof *manifest_fields };

static void *member(const void *p, size_t offset) { return (char *)p + offset; }
static const void *ptr_at(const void *p, size_t offset) { return *(const void *const *)member(p, offset); }
static void set_ptr_at(void *p, size_t offset, const void *v) { *(const void **)member(p, offset) = v; }

/* ------------------------------------------------------------- the holder */

typedef struct manifest_holder {
  tl_backend_module m;
  PyObject *refs; /* Python objects the manifest points into (predicate, callbacks) */
  void **allocs;
  size_t nallocs, cap;
} manifest_holder;

/* Zeroed memory owned by the holder; NULL with MemoryError. */
static void *holder_alloc(manifest_holder *h, size_t size) {
  if (h->nallocs == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 16;
    void **a = PyMem_RawRealloc(h->allocs, cap * sizeof *a);
    if (!a) return PyErr_NoMemory(), NULL;
    h->allocs = a;
    h->cap = cap;
  }
  void *p = PyMem_RawCalloc(1, size ? size : 1);
  if (!p) return PyErr_NoMemory(), NULL;
  h->allocs[h->nallocs++] = p;
  return p;
}

/* A NULL-terminated array of n pointer-sized (or entry_size) slots. */
static void *holder_array(manifest_holder *h, Py_ssize_t n, size_t entry_size) {
  return holder_alloc(h, ((size_t)n + 1) * entry_size);
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
  if (d) memcpy(d, u, (size_t)n + 1);
  return d;
}

static void holder_free(manifest_holder *h) {
  for (size_t i = 0; i < h->nallocs; i++) PyMem_RawFree(h->allocs[i]);
  PyMem_RawFree(h->allocs);
  Py_XDECREF(h->refs);
  PyMem_RawFree(h);
}

static void holder_capsule_free(PyObject *cap) {
  manifest_holder *h = PyCapsule_GetPointer(cap, OWNED_CAPSULE);
  if (h) holder_free(h);
}

/* --------------------------------------------------- BackendModule -> C */

static int read_kinds(manifest_holder *h, const manifest_field *f, PyObject *v) {
  if (PyUnicode_Check(v)) {
    PyErr_SetString(PyExc_TypeError, "BackendModule.target_kinds must be a tuple of str, not a str");
    return -1;
  }
  PyObject *seq = PySequence_Fast(v, "BackendModule.target_kinds must be a tuple of str");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **kinds = holder_array(h, n, sizeof *kinds);
  int rc = kinds ? 0 : -1;
  for (Py_ssize_t i = 0; rc == 0 && i < n; i++)
    if (!(kinds[i] = holder_str(h, PySequence_Fast_GET_ITEM(seq, i), "a target kind"))) rc = -1;
  Py_DECREF(seq);
  if (rc == 0) set_ptr_at(&h->m, f->member, kinds);
  return rc;
}

/* A tuple of components (no None) as a NULL-terminated descriptor array. */
static const void **read_components(manifest_holder *h, PyObject *v, tlpy_component which, const char *not_seq,
                                    const char *has_none) {
  PyObject *seq = PySequence_Fast(v, not_seq);
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const void **arr = holder_array(h, n, sizeof *arr);
  for (Py_ssize_t i = 0; arr && i < n; i++) {
    PyObject *c = PySequence_Fast_GET_ITEM(seq, i);
    if (c == Py_None) {
      PyErr_SetString(PyExc_TypeError, has_none);
      arr = NULL;
    } else if (tlpy_component_to_c(which, c, &arr[i]) < 0) {
      arr = NULL;
    }
  }
  Py_DECREF(seq);
  return arr;
}

static int read_predicate(manifest_holder *h, PyObject *v) {
  h->m.supports_target = NULL;
  h->m.predicate_data = NULL;
  if (v == Py_None) return 0;
  void (*fn)(void) = NULL;
  if (tlpy_cfunc_is(v, TLPY_FN_PREDICATE, &fn, &h->m.predicate_data)) {
    h->m.supports_target = (tl_target_predicate)fn;
    return 0;
  }
  if (!PyCallable_Check(v)) {
    PyErr_Format(PyExc_TypeError, "supports_target must be callable or None, not %.100s", Py_TYPE(v)->tp_name);
    return -1;
  }
  if (PyList_Append(h->refs, v) < 0) return -1;
  h->m.supports_target = tlpy_tramp_predicate;
  h->m.predicate_data = v;
  return 0;
}

/* One mapping value into its entry. */
static int read_entry_value(manifest_holder *h, const manifest_field *f, PyObject *v, void *entry) {
  void *slot = member(entry, f->value_offset);
  switch (f->value) {
  case ENTRY_COMPONENT: return tlpy_component_to_c(f->component, v, (const void **)slot);
  case ENTRY_HOOKS: {
    const void **hooks = read_components(h, v, f->component, "host codegen hooks must be a tuple of HostCodegenHook",
                                         "host codegen hook lists must not contain None");
    *(const void **)slot = hooks;
    return hooks ? 0 : -1;
  }
  case ENTRY_CALLBACK: {
    void (*fn)(void) = NULL;
    void **data = member(entry, f->data_offset);
    if (v == Py_None) return 0; /* the library refuses a callback without a function */
    if (!tlpy_cfunc_is(v, TLPY_FN_PACKED, &fn, data)) {
      if (!PyCallable_Check(v)) {
        PyErr_Format(PyExc_TypeError, "callback '%s' must be callable, not %.100s", *(const char **)entry,
                     Py_TYPE(v)->tp_name);
        return -1;
      }
      if (PyList_Append(h->refs, v) < 0) return -1;
      fn = (void (*)(void))tlpy_tramp_packed;
      *data = v;
    }
    memcpy(slot, &fn, sizeof fn);
    return 0;
  }
  }
  return -1;
}

static int read_mapping(manifest_holder *h, const manifest_field *f, PyObject *v) {
  if (!PyMapping_Check(v) || PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "BackendModule.%s must be a mapping, not %.100s", f->attr, Py_TYPE(v)->tp_name);
    return -1;
  }
  PyObject *items = PyMapping_Items(v);
  if (!items) return -1;
  Py_ssize_t n = PyList_GET_SIZE(items);
  char *entries = holder_array(h, n, f->entry_size);
  int rc = entries ? 0 : -1;
  for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
    PyObject *kv = PyList_GET_ITEM(items, i);
    void *entry = entries + (size_t)i * f->entry_size;
    const char *key = holder_str(h, PyTuple_GET_ITEM(kv, 0), f->key_what);
    set_ptr_at(entry, 0, key);
    if (!key || read_entry_value(h, f, PyTuple_GET_ITEM(kv, 1), entry) < 0) rc = -1;
  }
  Py_DECREF(items);
  if (rc == 0) set_ptr_at(&h->m, f->member, entries);
  return rc;
}

static int read_manifest_field(manifest_holder *h, PyObject *bm, const manifest_field *f) {
  PyObject *v = PyObject_GetAttrString(bm, f->attr);
  if (!v) return -1;
  int rc = 0;
  if (f->type == MANIFEST_PREDICATE) {
    rc = read_predicate(h, v);
  } else if (v != Py_None) {
    switch (f->type) {
    case MANIFEST_NAME: {
      const char *name = holder_str(h, v, "BackendModule.name");
      set_ptr_at(&h->m, f->member, name);
      rc = name ? 0 : -1;
      break;
    }
    case MANIFEST_KINDS: rc = read_kinds(h, f, v); break;
    case MANIFEST_SPECS: {
      const void **specs = read_components(h, v, TLPY_EXECUTION_BACKEND_SPEC,
                                           "BackendModule.execution_backends must be a tuple",
                                           "BackendModule.execution_backends must not contain None");
      set_ptr_at(&h->m, f->member, specs);
      rc = specs ? 0 : -1;
      break;
    }
    case MANIFEST_MAPPING: rc = read_mapping(h, f, v); break;
    case MANIFEST_PREDICATE: break;
    }
  }
  Py_DECREF(v);
  return rc;
}

/* The validated manifest of a BackendModule's fields, or NULL (everything freed). */
static manifest_holder *build_manifest(PyObject *bm) {
  manifest_holder *h = PyMem_RawCalloc(1, sizeof *h);
  if (!h) return PyErr_NoMemory(), NULL;
  h->m.struct_size = sizeof h->m;
  if (!(h->refs = PyList_New(0))) goto fail;
  for (size_t i = 0; i < MANIFEST_FIELD_COUNT; i++)
    if (read_manifest_field(h, bm, &manifest_fields[i]) < 0) goto fail;
  tl_status s = tl_backend_module_validate(&h->m);
  if (s != TL_OK) {
    tlpy_raise(s);
    goto fail;
  }
  return h;
fail:
  holder_free(h);
  return NULL;
}

/* _C.backend_module_init(bm): BackendModule.__post_init__ (the library validates). */
static PyObject *backend_module_init(PyObject *self, PyObject *bm) {
  /* A wrapper of a registered C manifest points at it; a module declared in Python
   * owns the manifest built from its fields. */
  manifest_holder *h = g_wrapping ? NULL : build_manifest(bm);
  if (!g_wrapping && !h) return NULL;
  PyObject *cap = h ? PyCapsule_New(h, OWNED_CAPSULE, holder_capsule_free)
                    : PyCapsule_New((void *)g_wrapping, WRAPPED_CAPSULE, NULL);
  if (!cap) {
    if (h) holder_free(h);
    return NULL;
  }
  int rc = PyObject_GenericSetAttr(bm, g_attr_manifest, cap);
  Py_DECREF(cap); /* if the attribute did not take it, this frees the holder */
  if (rc < 0) return NULL;
  Py_RETURN_NONE;
}

const tl_backend_module *tlpy_manifest_of(PyObject *bm) {
  if (!tlpy_cls.BackendModule) {
    PyErr_SetString(PyExc_RuntimeError, "tilelang_backend._C: the Python classes are not installed");
    return NULL;
  }
  int is = PyObject_IsInstance(bm, tlpy_cls.BackendModule);
  if (is <= 0) {
    if (is == 0) PyErr_Format(PyExc_TypeError, "expected a BackendModule, not %.100s", Py_TYPE(bm)->tp_name);
    return NULL;
  }
  PyObject *cap = PyObject_GenericGetAttr(bm, g_attr_manifest);
  if (!cap) return NULL;
  const tl_backend_module *m = NULL;
  if (PyCapsule_IsValid(cap, OWNED_CAPSULE)) m = &((manifest_holder *)PyCapsule_GetPointer(cap, OWNED_CAPSULE))->m;
  else if (PyCapsule_IsValid(cap, WRAPPED_CAPSULE)) m = PyCapsule_GetPointer(cap, WRAPPED_CAPSULE);
  else PyErr_SetString(PyExc_TypeError, "BackendModule has no manifest (was __post_init__ skipped?)");
  Py_DECREF(cap);
  return m;
}

int tlpy_manifest_registered(PyObject *bm, const tl_backend_module *m) {
  /* The capsule (and so the manifest) lives for the life of the process first, so
   * that the map never names a manifest that could be freed. */
  PyObject *cap = PyObject_GenericGetAttr(bm, g_attr_manifest);
  if (!cap) return -1;
  int rc = PyList_Append(g_kept, cap);
  if (rc == 0 && (rc = tlpy_record_py_of(m, bm)) < 0 && PyCapsule_IsValid(cap, WRAPPED_CAPSULE)) {
    /* A wrapper of a C manifest is made again next time: it need not be kept. An owned
     * manifest the library registered must stay. */
    tlpy_saved_error saved = tlpy_save_error();
    Py_ssize_t n = PyList_GET_SIZE(g_kept);
    if (PyList_SetSlice(g_kept, n - 1, n, NULL) < 0) PyErr_Clear();
    tlpy_restore_error(saved);
  }
  Py_DECREF(cap);
  return rc;
}

/* ---------------------------------------------------- C -> BackendModule */

static PyObject *components_tuple(tlpy_component which, const void *const *arr) {
  size_t n = 0;
  while (arr && arr[n]) n++;
  PyObject *t = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; t && i < n; i++) {
    PyObject *c = tlpy_component_to_py(which, arr[i]);
    if (!c) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, (Py_ssize_t)i, c);
  }
  return t;
}

static PyObject *entry_value_py(const manifest_field *f, const void *entry) {
  const void *slot = member(entry, f->value_offset);
  switch (f->value) {
  case ENTRY_COMPONENT: return tlpy_component_to_py(f->component, *(const void *const *)slot);
  case ENTRY_HOOKS: return components_tuple(f->component, *(const void *const *const *)slot);
  case ENTRY_CALLBACK: {
    void (*fn)(void);
    memcpy(&fn, slot, sizeof fn);
    return tlpy_cfunc_get(TLPY_FN_PACKED, fn, (void *)ptr_at(entry, f->data_offset), *(const char *const *)entry);
  }
  }
  return NULL;
}

/* A dict key -> value of a {NULL}-terminated entry array (empty for NULL). */
static PyObject *mapping_py(const manifest_field *f, const char *entries) {
  PyObject *dict = PyDict_New();
  for (const char *e = entries; dict && e && ptr_at(e, 0); e += f->entry_size) {
    PyObject *v = entry_value_py(f, e);
    if (!v || PyDict_SetItemString(dict, ptr_at(e, 0), v) < 0) Py_CLEAR(dict);
    Py_XDECREF(v);
  }
  return dict;
}

static PyObject *manifest_field_py(const tl_backend_module *m, const manifest_field *f) {
  const void *v = f->type == MANIFEST_PREDICATE ? NULL : ptr_at(m, f->member);
  switch (f->type) {
  case MANIFEST_NAME: return v ? PyUnicode_FromString(v) : Py_NewRef(Py_None);
  case MANIFEST_KINDS: {
    size_t n = 0;
    while (v && ((const char *const *)v)[n]) n++;
    return tlpy_str_tuple(v, n);
  }
  case MANIFEST_SPECS: return components_tuple(TLPY_EXECUTION_BACKEND_SPEC, v);
  case MANIFEST_PREDICATE:
    return tlpy_cfunc_get(TLPY_FN_PREDICATE, (void (*)(void))m->supports_target, m->predicate_data, m->name);
  case MANIFEST_MAPPING: return mapping_py(f, v);
  }
  return NULL;
}

PyObject *tlpy_manifest_find(const tl_backend_module *m) { return tlpy_py_of(m); }

PyObject *tlpy_manifest_py(const tl_backend_module *m) {
  PyObject *known = tlpy_py_of(m);
  if (known || PyErr_Occurred()) return known;
  PyObject *kwargs = PyDict_New();
  for (size_t i = 0; kwargs && i < MANIFEST_FIELD_COUNT; i++) {
    PyObject *v = manifest_field_py(m, &manifest_fields[i]);
    if (!v || PyDict_SetItemString(kwargs, manifest_fields[i].attr, v) < 0) Py_CLEAR(kwargs);
    Py_XDECREF(v);
  }
  PyObject *args = kwargs ? PyTuple_New(0) : NULL;
  g_wrapping = m;
  PyObject *bm = args ? PyObject_Call(tlpy_cls.BackendModule, args, kwargs) : NULL;
  g_wrapping = NULL;
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  if (!bm) return NULL;
  PyObject *raced = tlpy_py_of(m); /* another thread wrapped it meanwhile: one object per manifest */
  if (raced || PyErr_Occurred()) {
    Py_DECREF(bm);
    return raced;
  }
  if (tlpy_manifest_registered(bm, m) < 0) Py_CLEAR(bm);
  return bm;
}

PyMethodDef tlpy_manifest_methods[] = {
    {"backend_module_init", backend_module_init, METH_O, "BackendModule.__post_init__: validate with the library."},
    {NULL},
};

int tlpy_manifests_init(PyObject *m) {
  g_kept = PyList_New(0);
  g_attr_manifest = PyUnicode_InternFromString("_tl_manifest");
  if (!g_kept || !g_attr_manifest) return -1;
  return PyModule_AddFunctions(m, tlpy_manifest_methods);
}
