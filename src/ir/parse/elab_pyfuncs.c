/* Functions of other modules that factories call on compile-time values and that
 * the front end evaluates itself: Python's math on numbers, tilelang.math's and
 * tilelang.cdiv's integer helpers, tvm.DataType(dtype) (whose .bits, like
 * T.float16.bits, elab_expr.c reads). A table: the name as the module defines it,
 * and how to compute it. Anything else of those modules stays opaque (an error
 * naming it where it is used). */
#include <math.h>
#include <string.h>

#include "elab.h"

typedef enum pyfn_kind {
  PF_GCD, PF_LCM, PF_CEIL, PF_FLOOR, PF_TRUNC, PF_SQRT, PF_ISQRT, PF_LOG2, PF_LOG, PF_EXP, PF_POW, PF_FABS,
  PF_NEXT_POW2, PF_CDIV, PF_DATATYPE
} pyfn_kind;

static const struct {
  const char *name; /* module.function */
  pyfn_kind kind;
  int nmin, nmax;   /* positional arguments */
} PYFUNCS[] = {
  {"math.gcd", PF_GCD, 0, 16},
  {"math.lcm", PF_LCM, 0, 16},
  {"math.ceil", PF_CEIL, 1, 1},
  {"math.floor", PF_FLOOR, 1, 1},
  {"math.trunc", PF_TRUNC, 1, 1},
  {"math.sqrt", PF_SQRT, 1, 1},
  {"math.isqrt", PF_ISQRT, 1, 1},
  {"math.log2", PF_LOG2, 1, 1},
  {"math.log", PF_LOG, 1, 2},
  {"math.exp", PF_EXP, 1, 1},
  {"math.pow", PF_POW, 2, 2},
  {"math.fabs", PF_FABS, 1, 1},
  {"tilelang.math.next_power_of_2", PF_NEXT_POW2, 1, 1},
  {"tilelang.next_power_of_2", PF_NEXT_POW2, 1, 1},
  {"tilelang.math.cdiv", PF_CDIV, 2, 2},
  {"tilelang.cdiv", PF_CDIV, 2, 2},
  {"tvm.DataType", PF_DATATYPE, 1, 1},
  {"tilelang.tvm.DataType", PF_DATATYPE, 1, 1},
  {"tvm.runtime.DataType", PF_DATATYPE, 1, 1},
};

static const struct { const char *name; double value; } PYCONSTS[] = {
  {"math.pi", M_PI}, {"math.e", M_E}, {"math.inf", INFINITY}, {"math.tau", 2 * M_PI},
};

/* Python's builtins the front end does not evaluate: names that are defined (a
 * NameError only for names nothing defines) and opaque where used. */
static const char *const PY_BUILTINS[] = {
  "print", "issubclass", "dict", "set", "frozenset",
  "map", "filter", "str", "repr", "getattr", "hasattr", "setattr",
  "type", "id", "hash", "iter", "next", "open", "round", "divmod", "pow", "ord", "chr", "hex", "bin", "format",
  "super", "object", "property", "staticmethod", "classmethod", "callable", "vars", "locals", "globals", "dir",
  "slice", "bytes", "bytearray", "complex", "input", "exit", "quit", "__file__", "__name__", "__import__",
  "Exception", "BaseException", "ValueError", "TypeError", "NotImplementedError", "RuntimeError",
  "AssertionError", "KeyError", "IndexError", "ImportError", "ModuleNotFoundError", "AttributeError",
  "ZeroDivisionError", "OverflowError", "StopIteration", "NotImplemented", "Ellipsis",
};

bool tl__py_builtin_name(const char *name) {
  for (size_t i = 0; i < sizeof PY_BUILTINS / sizeof PY_BUILTINS[0]; i++)
    if (strcmp(PY_BUILTINS[i], name) == 0) return true;
  return false;
}

bool tl__py_func_known(const char *qualname) {
  for (size_t i = 0; i < sizeof PYFUNCS / sizeof PYFUNCS[0]; i++)
    if (strcmp(PYFUNCS[i].name, qualname) == 0) return true;
  return false;
}

tl__val *tl__py_const(tl__elab *E, const char *qualname) {
  for (size_t i = 0; i < sizeof PYCONSTS / sizeof PYCONSTS[0]; i++)
    if (strcmp(PYCONSTS[i].name, qualname) == 0) return tl__val_float(E, PYCONSTS[i].value);
  return NULL;
}

static bool number(tl__elab *E, const tl__val *v, tl__pos at, const char *fn, double *out) {
  if (v->kind == V_INT || v->kind == V_BOOL) *out = v->kind == V_INT ? (double)v->u.i : v->u.b;
  else if (v->kind == V_FLOAT) *out = v->u.f;
  else {
    tl__elab_error(E, at, "%s takes compile-time numbers here, not %s", fn, tl__val_describe(E, v));
    return false;
  }
  return true;
}

static int64_t gcd64(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static int64_t floordiv(int64_t p, int64_t q) { return p / q - (p % q != 0 && (p < 0) != (q < 0)); }

/* A float result as Python's int(): an error when it does not fit. */
static tl__val *to_int(tl__elab *E, tl__pos at, const char *fn, double x) {
  if (!(x >= -9.2e18 && x <= 9.2e18)) {
    tl__elab_error(E, at, "%s: the result does not fit a 64-bit integer", fn);
    return NULL;
  }
  return tl__val_int(E, (int64_t)x);
}

tl__val *tl__py_func_call(tl__elab *E, const tl__ast_expr *call, const char *qualname) {
  size_t k = 0;
  while (k < sizeof PYFUNCS / sizeof PYFUNCS[0] && strcmp(PYFUNCS[k].name, qualname) != 0) k++;
  tl__pos at = POS(call);
  uint32_t n = call->u.call.nargs;
  if (call->u.call.nkw || (int)n < PYFUNCS[k].nmin || (int)n > PYFUNCS[k].nmax) {
    tl__elab_error(E, at, "%s takes %d to %d positional arguments here", qualname, PYFUNCS[k].nmin, PYFUNCS[k].nmax);
    return NULL;
  }
  tl__val *a[16];
  for (uint32_t i = 0; i < n; i++)
    if (!(a[i] = tl__eval(E, call->u.call.args[i]))) return NULL;
  pyfn_kind kind = PYFUNCS[k].kind;
  if (kind == PF_DATATYPE) {
    tl_dtype dt;
    if (!tl__as_dtype(E, a[0], POS(call->u.call.args[0]), &dt)) return NULL;
    tl__val *v = tl__val_new(E, V_DTYPE);
    if (v) v->u.dt = dt;
    return v;
  }
  if (kind == PF_GCD || kind == PF_LCM || kind == PF_NEXT_POW2 || kind == PF_CDIV || kind == PF_ISQRT) {
    int64_t x[16];
    for (uint32_t i = 0; i < n; i++)
      if (!tl__as_int(E, a[i], POS(call->u.call.args[i]), qualname, &x[i])) return NULL;
    switch (kind) {
      case PF_GCD: {
        int64_t g = 0;
        for (uint32_t i = 0; i < n; i++) g = gcd64(g, x[i]);
        return tl__val_int(E, g);
      }
      case PF_LCM: {
        int64_t l = n ? 1 : 0;
        for (uint32_t i = 0; i < n; i++) {
          if (x[i] == 0) return tl__val_int(E, 0);
          int64_t g = gcd64(l, x[i]), m = (x[i] < 0 ? -x[i] : x[i]) / g;
          if (l > INT64_MAX / m) {
            tl__elab_error(E, at, "%s: the result does not fit a 64-bit integer", qualname);
            return NULL;
          }
          l *= m;
        }
        return tl__val_int(E, l);
      }
      case PF_NEXT_POW2: { /* 1 << (x - 1).bit_length(): 1 for x <= 1 */
        int64_t p = 1;
        while (p < x[0]) {
          if (p > INT64_MAX / 2) {
            tl__elab_error(E, at, "%s(%lld) does not fit a 64-bit integer", qualname, (long long)x[0]);
            return NULL;
          }
          p *= 2;
        }
        return tl__val_int(E, p);
      }
      case PF_CDIV:
        if (x[1] == 0) {
          tl__elab_error(E, at, "%s: division by zero", qualname);
          return NULL;
        }
        return tl__val_int(E, floordiv(x[0] + x[1] - 1, x[1])); /* (a + b - 1) // b, Python's floor */
      case PF_ISQRT: {
        if (x[0] < 0) {
          tl__elab_error(E, at, "%s of a negative number", qualname);
          return NULL;
        }
        int64_t r = (int64_t)sqrt((double)x[0]);
        while (r > 0 && r * r > x[0]) r--;
        while ((r + 1) * (r + 1) <= x[0]) r++;
        return tl__val_int(E, r);
      }
      default: break;
    }
  }
  double x[2] = {0, 0};
  for (uint32_t i = 0; i < n; i++)
    if (!number(E, a[i], POS(call->u.call.args[i]), qualname, &x[i])) return NULL;
  switch (kind) {
    case PF_CEIL: return a[0]->kind == V_INT ? a[0] : to_int(E, at, qualname, ceil(x[0]));
    case PF_FLOOR: return a[0]->kind == V_INT ? a[0] : to_int(E, at, qualname, floor(x[0]));
    case PF_TRUNC: return a[0]->kind == V_INT ? a[0] : to_int(E, at, qualname, trunc(x[0]));
    case PF_FABS: return tl__val_float(E, fabs(x[0]));
    case PF_EXP: return tl__val_float(E, exp(x[0]));
    case PF_POW: return tl__val_float(E, pow(x[0], x[1]));
    case PF_SQRT: case PF_LOG2: case PF_LOG:
      if (x[0] < 0 || (kind != PF_SQRT && x[0] == 0) || (n == 2 && (x[1] <= 0 || x[1] == 1))) {
        tl__elab_error(E, at, "%s: math domain error", qualname);
        return NULL;
      }
      if (kind == PF_SQRT) return tl__val_float(E, sqrt(x[0]));
      if (kind == PF_LOG2) return tl__val_float(E, log2(x[0]));
      return tl__val_float(E, n == 2 ? log(x[0]) / log(x[1]) : log(x[0]));
    default: break;
  }
  tl__elab_error(E, at, "%s is not supported", qualname);
  return NULL;
}
