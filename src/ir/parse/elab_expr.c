/* Elaboration of expressions: names, attributes of modules and buffers, calls of
 * T.* expression builtins and Python builtins, buffer loads, operators. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"
#include "elab.h"
#include "ir/op_table.h"

/* The dotted spelling of a name or attribute chain ("T.copy"), for messages. */
static const char *dotted(tl__elab *E, const tl__ast_expr *e) {
  if (e->kind == AE_NAME) return e->u.name;
  if (e->kind == AE_ATTR) {
    const char *base = dotted(E, e->u.attr.obj);
    char *s = tl__format("%s.%s", base, e->u.attr.name);
    if (!s) {
      tl__parse_oom(E->p);
      return "?";
    }
    char *d = tl__arena_strdup(&E->p->arena, s);
    tl__free(s);
    return d ? d : "?";
  }
  return "expression";
}

tl_ir_var *tl__sym_var(tl__elab *E, const tl__val *sym, tl__pos at) {
  if (!E->fn || E->fn->kind == FK_FACTORY) {
    tl__elab_error(E, at, "symbolic dimension '%s' can only be used inside a kernel function", sym->u.sym.name);
    return NULL;
  }
  tl__vec *syms = &E->fn->syms;
  for (size_t i = 0; i < syms->len; i++) {
    tl__symvar *s = tl__vec_at(syms, i);
    if (s->key == sym) {
      if (E->fn->in_params) s->in_shape = true;
      return s->var;
    }
  }
  tl__elab_at(E, at);
  tl__symvar s = {sym, tl_ir_var_new(E->mod, sym->u.sym.name, sym->u.sym.dt), E->fn->in_params, at.line, at.col};
  if (!s.var) return tl__elab_builder_failed(E), NULL;
  if (tl__vec_push(syms, &s) != TL_OK) return tl__parse_oom(E->p), NULL;
  return s.var;
}

bool tl__call_args(tl__elab *E, const tl__ast_expr *call, const char *fname, const char *const *names, int nparams,
                   int nreq, const tl__ast_expr **out) {
  for (int i = 0; i < nparams; i++) out[i] = NULL;
  uint32_t npos = call->u.call.nargs;
  if (npos > (uint32_t)nparams) {
    if (nreq == nparams)
      tl__elab_error(E, POS(call), "%s takes %d argument%s but %u were given", fname, nparams, nparams == 1 ? "" : "s", npos);
    else
      tl__elab_error(E, POS(call), "%s takes from %d to %d arguments but %u were given", fname, nreq, nparams, npos);
    return false;
  }
  for (uint32_t i = 0; i < npos; i++) out[i] = call->u.call.args[i];
  for (uint32_t k = 0; k < call->u.call.nkw; k++) {
    const char *kw = call->u.call.kwnames[k];
    int slot = -1;
    for (int i = 0; i < nparams; i++)
      if (strcmp(names[i], kw) == 0) slot = i;
    const tl__ast_expr *v = call->u.call.kwvals[k];
    if (slot < 0) {
      tl__elab_error(E, POS(v), "%s got an unexpected keyword argument '%s'", fname, kw);
      return false;
    }
    if (out[slot]) {
      tl__elab_error(E, POS(v), "%s got multiple values for argument '%s'", fname, kw);
      return false;
    }
    out[slot] = v;
  }
  for (int i = 0; i < nreq; i++)
    if (!out[i]) {
      tl__elab_error(E, POS(call), "%s is missing its required argument '%s'", fname, names[i]);
      return false;
    }
  return true;
}

/* A call to a builtin that only makes sense in one syntactic place. */
static tl__val *misplaced(tl__elab *E, const tl__ast_expr *e, const tl__val *fn) {
  const char *n = fn->u.bi.name;
  switch ((tl__builtin)fn->u.bi.id) {
    case BI_KERNEL:
      tl__elab_error(E, POS(e), "%s can only be used in a with statement: with %s(...) as bx:", n, n);
      break;
    case BI_PARALLEL: case BI_SERIAL: case BI_PIPELINED: case BI_UNROLL: case BI_VECTORIZED: case BI_GRID: case BI_RANGE:
      tl__elab_error(E, POS(e), "%s can only be used as the iterable of a for loop", n);
      break;
    case BI_ALLOC_SHARED: case BI_ALLOC_FRAGMENT: case BI_ALLOC_LOCAL: case BI_ALLOC_VAR: case BI_RESHAPE: case BI_VIEW:
      tl__elab_error(E, POS(e), "%s must be assigned to a name: X = %s(...)", n, n);
      break;
    case BI_ATOMIC_ADD: case BI_ATOMIC_ADDX:
      tl__elab_error(E, POS(e), "%s is a statement here: its previous value (return_prev=True) is not supported", n);
      break;
    case BI_COPY: case BI_FILL: case BI_CLEAR: case BI_GEMM: case BI_REDUCE: case BI_CUMSUM:
    case BI_SYNC_THREADS: case BI_ASSUME:
      tl__elab_error(E, POS(e), "%s is a statement; it has no value", n);
      break;
    case BI_TENSOR: case BI_BUFFER:
      tl__elab_error(E, POS(e), "%s is only allowed as an annotation (a parameter's type)", n);
      break;
    case BI_CONST:
      tl__elab_error(E, POS(e), "%s can only be used at the top of a @tilelang.jit function: M, N = %s(\"M, N\")", n, n);
      break;
    case BI_EMPTY:
      tl__elab_error(E, POS(e), "%s can only be used at the top of a @tilelang.jit function: C = %s(shape, dtype)", n, n);
      break;
    case BI_PRIM_FUNC: case BI_JIT:
      tl__elab_error(E, POS(e), "%s is only allowed as a decorator", n);
      break;
    default:
      tl__elab_error(E, POS(e), "%s cannot be used here", n);
      break;
  }
  return NULL;
}

/* IR arguments of a math intrinsic: Python numbers become float32 (int32 for T.abs). */
static tl_ir_expr *math_arg(tl__elab *E, const tl__val *v, const tl__ast_expr *at, bool allow_int) {
  const tl_dtype f32 = TL_DT_FLOAT32;
  tl_ir_expr *x = tl__to_ir(E, v, POS(at), (allow_int && v->kind != V_FLOAT) ? NULL : &f32);
  return x;
}

static tl__val *call_math(tl__elab *E, const tl__ast_expr *e, const tl__val *fn) {
  tl_ir_op op = (tl_ir_op)fn->u.bi.op;
  uint32_t want = (uint32_t)tl__value_op_arity(op);
  if (e->u.call.nkw || e->u.call.nargs != want) {
    tl__elab_error(E, POS(e), "%s takes %u argument%s", fn->u.bi.name, want, want == 1 ? "" : "s");
    return NULL;
  }
  tl_ir_expr *args[3];
  bool allow_int = op == TL_OP_ABS;
  /* Operands meet in one type; Python numbers adopt the type of an IR operand. */
  tl__val *vals[3];
  int ir_at = -1;
  for (uint32_t i = 0; i < want; i++) {
    vals[i] = tl__eval(E, e->u.call.args[i]);
    if (!vals[i]) return NULL;
    if (!tl__val_is_py(vals[i]) && ir_at < 0) ir_at = (int)i;
  }
  tl_dtype t = TL_DT_FLOAT32;
  if (ir_at >= 0) {
    args[ir_at] = tl__to_ir(E, vals[ir_at], POS(e->u.call.args[ir_at]), NULL);
    if (!args[ir_at]) return NULL;
    t = args[ir_at]->dtype;
  }
  for (uint32_t i = 0; i < want; i++) {
    if ((int)i == ir_at) continue;
    if (ir_at >= 0 && tl__val_is_py(vals[i]) && (tl_dtype_is_float(t) || (allow_int && vals[i]->kind != V_FLOAT)))
      args[i] = tl__to_ir(E, vals[i], POS(e->u.call.args[i]), &t);
    else
      args[i] = math_arg(E, vals[i], e->u.call.args[i], allow_int);
    if (!args[i]) return NULL;
  }
  for (uint32_t i = 1; i < want; i++) {
    tl_ir_expr *a0 = args[0];
    if (!tl__promote(E, POS(e), &a0, &args[i])) return NULL;
    if (a0 != args[0]) {
      args[0] = a0;
      for (uint32_t k = 1; k < i; k++)
        if (!tl__promote(E, POS(e), &args[0], &args[k])) return NULL;
    }
  }
  tl_dtype rt = args[0]->dtype;
  char dt[32];
  if (!(tl_dtype_is_float(rt) || (allow_int && tl_dtype_is_int(rt)))) {
    tl__elab_error(E, POS(e), "%s needs a %s argument, got %s", fn->u.bi.name, allow_int ? "numeric" : "floating-point",
             tl_dtype_name(rt, dt, sizeof dt));
    return NULL;
  }
  tl__elab_at(E, POS(e));
  return tl__val_expr(E, tl_ir_call(E->mod, op, rt, want, args));
}

/* Two IR operands that meet in one type (Python numbers adopt the other's type). */
static bool two_operands(tl__elab *E, const tl__ast_expr *at, tl__val *a, tl__val *b, tl_ir_expr **ea, tl_ir_expr **eb) {
  if (tl__val_is_py(a) && !tl__val_is_py(b)) {
    *eb = tl__to_ir(E, b, POS(at), NULL);
    if (!*eb) return false;
    tl_dtype t = (*eb)->dtype;
    *ea = tl__to_ir(E, a, POS(at), (a->kind == V_FLOAT && !tl_dtype_is_float(t)) ? NULL : &t);
  } else {
    *ea = tl__to_ir(E, a, POS(at), NULL);
    if (!*ea) return false;
    tl_dtype t = (*ea)->dtype;
    *eb = tl__to_ir(E, b, POS(at), (tl__val_is_py(b) && !(b->kind == V_FLOAT && !tl_dtype_is_float(t))) ? &t : NULL);
  }
  if (!*ea || !*eb) return false;
  return tl__promote(E, POS(at), ea, eb);
}

static tl__val *eval_arg(tl__elab *E, const tl__ast_expr *a) { return a ? tl__eval(E, a) : NULL; }

/* isinstance(x, T) for the Python types a compile-time value can have (T a name
 * among int, float, bool, str, tuple, list, or a tuple of them): an IR value is
 * none of them (upstream's PrimExpr is not a Python int). */
static bool isinstance_of(const tl__val *x, const char *ty, bool *known) {
  *known = true;
  if (strcmp(ty, "int") == 0) return x->kind == V_INT || x->kind == V_BOOL;
  if (strcmp(ty, "bool") == 0) return x->kind == V_BOOL;
  if (strcmp(ty, "float") == 0) return x->kind == V_FLOAT;
  if (strcmp(ty, "str") == 0) return x->kind == V_STR;
  if (strcmp(ty, "tuple") == 0 || strcmp(ty, "list") == 0) return x->kind == V_TUPLE;
  *known = false;
  return false;
}

static tl__val *call_isinstance(tl__elab *E, const tl__ast_expr *e) {
  static const char *const names[] = {"obj", "class_or_tuple"};
  const tl__ast_expr *a[2];
  if (!tl__call_args(E, e, "isinstance", names, 2, 2, a)) return NULL;
  tl__val *x = tl__eval(E, a[0]);
  if (!x) return NULL;
  const tl__ast_expr *t = a[1];
  uint32_t n = t->kind == AE_TUPLE ? t->u.seq.n : 1;
  const tl__ast_expr *const *tys = t->kind == AE_TUPLE ? (const tl__ast_expr *const *)t->u.seq.items : &t;
  bool r = false;
  for (uint32_t i = 0; i < n; i++) {
    bool known = false;
    if (tys[i]->kind == AE_NAME && !tl__lookup(E, tys[i]->u.name)) r |= isinstance_of(x, tys[i]->u.name, &known);
    if (!known) {
      tl__elab_error(E, POS(tys[i]), "isinstance() is evaluated here only against int, float, bool, str, tuple and list");
      return NULL;
    }
  }
  return tl__val_bool(E, r);
}

/* One T.dynamic dimension: a value standing for a variable per function at the
 * top level and in factories, the function's own variable inside one. */
static tl__val *symbolic_dim(tl__elab *E, const char *name, tl_dtype dt, tl__pos at) {
  if (!E->fn || E->fn->kind == FK_FACTORY) {
    tl__val *v = tl__val_new(E, V_SYMBOLIC);
    if (!v) return NULL;
    v->u.sym.name = name;
    v->u.sym.dt = dt;
    return v;
  }
  tl__elab_at(E, at);
  tl__symvar s = {NULL, tl_ir_var_new(E->mod, name, dt), E->fn->in_params, at.line, at.col};
  if (!s.var) return tl__elab_builder_failed(E), NULL;
  if (tl__vec_push(&E->fn->syms, &s) != TL_OK) return tl__parse_oom(E->p), NULL;
  tl__val *v = tl__val_new(E, V_VAR);
  if (v) v->u.var = s.var;
  return v;
}

static tl__val *call_python(tl__elab *E, const tl__ast_expr *e, const tl__val *fn) {
  const char *n = fn->u.bi.name;
  uint32_t na = e->u.call.nargs;
  if (e->u.call.nkw) {
    tl__elab_error(E, POS(e), "%s() takes no keyword arguments here", n);
    return NULL;
  }
  tl__val *args[8];
  if (na > 8) {
    tl__elab_error(E, POS(e), "too many arguments to %s()", n);
    return NULL;
  }
  for (uint32_t i = 0; i < na; i++) {
    args[i] = tl__eval(E, e->u.call.args[i]);
    if (!args[i]) return NULL;
    if (!tl__val_is_py(args[i])) {
      const char *hint = fn->u.bi.id == BI_PY_MIN ? " (use T.min)" : fn->u.bi.id == BI_PY_MAX ? " (use T.max)"
                         : fn->u.bi.id == BI_PY_ABS ? " (use T.abs)" : fn->u.bi.id == BI_PY_FLOAT || fn->u.bi.id == BI_PY_INT ? " (use T.Cast)" : "";
      tl__elab_error(E, POS(e->u.call.args[i]), "%s() is evaluated at compile time and cannot take %s%s", n,
               tl__val_describe(E, args[i]), hint);
      return NULL;
    }
  }
  switch ((tl__builtin)fn->u.bi.id) {
    case BI_PY_MIN: case BI_PY_MAX: {
      tl__val *const *items = args;
      uint32_t cnt = na;
      if (na == 1 && args[0]->kind == V_TUPLE) {
        items = args[0]->u.tup.items;
        cnt = args[0]->u.tup.n;
      }
      if (cnt == 0) {
        tl__elab_error(E, POS(e), "%s() needs at least one value", n);
        return NULL;
      }
      const tl__val *best = items[0];
      for (uint32_t i = 1; i < cnt; i++) {
        tl__val *lt = tl__py_binop(E, POS(e), AOP_LT, items[i], best);
        if (!lt) return NULL;
        bool less = lt->u.b;
        if (fn->u.bi.id == BI_PY_MAX) {
          tl__val *gt = tl__py_binop(E, POS(e), AOP_GT, items[i], best);
          if (!gt) return NULL;
          less = gt->u.b;
        }
        if (less) best = items[i];
      }
      return (tl__val *)best;
    }
    case BI_PY_ABS:
      if (na != 1) break;
      if (args[0]->kind == V_FLOAT) return tl__val_float(E, fabs(args[0]->u.f));
      if (args[0]->kind == V_INT || args[0]->kind == V_BOOL) {
        int64_t x;
        tl__as_int(E, args[0], POS(e), "abs()", &x);
        if (x == INT64_MIN) break;
        return tl__val_int(E, x < 0 ? -x : x);
      }
      break;
    case BI_PY_INT:
      if (na != 1) break;
      if (args[0]->kind == V_INT || args[0]->kind == V_BOOL) return tl__val_int(E, args[0]->kind == V_BOOL ? args[0]->u.b : args[0]->u.i);
      if (args[0]->kind == V_FLOAT) {
        double f = args[0]->u.f;
        if (!(f > -9.2e18 && f < 9.2e18)) break;
        return tl__val_int(E, (int64_t)f);
      }
      if (args[0]->kind == V_STR) {
        char *end;
        long long x = strtoll(args[0]->u.str.s, &end, 10);
        if (end != args[0]->u.str.s && *end == '\0') return tl__val_int(E, x);
      }
      break;
    case BI_PY_FLOAT:
      if (na != 1) break;
      if (args[0]->kind == V_FLOAT) return args[0];
      if (args[0]->kind == V_INT) return tl__val_float(E, (double)args[0]->u.i);
      if (args[0]->kind == V_BOOL) return tl__val_float(E, args[0]->u.b);
      if (args[0]->kind == V_STR) {
        const char *s = args[0]->u.str.s;
        if (strcmp(s, "inf") == 0 || strcmp(s, "+inf") == 0) return tl__val_float(E, INFINITY);
        if (strcmp(s, "-inf") == 0) return tl__val_float(E, -INFINITY);
        if (strcmp(s, "nan") == 0) return tl__val_float(E, NAN);
        char *end;
        double x = strtod(s, &end);
        if (end != s && *end == '\0') return tl__val_float(E, x);
      }
      break;
    case BI_PY_BOOL:
      if (na != 1) break;
      return tl__val_bool(E, tl__py_truth(args[0]));
    case BI_PY_LEN:
      if (na != 1) break;
      if (args[0]->kind == V_TUPLE) return tl__val_int(E, args[0]->u.tup.n);
      if (args[0]->kind == V_STR) return tl__val_int(E, (int64_t)args[0]->u.str.n);
      break;
    default: break;
  }
  tl__elab_error(E, POS(e), "unsupported arguments to %s()", n);
  return NULL;
}

/* T.float32(0), T.float16(x): a constant of the dtype, or a cast of an expression. */
static tl__val *call_dtype(tl__elab *E, const tl__ast_expr *e, tl_dtype dt) {
  char buf[32];
  const char *name = tl_dtype_name(dt, buf, sizeof buf); /* scalars: a static name, buf untouched */
  if (e->u.call.nkw || e->u.call.nargs != 1) {
    tl__elab_error(E, POS(e), "T.%s takes one argument", name);
    return NULL;
  }
  tl__val *v = tl__eval(E, e->u.call.args[0]);
  if (!v) return NULL;
  tl__pos at = POS(e);
  tl__elab_at(E, at);
  if (v->kind == V_FLOAT && !tl_dtype_is_float(dt)) {
    tl__elab_error(E, at, "T.%s needs an integer constant, got a float", name);
    return NULL;
  }
  if (v->kind == V_INT || v->kind == V_BOOL || v->kind == V_FLOAT) {
    if (tl_dtype_is_bool(dt)) return tl__val_expr(E, tl_ir_bool(E->mod, tl__py_truth(v)));
    return tl__val_expr(E, tl__to_ir(E, v, at, &dt));
  }
  tl_ir_expr *x = tl__to_ir(E, v, at, NULL);
  if (!x) return NULL;
  tl__elab_at(E, at);
  return tl__val_expr(E, tl_ir_cast(E->mod, dt, x));
}

/* T.max(x, y) / T.min(x, y) of two numeric values. */
static tl__val *min_max(tl__elab *E, const tl__ast_expr *e, const char *n, bool is_max, tl__val *x, tl__val *y) {
  tl_ir_expr *ex, *ey;
  if (!two_operands(E, e, x, y, &ex, &ey)) return NULL;
  if (tl_dtype_is_bool(ex->dtype)) {
    tl__elab_error(E, POS(e), "%s needs numeric arguments", n);
    return NULL;
  }
  tl__elab_at(E, POS(e));
  return tl__val_expr(E, tl_ir_binary(E->mod, is_max ? TL_BIN_MAX : TL_BIN_MIN, ex, ey));
}

/* T.max_value(dt) / T.min_value(dt): the largest / lowest finite value of dt. */
static tl_ir_expr *dtype_limit(tl__elab *E, tl_dtype dt, bool is_max) {
  if (tl_dtype_is_float(dt)) {
    double m = dt.code == TL_DTYPE_BFLOAT ? 0x1.fep127 : dt.bits == 16 ? 65504.0 : dt.bits == 32 ? 0x1.fffffep127 : DBL_MAX;
    return tl_ir_float(E->mod, dt, is_max ? m : -m);
  }
  if (dt.code == TL_DTYPE_UINT) {
    /* uint64's highest value is held as -1 (all ones), as the IR's constants are int64 */
    return tl_ir_int(E->mod, dt, !is_max ? 0 : dt.bits >= 64 ? -1 : (int64_t)((1ull << dt.bits) - 1));
  }
  int64_t hi = dt.bits >= 64 ? INT64_MAX : (int64_t)((1ull << (dt.bits - 1)) - 1); /* int */
  return tl_ir_int(E->mod, dt, is_max ? hi : -hi - 1);
}

static tl__val *call_builtin(tl__elab *E, const tl__ast_expr *e, const tl__val *fn) {
  tl__pos at = POS(e);
  const char *n = fn->u.bi.name;
  const tl__ast_expr *a[3];
  switch ((tl__builtin)fn->u.bi.id) {
    case BI_MATH: return call_math(E, e, fn);
    case BI_MAX: case BI_MIN: {
      /* T.max(a, b, c, ...) folds from the left, as tvm.tir.max does. */
      if (!e->u.call.nkw && e->u.call.nargs > 2) {
        tl__val *acc = eval_arg(E, e->u.call.args[0]);
        for (uint32_t i = 1; acc && i < e->u.call.nargs; i++) {
          tl__val *y = eval_arg(E, e->u.call.args[i]);
          acc = y ? min_max(E, e, n, fn->u.bi.id == BI_MAX, acc, y) : NULL;
        }
        return acc;
      }
      static const char *const names[] = {"a", "b"};
      if (!tl__call_args(E, e, n, names, 2, 2, a)) return NULL;
      tl__val *x = eval_arg(E, a[0]), *y = x ? eval_arg(E, a[1]) : NULL;
      return y ? min_max(E, e, n, fn->u.bi.id == BI_MAX, x, y) : NULL;
    }
    case BI_ANY_OF: case BI_ALL_OF: return tl__elab_any_all(E, e, n, fn->u.bi.id == BI_ALL_OF);
    case BI_THREAD_BINDING: case BI_BLOCK_BINDING: case BI_THREAD_EXTENT: case BI_BLOCK_EXTENT: case BI_THREAD_BINDING_OF:
      return tl__elab_kernel_binding(E, e, fn);
    case BI_WARP_INDEX: return tl__elab_warp_index(E, e, fn);
    case BI_CLAMP: { /* upstream's T.clamp: T.max with min_val, then T.min with max_val */
      static const char *const names[] = {"dst", "min_val", "max_val"};
      if (!tl__call_args(E, e, n, names, 3, 1, a)) return NULL;
      tl__val *x = eval_arg(E, a[0]);
      for (int i = 1; x && i < 3; i++) {
        if (!a[i]) continue;
        tl__val *bound = eval_arg(E, a[i]);
        x = bound ? min_max(E, e, n, i == 1, x, bound) : NULL;
      }
      return x;
    }
    case BI_OPERATOR: { /* T.floordiv(a, b) is a // b, T.shift_left(a, b) is a << b, ... */
      static const char *const names[] = {"a", "b"};
      if (!tl__call_args(E, e, n, names, 2, 2, a)) return NULL;
      tl__val *x = eval_arg(E, a[0]), *y = x ? eval_arg(E, a[1]) : NULL;
      return y ? tl__binop(E, e, (tl__ast_op)fn->u.bi.op, x, y) : NULL;
    }
    case BI_BITWISE_NOT: {
      static const char *const names[] = {"a"};
      if (!tl__call_args(E, e, n, names, 1, 1, a)) return NULL;
      tl__val *x = eval_arg(E, a[0]);
      if (!x) return NULL;
      if (tl__val_is_py(x)) return tl__py_unop(E, at, AOP_INVERT, x);
      tl_ir_expr *ex = tl__to_ir(E, x, POS(a[0]), NULL);
      if (!ex) return NULL;
      if (!tl_dtype_is_int(ex->dtype)) {
        char b[32];
        tl__elab_error(E, POS(a[0]), "%s needs an integer argument, got %s", n, tl_dtype_name(ex->dtype, b, sizeof b));
        return NULL;
      }
      tl__elab_at(E, at);
      return tl__val_expr(E, tl_ir_unary(E->mod, TL_UN_BITNOT, ex));
    }
    case BI_TRUNCMOD: { /* C's %: a - T.truncdiv(a, b) * b, the sign of a */
      static const char *const names[] = {"a", "b"};
      if (!tl__call_args(E, e, n, names, 2, 2, a)) return NULL;
      tl__val *x = eval_arg(E, a[0]), *y = x ? eval_arg(E, a[1]) : NULL;
      if (!y) return NULL;
      if ((x->kind == V_INT || x->kind == V_BOOL) && (y->kind == V_INT || y->kind == V_BOOL)) {
        int64_t p, q;
        tl__as_int(E, x, at, n, &p);
        tl__as_int(E, y, at, n, &q);
        if (q == 0) {
          tl__elab_error(E, at, "division by zero in %s", n);
          return NULL;
        }
        return tl__val_int(E, q == -1 ? 0 : p % q);
      }
      tl_ir_expr *ex, *ey;
      if (!two_operands(E, e, x, y, &ex, &ey)) return NULL;
      if (!tl_dtype_is_int(ex->dtype)) {
        tl__elab_error(E, at, "%s needs integer arguments", n);
        return NULL;
      }
      tl__elab_at(E, at);
      tl_ir_expr *q = tl_ir_binary(E->mod, TL_BIN_DIV, ex, ey);
      return tl__val_expr(E, tl_ir_binary(E->mod, TL_BIN_SUB, ex, tl_ir_binary(E->mod, TL_BIN_MUL, q, ey)));
    }
    case BI_MAX_VALUE: case BI_MIN_VALUE: {
      static const char *const names[] = {"dtype"};
      if (!tl__call_args(E, e, n, names, 1, 1, a)) return NULL;
      tl__val *dv = eval_arg(E, a[0]);
      tl_dtype dt;
      if (!dv || !tl__as_dtype(E, dv, POS(a[0]), &dt)) return NULL;
      if (!tl_dtype_is_float(dt) && dt.code != TL_DTYPE_INT && dt.code != TL_DTYPE_UINT) {
        char b[32];
        tl__elab_error(E, POS(a[0]), "%s needs a numeric dtype, got %s", n, tl_dtype_name(dt, b, sizeof b));
        return NULL;
      }
      tl__elab_at(E, at);
      return tl__val_expr(E, dtype_limit(E, dt, fn->u.bi.id == BI_MAX_VALUE));
    }
    case BI_IF_THEN_ELSE: case BI_SELECT: {
      static const char *const ite_names[] = {"cond", "true_value", "false_value"};
      static const char *const sel_names[] = {"condition", "true_value", "false_value"};
      if (!tl__call_args(E, e, n, fn->u.bi.id == BI_SELECT ? sel_names : ite_names, 3, 3, a)) return NULL;
      tl__val *c = eval_arg(E, a[0]);
      if (!c) return NULL;
      tl_ir_expr *ec = tl__to_cond(E, c, POS(a[0]));
      tl__val *x = ec ? eval_arg(E, a[1]) : NULL, *y = x ? eval_arg(E, a[2]) : NULL;
      tl_ir_expr *ex, *ey;
      if (!y || !two_operands(E, e, x, y, &ex, &ey)) return NULL;
      tl__elab_at(E, at);
      return tl__val_expr(E, tl_ir_select(E->mod, ec, ex, ey));
    }
    case BI_CEILDIV: case BI_TRUNCDIV: {
      static const char *const names[] = {"a", "b"};
      if (!tl__call_args(E, e, n, names, 2, 2, a)) return NULL;
      tl__val *x = eval_arg(E, a[0]), *y = x ? eval_arg(E, a[1]) : NULL;
      if (!y) return NULL;
      if ((x->kind == V_INT || x->kind == V_BOOL) && (y->kind == V_INT || y->kind == V_BOOL)) {
        int64_t p, q;
        tl__as_int(E, x, at, n, &p);
        tl__as_int(E, y, at, n, &q);
        if (q == 0) {
          tl__elab_error(E, at, "division by zero in %s", n);
          return NULL;
        }
        if (p == INT64_MIN && q == -1) {
          tl__elab_error(E, at, "integer overflow in %s", n);
          return NULL;
        }
        if (fn->u.bi.id == BI_TRUNCDIV) return tl__val_int(E, p / q);
        int64_t d = p / q;
        if ((p % q != 0) && ((p < 0) == (q < 0))) d += 1;
        return tl__val_int(E, d);
      }
      if (fn->u.bi.id == BI_TRUNCDIV) {
        tl_ir_expr *ex, *ey;
        if (!two_operands(E, e, x, y, &ex, &ey)) return NULL;
        if (!tl_dtype_is_int(ex->dtype)) {
          tl__elab_error(E, at, "%s needs integer arguments", n);
          return NULL;
        }
        tl__elab_at(E, at);
        return tl__val_expr(E, tl_ir_binary(E->mod, TL_BIN_DIV, ex, ey));
      }
      tl_ir_expr *args[2] = {tl__to_index(E, x, POS(a[0]), "an argument of T.ceildiv"), NULL};
      if (!args[0] || !(args[1] = tl__to_index(E, y, POS(a[1]), "an argument of T.ceildiv"))) return NULL;
      tl__elab_at(E, at);
      return tl__val_expr(E, tl_ir_call(E->mod, TL_OP_CEILDIV, TL_DT_INT32, 2, args));
    }
    case BI_CAST_DT_X: case BI_CAST_X_DT: {
      static const char *const names_dx[] = {"dtype", "value"};
      static const char *const names_xd[] = {"value", "dtype"};
      bool dx = fn->u.bi.id == BI_CAST_DT_X;
      if (!tl__call_args(E, e, n, dx ? names_dx : names_xd, 2, 2, a)) return NULL;
      const tl__ast_expr *dt_ast = dx ? a[0] : a[1], *x_ast = dx ? a[1] : a[0];
      tl__val *dv = eval_arg(E, dt_ast);
      tl_dtype dt;
      if (!dv || !tl__as_dtype(E, dv, POS(dt_ast), &dt)) return NULL;
      tl__val *x = eval_arg(E, x_ast);
      if (!x) return NULL;
      tl_ir_expr *ex = tl__to_ir(E, x, POS(x_ast), NULL);
      if (!ex) return NULL;
      tl__elab_at(E, at);
      return tl__val_expr(E, tl_ir_cast(E->mod, dt, ex));
    }
    case BI_INFINITY: {
      static const char *const names[] = {"dtype"};
      if (!tl__call_args(E, e, n, names, 1, 1, a)) return NULL;
      tl__val *dv = eval_arg(E, a[0]);
      tl_dtype dt;
      if (!dv || !tl__as_dtype(E, dv, POS(a[0]), &dt)) return NULL;
      if (!tl_dtype_is_float(dt)) {
        char b[32];
        tl__elab_error(E, POS(a[0]), "%s needs a floating-point dtype, got %s", n, tl_dtype_name(dt, b, sizeof b));
        return NULL;
      }
      tl__elab_at(E, at);
      return tl__val_expr(E, tl_ir_float(E->mod, dt, INFINITY));
    }
    case BI_SYMBOLIC: {
      static const char *const names[] = {"name", "dtype"};
      if (!tl__call_args(E, e, n, names, 2, 1, a)) return NULL;
      tl__val *nm = eval_arg(E, a[0]);
      if (!nm) return NULL;
      if (nm->kind != V_STR || nm->u.str.n == 0 || strlen(nm->u.str.s) != nm->u.str.n) {
        tl__elab_error(E, POS(a[0]), "%s needs the dimension's name as a string", n);
        return NULL;
      }
      tl_dtype dt = TL_DT_INT32;
      if (a[1]) {
        tl__val *dv = eval_arg(E, a[1]);
        if (!dv || !tl__as_dtype(E, dv, POS(a[1]), &dt)) return NULL;
        if (!tl_dtype_eq(dt, TL_DT_INT32)) {
          tl__elab_error(E, POS(a[1]), "symbolic dimensions are int32");
          return NULL;
        }
      }
      /* "M, N" or "M N": one dimension per name, as a tuple (upstream's T.dynamic) */
      const char *str = nm->u.str.s;
      bool several = strpbrk(str, ", \t") != NULL;
      tl__vec items = TL__VEC_INIT(tl__val *);
      for (const char *q = str; *q;) {
        while (*q == ',' || *q == ' ' || *q == '\t') q++;
        size_t len = strcspn(q, ", \t");
        if (!len) break;
        const char *one = tl__pstrndup(E->p, q, len);
        tl__val *v = one ? symbolic_dim(E, one, dt, at) : NULL;
        if (!v || tl__vec_push(&items, &v) != TL_OK) {
          if (v) tl__parse_oom(E->p);
          tl__vec_free(&items);
          return NULL;
        }
        q += len;
      }
      tl__val *r = NULL;
      if (!items.len) {
        tl__elab_error(E, POS(a[0]), "%s needs the dimension's name as a string", n);
      } else if (!several) {
        r = TL__VEC_AT(&items, tl__val *, 0);
      } else if ((r = tl__val_new(E, V_TUPLE)) && (r->u.tup.items = tl__parse_alloc(E->p, items.len * sizeof(tl__val *)))) {
        memcpy(r->u.tup.items, items.data, items.len * sizeof(tl__val *));
        r->u.tup.n = (uint32_t)items.len;
      } else {
        r = NULL;
      }
      tl__vec_free(&items);
      return r;
    }
    case BI_PY_MIN: case BI_PY_MAX: case BI_PY_ABS: case BI_PY_INT: case BI_PY_FLOAT: case BI_PY_LEN: case BI_PY_BOOL:
      return call_python(E, e, fn);
    case BI_PY_ISINSTANCE: return call_isinstance(E, e);
    case BI_RANGE: case BI_PY_SUM: case BI_PY_ANY: case BI_PY_ALL: case BI_PY_ENUMERATE: case BI_PY_ZIP:
    case BI_PY_SORTED: case BI_PY_REVERSED: case BI_PY_LIST: case BI_PY_TUPLE:
      return tl__call_seq_builtin(E, e, fn);
    case BI_DTYPE_OF: {
      static const char *const names[] = {"dtype"};
      const tl__ast_expr *a[1];
      if (!tl__call_args(E, e, fn->u.bi.name, names, 1, 1, a)) return NULL;
      tl__val *x = tl__eval(E, a[0]);
      tl_dtype dt;
      if (!x || !tl__as_dtype(E, x, POS(a[0]), &dt)) return NULL;
      tl__val *v = tl__val_new(E, V_DTYPE);
      if (v) v->u.dt = dt;
      return v;
    }
    default:
      return misplaced(E, e, fn);
  }
}

/* Calls a lambda: its parameters are bound to the arguments (else their defaults)
 * on top of the caller's scope for the time of evaluating its body. */
static tl__val *call_lambda(tl__elab *E, const tl__ast_expr *call, const tl__ast_expr *lam) {
  uint32_t n = lam->u.lambda.n;
  if (call->u.call.nargs > n) {
    tl__elab_error(E, POS(call), "the lambda takes %u argument%s but %u were given", n, n == 1 ? "" : "s",
                   call->u.call.nargs);
    return NULL;
  }
  tl__val **vals = n ? tl__parse_alloc(E->p, n * sizeof *vals) : NULL;
  if (n && !vals) return NULL;
  for (uint32_t i = 0; i < call->u.call.nargs; i++)
    if (!(vals[i] = tl__eval(E, call->u.call.args[i]))) return NULL;
  for (uint32_t k = 0; k < call->u.call.nkw; k++) {
    uint32_t i = 0;
    while (i < n && strcmp(lam->u.lambda.names[i], call->u.call.kwnames[k]) != 0) i++;
    if (i == n || vals[i]) {
      tl__elab_error(E, POS(call->u.call.kwvals[k]), i == n ? "the lambda has no parameter '%s'"
                     : "the lambda got two values for '%s'", call->u.call.kwnames[k]);
      return NULL;
    }
    if (!(vals[i] = tl__eval(E, call->u.call.kwvals[k]))) return NULL;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (vals[i]) continue;
    if (!lam->u.lambda.dflts[i]) {
      tl__elab_error(E, POS(call), "the lambda's parameter '%s' has no value", lam->u.lambda.names[i]);
      return NULL;
    }
    if (!(vals[i] = tl__eval(E, lam->u.lambda.dflts[i]))) return NULL;
  }
  size_t mark = E->env.len;
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; i++) ok = tl__bind(E, lam->u.lambda.names[i], vals[i], B_VALUE, lam->line, lam->col);
  tl__val *v = ok ? tl__eval(E, lam->u.lambda.body) : NULL;
  E->env.len = mark;
  return v;
}

/* x.astype(dtype) on a run-time value: T.Cast(dtype, x), as on upstream's PrimExprs. */
static tl__val *astype(tl__elab *E, const tl__ast_expr *e, tl__val *x) {
  static const char *const names[] = {"dtype"};
  const tl__ast_expr *a[1];
  if (!tl__call_args(E, e, "astype", names, 1, 1, a)) return NULL;
  tl__val *dv = tl__eval(E, a[0]);
  tl_dtype dt;
  if (!dv || !tl__as_dtype(E, dv, POS(a[0]), &dt)) return NULL;
  tl_ir_expr *ex = tl__to_ir(E, x, POS(e->u.call.fn->u.attr.obj), NULL);
  if (!ex) return NULL;
  tl__elab_at(E, POS(e));
  return tl__val_expr(E, tl_ir_cast(E->mod, dt, ex));
}

static tl__val *eval_call(tl__elab *E, const tl__ast_expr *e) {
  if (e->u.call.fn->kind == AE_ATTR && strcmp(e->u.call.fn->u.attr.name, "astype") == 0) {
    tl__val *x = tl__eval(E, e->u.call.fn->u.attr.obj);
    if (!x) return NULL;
    if (x->kind == V_EXPR || x->kind == V_VAR) return astype(E, e, x);
  }
  tl__val *fn = tl__eval(E, e->u.call.fn);
  if (!fn) return NULL;
  switch ((tl__val_kind)fn->kind) {
    case V_LAMBDA: return call_lambda(E, e, fn->u.lambda);
    case V_FUNC: return tl__call_helper(E, e, fn);
    case V_DTYPE: return call_dtype(E, e, fn->u.dt);
    case V_BUILTIN: return call_builtin(E, e, fn);
    case V_OPAQUE:
      if (tl__py_func_known(fn->u.opaque)) return tl__py_func_call(E, e, fn->u.opaque);
      tl__elab_error(E, POS(e), "%s cannot be used in a kernel", fn->u.opaque);
      return NULL;
    default: tl__elab_error(E, POS(e), "%s is not callable", tl__val_describe(E, fn)); return NULL;
  }
}

static tl__val *attribute(tl__elab *E, const tl__ast_expr *e) {
  tl__val *obj = tl__eval(E, e->u.attr.obj);
  if (!obj) return NULL;
  const char *name = e->u.attr.name;
  tl__pos at = POS(e);
  switch ((tl__val_kind)obj->kind) {
    case V_MODULE:
      if (obj->u.mod.kind == MOD_LANG) {
        const tl__builtin_info *bi = tl__builtin_lang(name);
        if (bi) {
          tl__val *v = tl__val_new(E, V_BUILTIN);
          if (v) {
            v->u.bi.id = bi->id;
            v->u.bi.op = bi->op;
            v->u.bi.name = dotted(E, e);
          }
          return v;
        }
        tl_dtype dt;
        if (tl__dtype_from_name(name, &dt)) {
          tl__val *v = tl__val_new(E, V_DTYPE);
          if (v) v->u.dt = dt;
          return v;
        }
        tl__elab_error(E, at, "%s is not supported", dotted(E, e));
        return NULL;
      }
      if (obj->u.mod.kind == MOD_TILELANG) {
        if (strcmp(name, "language") == 0) {
          tl__val *v = tl__val_new(E, V_MODULE);
          if (v) {
            v->u.mod.kind = MOD_LANG;
            v->u.mod.name = dotted(E, e);
          }
          return v;
        }
        if (strcmp(name, "jit") == 0) {
          tl__val *v = tl__val_new(E, V_BUILTIN);
          if (v) {
            v->u.bi.id = BI_JIT;
            v->u.bi.op = -1;
            v->u.bi.name = dotted(E, e);
          }
          return v;
        }
        if (strcmp(name, "math") == 0 || strcmp(name, "tvm") == 0) {
          tl__val *v = tl__val_new(E, V_MODULE);
          if (v) {
            v->u.mod.kind = MOD_OTHER;
            v->u.mod.name = strcmp(name, "tvm") == 0 ? "tvm" : "tilelang.math";
          }
          return v;
        }
        /* tilelang.PassConfigKey, tilelang.autotune, tilelang.cdiv, ...: opaque
         * (tilelang.cdiv is evaluated on numbers, see elab_pyfuncs.c) */
      }
      /* Other modules: their members are opaque. */
      /* fallthrough */
    case V_OPAQUE: {
      /* Named by the qualified name when the object has one ("math.gcd" however
       * math was imported), so elab_pyfuncs.c can recognize it. */
      const char *base = obj->kind == V_MODULE ? (obj->u.mod.kind == MOD_TILELANG ? "tilelang" : obj->u.mod.name)
                                                : obj->u.opaque;
      bool qualified = base[0] != '\'' && !strchr(base, ' ');
      const char *text = dotted(E, e);
      if (qualified) {
        char *q = tl__format("%s.%s", base, name);
        if (!q) return tl__parse_oom(E->p), NULL;
        text = tl__arena_strdup(&E->p->arena, q);
        tl__free(q);
        if (!text) return tl__parse_oom(E->p), NULL;
        tl__val *c = tl__py_const(E, text);
        if (c) return c;
      }
      tl__val *v = tl__val_new(E, V_OPAQUE);
      if (v) v->u.opaque = text;
      return v;
    }
    case V_DTYPE:
      if (strcmp(name, "bits") == 0) return tl__val_int(E, obj->u.dt.bits);
      if (strcmp(name, "lanes") == 0) return tl__val_int(E, obj->u.dt.lanes);
      if (strcmp(name, "itemsize") == 0) return tl__val_int(E, (obj->u.dt.bits * obj->u.dt.lanes + 7) / 8);
      tl__elab_error(E, at, "dtype attribute '%s' is not supported (bits, lanes and itemsize are)", name);
      return NULL;
    case V_BUFFER: {
      tl_ir_buffer *b = obj->u.buf;
      if (strcmp(name, "shape") == 0) {
        tl__val *v = tl__val_new(E, V_TUPLE);
        tl__val **items = v ? tl__parse_alloc(E->p, sizeof *items * (b->ndim ? b->ndim : 1)) : NULL;
        if (!items) return NULL;
        for (uint32_t i = 0; i < b->ndim; i++) {
          tl_ir_expr *d = b->shape[i];
          items[i] = d->kind == TL_EXPR_INT ? tl__val_int(E, d->u.int_value) : tl__val_expr(E, d);
          if (!items[i]) return NULL;
        }
        v->u.tup.n = b->ndim;
        v->u.tup.items = items;
        return v;
      }
      if (strcmp(name, "dtype") == 0) {
        tl__val *v = tl__val_new(E, V_DTYPE);
        if (v) v->u.dt = b->dtype;
        return v;
      }
      if (strcmp(name, "ndim") == 0) return tl__val_int(E, b->ndim);
      tl__elab_error(E, at, "buffer attribute '%s' is not supported (shape, dtype and ndim are)", name);
      return NULL;
    }
    case V_EXPR: case V_VAR: /* x.dtype of a run-time value, as on a PrimExpr */
      if (strcmp(name, "dtype") == 0) {
        tl__val *v = tl__val_new(E, V_DTYPE);
        if (v) v->u.dt = obj->kind == V_EXPR ? obj->u.e->dtype : obj->u.var->dtype;
        return v;
      }
      tl__elab_error(E, at, "%s has no attribute '%s' in the supported subset", tl__val_describe(E, obj), name);
      return NULL;
    case V_BUILTIN:
      if (obj->u.bi.id == BI_WARP_POLICY) {
        /* T.GemmWarpPolicy.Square: a hint, kept as its member's name */
        static const char *const members[] = TL__GEMM_POLICY_NAMES;
        for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
          if (strcmp(name, members[i]) == 0) {
            tl__val *v = tl__val_new(E, V_STR);
            if (v) {
              v->u.str.s = members[i];
              v->u.str.n = strlen(members[i]);
            }
            return v;
          }
        tl__elab_error(E, at, "T.GemmWarpPolicy has no member '%s' (Square, FullRow and FullCol)", name);
        return NULL;
      }
      /* fallthrough */
    default:
      tl__elab_error(E, at, "%s has no attribute '%s' in the supported subset", tl__val_describe(E, obj), name);
      return NULL;
  }
}

/* buffer[i, j] as a value: a load. Slices are only for tile-op arguments. */
static tl__val *subscript(tl__elab *E, const tl__ast_expr *e) {
  tl__val *obj = tl__eval(E, e->u.sub.obj);
  if (!obj) return NULL;
  const tl__ast_expr *idx = e->u.sub.index;
  uint32_t n = idx->kind == AE_TUPLE ? idx->u.seq.n : 1;
  const tl__ast_expr *const *items = idx->kind == AE_TUPLE ? (const tl__ast_expr *const *)idx->u.seq.items : &idx;
  if (obj->kind == V_BUFFER) {
    tl_ir_buffer *b = obj->u.buf;
    for (uint32_t i = 0; i < n; i++)
      if (items[i]->kind == AE_SLICE) {
        tl__elab_error(E, POS(items[i]), "a buffer slice (%s[a:b]) is only allowed as an argument of a tile operation such as T.copy",
                 b->name);
        return NULL;
      }
    if (n != b->ndim) {
      tl__elab_error(E, POS(e), "buffer '%s' has %u dimension%s but %u ind%s given", b->name, b->ndim, b->ndim == 1 ? "" : "s", n,
               n == 1 ? "ex was" : "ices were");
      return NULL;
    }
    tl_ir_expr **ix = tl__parse_alloc(E->p, sizeof *ix * n);
    if (!ix) return NULL;
    for (uint32_t i = 0; i < n; i++) {
      tl__val *v = tl__eval(E, items[i]);
      if (!v || !(ix[i] = tl__to_index(E, v, POS(items[i]), "a buffer index"))) return NULL;
    }
    tl__elab_at(E, POS(e));
    return tl__val_expr(E, tl_ir_load(E->mod, b, n, ix));
  }
  if (obj->kind == V_TUPLE) {
    if (n != 1 || items[0]->kind == AE_SLICE) {
      tl__elab_error(E, POS(idx), "a tuple takes one integer index");
      return NULL;
    }
    tl__val *v = tl__eval(E, items[0]);
    int64_t k;
    if (!v || !tl__as_int(E, v, POS(items[0]), "a tuple index", &k)) return NULL;
    int64_t len = obj->u.tup.n;
    if (k < 0) k += len;
    if (k < 0 || k >= len) {
      tl__elab_error(E, POS(items[0]), "tuple index out of range");
      return NULL;
    }
    return obj->u.tup.items[k];
  }
  if (obj->kind == V_VARSLOT) {
    tl__elab_error(E, POS(e), "'%s' is a T.alloc_var scalar: use it without an index", obj->u.buf->name);
    return NULL;
  }
  if (obj->kind == V_BUILTIN && (obj->u.bi.id == BI_TENSOR || obj->u.bi.id == BI_BUFFER)) {
    tl__elab_error(E, POS(e), "%s is only allowed as an annotation (a parameter's type)", obj->u.bi.name);
    return NULL;
  }
  tl__elab_error(E, POS(e), "%s cannot be indexed", tl__val_describe(E, obj));
  return NULL;
}

static tl__val *unary(tl__elab *E, const tl__ast_expr *e) {
  tl__val *a = tl__eval(E, e->u.un.a);
  if (!a) return NULL;
  tl__ast_op op = (tl__ast_op)e->op;
  if (tl__val_is_py(a)) return tl__py_unop(E, POS(e), op, a);
  tl__pos at = POS(e);
  if (op == AOP_NOT) {
    tl_ir_expr *c = tl__to_cond(E, a, at);
    if (!c) return NULL;
    tl__elab_at(E, at);
    return tl__val_expr(E, tl_ir_unary(E->mod, TL_UN_NOT, c));
  }
  tl_ir_expr *x = tl__to_ir(E, a, at, NULL);
  if (!x) return NULL;
  char dt[32];
  if (tl_dtype_is_bool(x->dtype) || x->dtype.code == TL_DTYPE_HANDLE) {
    tl__elab_error(E, at, "unary '%s' on a %s value is not supported", tl__ast_op_str(op), tl_dtype_name(x->dtype, dt, sizeof dt));
    return NULL;
  }
  if (op == AOP_POS) return tl__val_expr(E, x);
  tl__elab_at(E, at);
  if (op == AOP_INVERT) {
    if (!tl_dtype_is_int(x->dtype)) {
      tl__elab_error(E, at, "'~' needs an integer operand, got %s", tl_dtype_name(x->dtype, dt, sizeof dt));
      return NULL;
    }
    return tl__val_expr(E, tl_ir_unary(E->mod, TL_UN_BITNOT, x));
  }
  /* -T.infinity(dt) is the constant -inf. */
  if (x->kind == TL_EXPR_FLOAT && isinf(x->u.float_value) && x->u.float_value > 0)
    return tl__val_expr(E, tl_ir_float(E->mod, x->dtype, -INFINITY));
  return tl__val_expr(E, tl_ir_unary(E->mod, TL_UN_NEG, x));
}

static tl__val *boolop(tl__elab *E, const tl__ast_expr *e) {
  bool is_and = e->op == AOP_AND;
  tl__val *a = tl__eval(E, e->u.bin.a);
  if (!a) return NULL;
  if (tl__val_is_py(a)) {
    /* Python's short circuit: the result is an operand. */
    if (tl__py_truth(a) != is_and) return a;
    return tl__eval(E, e->u.bin.b);
  }
  tl__val *b = tl__eval(E, e->u.bin.b);
  if (!b) return NULL;
  if (tl__val_is_py(b)) {
    /* x and True == x; x and False == False (x has no side effects). */
    if (tl__py_truth(b) == is_and) return tl__val_expr(E, tl__to_cond(E, a, POS(e->u.bin.a)));
    return tl__val_bool(E, !is_and);
  }
  tl_ir_expr *ca = tl__to_cond(E, a, POS(e->u.bin.a));
  tl_ir_expr *cb = ca ? tl__to_cond(E, b, POS(e->u.bin.b)) : NULL;
  if (!cb) return NULL;
  tl__elab_at(E, POS(e));
  return tl__val_expr(E, tl_ir_binary(E->mod, is_and ? TL_BIN_AND : TL_BIN_OR, ca, cb));
}

/* a < b < c is (a < b) and (b < c), with b evaluated once. */
static tl__val *compare(tl__elab *E, const tl__ast_expr *e) {
  tl__val *left = tl__eval(E, e->u.cmp.operands[0]);
  if (!left) return NULL;
  tl__val *acc = NULL;
  for (uint32_t i = 0; i < e->u.cmp.n; i++) {
    tl__val *right = tl__eval(E, e->u.cmp.operands[i + 1]);
    if (!right) return NULL;
    tl__val *r = tl__binop(E, e, (tl__ast_op)e->u.cmp.ops[i], left, right);
    if (!r) return NULL;
    if (!acc) {
      acc = r;
    } else if (tl__val_is_py(acc)) {
      if (!tl__py_truth(acc)) return acc;
      acc = r;
    } else if (tl__val_is_py(r)) {
      if (!tl__py_truth(r)) return r;
    } else {
      tl__elab_at(E, POS(e));
      acc = tl__val_expr(E, tl_ir_binary(E->mod, TL_BIN_AND, acc->u.e, r->u.e));
      if (!acc) return NULL;
    }
    if (tl__val_is_py(acc) && !tl__py_truth(acc)) return acc;
    left = right;
  }
  return acc;
}

static tl__val *ifexp(tl__elab *E, const tl__ast_expr *e) {
  tl__val *c = tl__eval(E, e->u.ifexp.cond);
  if (!c) return NULL;
  if (tl__val_is_py(c)) return tl__eval(E, tl__py_truth(c) ? e->u.ifexp.t : e->u.ifexp.f);
  tl_ir_expr *ec = tl__to_cond(E, c, POS(e->u.ifexp.cond));
  tl__val *x = ec ? tl__eval(E, e->u.ifexp.t) : NULL, *y = x ? tl__eval(E, e->u.ifexp.f) : NULL;
  tl_ir_expr *ex, *ey;
  if (!y || !two_operands(E, e, x, y, &ex, &ey)) return NULL;
  tl__elab_at(E, POS(e));
  return tl__val_expr(E, tl_ir_select(E->mod, ec, ex, ey));
}

static tl__val *name(tl__elab *E, const tl__ast_expr *e) {
  tl__binding *b = tl__lookup(E, e->u.name);
  if (b) return b->v;
  const tl__builtin_info *bi = tl__builtin_python(e->u.name);
  if (bi) {
    tl__val *v = tl__val_new(E, V_BUILTIN);
    if (v) {
      v->u.bi.id = bi->id;
      v->u.bi.op = bi->op;
      v->u.bi.name = bi->name;
    }
    return v;
  }
  if (E->star_lang) {
    bi = tl__builtin_lang(e->u.name);
    tl_dtype dt;
    if (bi) {
      tl__val *v = tl__val_new(E, V_BUILTIN);
      if (v) {
        v->u.bi.id = bi->id;
        v->u.bi.op = bi->op;
        v->u.bi.name = e->u.name;
      }
      return v;
    }
    if (tl__dtype_from_name(e->u.name, &dt)) {
      tl__val *v = tl__val_new(E, V_DTYPE);
      if (v) v->u.dt = dt;
      return v;
    }
  }
  if (tl__py_builtin_name(e->u.name)) {
    tl__val *v = tl__val_new(E, V_OPAQUE);
    char *d = tl__format("Python's builtin '%s' (not evaluated by the front end)", e->u.name);
    if (!d) return tl__parse_oom(E->p), NULL;
    if (v) v->u.opaque = tl__arena_strdup(&E->p->arena, d);
    tl__free(d);
    if (v && !v->u.opaque) return tl__parse_oom(E->p), NULL;
    return v;
  }
  if (E->star_module) {
    /* maybe a member of the module imported with `import *` */
    tl__val *v = tl__val_new(E, V_OPAQUE);
    char *d = tl__format("'%s' (from `from %s import *`, or not defined)", e->u.name, E->star_module);
    if (!d) return tl__parse_oom(E->p), NULL;
    if (v) v->u.opaque = tl__arena_strdup(&E->p->arena, d);
    tl__free(d);
    if (v && !v->u.opaque) return tl__parse_oom(E->p), NULL;
    return v;
  }
  tl__elab_error(E, POS(e), "name '%s' is not defined", e->u.name);
  return NULL;
}

tl__val *tl__try_eval(tl__elab *E, const tl__ast_expr *e, const char **why) {
  if (why) *why = NULL;
  tl__val *v = tl__eval(E, e);
  if (v || E->p->status != TL_EINVAL) return v;
  /* A name nothing defines is Python's NameError: an error wherever it is. */
  const char *msg = tl_last_error();
  const char *ne = strstr(msg, ": name '");
  const char *nl0 = strchr(msg, '\n');
  if (ne && (!nl0 || ne < nl0) && strstr(ne, "' is not defined") && (!nl0 || strstr(ne, "' is not defined") < nl0))
    return NULL;
  if (why) {
    const char *m = tl_last_error();
    for (int colons = 0; *m && colons < 3; m++)
      if (*m == ':') colons++;
    while (*m == ' ') m++;
    const char *nl = strchr(m, '\n');
    *why = tl__pstrndup(E->p, m, nl ? (size_t)(nl - m) : strlen(m));
    if (!*why) return NULL;
  }
  E->p->status = TL_OK;
  return NULL;
}

tl__val *tl__eval(tl__elab *E, const tl__ast_expr *e) {
  if (E->p->status != TL_OK) return NULL;
  tl__val *v;
  switch ((tl__ast_ekind)e->kind) {
    case AE_INT: return tl__val_int(E, e->u.i);
    case AE_FLOAT: return tl__val_float(E, e->u.f);
    case AE_BOOL: return tl__val_bool(E, e->u.b);
    case AE_NONE: return tl__val_new(E, V_NONE);
    case AE_STR:
      if (e->u.str.f) {
        tl__elab_error(E, POS(e), "f-strings are not supported");
        return NULL;
      }
      v = tl__val_new(E, V_STR);
      if (v) {
        v->u.str.s = e->u.str.s;
        v->u.str.n = e->u.str.n;
      }
      return v;
    case AE_NAME: return name(E, e);
    case AE_ATTR: return attribute(E, e);
    case AE_CALL: return eval_call(E, e);
    case AE_SUBSCRIPT: return subscript(E, e);
    case AE_SLICE:
      tl__elab_error(E, POS(e), "a slice is only allowed in a buffer region of a tile operation");
      return NULL;
    case AE_TUPLE: case AE_LIST: {
      v = tl__val_new(E, V_TUPLE);
      if (!v) return NULL;
      v->u.tup.n = e->u.seq.n;
      v->u.tup.items = e->u.seq.n ? tl__parse_alloc(E->p, sizeof *v->u.tup.items * e->u.seq.n) : NULL;
      if (e->u.seq.n && !v->u.tup.items) return NULL;
      for (uint32_t i = 0; i < e->u.seq.n; i++)
        if (!(v->u.tup.items[i] = tl__eval(E, e->u.seq.items[i]))) return NULL;
      return v;
    }
    case AE_DICT:
      tl__elab_error(E, POS(e), "dictionaries are not supported here");
      return NULL;
    case AE_BINOP: {
      tl__val *a = tl__eval(E, e->u.bin.a);
      tl__val *b = a ? tl__eval(E, e->u.bin.b) : NULL;
      return b ? tl__binop(E, e, (tl__ast_op)e->op, a, b) : NULL;
    }
    case AE_UNOP: return unary(E, e);
    case AE_BOOLOP: return boolop(E, e);
    case AE_COMPARE: return compare(E, e);
    case AE_IFEXP: return ifexp(E, e);
    case AE_COMP: return tl__eval_comp(E, e);
    case AE_LAMBDA:
      v = tl__val_new(E, V_LAMBDA);
      if (v) v->u.lambda = e;
      return v;
  }
  tl__elab_error(E, POS(e), "unsupported expression");
  return NULL;
}
