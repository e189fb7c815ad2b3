/* tlpy.h - the tilelang_backend._C extension: declarations shared by its files.
 *
 * The extension is written over the library's public C API only (tilelang/tilelang.h).
 * Python objects cross into C as descriptors whose function pointers are trampolines
 * (callbacks.c); C objects cross into Python as wrappers (target.c, ir.c, cfunc.c).
 * Every rule is the library's: the extension converts values and reports errors. */
#ifndef TLPY_H
#define TLPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tilelang/tilelang.h"

/* ------------------------------------------------------------------ errors.c */

/* The exception class raised for every C failure (a subclass of ValueError, as
 * upstream raises ValueError): tilelang_backend.TileLangError, with .status. */
extern PyObject *tlpy_Error;
int tlpy_errors_init(PyObject *m);
/* Raises the C library's error for status `s` (the calling thread's message) and
 * returns NULL. If a Python callback raised during the failed call, that exception is
 * raised instead, unchanged (the library's message added as a note). Call with the
 * GIL held, right after the failing C call. */
PyObject *tlpy_raise(tl_status s);
/* The same, returning -1 (for int-returning helpers). */
int tlpy_raise_int(tl_status s);
/* After a successful C call: if a predicate or availability callback raised during
 * it (those cannot report a status), re-raise that exception and return -1. */
int tlpy_check_pending(void);
/* Drops any pending callback exception (before starting a C call). */
void tlpy_clear_pending(void);
/* Inside a trampoline, with the GIL held and a Python exception set: records it as
 * the calling thread's C error (status from the exception type) and returns the
 * status; the exception is kept for tlpy_raise to chain. */
tl_status tlpy_error_from_python(const char *context);
/* For callbacks that return bool (predicates, availability): records the exception to
 * be re-raised when control returns to Python. */
void tlpy_defer_exception(void);

/* ------------------------------------------------------------------ target.c */

typedef struct {
  PyObject_HEAD
  tl_target *target; /* owned reference */
  PyObject *attrs;   /* cached dict, or NULL */
} tlpy_TargetObject;
extern PyTypeObject tlpy_TargetType;
int tlpy_target_init(PyObject *m);
/* A new Target object holding a new reference to t (NULL: None). */
PyObject *tlpy_target_wrap(const tl_target *t);
/* Converts a Target, str or dict to a new tl_target reference (tl_target_parse). */
int tlpy_target_from_py(PyObject *o, tl_target **out);
/* Borrowed target of a Target object, or after conversion: *tmp holds a reference
 * the caller releases (NULL when `o` was a Target). */
const tl_target *tlpy_target_arg(PyObject *o, tl_target **tmp);
/* A target spec string for the C entry points taking strings: None -> NULL (when
 * allow_none), str as is, dict -> JSON, Target -> its JSON text. *keep owns the
 * storage (decref it). */
int tlpy_target_spec(PyObject *o, int allow_none, const char **out, PyObject **keep);

/* --------------------------------------------------------- target_detection.c */

/* register_target_detector/normalizer, auto_detect_target, list_target_detectors. */
int tlpy_target_detection_init(PyObject *m);

/* ---------------------------------------------------------------------- ir.c */

typedef struct {
  PyObject_HEAD
  tl_ir_module *mod; /* NULL once a borrowed module is invalidated */
  int owned;         /* freed with the object */
} tlpy_IRModuleObject;
extern PyTypeObject tlpy_IRModuleType;
typedef struct {
  PyObject_HEAD
  tl_artifact *artifact;
} tlpy_ArtifactObject;
extern PyTypeObject tlpy_ArtifactType;
int tlpy_ir_init(PyObject *m);
/* A borrowed view of mod for the duration of a callback; tlpy_ir_invalidate it after. */
PyObject *tlpy_ir_borrow(tl_ir_module *mod);
void tlpy_ir_invalidate(PyObject *view);
/* A new IRModule object owning mod. */
PyObject *tlpy_ir_own(tl_ir_module *mod);
/* The module of an IRModule object (TypeError / invalidated error: NULL, set). */
tl_ir_module *tlpy_ir_get(PyObject *o);
/* Parse options from a `params` mapping (None: none); the bindings array is the
 * caller's (PyMem_Free), strings are kept alive by `keep`. */
int tlpy_parse_options(PyObject *params, tl_ir_parse_options *opts, tl_ir_const_binding **bindings, PyObject *keep);
/* A new Artifact object taking over the reference `a`. */
PyObject *tlpy_artifact_take(tl_artifact *a);
/* Converts what a Python codegen returned (Artifact, or str with default_format) to
 * a new artifact reference. */
int tlpy_artifact_from_result(PyObject *o, const char *default_format, tl_artifact **out);

/* -------------------------------------------------------------------- cfunc.c */

/* The kinds of C function pointers a Python object can wrap (and trampolines fill). */
typedef enum tlpy_fn_kind {
  TLPY_FN_PREDICATE,         /* tl_target_predicate(target, data) */
  TLPY_FN_PIPELINE,          /* lower(mod, target, data) */
  TLPY_FN_DEVICE_CODEGEN,    /* tl_device_codegen_fn(mod, target, data, &out) */
  TLPY_FN_HOST_CODEGEN,      /* tl_host_codegen_fn(mod, target_host, data, &out) */
  TLPY_FN_HOOK,              /* tl_host_codegen_hook_fn(mod, host, target, data) */
  TLPY_FN_IS_AVAILABLE,      /* bool is_available(data) */
  TLPY_FN_UNAVAILABLE_REASON,/* const char *unavailable_reason(data) */
  TLPY_FN_PACKED,            /* tl_packed_fn(args, nargs, ret, data) */
  TLPY_FN_KIND_COUNT
} tlpy_fn_kind;

typedef struct {
  PyObject_HEAD
  tlpy_fn_kind kind;
  void (*fn)(void); /* the function, cast to its kind's type when called */
  void *data;
  PyObject *name;   /* str or NULL: for repr */
} tlpy_CFunctionObject;
extern PyTypeObject tlpy_CFunctionType;
int tlpy_cfunc_init(PyObject *m);
/* The one CFunction object for (kind, fn, data) (interned: equal objects for equal
 * triples), a new reference. fn NULL: None. */
PyObject *tlpy_cfunc_get(tlpy_fn_kind kind, void (*fn)(void), void *data, const char *name);
/* True if o is a CFunction of that kind (then *fn and *data are its parts). */
int tlpy_cfunc_is(PyObject *o, tlpy_fn_kind kind, void (**fn)(void), void **data);

/* ---------------------------------------------------------------- values.c */

/* tl_value <-> Python. Arguments borrowed; module arguments become borrowed views
 * collected in `views` (invalidated by the caller afterwards). */
PyObject *tlpy_value_to_py(const tl_value *v, PyObject *views);
/* A Python value as a tl_value argument (borrowed: `keep` holds what the value
 * points into; decref after the call). */
int tlpy_value_arg(PyObject *o, tl_value *out, PyObject *keep);
/* A Python result into an owned tl_value (what a packed function returns). */
int tlpy_value_ret(PyObject *o, tl_value *ret);

/* -------------------------------------------------------------- callbacks.c */

/* Trampolines: user_data is the Python callable (a strong reference the descriptor's
 * holder keeps). */
bool tlpy_tramp_predicate(const tl_target *target, void *user_data);
tl_status tlpy_tramp_pipeline(tl_ir_module *mod, const tl_target *target, void *user_data);
tl_status tlpy_tramp_device_codegen(tl_ir_module *mod, const tl_target *target, void *user_data, tl_artifact **out);
tl_status tlpy_tramp_host_codegen(tl_ir_module *mod, const tl_target *target_host, void *user_data,
                                  tl_artifact **out);
tl_status tlpy_tramp_hook(tl_ir_module *mod, const tl_target *target_host, const tl_target *target,
                          void *user_data);
tl_status tlpy_tramp_packed(const tl_value *args, int nargs, tl_value *ret, void *user_data);
/* Execution backend specs share one user_data for their three functions: when parts
 * are Python callables, or C functions with different data, a tlpy_spec_calls. */
typedef struct tlpy_spec_part {
  PyObject *callable; /* a Python callable (a strong reference the descriptor keeps), or NULL */
  void (*fn)(void);   /* else a C function (from a CFunction), called without the GIL; or NULL */
  void *data;
} tlpy_spec_part;
typedef struct tlpy_spec_calls {
  tlpy_spec_part is_available, supports_target, unavailable_reason;
} tlpy_spec_calls;
bool tlpy_tramp_spec_available(void *user_data);
bool tlpy_tramp_spec_supports(const tl_target *target, void *user_data);
const char *tlpy_tramp_spec_reason(void *user_data);

/* ---------------------------------------- components.c, interning.c, manifests.c */

/* The Python classes of the seed API (set by tilelang_backend at import). */
typedef struct tlpy_classes {
  PyObject *BackendModule, *PassPipeline, *DeviceCodegen, *HostCodegen, *HostCodegenHook, *ExecutionBackendSpec,
      *BackendContext;
} tlpy_classes;
extern tlpy_classes tlpy_cls;

/* The component classes, by the numbers the package passes (_C.DEVICE_CODEGEN, ...). */
typedef enum tlpy_component {
  TLPY_DEVICE_CODEGEN,
  TLPY_HOST_CODEGEN,
  TLPY_HOST_CODEGEN_HOOK,
  TLPY_EXECUTION_BACKEND_SPEC,
  TLPY_PASS_PIPELINE,
  TLPY_COMPONENT_COUNT
} tlpy_component;
/* A component number from Python: 0, or -1 with ValueError naming `function`. */
int tlpy_component_arg(int which, const char *function);
/* The C descriptor of a Python component of class `which` (interned by value: equal
 * components share one descriptor, which lives for the life of the process). None:
 * NULL. A failure frees everything the conversion made. */
int tlpy_component_to_c(tlpy_component which, PyObject *o, const void **out);
/* The Python object for a C descriptor of class `which`: the one interned for it, else
 * a new wrapper (C-registered components), interned. NULL desc: None. */
PyObject *tlpy_component_to_py(tlpy_component which, const void *desc);
/* The CFunction that ExecutionBackendSpec.is_available defaults to (always True; a
 * NULL is_available in C). */
PyObject *tlpy_always_available(void);

/* The maps between Python objects and C descriptors (interning.c). */
int tlpy_interning_init(void);
/* The descriptor recorded for o (*out NULL when none). */
int tlpy_interned_desc(PyObject *o, void **out);
/* Records o <-> desc in both maps (the first Python object recorded for desc stays);
 * on failure neither map changes. */
int tlpy_intern(PyObject *o, const void *desc);
/* Records desc -> o only (unless desc has an object already). */
int tlpy_record_py_of(const void *desc, PyObject *o);
/* The Python object recorded for desc (a new reference), or NULL: none (no exception)
 * or an error (exception set). */
PyObject *tlpy_py_of(const void *desc);

/* The manifest of a BackendModule object (built by its __post_init__). */
const tl_backend_module *tlpy_manifest_of(PyObject *bm);
/* The BackendModule object for a registered C manifest (the same object each time). */
PyObject *tlpy_manifest_py(const tl_backend_module *m);
/* The BackendModule object known for m (new reference), or NULL without error. */
PyObject *tlpy_manifest_find(const tl_backend_module *m);
/* Records that `bm`'s manifest was registered (kept for the life of the process). */
int tlpy_manifest_registered(PyObject *bm, const tl_backend_module *m);
int tlpy_manifests_init(PyObject *m);
/* The component methods and class numbers (_C.DEVICE_CODEGEN, ...) on the module. */
int tlpy_components_init(PyObject *m);

/* --------------------------------------------------------------- registry.c */

extern PyMethodDef tlpy_registry_methods[];

/* ---------------------------------------------------------------- context.c */

extern PyMethodDef tlpy_context_methods[];
/* The C context of a BackendContext object. */
const tl_backend_context *tlpy_context_of(PyObject *ctx);

/* ----------------------------------------------------------------- kernel.c */

extern PyMethodDef tlpy_kernel_methods[];
int tlpy_kernel_init(PyObject *m);

/* ------------------------------------------------------------------- helpers */

/* The failure convention of every function of the extension: an int result is 0 on
 * success and -1 with a Python exception set; a PyObject * result is a new reference,
 * or NULL with an exception set (a C status becomes one through tlpy_raise). A few
 * lookups (tlpy_py_of, tlpy_manifest_find) also return NULL for "none, no error"
 * and say so. */

/* The exception being raised, put aside while cleanup code runs. */
#if PY_VERSION_HEX >= 0x030C0000
typedef struct { PyObject *exc; } tlpy_saved_error;
static inline tlpy_saved_error tlpy_save_error(void) { return (tlpy_saved_error){PyErr_GetRaisedException()}; }
static inline void tlpy_restore_error(tlpy_saved_error e) { PyErr_SetRaisedException(e.exc); }
#else
typedef struct { PyObject *type, *value, *tb; } tlpy_saved_error;
static inline tlpy_saved_error tlpy_save_error(void) {
  tlpy_saved_error e;
  PyErr_Fetch(&e.type, &e.value, &e.tb);
  return e;
}
static inline void tlpy_restore_error(tlpy_saved_error e) { PyErr_Restore(e.type, e.value, e.tb); }
#endif

/* Calls a C function with the GIL released: `TLPY_NOGIL(s = tl_x(...));` */
#define TLPY_NOGIL(stmt)   \
  do {                     \
    tlpy_clear_pending();  \
    Py_BEGIN_ALLOW_THREADS \
    stmt;                  \
    Py_END_ALLOW_THREADS   \
  } while (0)

/* A str argument as UTF-8 (None -> NULL when allow_none). -1 with TypeError. */
int tlpy_str_arg(PyObject *o, const char *what, int allow_none, const char **out);
/* A tuple of str from a C string array. */
PyObject *tlpy_str_tuple(const char *const *names, size_t n);

#endif
