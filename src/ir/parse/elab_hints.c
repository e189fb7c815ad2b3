/* Hints: what a TileLang program tells upstream's compiler about scheduling (the
 * warp policy of a gemm, block rasterization, layouts, TMA, register allocation,
 * L2 persistence). A hint never changes what a kernel computes, so a valid
 * program is never refused for one: where this implementation has no path the
 * hint is about yet, it is accepted and recorded on the function as the attribute
 * "tl.hint.<name>" with the arguments as written ("line 12: panel_size=10,
 * enable=True"), which the printer shows as T.func_attr({...}) and goldens keep.
 * docs/frontend.md lists each hint and what it does here. T.func_attr({...}) sets
 * attributes directly. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/str.h"
#include "elab.h"

/* A value as a short text for a hint's record (Python values as Python writes
 * them, buffers by name). */
static void describe(tl__elab *E, const tl__val *v, tl__sb *sb) {
  char dt[32];
  switch ((tl__val_kind)v->kind) {
    case V_NONE: tl__sb_append(sb, "None"); return;
    case V_BOOL: tl__sb_append(sb, v->u.b ? "True" : "False"); return;
    case V_INT: tl__sb_appendf(sb, "%lld", (long long)v->u.i); return;
    case V_FLOAT: tl__sb_appendf(sb, "%.17g", v->u.f); return;
    case V_STR: tl__sb_appendf(sb, "'%.*s'", (int)v->u.str.n, v->u.str.s); return;
    case V_DTYPE: tl__sb_append(sb, tl_dtype_name(v->u.dt, dt, sizeof dt)); return;
    case V_TUPLE:
      tl__sb_putc(sb, '(');
      for (uint32_t i = 0; i < v->u.tup.n; i++) {
        if (i) tl__sb_append(sb, ", ");
        describe(E, v->u.tup.items[i], sb);
      }
      tl__sb_append(sb, v->u.tup.n == 1 ? ",)" : ")");
      return;
    case V_BUFFER: case V_VARSLOT: tl__sb_append(sb, v->u.buf->name); return;
    case V_BUILTIN: tl__sb_append(sb, v->u.bi.name); return;
    default: tl__sb_append(sb, "(a run-time value)"); return;
  }
}

/* An argument as text: its value when it evaluates, else "...". */
static bool describe_arg(tl__elab *E, const tl__ast_expr *e, tl__sb *sb) {
  /* T.GemmWarpPolicy.X must name a member; other values (layouts of another
   * module, lambdas) need not evaluate */
  tl__val *obj = e->kind == AE_ATTR ? tl__try_eval(E, e->u.attr.obj, NULL) : NULL;
  if (obj && obj->kind == V_BUILTIN && obj->u.bi.id == BI_WARP_POLICY && !tl__eval(E, e)) return false;
  tl__val *v = e->kind == AE_LAMBDA ? NULL : tl__try_eval(E, e, NULL);
  if (!v && E->p->status != TL_OK) return false;
  if (v) describe(E, v, sb);
  else tl__sb_append(sb, e->kind == AE_LAMBDA ? "(a lambda)" : "(an expression)");
  return true;
}

bool tl__elab_hint(tl__elab *E, tl__pos at, const char *name, const char *text) {
  if (!E->fn || !E->fn->pf) {
    tl__elab_error(E, at, "%s is only allowed inside a kernel function", name);
    return false;
  }
  char *key = tl__format("tl.hint.%s", name);
  char *val = !key ? NULL : *text ? tl__format("line %u: %s", at.line, text) : tl__format("line %u", at.line);
  bool ok = false;
  if (!val) goto oom;
  tl__vec *attrs = &E->fn->pf->attrs;
  for (size_t i = 0; i < attrs->len; i++) {
    tl__fattr *a = tl__vec_at(attrs, i);
    if (a->is_int || strcmp(a->key, key) != 0) continue;
    char *both = tl__format("%s; %s", a->s, val);
    if (!both || !(a->s = tl__arena_strdup(&E->p->arena, both))) {
      tl__free(both);
      goto oom;
    }
    tl__free(both);
    ok = true;
    goto done;
  }
  tl__fattr a = {tl__arena_strdup(&E->p->arena, key), false, 0, tl__arena_strdup(&E->p->arena, val)};
  if (!a.key || !a.s || tl__vec_push(attrs, &a) != TL_OK) goto oom;
  ok = true;
  goto done;
oom:
  tl__parse_oom(E->p);
done:
  tl__free(key);
  tl__free(val);
  return ok;
}

/* Records a call's arguments (positional, then keyword) as hint `name`. */
static bool record_call(tl__elab *E, const tl__ast_expr *call, const char *name) {
  tl__sb sb = TL__SB_INIT;
  bool ok = true;
  for (uint32_t i = 0; ok && i < call->u.call.nargs; i++) {
    if (i) tl__sb_append(&sb, ", ");
    ok = describe_arg(E, call->u.call.args[i], &sb);
  }
  for (uint32_t i = 0; ok && i < call->u.call.nkw; i++) {
    if (i || call->u.call.nargs) tl__sb_append(&sb, ", ");
    tl__sb_appendf(&sb, "%s=", call->u.call.kwnames[i]);
    ok = describe_arg(E, call->u.call.kwvals[i], &sb);
  }
  if (ok && tl__sb_status(&sb) != TL_OK) ok = (tl__parse_oom(E->p), false);
  if (ok) ok = tl__elab_hint(E, POS(call), name, tl__sb_str(&sb));
  tl__sb_free(&sb);
  return ok;
}

/* T.annotate_layout({buf: layout, ...}): the buffers whose layout is given (the
 * layouts, often T.Layout(shape, lambda i, j: ...), are not evaluated). */
static bool annotate_layout(tl__elab *E, const tl__ast_expr *call, const char *spelled) {
  const tl__ast_expr *d = call->u.call.nargs == 1 && call->u.call.nkw == 0 ? call->u.call.args[0] : NULL;
  if (!d || d->kind != AE_DICT) {
    tl__elab_error(E, POS(call), "%s takes one dict from buffers to layouts: %s({A_shared: layout})", spelled, spelled);
    return false;
  }
  tl__sb sb = TL__SB_INIT;
  bool ok = true;
  for (uint32_t i = 0; ok && i < d->u.dict.n; i++) {
    tl__val *k = tl__eval(E, d->u.dict.keys[i]);
    if (!k) {
      ok = false;
    } else if (k->kind != V_BUFFER) {
      tl__elab_error(E, POS(d->u.dict.keys[i]), "%s: a key must be a buffer, not %s", spelled, tl__val_describe(E, k));
      ok = false;
    } else {
      tl__sb_appendf(&sb, "%s%s", i ? ", " : "", k->u.buf->name);
    }
  }
  if (ok && tl__sb_status(&sb) != TL_OK) ok = (tl__parse_oom(E->p), false);
  if (ok) ok = tl__elab_hint(E, POS(call), "annotate_layout", tl__sb_str(&sb));
  tl__sb_free(&sb);
  return ok;
}

bool tl__elab_hint_stmt(tl__elab *E, const tl__ast_expr *call, const tl__builtin_info *bi) {
  const char *spelled = bi->name;
  const char *name = strrchr(spelled, '.') ? strrchr(spelled, '.') + 1 : spelled;
  if (!E->fn || !E->fn->pf) {
    tl__elab_error(E, POS(call), "%s is only allowed inside a kernel function", spelled);
    return false;
  }
  if (strcmp(name, "annotate_layout") == 0) return annotate_layout(E, call, spelled);
  return record_call(E, call, name);
}

bool tl__elab_hint_kwargs(tl__elab *E, const tl__ast_expr *call, const char *hint, const char *const *names, int n,
                          const tl__ast_expr **out) {
  *out = call;
  uint32_t nkw = call->u.call.nkw, keep = 0;
  for (uint32_t k = 0; k < nkw; k++) {
    bool is_hint = false;
    for (int j = 0; j < n && !is_hint; j++) is_hint = strcmp(call->u.call.kwnames[k], names[j]) == 0;
    keep += !is_hint;
  }
  if (keep == nkw) return true;
  tl__ast_expr *c = tl__parse_alloc(E->p, sizeof *c);
  const char **kn = keep ? tl__parse_alloc(E->p, keep * sizeof *kn) : NULL;
  tl__ast_expr **kv = keep ? tl__parse_alloc(E->p, keep * sizeof *kv) : NULL;
  if (!c || (keep && (!kn || !kv))) return false;
  *c = *call;
  tl__sb sb = TL__SB_INIT;
  uint32_t w = 0;
  bool ok = true;
  for (uint32_t k = 0; ok && k < nkw; k++) {
    bool is_hint = false;
    for (int j = 0; j < n && !is_hint; j++) is_hint = strcmp(call->u.call.kwnames[k], names[j]) == 0;
    if (!is_hint) {
      kn[w] = call->u.call.kwnames[k];
      kv[w++] = call->u.call.kwvals[k];
      continue;
    }
    tl__sb_appendf(&sb, "%s%s=", sb.len ? ", " : "", call->u.call.kwnames[k]);
    ok = describe_arg(E, call->u.call.kwvals[k], &sb);
  }
  if (ok && tl__sb_status(&sb) != TL_OK) ok = (tl__parse_oom(E->p), false);
  if (ok) ok = tl__elab_hint(E, POS(call), hint, tl__sb_str(&sb));
  tl__sb_free(&sb);
  c->u.call.nkw = keep;
  c->u.call.kwnames = kn;
  c->u.call.kwvals = kv;
  *out = c;
  return ok;
}

bool tl__elab_func_attr(tl__elab *E, const tl__ast_expr *call) {
  const tl__ast_expr *d = call->u.call.nargs == 1 && call->u.call.nkw == 0 ? call->u.call.args[0] : NULL;
  if (!d || d->kind != AE_DICT) {
    tl__elab_error(E, POS(call), "T.func_attr takes one dict of attributes: T.func_attr({\"name\": value})");
    return false;
  }
  if (!E->fn || !E->fn->pf) {
    tl__elab_error(E, POS(call), "T.func_attr is only allowed inside a kernel function");
    return false;
  }
  for (uint32_t i = 0; i < d->u.dict.n; i++) {
    tl__val *k = tl__eval(E, d->u.dict.keys[i]);
    tl__val *v = k ? tl__eval(E, d->u.dict.vals[i]) : NULL;
    if (!v) return false;
    if (k->kind != V_STR) {
      tl__elab_error(E, POS(d->u.dict.keys[i]), "T.func_attr: a name must be a string, not %s", tl__val_describe(E, k));
      return false;
    }
    tl__fattr a = {tl__pstrndup(E->p, k->u.str.s, k->u.str.n), false, 0, NULL};
    if (!a.key) return false;
    if (v->kind == V_INT || v->kind == V_BOOL) {
      a.is_int = true;
      a.i = v->kind == V_INT ? v->u.i : v->u.b;
    } else if (v->kind == V_STR) {
      if (!(a.s = tl__pstrndup(E->p, v->u.str.s, v->u.str.n))) return false;
    } else {
      tl__elab_error(E, POS(d->u.dict.vals[i]), "T.func_attr: attribute '%s' must be an integer, a bool or a string, not %s",
                     a.key, tl__val_describe(E, v));
      return false;
    }
    /* a name set again replaces its value, as in a dict */
    tl__vec *attrs = &E->fn->pf->attrs;
    bool replaced = false;
    for (size_t j = 0; j < attrs->len && !replaced; j++) {
      tl__fattr *o = tl__vec_at(attrs, j);
      if (strcmp(o->key, a.key) == 0) *o = a, replaced = true;
    }
    if (!replaced && tl__vec_push(attrs, &a) != TL_OK) return tl__parse_oom(E->p), false;
  }
  return true;
}
