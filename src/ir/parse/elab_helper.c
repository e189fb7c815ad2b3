/* Helper functions of the file: a plain `def` that is neither a kernel nor a
 * factory, and a @T.macro, defined at the top level, in a factory or in a kernel.
 * Upstream runs a plain helper as Python when the kernel is traced (it builds and
 * returns expressions) and expands a macro's body where it is called; both come
 * to inlining the body at the call site, with the parameters bound to the
 * caller's values by reference (buffers, IR expressions, compile-time values).
 *
 * Two modes. Called inside an expression (or from factory or module code), the
 * body only computes values: assignments bind names to values (an IR expression
 * is substituted where the name is used, as the Python variable holds the
 * expression), if/for run on compile-time values, `return` gives the result.
 * Called as a statement in a kernel, or as the whole value of an assignment, the
 * body is elaborated like kernel code in its own scope (elab_stmt.c) and may
 * build statements (tile operations, loops, stores); its `return` value (None
 * when absent) is the call's value.
 *
 * Names in the body resolve lexically: the helper's own bindings, then those
 * visible where it was defined (the module's for a top-level helper), never the
 * caller's locals. Errors in the body are located there, with a note naming the
 * call site. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "elab.h"

#define HELPER_MAX_ITERATIONS 100000 /* loop iterations of one helper call, in value mode */

static const char *kind_name(const tl__val *fn) { return fn->u.fn.macro ? "macro" : "helper function"; }

tl__val *tl__helper_value(tl__elab *E, const tl__ast_stmt *def, size_t visible) {
  bool macro = false;
  for (uint32_t i = 0; i < def->u.def.ndeco; i++) {
    const tl__ast_expr *x = def->u.def.decos[i];
    const tl__ast_expr *callee = x->kind == AE_CALL ? x->u.call.fn : x;
    /* Other decorators (functools.lru_cache, a user's wrapper) are taken to
     * return the function itself. */
    tl__val *v = tl__try_eval(E, callee, NULL);
    if (!v && E->p->status != TL_OK) return NULL;
    if (v && v->kind == V_BUILTIN && v->u.bi.id == BI_MACRO) macro = true;
  }
  tl__val *v = tl__val_new(E, V_FUNC);
  if (v) {
    v->u.fn.def = def;
    v->u.fn.visible = visible;
    v->u.fn.macro = macro;
  }
  return v;
}

/* ------------------------------------------------------------------ frames */

static bool frame_push(tl__elab *E, tl__frame *f, const tl__val *fn, const tl__ast_expr *call, bool stmts) {
  if (E->frame_depth >= TL__MAX_HELPER_DEPTH) {
    tl__elab_error(E, POS(call), "helper calls nest more than %d deep (a recursive helper is not supported)",
                   TL__MAX_HELPER_DEPTH);
    return false;
  }
  memset(f, 0, sizeof *f);
  f->def = fn->u.fn.def;
  f->call = POS(call);
  f->env_start = E->env.len;
  size_t vis = fn->u.fn.visible;
  if (vis == TL__VISIBLE_MODULE) vis = E->module_done ? E->module_len : E->env.len;
  f->outer_visible = vis < E->env.len ? vis : E->env.len;
  f->fn = E->fn;
  f->stmts = stmts;
  f->macro = fn->u.fn.macro;
  f->prev = E->frame;
  E->frame = f;
  E->frame_depth++;
  return true;
}

/* Drops the helper's bindings; after an error in its body, notes the call site. */
static void frame_pop(tl__elab *E, tl__frame *f, const tl__val *fn) {
  /* Kernels the helper made (factory code) and did not return die with it. */
  for (size_t i = f->env_start; i < E->env.len; i++) {
    tl__binding *b = tl__vec_at(&E->env, i);
    if (b->v->kind != V_PRIMFUNC || (f->ret && f->ret->kind == V_PRIMFUNC && f->ret->u.pf == b->v->u.pf)) continue;
    tl__prim_func_free(b->v->u.pf);
    b->v->u.pf = NULL;
    b->v->kind = V_NONE;
  }
  E->env.len = f->env_start;
  E->frame = f->prev;
  E->frame_depth--;
  tl__parse_note(E->p, f->call.line, f->call.col, "in %s '%s', called here", kind_name(fn), f->def->u.def.name);
}

/* ------------------------------------------------------------------ arguments */

/* The call's arguments, evaluated in the caller's scope, matched to the
 * parameters: vals[i] for parameter i (NULL where the default applies). *args
 * collects extra positional arguments into a tuple. */
static bool eval_args(tl__elab *E, const tl__ast_expr *call, const tl__val *fn, tl__val **vals) {
  const tl__ast_stmt *def = fn->u.fn.def;
  uint32_t n = def->u.def.nparams;
  const char *fname = def->u.def.name;
  int varargs = -1;
  uint32_t npos = 0; /* positional parameters */
  for (uint32_t i = 0; i < n; i++) {
    const tl__ast_param *p = &def->u.def.params[i];
    if (p->star == TL__PARAM_VARARGS) varargs = (int)i;
    else if (p->star == TL__PARAM_PLAIN && !p->kwonly) npos++;
  }
  uint32_t nargs = call->u.call.nargs;
  if (nargs > npos && varargs < 0) {
    tl__elab_error(E, POS(call), "%s '%s' takes %u positional argument%s but %u were given", kind_name(fn), fname, npos,
                   npos == 1 ? "" : "s", nargs);
    return false;
  }
  for (uint32_t a = 0, i = 0; a < nargs && a < npos; a++, i++) {
    while (def->u.def.params[i].star != TL__PARAM_PLAIN) i++;
    if (!(vals[i] = tl__eval(E, call->u.call.args[a]))) return false;
  }
  if (varargs >= 0) {
    uint32_t extra = nargs > npos ? nargs - npos : 0;
    tl__val *t = tl__val_new(E, V_TUPLE);
    if (!t) return false;
    t->u.tup.n = extra;
    t->u.tup.items = extra ? tl__parse_alloc(E->p, extra * sizeof *t->u.tup.items) : NULL;
    if (extra && !t->u.tup.items) return false;
    for (uint32_t k = 0; k < extra; k++)
      if (!(t->u.tup.items[k] = tl__eval(E, call->u.call.args[npos + k]))) return false;
    vals[varargs] = t;
  }
  for (uint32_t k = 0; k < call->u.call.nkw; k++) {
    const char *kw = call->u.call.kwnames[k];
    uint32_t i = 0;
    while (i < n && !(def->u.def.params[i].star == TL__PARAM_PLAIN && strcmp(def->u.def.params[i].name, kw) == 0)) i++;
    if (i == n) {
      tl__elab_error(E, POS(call->u.call.kwvals[k]), "%s '%s' got an unexpected keyword argument '%s'%s", kind_name(fn),
                     fname, kw ? kw : "**", kw ? "" : " (** in a call is not supported)");
      return false;
    }
    if (vals[i]) {
      tl__elab_error(E, POS(call->u.call.kwvals[k]), "%s '%s' got multiple values for argument '%s'", kind_name(fn),
                     fname, kw);
      return false;
    }
    if (!(vals[i] = tl__eval(E, call->u.call.kwvals[k]))) return false;
  }
  return true;
}

/* Binds the parameters (in the helper's frame): arguments, else defaults. */
static bool bind_params(tl__elab *E, const tl__ast_expr *call, const tl__val *fn, tl__val **vals) {
  const tl__ast_stmt *def = fn->u.fn.def;
  for (uint32_t i = 0; i < def->u.def.nparams; i++) {
    const tl__ast_param *p = &def->u.def.params[i];
    tl__val *v = vals[i];
    if (!v && p->star == TL__PARAM_VARKW) {
      v = tl__val_new(E, V_OPAQUE);
      if (v) v->u.opaque = "the **kwargs of a helper (not supported)";
    } else if (!v && p->dflt) {
      v = tl__eval(E, p->dflt);
    } else if (!v) {
      tl__elab_error(E, POS(call), "%s '%s' missing required argument '%s'", kind_name(fn), def->u.def.name, p->name);
      return false;
    }
    if (!v || !tl__bind(E, p->name, v, B_VALUE, p->line, p->col)) return false;
  }
  return true;
}

static tl__val **new_vals(tl__elab *E, const tl__val *fn) {
  uint32_t n = fn->u.fn.def->u.def.nparams;
  tl__val **vals = tl__parse_alloc(E->p, (n ? n : 1) * sizeof *vals);
  return vals;
}

/* ------------------------------------------------------------------ value mode */

static bool needs_statements(tl__elab *E, const tl__frame *f, tl__pos at, const char *what) {
  tl__elab_error(E, at,
                 "%s '%s' %s, so it can be called only as a statement in a kernel or as the whole value of an "
                 "assignment there",
                 f->macro ? "macro" : "helper function", f->def->u.def.name, what);
  return false;
}

static bool value_assign(tl__elab *E, const tl__frame *f, const tl__ast_expr *t, tl__val *v) {
  if (t->kind == AE_NAME) return tl__bind(E, t->u.name, v, B_VALUE, t->line, t->col);
  if (t->kind == AE_TUPLE || t->kind == AE_LIST) {
    if (v->kind != V_TUPLE || v->u.tup.n != t->u.seq.n) {
      tl__elab_error(E, POS(t), "cannot unpack %s into %u names", tl__val_describe(E, v), t->u.seq.n);
      return false;
    }
    for (uint32_t i = 0; i < t->u.seq.n; i++)
      if (!value_assign(E, f, t->u.seq.items[i], v->u.tup.items[i])) return false;
    return true;
  }
  return needs_statements(E, f, POS(t), "stores into a buffer or an attribute");
}

static bool value_block(tl__elab *E, tl__frame *f, const tl__ast_block *b, uint64_t *iters);

static bool value_for(tl__elab *E, tl__frame *f, const tl__ast_stmt *s, uint64_t *iters) {
  const tl__ast_expr *it = s->u.for_.iter;
  int64_t lo = 0, hi = 0, step = 1;
  tl__val *seq = NULL;
  bool is_range = it->kind == AE_CALL && it->u.call.fn->kind == AE_NAME && strcmp(it->u.call.fn->u.name, "range") == 0 &&
                  !tl__lookup(E, "range") && it->u.call.nkw == 0 && it->u.call.nargs >= 1 && it->u.call.nargs <= 3;
  if (is_range) {
    int64_t v[3];
    for (uint32_t i = 0; i < it->u.call.nargs; i++) {
      tl__val *x = tl__eval(E, it->u.call.args[i]);
      if (!x) return false;
      if (!tl__val_is_py(x)) return needs_statements(E, f, POS(it->u.call.args[i]), "loops over a run-time range");
      if (!tl__as_int(E, x, POS(it->u.call.args[i]), "a range() bound", &v[i])) return false;
    }
    if (it->u.call.nargs == 1) hi = v[0];
    else lo = v[0], hi = v[1];
    if (it->u.call.nargs == 3) step = v[2];
    if (step == 0) {
      tl__elab_error(E, POS(it), "range() arg 3 must not be zero");
      return false;
    }
  } else {
    const tl__ast_expr *fnx = it->kind == AE_CALL ? it->u.call.fn : NULL;
    tl__val *fv = fnx && (fnx->kind == AE_NAME || fnx->kind == AE_ATTR) ? tl__eval(E, fnx) : NULL;
    if (E->p->status != TL_OK) return false;
    if (fv && fv->kind == V_BUILTIN) return needs_statements(E, f, POS(s), "has a kernel loop");
    if (!(seq = tl__eval(E, it))) return false;
    if (seq->kind != V_TUPLE) {
      tl__elab_error(E, POS(it), "a loop in a helper runs over a compile-time sequence (a tuple, a list, range()) "
                     "or a kernel loop (T.serial, T.Parallel, ...), not %s", tl__val_describe(E, seq));
      return false;
    }
  }
  uint64_t n = is_range ? (step > 0 ? (hi > lo ? (uint64_t)((hi - lo + step - 1) / step) : 0)
                                    : (lo > hi ? (uint64_t)((lo - hi - step - 1) / -step) : 0))
                        : seq->u.tup.n;
  if (n > HELPER_MAX_ITERATIONS || *iters + n > HELPER_MAX_ITERATIONS) {
    tl__elab_error(E, POS(it), "loops in this helper call would run more than %d times", HELPER_MAX_ITERATIONS);
    return false;
  }
  *iters += n;
  for (uint64_t i = 0; i < n && !f->returned; i++) {
    tl__val *x = is_range ? tl__val_int(E, lo + (int64_t)i * step) : seq->u.tup.items[i];
    if (!x || !value_assign(E, f, s->u.for_.target, x)) return false;
    if (!value_block(E, f, &s->u.for_.body, iters)) return false;
    int ctl = E->loop_ctl;
    E->loop_ctl = TL__LOOP_NONE;
    if (ctl == TL__LOOP_BREAK) break;
  }
  return true;
}

static bool value_while(tl__elab *E, tl__frame *f, const tl__ast_stmt *s, uint64_t *iters) {
  while (!f->returned) {
    tl__val *c = tl__eval(E, s->u.if_.cond);
    if (!c) return false;
    if (!tl__val_is_py(c)) return needs_statements(E, f, POS(s->u.if_.cond), "loops while a run-time condition holds");
    if (!tl__py_truth(c)) break;
    if (++*iters > HELPER_MAX_ITERATIONS) {
      tl__elab_error(E, POS(s), "loops in this helper call would run more than %d times", HELPER_MAX_ITERATIONS);
      return false;
    }
    if (!value_block(E, f, &s->u.if_.body, iters)) return false;
    int ctl = E->loop_ctl;
    E->loop_ctl = TL__LOOP_NONE;
    if (ctl == TL__LOOP_BREAK) break;
  }
  return true;
}

static bool value_stmt(tl__elab *E, tl__frame *f, const tl__ast_stmt *s, uint64_t *iters) {
  switch ((tl__ast_skind)s->kind) {
    case AS_PASS: return true;
    case AS_ASSERT: return tl__elab_assert(E, s);
    case AS_RAISE: return tl__elab_raise(E, s);
    case AS_IMPORT: case AS_FROM: return tl__elab_import_stmt(E, s);
    case AS_EXPR: {
      const tl__ast_expr *e = s->u.expr.e;
      if (e->kind == AE_STR) return true; /* a docstring */
      const tl__ast_expr *fnx = e->kind == AE_CALL ? e->u.call.fn : NULL;
      tl__val *fv = fnx ? tl__try_eval(E, fnx, NULL) : NULL;
      if (!fv && E->p->status != TL_OK) return false;
      /* A call of another library (print(...)) is script code: not run. */
      if (fnx && (!fv || fv->kind == V_OPAQUE || fv->kind == V_MODULE)) return true;
      if (fv && fv->kind == V_BUILTIN) return needs_statements(E, f, POS(e), "uses a statement of the kernel language");
      return tl__eval(E, e) != NULL;
    }
    case AS_ASSIGN: case AS_ANNASSIGN: {
      if (!s->u.assign.value) return true; /* `x: int` declares nothing at run time */
      tl__val *v = tl__eval(E, s->u.assign.value);
      return v && value_assign(E, f, s->u.assign.target, v);
    }
    case AS_AUGASSIGN: {
      const tl__ast_expr *t = s->u.assign.target;
      if (t->kind != AE_NAME) return needs_statements(E, f, POS(t), "updates a buffer element");
      tl__val *cur = tl__eval(E, t);
      tl__val *rhs = cur ? tl__eval(E, s->u.assign.value) : NULL;
      tl__val *v = rhs ? tl__binop(E, t, (tl__ast_op)s->op, cur, rhs) : NULL;
      return v && tl__bind(E, t->u.name, v, B_VALUE, t->line, t->col);
    }
    case AS_IF: {
      tl__val *c = tl__eval(E, s->u.if_.cond);
      if (!c) return false;
      if (!tl__val_is_py(c))
        return needs_statements(E, f, POS(s->u.if_.cond), "branches on a run-time condition (T.if_then_else is the "
                                "expression form)");
      return value_block(E, f, tl__py_truth(c) ? &s->u.if_.body : &s->u.if_.orelse, iters);
    }
    case AS_FOR: return value_for(E, f, s, iters);
    case AS_WHILE: return value_while(E, f, s, iters);
    case AS_BREAK: case AS_CONTINUE:
      E->loop_ctl = s->kind == AS_BREAK ? TL__LOOP_BREAK : TL__LOOP_CONTINUE;
      return true;
    case AS_RETURN:
      f->ret = s->u.ret.value ? tl__eval(E, s->u.ret.value) : tl__val_new(E, V_NONE);
      f->returned = true;
      return f->ret != NULL;
    case AS_DEF: {
      /* A kernel defined by a helper that a factory calls (upstream's
       * `def kernel_func(block_M, ...)` returning its @T.prim_func). */
      if (tl__is_prim_func_def(E, s)) {
        if (E->fn && E->fn->kind == FK_FACTORY) return tl__nested_prim_func(E, s);
        tl__elab_error(E, POS(s), "a @T.prim_func can be defined in a helper only when a factory calls it");
        return false;
      }
      if (E->p->status != TL_OK) return false;
      tl__val *v = tl__helper_value(E, s, E->env.len + 1);
      return v && tl__bind(E, s->u.def.name, v, B_VALUE, s->line, s->col);
    }
    case AS_WITH: return needs_statements(E, f, POS(s), "opens a 'with' block");
    case AS_OPAQUE: break;
  }
  tl__elab_error(E, POS(s), "this statement is not supported in a helper function");
  return false;
}

static bool value_block(tl__elab *E, tl__frame *f, const tl__ast_block *b, uint64_t *iters) {
  for (uint32_t i = 0; i < b->n && !f->returned && !E->loop_ctl; i++)
    if (!value_stmt(E, f, b->stmts[i], iters)) return false;
  return true;
}

tl__val *tl__call_helper(tl__elab *E, const tl__ast_expr *call, const tl__val *fn) {
  tl__val **vals = new_vals(E, fn);
  if (!vals || !eval_args(E, call, fn, vals)) return NULL;
  tl__frame f;
  if (!frame_push(E, &f, fn, call, false)) return NULL;
  uint64_t iters = 0;
  bool ok = bind_params(E, call, fn, vals) && value_block(E, &f, &fn->u.fn.def->u.def.body, &iters);
  tl__val *ret = ok ? (f.ret ? f.ret : tl__val_new(E, V_NONE)) : NULL;
  frame_pop(E, &f, fn);
  return ret;
}

/* ------------------------------------------------------------------ statement mode */

bool tl__helper_enter(tl__elab *E, const tl__ast_expr *call, const tl__val *fn, tl__frame *f) {
  tl__val **vals = new_vals(E, fn);
  if (!vals || !eval_args(E, call, fn, vals)) return false;
  if (!frame_push(E, f, fn, call, true)) return false;
  bool ok = true;
  if (++E->fn->depth > TL__PARSE_MAX_BLOCK_DEPTH + 4) {
    tl__elab_error(E, POS(call), "too many nested blocks");
    ok = false;
  }
  f->depth = E->fn->depth;
  if (ok) ok = bind_params(E, call, fn, vals);
  if (!ok) tl__helper_leave(E, f, fn);
  return ok;
}

void tl__helper_leave(tl__elab *E, tl__frame *f, const tl__val *fn) {
  E->fn->depth--;
  frame_pop(E, f, fn);
}
