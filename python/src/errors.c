/* Errors in both directions: a C failure becomes tilelang_backend.TileLangError (a
 * ValueError, as upstream raises ValueError) carrying the library's message and status
 * name; a Python exception raised in a callback becomes the calling thread's C error
 * (tl_set_error) and is kept, so that when the failure returns to Python that
 * exception is what is raised, unchanged, with the library's message as a note. */

#include "tlpy.h"

#include <string.h>

PyObject *tlpy_Error;

/* Pending callback exception of this thread (a strong reference), and whether it came
 * from a callback that could not report it through a status (a predicate). */
static _Thread_local PyObject *t_pending;
static _Thread_local int t_pending_deferred;

void tlpy_clear_pending(void) {
  if (t_pending) {
    PyObject *p = t_pending;
    t_pending = NULL;
    t_pending_deferred = 0;
    Py_DECREF(p);
  }
}

/* The raised exception (normalized, with its traceback attached), taken out of the
 * error indicator; NULL if none. */
static PyObject *fetch_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (!type) return NULL;
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb && value) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return value;
#endif
}

static void keep_pending(PyObject *exc, int deferred) {
  if (t_pending && t_pending_deferred && !deferred) {
    /* A predicate's exception came first: it is what upstream would have raised. */
    Py_DECREF(exc);
    return;
  }
  PyObject *old = t_pending;
  t_pending = exc;
  t_pending_deferred = deferred;
  Py_XDECREF(old);
}

static PyObject *make_error(tl_status s, const char *message) {
  PyObject *cls = s == TL_ENOMEM ? PyExc_MemoryError : tlpy_Error;
  PyObject *exc = PyObject_CallFunction(cls, "s", message);
  if (!exc) return NULL;
  if (cls == tlpy_Error) {
    PyObject *name = PyUnicode_FromString(tl_status_name(s));
    if (!name || PyObject_SetAttrString(exc, "status", name) < 0) {
      Py_XDECREF(name);
      Py_DECREF(exc);
      return NULL;
    }
    Py_DECREF(name);
  }
  return exc;
}

/* Raises `exc` (a reference taken) with its own traceback. */
static void raise_exception(PyObject *exc) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(exc);
#else
  PyObject *tb = PyException_GetTraceback(exc);
  PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc, tb);
#endif
}

/* exc.add_note("tilelang-backend: <the library's message>") when that says more
 * than the exception itself (its context: "while importing ..."); a failure to add
 * it is not an error. */
static void add_library_note(PyObject *exc, PyObject *library_error) {
  PyObject *message = PyObject_Str(library_error), *own = message ? PyObject_Str(exc) : NULL;
  PyObject *typed = own ? PyUnicode_FromFormat("%s: %U", Py_TYPE(exc)->tp_name, own) : NULL;
  int same = !typed || PyUnicode_Compare(message, own) == 0 || PyUnicode_Compare(message, typed) == 0;
  PyObject *note = !same ? PyUnicode_FromFormat("tilelang-backend: %U", message) : NULL;
  Py_XDECREF(typed);
  PyObject *r = note ? PyObject_CallMethod(exc, "add_note", "O", note) : NULL;
  if (!r) PyErr_Clear();
  Py_XDECREF(r);
  Py_XDECREF(note);
  Py_XDECREF(own);
  Py_XDECREF(message);
}

PyObject *tlpy_raise(tl_status s) {
  /* Copy the message first: nothing below may run C calls, but be safe. */
  const char *msg = tl_last_error();
  size_t n = strlen(msg);
  char *copy = PyMem_Malloc(n + 1);
  if (!copy) return PyErr_NoMemory();
  memcpy(copy, msg, n + 1);
  if (!*copy) {
    PyMem_Free(copy);
    copy = NULL;
  }
  PyObject *exc = make_error(s, copy ? copy : tl_status_message(s));
  PyMem_Free(copy);
  if (!exc) {
    tlpy_clear_pending();
    return NULL;
  }
  if (t_pending && t_pending_deferred) {
    /* A predicate or availability check raised: upstream would have propagated that
     * exception, so it is what Python sees (the library's failure followed from it). */
    Py_DECREF(exc);
    return tlpy_check_pending(), NULL;
  }
  if (t_pending) {
    /* A Python callback's exception reaches the caller unchanged (type, message,
     * traceback), as upstream's Python components' exceptions do; the library's
     * message, which says where it happened, becomes a note. */
    PyObject *raised = t_pending;
    t_pending = NULL;
    t_pending_deferred = 0;
    add_library_note(raised, exc);
    Py_DECREF(exc);
    raise_exception(raised);
    return NULL;
  }
  PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
  Py_DECREF(exc);
  return NULL;
}

int tlpy_raise_int(tl_status s) {
  tlpy_raise(s);
  return -1;
}

int tlpy_check_pending(void) {
  if (!t_pending) return 0;
  if (!t_pending_deferred) {
    tlpy_clear_pending(); /* reported through a status the library chose to ignore */
    return 0;
  }
  PyObject *exc = t_pending;
  t_pending = NULL;
  t_pending_deferred = 0;
  PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
  Py_DECREF(exc);
  return -1;
}

/* The status a Python exception maps to. */
static tl_status status_of(PyObject *exc) {
  if (PyErr_GivenExceptionMatches(exc, tlpy_Error)) {
    /* A library error passing back through Python keeps its status. */
    PyObject *st = PyObject_GetAttrString(exc, "status");
    tl_status s = TL_EINVAL;
    if (st && PyUnicode_Check(st)) {
      const char *name = PyUnicode_AsUTF8(st);
      for (int i = TL_EINVAL; name && i <= TL_EINTERNAL; i++)
        if (strcmp(name, tl_status_name((tl_status)i)) == 0) s = (tl_status)i;
    }
    Py_XDECREF(st);
    PyErr_Clear();
    return s;
  }
  if (PyErr_GivenExceptionMatches(exc, PyExc_MemoryError)) return TL_ENOMEM;
  if (PyErr_GivenExceptionMatches(exc, PyExc_NotImplementedError)) return TL_EUNSUPPORTED;
  if (PyErr_GivenExceptionMatches(exc, PyExc_LookupError)) return TL_ENOTFOUND;
  if (PyErr_GivenExceptionMatches(exc, PyExc_OSError)) return TL_EIO;
  return TL_EINVAL;
}

tl_status tlpy_error_from_python(const char *context) {
  PyObject *exc = fetch_exception();
  if (!exc) return tl_set_error(TL_EINTERNAL, "a Python callback failed without an exception");
  tl_status s = status_of(exc);
  /* The message: str(exc); other types than ValueError say what they are. */
  PyObject *text = PyObject_Str(exc);
  if (!text) PyErr_Clear();
  const char *msg = text ? PyUnicode_AsUTF8(text) : NULL;
  if (!msg) PyErr_Clear();
  int plain = PyErr_GivenExceptionMatches(exc, PyExc_ValueError) && msg && *msg;
  PyObject *full = NULL;
  if (plain && !context) {
    tl_set_error(s, msg);
  } else {
    full = PyUnicode_FromFormat("%s%s%s%s%s", context ? context : "", context ? ": " : "",
                                plain ? "" : Py_TYPE(exc)->tp_name, plain || !msg || !*msg ? "" : ": ",
                                msg ? msg : "");
    const char *f = full ? PyUnicode_AsUTF8(full) : NULL;
    if (!f) PyErr_Clear();
    tl_set_error(s, f ? f : Py_TYPE(exc)->tp_name);
  }
  Py_XDECREF(full);
  Py_XDECREF(text);
  keep_pending(exc, 0);
  return s;
}

void tlpy_defer_exception(void) {
  PyObject *exc = fetch_exception();
  if (exc) keep_pending(exc, 1);
}

int tlpy_errors_init(PyObject *m) {
  const char *doc =
      "An error reported by the tilelang-backend C library: the library's message (upstream TileLang's\n"
      "wording) and `.status`, the C status name (TL_EINVAL, TL_ENOTFOUND, ...). A subclass of ValueError,\n"
      "which upstream raises for all of these.";
  tlpy_Error = PyErr_NewExceptionWithDoc("tilelang_backend._C.TileLangError", doc, PyExc_ValueError, NULL);
  if (!tlpy_Error) return -1;
  if (PyObject_SetAttrString(tlpy_Error, "status", Py_None) < 0) return -1;
  Py_INCREF(tlpy_Error);
  return PyModule_AddObject(m, "TileLangError", tlpy_Error);
}

/* ------------------------------------------------------------------ helpers */

int tlpy_str_arg(PyObject *o, const char *what, int allow_none, const char **out) {
  if (o == Py_None && allow_none) {
    *out = NULL;
    return 0;
  }
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str%s, not %.100s", what, allow_none ? " or None" : "",
                 Py_TYPE(o)->tp_name);
    return -1;
  }
  *out = PyUnicode_AsUTF8(o);
  return *out ? 0 : -1;
}

PyObject *tlpy_str_tuple(const char *const *names, size_t n) {
  PyObject *t = PyTuple_New((Py_ssize_t)n);
  if (!t) return NULL;
  for (size_t i = 0; i < n; i++) {
    PyObject *s = PyUnicode_FromString(names[i] ? names[i] : "");
    if (!s) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
  }
  return t;
}
