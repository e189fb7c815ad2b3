/* Python components <-> C descriptors, both directions driven by one field table.
 *
 * A Python component (PassPipeline, DeviceCodegen, HostCodegen, HostCodegenHook,
 * ExecutionBackendSpec: frozen dataclasses) gets one C descriptor, interned by value
 * (interning.c). The library keeps descriptors by pointer for the life of the process,
 * so an interned descriptor (and the Python callables it references) is never freed;
 * a conversion that fails frees everything it made. Callables become trampolines
 * (callbacks.c), except CFunctions, which give back their C pointers.
 *
 * The other way, a C descriptor (a built-in or plugin component) becomes an object of
 * the same class whose callables are CFunctions, interned too, so a C object has one
 * Python object.
 *
 * Each class is a row of `component_classes`: its C struct's size and, per dataclass
 * field, where the value lives in the struct. Adding a field is one entry. */

#include "tlpy.h"

#include <stddef.h>
#include <string.h>

typedef enum field_type {
  FIELD_NAME,     /* const char *: a str or None */
  FIELD_BOOL,     /* bool */
  FIELD_FUNCTION, /* a function pointer and its user_data: a callable or None */
} field_type;

typedef struct component_field {
  const char *attr; /* the dataclass field, also the keyword of its constructor */
  field_type type;
  size_t offset;      /* of the value in the C struct */
  size_t data_offset; /* FIELD_FUNCTION: of its user_data */
  tlpy_fn_kind fn_kind;         /* FIELD_FUNCTION: the CFunction kind that gives a C pointer */
  void (*trampoline)(void);     /* FIELD_FUNCTION: calls a Python callable */
  size_t shared_part;           /* FIELD_FUNCTION of a class with shared user_data: its tlpy_spec_calls part */
  /* FIELD_FUNCTION: the C function that a NULL pointer means (the Python field's
   * default is a CFunction of it, so it is always callable), or NULL. */
  void (*null_means)(void);
} component_field;

enum { MAX_COMPONENT_FIELDS = 6 };

typedef struct component_class {
  const char *name;
  PyObject **cls;    /* the Python class, installed by the package at import */
  size_t size;       /* of the C struct */
  /* The function fields share one user_data (tl_execution_backend_spec): Python
   * callables, or C functions with different data, go through a tlpy_spec_calls. */
  bool shared_user_data;
  size_t nfields;
  component_field fields[MAX_COMPONENT_FIELDS];
} component_class;

/* What a spec without is_available means: always available (upstream's default). */
static bool always_available(void *user_data) { return true; }

#define NAME_FIELD(T) {"name", FIELD_NAME, offsetof(T, name), 0, 0, NULL, 0, NULL}
#define FUNCTION_FIELD(T, attr, fn, data, kind, tramp) \
  {attr, FIELD_FUNCTION, offsetof(T, fn), offsetof(T, data), kind, (void (*)(void))(tramp), 0, NULL}
#define PREDICATE_FIELD(T) \
  FUNCTION_FIELD(T, "supports_target", supports_target, predicate_data, TLPY_FN_PREDICATE, tlpy_tramp_predicate)
#define SPEC_FUNCTION_FIELD(field, kind, tramp, null_means)                                         \
  {#field, FIELD_FUNCTION, offsetof(tl_execution_backend_spec, field),                            \
   offsetof(tl_execution_backend_spec, user_data), kind, (void (*)(void))(tramp),                  \
   offsetof(tlpy_spec_calls, field), (void (*)(void))(null_means)}
#define BOOL_FIELD(T, field) {#field, FIELD_BOOL, offsetof(T, field), 0, 0, NULL, 0, NULL}

static const component_class component_classes[TLPY_COMPONENT_COUNT] = {
    [TLPY_DEVICE_CODEGEN] = {"DeviceCodegen", &tlpy_cls.DeviceCodegen, sizeof(tl_device_codegen), false, 4,
                             {NAME_FIELD(tl_device_codegen),
                              FUNCTION_FIELD(tl_device_codegen, "build", build.fn, build.user_data,
                                             TLPY_FN_DEVICE_CODEGEN, tlpy_tramp_device_codegen),
                              FUNCTION_FIELD(tl_device_codegen, "build_without_compile", build_without_compile.fn,
                                             build_without_compile.user_data, TLPY_FN_DEVICE_CODEGEN,
                                             tlpy_tramp_device_codegen),
                              PREDICATE_FIELD(tl_device_codegen)}},
    [TLPY_HOST_CODEGEN] = {"HostCodegen", &tlpy_cls.HostCodegen, sizeof(tl_host_codegen), false, 3,
                           {NAME_FIELD(tl_host_codegen),
                            FUNCTION_FIELD(tl_host_codegen, "build", build, user_data, TLPY_FN_HOST_CODEGEN,
                                           tlpy_tramp_host_codegen),
                            PREDICATE_FIELD(tl_host_codegen)}},
    [TLPY_HOST_CODEGEN_HOOK] = {"HostCodegenHook", &tlpy_cls.HostCodegenHook, sizeof(tl_host_codegen_hook), false,
                                3,
                                {NAME_FIELD(tl_host_codegen_hook),
                                 FUNCTION_FIELD(tl_host_codegen_hook, "apply", apply, user_data, TLPY_FN_HOOK,
                                                tlpy_tramp_hook),
                                 PREDICATE_FIELD(tl_host_codegen_hook)}},
    [TLPY_EXECUTION_BACKEND_SPEC] = {"ExecutionBackendSpec", &tlpy_cls.ExecutionBackendSpec,
                                     sizeof(tl_execution_backend_spec), true, 6,
                                     {NAME_FIELD(tl_execution_backend_spec),
                                      SPEC_FUNCTION_FIELD(is_available, TLPY_FN_IS_AVAILABLE,
                                                          tlpy_tramp_spec_available, always_available),
                                      SPEC_FUNCTION_FIELD(supports_target, TLPY_FN_PREDICATE,
                                                          tlpy_tramp_spec_supports, NULL),
                                      BOOL_FIELD(tl_execution_backend_spec, enable_host_codegen),
                                      BOOL_FIELD(tl_execution_backend_spec, enable_device_compile),
                                      SPEC_FUNCTION_FIELD(unavailable_reason, TLPY_FN_UNAVAILABLE_REASON,
                                                          tlpy_tramp_spec_reason, NULL)}},
    [TLPY_PASS_PIPELINE] = {"PassPipeline", &tlpy_cls.PassPipeline, sizeof(tl_pass_pipeline), false, 2,
                            {NAME_FIELD(tl_pass_pipeline),
                             FUNCTION_FIELD(tl_pass_pipeline, "body", lower, user_data, TLPY_FN_PIPELINE,
                                            tlpy_tramp_pipeline)}},
};

/* Struct members by offset (function pointers all have one representation here). */
static void *member(const void *desc, size_t offset) { return (char *)desc + offset; }
static void (*fn_at(const void *desc, size_t offset))(void) {
  void (*fn)(void);
  memcpy(&fn, member(desc, offset), sizeof fn);
  return fn;
}
static void set_fn_at(void *desc, size_t offset, void (*fn)(void)) { memcpy(member(desc, offset), &fn, sizeof fn); }
static void *ptr_at(const void *desc, size_t offset) { return *(void **)member(desc, offset); }
static void set_ptr_at(void *desc, size_t offset, const void *p) { *(const void **)member(desc, offset) = p; }

/* ------------------------------------------------------------ Python -> C */

/* A function field while it is read: a Python callable (a strong reference) or the C
 * function and data of a CFunction; all NULL for None. */
typedef struct function_part {
  PyObject *callable;
  void (*fn)(void);
  void *data;
} function_part;

/* What a conversion in progress owns; freed together when it fails. */
typedef struct building {
  const component_class *cls;
  void *desc;
  function_part parts[MAX_COMPONENT_FIELDS];
  tlpy_spec_calls *calls;
} building;

static void building_free(building *b) {
  for (size_t i = 0; i < b->cls->nfields; i++) {
    if (b->desc && b->cls->fields[i].type == FIELD_NAME) PyMem_RawFree(ptr_at(b->desc, b->cls->fields[i].offset));
    Py_CLEAR(b->parts[i].callable);
  }
  PyMem_RawFree(b->calls);
  PyMem_RawFree(b->desc);
}

static int read_name(PyObject *o, const char *attr, PyObject *v, char **out) {
  if (v == Py_None) return 0; /* the library judges a missing name */
  if (!PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "%s.%s must be a str, not %.100s", Py_TYPE(o)->tp_name, attr, Py_TYPE(v)->tp_name);
    return -1;
  }
  Py_ssize_t n;
  const char *u = PyUnicode_AsUTF8AndSize(v, &n);
  if (!u) return -1;
  if (!(*out = PyMem_RawMalloc((size_t)n + 1))) {
    PyErr_NoMemory();
    return -1;
  }
  memcpy(*out, u, (size_t)n + 1);
  return 0;
}

static int read_function(PyObject *o, const component_field *f, PyObject *v, function_part *part) {
  if (v == Py_None) return 0;
  if (tlpy_cfunc_is(v, f->fn_kind, &part->fn, &part->data)) {
    if (f->null_means && part->fn == f->null_means) part->fn = NULL; /* the library's own default */
    return 0;
  }
  if (!PyCallable_Check(v)) {
    PyErr_Format(PyExc_TypeError, "%s.%s must be callable or None, not %.100s", Py_TYPE(o)->tp_name, f->attr,
                 Py_TYPE(v)->tp_name);
    return -1;
  }
  part->callable = Py_NewRef(v);
  return 0;
}

static int read_field(PyObject *o, const component_field *f, building *b, function_part *part) {
  PyObject *v = PyObject_GetAttrString(o, f->attr);
  if (!v) return -1;
  int rc = 0;
  if (f->type == FIELD_NAME) {
    char *name = NULL;
    rc = read_name(o, f->attr, v, &name);
    set_ptr_at(b->desc, f->offset, name);
  } else if (f->type == FIELD_BOOL) {
    int truth = PyObject_IsTrue(v);
    if (truth < 0) rc = -1;
    else *(bool *)member(b->desc, f->offset) = truth;
  } else {
    rc = read_function(o, f, v, part);
  }
  Py_DECREF(v);
  return rc;
}

/* Fills the function pointers: a part's C function as it is, a Python callable
 * through the field's trampoline with the callable as user_data. */
static void place_functions(building *b) {
  for (size_t i = 0; i < b->cls->nfields; i++) {
    const component_field *f = &b->cls->fields[i];
    if (f->type != FIELD_FUNCTION) continue;
    const function_part *p = &b->parts[i];
    set_fn_at(b->desc, f->offset, p->callable ? f->trampoline : p->fn);
    set_ptr_at(b->desc, f->data_offset, p->callable ? (void *)p->callable : p->data);
  }
}

/* The same for functions sharing one user_data: the C functions as they are when they
 * agree on it (a wrapped C spec keeps its pointers), else every present part through
 * its trampoline and one tlpy_spec_calls. */
static int place_shared_functions(building *b) {
  bool any_callable = false, data_agree = true;
  void *shared = NULL;
  for (size_t i = 0; i < b->cls->nfields; i++) {
    const function_part *p = &b->parts[i];
    if (b->cls->fields[i].type != FIELD_FUNCTION) continue;
    if (p->callable) any_callable = true;
    if (!p->fn) continue;
    if (shared && p->data != shared) data_agree = false;
    shared = p->data;
  }
  if (!any_callable && data_agree) {
    place_functions(b);
    return 0;
  }
  if (!(b->calls = PyMem_RawCalloc(1, sizeof *b->calls))) {
    PyErr_NoMemory();
    return -1;
  }
  for (size_t i = 0; i < b->cls->nfields; i++) {
    const component_field *f = &b->cls->fields[i];
    function_part *p = &b->parts[i];
    if (f->type != FIELD_FUNCTION) continue;
    tlpy_spec_part *slot = member(b->calls, f->shared_part);
    slot->callable = p->callable;
    slot->fn = p->fn;
    slot->data = p->data;
    set_fn_at(b->desc, f->offset, p->callable || p->fn ? f->trampoline : NULL);
    set_ptr_at(b->desc, f->data_offset, b->calls); /* the one user_data, for each function */
  }
  return 0;
}

static int is_instance(PyObject *o, PyObject *cls, const char *what) {
  if (!cls) {
    PyErr_SetString(PyExc_RuntimeError, "tilelang_backend._C: the Python classes are not installed");
    return -1;
  }
  int r = PyObject_IsInstance(o, cls);
  if (r == 0) PyErr_Format(PyExc_TypeError, "expected a %s, not %.100s", what, Py_TYPE(o)->tp_name);
  return r == 1 ? 0 : -1;
}

int tlpy_component_to_c(tlpy_component which, PyObject *o, const void **out) {
  const component_class *cls = &component_classes[which];
  *out = NULL;
  if (o == Py_None) return 0;
  void *found;
  if (is_instance(o, *cls->cls, cls->name) < 0 || tlpy_interned_desc(o, &found) < 0) return -1;
  if (found) {
    *out = found;
    return 0;
  }
  building b = {.cls = cls};
  if (!(b.desc = PyMem_RawCalloc(1, cls->size))) {
    PyErr_NoMemory();
    return -1;
  }
  for (size_t i = 0; i < cls->nfields; i++)
    if (read_field(o, &cls->fields[i], &b, &b.parts[i]) < 0) goto fail;
  if (cls->shared_user_data) {
    if (place_shared_functions(&b) < 0) goto fail;
  } else {
    place_functions(&b);
  }
  if (tlpy_intern(o, b.desc) < 0) goto fail;
  *out = b.desc; /* the descriptor now owns the callables (for the life of the process) */
  return 0;
fail:
  building_free(&b);
  return -1;
}

/* ------------------------------------------------------------ C -> Python */

static PyObject *field_value(const component_field *f, const void *desc) {
  const char *name = ptr_at(desc, offsetof(tl_pass_pipeline, name)); /* every descriptor starts with its name */
  switch (f->type) {
  case FIELD_NAME: {
    const char *s = ptr_at(desc, f->offset);
    return s ? PyUnicode_FromString(s) : Py_NewRef(Py_None);
  }
  case FIELD_BOOL: return PyBool_FromLong(*(const bool *)member(desc, f->offset));
  case FIELD_FUNCTION: {
    void (*fn)(void) = fn_at(desc, f->offset);
    if (!fn && f->null_means) return tlpy_cfunc_get(f->fn_kind, f->null_means, NULL, "always_available");
    return tlpy_cfunc_get(f->fn_kind, fn, ptr_at(desc, f->data_offset), name);
  }
  }
  return NULL;
}

/* cls(**fields of desc). */
static PyObject *construct(const component_class *cls, const void *desc) {
  PyObject *kwargs = PyDict_New();
  if (!kwargs) return NULL;
  for (size_t i = 0; i < cls->nfields; i++) {
    PyObject *v = field_value(&cls->fields[i], desc);
    int rc = v ? PyDict_SetItemString(kwargs, cls->fields[i].attr, v) : -1;
    Py_XDECREF(v);
    if (rc < 0) {
      Py_DECREF(kwargs);
      return NULL;
    }
  }
  PyObject *args = PyTuple_New(0);
  PyObject *made = args ? PyObject_Call(*cls->cls, args, kwargs) : NULL;
  Py_XDECREF(args);
  Py_DECREF(kwargs);
  return made;
}

PyObject *tlpy_component_to_py(tlpy_component which, const void *desc) {
  if (!desc) Py_RETURN_NONE;
  PyObject *known = tlpy_py_of(desc);
  if (known || PyErr_Occurred()) return known;
  PyObject *made = construct(&component_classes[which], desc);
  if (!made) return NULL;
  int rc = tlpy_intern(made, desc);
  Py_DECREF(made);
  return rc < 0 ? NULL : tlpy_py_of(desc); /* the first one interned, if threads raced */
}

PyObject *tlpy_always_available(void) {
  return tlpy_cfunc_get(TLPY_FN_IS_AVAILABLE, (void (*)(void))always_available, NULL, "always_available");
}
