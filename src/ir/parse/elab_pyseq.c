/* Python's sequences at compile time: comprehensions and generator expressions
 * over compile-time sequences, and the builtins that consume or make them
 * (range, sum, any, all, enumerate, zip, sorted, reversed, list, tuple). A list
 * and a tuple are one value here (V_TUPLE), as everywhere in the front end. The
 * items may be run-time expressions (`sum(A[i] for i in range(4))` builds the
 * sum); what is iterated must be known at compile time. */
#include <string.h>

#include "elab.h"

#define SEQ_MAX_ITEMS 100000 /* items one comprehension or range() may make */

static tl__val *tuple_of(tl__elab *E, tl__vec *items) {
  tl__val *t = tl__val_new(E, V_TUPLE);
  if (!t) return NULL;
  t->u.tup.n = (uint32_t)items->len;
  t->u.tup.items = items->len ? tl__parse_alloc(E->p, items->len * sizeof(tl__val *)) : NULL;
  if (items->len && !t->u.tup.items) return NULL;
  if (items->len) memcpy(t->u.tup.items, items->data, items->len * sizeof(tl__val *));
  return t;
}

/* The items of an iterable: a tuple or list (or range(), which evaluates to one). */
static tl__val *iterable(tl__elab *E, const tl__ast_expr *e, const char *what) {
  tl__val *v = tl__eval(E, e);
  if (!v) return NULL;
  if (v->kind == V_TUPLE) return v;
  tl__elab_error(E, POS(e), "%s runs over a compile-time sequence (a tuple, a list, range()), not %s", what,
                 tl__val_describe(E, v));
  return NULL;
}

static bool bind_target(tl__elab *E, const tl__ast_expr *t, tl__val *v) {
  if (t->kind == AE_NAME) return tl__bind(E, t->u.name, v, B_VALUE, t->line, t->col);
  if (t->kind == AE_TUPLE || t->kind == AE_LIST) {
    if (v->kind != V_TUPLE || v->u.tup.n != t->u.seq.n) {
      tl__elab_error(E, POS(t), "cannot unpack %s into %u names", tl__val_describe(E, v), t->u.seq.n);
      return false;
    }
    for (uint32_t i = 0; i < t->u.seq.n; i++)
      if (!bind_target(E, t->u.seq.items[i], v->u.tup.items[i])) return false;
    return true;
  }
  tl__elab_error(E, POS(t), "a comprehension's target must be names");
  return false;
}

/* Clause k and those after it, for each item: the element goes into out. */
static bool comp_clause(tl__elab *E, const tl__ast_expr *e, uint32_t k, tl__vec *out) {
  if (k == e->u.comp.n) {
    if (out->len >= SEQ_MAX_ITEMS) {
      tl__elab_error(E, POS(e), "this comprehension would make more than %d items", SEQ_MAX_ITEMS);
      return false;
    }
    tl__val *v = tl__eval(E, e->u.comp.elt);
    if (!v) return false;
    if (tl__vec_push(out, &v) != TL_OK) return tl__parse_oom(E->p), false;
    return true;
  }
  const tl__ast_comp_clause *c = &e->u.comp.clauses[k];
  tl__val *seq = iterable(E, c->iter, "a comprehension");
  if (!seq) return false;
  size_t mark = E->env.len;
  for (uint32_t i = 0; i < seq->u.tup.n; i++) {
    E->env.len = mark;
    if (!bind_target(E, c->target, seq->u.tup.items[i])) return false;
    bool keep = true;
    for (uint32_t j = 0; j < c->nconds && keep; j++) {
      tl__val *x = tl__eval(E, c->conds[j]);
      if (!x) return false;
      if (!tl__val_is_py(x)) {
        tl__elab_error(E, POS(c->conds[j]), "a comprehension's condition must be a compile-time value");
        return false;
      }
      keep = tl__py_truth(x);
    }
    if (keep && !comp_clause(E, e, k + 1, out)) return false;
  }
  E->env.len = mark;
  return true;
}

tl__val *tl__eval_comp(tl__elab *E, const tl__ast_expr *e) {
  tl__vec out = TL__VEC_INIT(tl__val *);
  size_t mark = E->env.len; /* the comprehension's names are its own (Python 3) */
  tl__val *v = comp_clause(E, e, 0, &out) ? tuple_of(E, &out) : NULL;
  E->env.len = mark;
  tl__vec_free(&out);
  return v;
}

/* ------------------------------------------------------------------ builtins */

static tl__val *range_value(tl__elab *E, const tl__ast_expr *call, const tl__val *fn) {
  uint32_t na = call->u.call.nargs;
  if (call->u.call.nkw || na < 1 || na > 3) {
    tl__elab_error(E, POS(call), "range() takes 1 to 3 positional arguments");
    return NULL;
  }
  int64_t v[3];
  for (uint32_t i = 0; i < na; i++) {
    tl__val *x = tl__eval(E, call->u.call.args[i]);
    if (!x) return NULL;
    if (!tl__val_is_py(x)) {
      tl__elab_error(E, POS(call), "%s can only be used as the iterable of a for loop (its bounds are run-time values)",
                     fn->u.bi.name);
      return NULL;
    }
    if (!tl__as_int(E, x, POS(call->u.call.args[i]), "a range() bound", &v[i])) return NULL;
  }
  int64_t lo = na == 1 ? 0 : v[0], hi = na == 1 ? v[0] : v[1], step = na == 3 ? v[2] : 1;
  if (step == 0) {
    tl__elab_error(E, POS(call), "range() arg 3 must not be zero");
    return NULL;
  }
  uint64_t n = step > 0 ? (hi > lo ? (uint64_t)((hi - lo + step - 1) / step) : 0)
                        : (lo > hi ? (uint64_t)((lo - hi - step - 1) / -step) : 0);
  if (n > SEQ_MAX_ITEMS) {
    tl__elab_error(E, POS(call), "range() here would make %llu items (at most %d)", (unsigned long long)n, SEQ_MAX_ITEMS);
    return NULL;
  }
  tl__vec out = TL__VEC_INIT(tl__val *);
  tl__val *r = NULL;
  for (uint64_t i = 0; i < n; i++) {
    tl__val *x = tl__val_int(E, lo + (int64_t)i * step);
    if (!x) goto done;
    if (tl__vec_push(&out, &x) != TL_OK) {
      tl__parse_oom(E->p);
      goto done;
    }
  }
  r = tuple_of(E, &out);
done:
  tl__vec_free(&out);
  return r;
}

/* a < b on compile-time numbers or strings (sorted's order). */
static bool less(tl__elab *E, tl__pos at, const tl__val *a, const tl__val *b, bool *out) {
  tl__val *r = tl__py_binop(E, at, AOP_LT, a, b);
  if (!r) return false;
  *out = tl__py_truth(r);
  return true;
}

tl__val *tl__call_seq_builtin(tl__elab *E, const tl__ast_expr *call, const tl__val *fn) {
  const char *n = fn->u.bi.name;
  tl__pos at = POS(call);
  if (fn->u.bi.id == BI_RANGE) return range_value(E, call, fn);
  static const char *const one[] = {"iterable", "start"};
  static const char *const srt[] = {"iterable", "reverse"};
  const tl__ast_expr *a[2] = {NULL, NULL};
  tl__vec out = TL__VEC_INIT(tl__val *);
  tl__val *r = NULL;
  switch ((tl__builtin)fn->u.bi.id) {
    case BI_PY_SUM: {
      if (!tl__call_args(E, call, n, one, 2, 1, a)) return NULL;
      tl__val *seq = iterable(E, a[0], "sum()");
      tl__val *acc = seq ? (a[1] ? tl__eval(E, a[1]) : tl__val_int(E, 0)) : NULL;
      for (uint32_t i = 0; acc && i < seq->u.tup.n; i++) acc = tl__binop(E, call, AOP_ADD, acc, seq->u.tup.items[i]);
      return acc;
    }
    case BI_PY_ANY: case BI_PY_ALL: {
      if (!tl__call_args(E, call, n, one, 1, 1, a)) return NULL;
      tl__val *seq = iterable(E, a[0], n);
      if (!seq) return NULL;
      bool want = fn->u.bi.id == BI_PY_ANY;
      for (uint32_t i = 0; i < seq->u.tup.n; i++) {
        if (!tl__val_is_py(seq->u.tup.items[i])) {
          tl__elab_error(E, at, "%s() is evaluated at compile time and cannot take %s", n,
                         tl__val_describe(E, seq->u.tup.items[i]));
          return NULL;
        }
        if (tl__py_truth(seq->u.tup.items[i]) == want) return tl__val_bool(E, want);
      }
      return tl__val_bool(E, !want);
    }
    case BI_PY_ENUMERATE: {
      if (!tl__call_args(E, call, n, one, 2, 1, a)) return NULL;
      tl__val *seq = iterable(E, a[0], "enumerate()");
      tl__val *st = seq && a[1] ? tl__eval(E, a[1]) : NULL;
      int64_t start = 0;
      if (!seq || (a[1] && (!st || !tl__as_int(E, st, POS(a[1]), "enumerate()'s start", &start)))) return NULL;
      for (uint32_t i = 0; i < seq->u.tup.n; i++) {
        tl__val *pair = tl__val_new(E, V_TUPLE);
        tl__val **items = pair ? tl__parse_alloc(E->p, 2 * sizeof *items) : NULL;
        if (!items || !(items[0] = tl__val_int(E, start + i))) goto done;
        items[1] = seq->u.tup.items[i];
        pair->u.tup.n = 2;
        pair->u.tup.items = items;
        if (tl__vec_push(&out, &pair) != TL_OK) {
          tl__parse_oom(E->p);
          goto done;
        }
      }
      r = tuple_of(E, &out);
      goto done;
    }
    case BI_PY_ZIP: {
      if (call->u.call.nkw) {
        tl__elab_error(E, at, "zip() takes no keyword arguments here");
        return NULL;
      }
      uint32_t k = call->u.call.nargs;
      tl__val **seqs = k ? tl__parse_alloc(E->p, k * sizeof *seqs) : NULL;
      if (k && !seqs) return NULL;
      uint32_t len = k ? UINT32_MAX : 0;
      for (uint32_t j = 0; j < k; j++) {
        if (!(seqs[j] = iterable(E, call->u.call.args[j], "zip()"))) return NULL;
        if (seqs[j]->u.tup.n < len) len = seqs[j]->u.tup.n;
      }
      for (uint32_t i = 0; i < len; i++) {
        tl__val *t = tl__val_new(E, V_TUPLE);
        tl__val **items = t ? tl__parse_alloc(E->p, k * sizeof *items) : NULL;
        if (!items) goto done;
        for (uint32_t j = 0; j < k; j++) items[j] = seqs[j]->u.tup.items[i];
        t->u.tup.n = k;
        t->u.tup.items = items;
        if (tl__vec_push(&out, &t) != TL_OK) {
          tl__parse_oom(E->p);
          goto done;
        }
      }
      r = tuple_of(E, &out);
      goto done;
    }
    case BI_PY_SORTED: case BI_PY_REVERSED: case BI_PY_LIST: case BI_PY_TUPLE: {
      bool sorted = fn->u.bi.id == BI_PY_SORTED;
      int nreq = fn->u.bi.id == BI_PY_LIST || fn->u.bi.id == BI_PY_TUPLE ? 0 : 1;
      if (!tl__call_args(E, call, n, sorted ? srt : one, sorted ? 2 : 1, nreq, a)) return NULL;
      if (!a[0]) return tuple_of(E, &out); /* list(), tuple() */
      tl__val *seq = iterable(E, a[0], n);
      if (!seq) return NULL;
      bool reverse = fn->u.bi.id == BI_PY_REVERSED;
      if (sorted && a[1]) {
        tl__val *rv = tl__eval(E, a[1]);
        if (!rv || !tl__as_bool(E, rv, POS(a[1]), "sorted()'s reverse", &reverse)) return NULL;
      }
      for (uint32_t i = 0; i < seq->u.tup.n; i++)
        if (tl__vec_push(&out, &seq->u.tup.items[i]) != TL_OK) {
          tl__parse_oom(E->p);
          goto done;
        }
      tl__val **d = out.data;
      if (sorted) /* a stable insertion sort: Python's order for equal keys */
        for (size_t i = 1; i < out.len; i++) {
          tl__val *x = d[i];
          size_t j = i;
          for (; j > 0; j--) {
            bool lt;
            if (!less(E, at, x, d[j - 1], &lt)) goto done;
            if (!lt) break;
            d[j] = d[j - 1];
          }
          d[j] = x;
        }
      if (reverse)
        for (size_t i = 0, j = out.len; i + 1 < j; i++, j--) {
          tl__val *t = d[i];
          d[i] = d[j - 1];
          d[j - 1] = t;
        }
      r = tuple_of(E, &out);
      goto done;
    }
    default: break;
  }
  tl__elab_error(E, at, "unsupported call of %s()", n);
done:
  tl__vec_free(&out);
  return r;
}
