/* Elaboration of statements in kernel bodies: assignments (LETs, stores,
 * T.alloc_*), if/elif/else (folded when the condition is a compile-time value),
 * loops, `with T.Kernel`, tile operations, and the jit-style declarations
 * (`A: T.Tensor(...)`, T.const, T.empty, return). */
#include <string.h>

#include "elab.h"

/* One statement of a block being built, or a binding that scopes over the rest. */
typedef struct item {
  tl_ir_stmt *s;   /* a statement, or NULL for a LET */
  tl_ir_var *var;  /* LET */
  tl_ir_expr *val; /* LET */
  tl__pos at;
} item;

static bool elab_stmts(tl__elab *E, const tl__ast_block *b, tl__vec *items);

static bool emit(tl__elab *E, tl__vec *items, tl_ir_stmt *s, tl__pos at) {
  if (!s) return tl__elab_builder_failed(E), false;
  item it = {s, NULL, NULL, at};
  if (tl__vec_push(items, &it) != TL_OK) return tl__parse_oom(E->p), false;
  return true;
}

/* Builds the block: statements in order, each LET wrapping everything after it. */
static tl_ir_stmt *build(tl__elab *E, tl__vec *items) {
  tl__vec tail = TL__VEC_INIT(tl_ir_stmt *); /* statements after the point, reversed */
  tl_ir_stmt *result = NULL;
  for (size_t i = items->len; i-- > 0;) {
    item *it = tl__vec_at(items, i);
    if (it->s) {
      if (tl__vec_push(&tail, &it->s) != TL_OK) goto oom;
      continue;
    }
    /* Reverse the tail into a body. */
    tl_ir_stmt **d = tail.data;
    for (size_t a = 0, b = tail.len; a + 1 < b; a++, b--) {
      tl_ir_stmt *t = d[a];
      d[a] = d[b - 1];
      d[b - 1] = t;
    }
    tl__elab_at(E, it->at);
    tl_ir_stmt *body = tl_ir_seq(E->mod, (uint32_t)tail.len, tail.data);
    tl_ir_stmt *let = body ? tl_ir_let(E->mod, it->var, it->val, body) : NULL;
    if (!let) {
      tl__elab_builder_failed(E);
      goto done;
    }
    tail.len = 0;
    if (tl__vec_push(&tail, &let) != TL_OK) goto oom;
  }
  {
    tl_ir_stmt **d = tail.data;
    for (size_t a = 0, b = tail.len; a + 1 < b; a++, b--) {
      tl_ir_stmt *t = d[a];
      d[a] = d[b - 1];
      d[b - 1] = t;
    }
  }
  result = tl_ir_seq(E->mod, (uint32_t)tail.len, tail.data);
  if (!result) tl__elab_builder_failed(E);
  goto done;
oom:
  tl__parse_oom(E->p);
done:
  tl__vec_free(&tail);
  return result;
}

static tl_ir_stmt *block_items(tl__elab *E, const tl__ast_block *b) {
  tl__vec items = TL__VEC_INIT(item);
  tl_ir_stmt *s = NULL;
  int lets = E->fn->lets;
  if (elab_stmts(E, b, &items)) s = build(E, &items);
  E->fn->lets = lets; /* this block's LETs end with it */
  tl__vec_free(&items);
  return s;
}

/* Opens a nested scope; close_scope drops its bindings. */
static bool open_scope(tl__elab *E, size_t *mark, tl__pos at) {
  *mark = E->env.len;
  if (++E->fn->depth > TL__PARSE_MAX_BLOCK_DEPTH + 4) {
    tl__elab_error(E, at, "too many nested blocks");
    return false;
  }
  return true;
}
static void close_scope(tl__elab *E, size_t mark) {
  E->env.len = mark;
  E->fn->depth--;
}

tl_ir_stmt *tl__elab_block(tl__elab *E, const tl__ast_block *b) {
  size_t mark;
  tl__pos at = b->n ? POS(b->stmts[0]) : (tl__pos){0, 0};
  tl_ir_stmt *s = open_scope(E, &mark, at) ? block_items(E, b) : NULL;
  close_scope(E, mark);
  return s;
}

tl_ir_stmt *tl__elab_block_here(tl__elab *E, const tl__ast_block *b) { return block_items(E, b); }

/* Inlines a statement-level call of a helper: its body's statements go into
 * items (the caller's block), *ret is what it returned (None when nothing).
 * Factory and module code only compute values (tl__call_helper). */
static bool inline_helper(tl__elab *E, const tl__ast_expr *call, const tl__val *fn, tl__vec *items, tl__val **ret) {
  if (E->fn->kind == FK_FACTORY) return (*ret = tl__call_helper(E, call, fn)) != NULL;
  tl__frame f;
  if (!tl__helper_enter(E, call, fn, &f)) return false;
  bool ok = elab_stmts(E, &fn->u.fn.def->u.def.body, items);
  if (ok) ok = (*ret = f.ret ? f.ret : tl__val_new(E, V_NONE)) != NULL;
  tl__helper_leave(E, &f, fn);
  return ok;
}

/* The helper called by a statement-level call (f(...) or x = f(...)), or NULL. */
static const tl__val *helper_callee(tl__elab *E, const tl__ast_expr *e) {
  if (e->kind != AE_CALL || (e->u.call.fn->kind != AE_NAME && e->u.call.fn->kind != AE_ATTR)) return NULL;
  tl__val *v = tl__eval(E, e->u.call.fn); /* a name or attribute chain: no effect */
  return v && v->kind == V_FUNC ? v : NULL;
}

/* `return` in a helper's body being inlined as statements: its value is the call's. */
static bool helper_return(tl__elab *E, tl__frame *f, const tl__ast_stmt *s) {
  if (E->fn->depth != f->depth) {
    tl__elab_error(E, POS(s), "'return' inside a loop or a run-time 'if' of %s '%s' is not supported (only at the "
                   "end of its body, or in a branch decided at compile time)",
                   f->macro ? "macro" : "helper function", f->def->u.def.name);
    return false;
  }
  f->ret = s->u.ret.value ? tl__eval(E, s->u.ret.value) : tl__val_new(E, V_NONE);
  f->returned = true;
  return f->ret != NULL;
}

/* ------------------------------------------------------------------ assignment */

static const char *bkind_name(tl__binding_kind k) {
  switch (k) {
    case B_LOOP: return "loop variable";
    case B_BLOCK: return "block index";
    case B_PARAM: return "parameter";
    case B_ALLOC: return "buffer";
    case B_SYM: return "symbolic dimension";
    default: return "name";
  }
}

/* The function's own binding of name (NULL if none or if it belongs to an
 * enclosing scope, which a new binding may shadow freely). */
static tl__binding *own_binding(tl__elab *E, const char *name) {
  for (size_t i = E->env.len; i-- > tl__scope_start(E);) {
    tl__binding *b = tl__vec_at(&E->env, i);
    if (strcmp(b->name, name) == 0) return b;
  }
  return NULL;
}

/* Checks that `name` may be bound anew here: a name bound in an enclosing block of
 * this function cannot be rebound inside a nested block (the new binding would
 * vanish at the block's end, unlike Python's variable). */
static bool check_rebind(tl__elab *E, const char *name, tl__pos at) {
  tl__binding *b = own_binding(E, name);
  if (!b) return true;
  if (b->kind != B_VALUE && b->kind != B_LET) {
    tl__elab_error(E, at, "cannot assign to %s '%s' (defined at line %u)", bkind_name((tl__binding_kind)b->kind), name, b->line);
    return false;
  }
  if (b->depth < E->fn->depth) {
    const char *where = E->fn->loops > b->loops ? "inside a loop" : "inside a nested block";
    tl__elab_error(E, at,
             "cannot reassign '%s' %s: it was bound outside (line %u) and the new value would not survive the block; "
             "use a mutable variable: %s = T.alloc_var(dtype)",
             name, where, b->line, name);
    return false;
  }
  return true;
}

static bool store(tl__elab *E, tl_ir_buffer *b, uint32_t n, tl_ir_expr **ix, tl__val *v, tl__pos at, tl__vec *items) {
  tl_ir_expr *val = tl__to_dtype(E, v, at, b->dtype);
  if (!val) return false;
  tl__elab_at(E, at);
  return emit(E, items, tl_ir_store(E->mod, b, n, ix, val), at);
}

static bool assign_name(tl__elab *E, const char *name, tl__val *v, tl__pos at, tl__vec *items) {
  tl__binding *b = own_binding(E, name);
  if (b && b->kind == B_VARSLOT) return store(E, b->v->u.buf, 0, NULL, v, at, items);
  if (!check_rebind(E, name, at)) return false;
  if (v->kind == V_EXPR || v->kind == V_VAR || v->kind == V_VARSLOT || v->kind == V_SYMBOLIC) {
    tl_ir_expr *e = tl__to_ir(E, v, at, NULL);
    if (!e) return false;
    tl__elab_at(E, at);
    if (++E->fn->lets > TL__PARSE_MAX_LETS) {
      tl__elab_error(E, at, "too many nested assignments (more than %d run-time values bound at once)", TL__PARSE_MAX_LETS);
      return false;
    }
    tl_ir_var *var = tl_ir_var_new(E->mod, name, e->dtype);
    if (!var) return tl__elab_builder_failed(E), false;
    item it = {NULL, var, e, at};
    if (tl__vec_push(items, &it) != TL_OK) return tl__parse_oom(E->p), false;
    tl__val *ref = tl__val_new(E, V_VAR);
    if (!ref) return false;
    ref->u.var = var;
    return tl__bind(E, name, ref, B_LET, at.line, at.col);
  }
  if (v->kind == V_OPAQUE || v->kind == V_MODULE || v->kind == V_PRIMFUNC) {
    tl__elab_error(E, at, "%s cannot be used in a kernel", tl__val_describe(E, v));
    return false;
  }
  return tl__bind(E, name, v, B_VALUE, at.line, at.col);
}

/* buffer indices of a subscript target (no slices, one per dimension). */
static bool target_indices(tl__elab *E, const tl__ast_expr *t, tl_ir_buffer **bout, uint32_t *n, tl_ir_expr ***ix) {
  tl__val *obj = tl__eval(E, t->u.sub.obj);
  if (!obj) return false;
  if (obj->kind != V_BUFFER) {
    if (obj->kind == V_VARSLOT)
      tl__elab_error(E, POS(t), "'%s' is a T.alloc_var scalar: assign it without an index", obj->u.buf->name);
    else
      tl__elab_error(E, POS(t), "cannot assign to an element of %s", tl__val_describe(E, obj));
    return false;
  }
  tl_ir_buffer *b = obj->u.buf;
  const tl__ast_expr *idx = t->u.sub.index;
  uint32_t cnt = idx->kind == AE_TUPLE ? idx->u.seq.n : 1;
  const tl__ast_expr *const *items = idx->kind == AE_TUPLE ? (const tl__ast_expr *const *)idx->u.seq.items : &idx;
  for (uint32_t i = 0; i < cnt; i++)
    if (items[i]->kind == AE_SLICE) {
      tl__elab_error(E, POS(items[i]), "assignment to a buffer slice is not supported (use T.copy or T.fill)");
      return false;
    }
  if (cnt != b->ndim) {
    tl__elab_error(E, POS(t), "buffer '%s' has %u dimension%s but %u ind%s given", b->name, b->ndim, b->ndim == 1 ? "" : "s",
             cnt, cnt == 1 ? "ex was" : "ices were");
    return false;
  }
  tl_ir_expr **x = tl__parse_alloc(E->p, sizeof *x * cnt);
  if (!x) return false;
  for (uint32_t i = 0; i < cnt; i++) {
    tl__val *v = tl__eval(E, items[i]);
    if (!v || !(x[i] = tl__to_index(E, v, POS(items[i]), "a buffer index"))) return false;
  }
  *bout = b;
  *n = cnt;
  *ix = x;
  return true;
}

static bool assign_to(tl__elab *E, const tl__ast_expr *t, tl__val *v, tl__vec *items) {
  switch (t->kind) {
    case AE_NAME: return assign_name(E, t->u.name, v, POS(t), items);
    case AE_TUPLE: case AE_LIST:
      if (v->kind != V_TUPLE || v->u.tup.n != t->u.seq.n) {
        tl__elab_error(E, POS(t), "cannot unpack %s into %u names", tl__val_describe(E, v), t->u.seq.n);
        return false;
      }
      for (uint32_t i = 0; i < t->u.seq.n; i++)
        if (!assign_to(E, t->u.seq.items[i], v->u.tup.items[i], items)) return false;
      return true;
    case AE_SUBSCRIPT: {
      tl_ir_buffer *b;
      uint32_t n;
      tl_ir_expr **ix;
      if (!target_indices(E, t, &b, &n, &ix)) return false;
      return store(E, b, n, ix, v, POS(t), items);
    }
    default:
      tl__elab_error(E, POS(t), "cannot assign to this target");
      return false;
  }
}

/* The builtin a call expression calls, or BI_NONE (no error) for anything else. */
static tl__builtin callee(tl__elab *E, const tl__ast_expr *e, tl__builtin_info *info) {
  if (e->kind != AE_CALL) return BI_NONE;
  const tl__ast_expr *f = e->u.call.fn;
  if (f->kind != AE_NAME && f->kind != AE_ATTR) return BI_NONE;
  /* Only names and attribute chains: evaluating them has no effect. */
  tl__val *v = tl__eval(E, f);
  if (!v) return BI_NONE;
  if (v->kind != V_BUILTIN) return BI_NONE;
  info->id = (tl__builtin)v->u.bi.id;
  info->op = v->u.bi.op;
  info->name = v->u.bi.name;
  return info->id;
}

/* `name = T.<bi>(...)` inside a T.Kernel: the allocations' and views' form. */
static bool named_in_kernel(tl__elab *E, const tl__ast_stmt *s, const tl__ast_expr *call, const tl__builtin_info *bi) {
  const tl__ast_expr *t = s->u.assign.target;
  if (t->kind != AE_NAME) {
    tl__elab_error(E, POS(t), "%s must be assigned to a single name", bi->name);
    return false;
  }
  if (!E->fn->in_kernel) {
    tl__elab_error(E, POS(call), "%s must be inside a T.Kernel block", bi->name);
    return false;
  }
  return true;
}

static bool alloc_assign(tl__elab *E, const tl__ast_stmt *s, const tl__ast_expr *call, const tl__builtin_info *bi,
                         tl__vec *items) {
  const tl__ast_expr *t = s->u.assign.target;
  if (!named_in_kernel(E, s, call, bi)) return false;
  const char *name = t->u.name;
  if (!check_rebind(E, name, POS(t))) return false;
  const tl__ast_expr *a[3];
  tl_dtype dt;
  tl__pos at = POS(call);
  if (bi->id == BI_ALLOC_VAR) {
    static const char *const names[] = {"dtype", "init"};
    if (!tl__call_args(E, call, bi->name, names, 2, 1, a)) return false;
    tl__val *dv = tl__eval(E, a[0]);
    if (!dv || !tl__as_dtype(E, dv, POS(a[0]), &dt)) return false;
    tl__elab_at(E, at);
    tl_ir_buffer *b = tl_ir_buffer_new(E->mod, name, dt, 0, NULL, NULL, TL_SCOPE_LOCAL_VAR);
    if (!b) return tl__elab_builder_failed(E), false;
    if (!emit(E, items, tl_ir_alloc(E->mod, b), at)) return false;
    if (a[1] && a[1]->kind != AE_NONE) {
      tl__val *init = tl__eval(E, a[1]);
      if (!init || !store(E, b, 0, NULL, init, POS(a[1]), items)) return false;
    }
    tl__val *v = tl__val_new(E, V_VARSLOT);
    if (!v) return false;
    v->u.buf = b;
    return tl__bind(E, name, v, B_VARSLOT, t->line, t->col);
  }
  static const char *const names_shared[] = {"shape", "dtype", "scope"};
  bool shared = bi->id == BI_ALLOC_SHARED;
  if (!tl__call_args(E, call, bi->name, names_shared, shared ? 3 : 2, 2, a)) return false;
  tl__val *sv = tl__eval(E, a[0]);
  uint32_t ndim;
  tl_ir_expr **shape;
  if (!sv || !tl__shape(E, sv, POS(a[0]), &ndim, &shape)) return false;
  tl__val *dv = tl__eval(E, a[1]);
  if (!dv || !tl__as_dtype(E, dv, POS(a[1]), &dt)) return false;
  tl_ir_scope scope = bi->id == BI_ALLOC_SHARED ? TL_SCOPE_SHARED : bi->id == BI_ALLOC_FRAGMENT ? TL_SCOPE_LOCAL_FRAGMENT
                                                                                               : TL_SCOPE_LOCAL;
  if (shared && a[2]) {
    tl__val *sc = tl__eval(E, a[2]);
    if (!sc) return false;
    if (sc->kind != V_STR || !(strcmp(sc->u.str.s, "shared") == 0 || strcmp(sc->u.str.s, "shared.dyn") == 0)) {
      tl__elab_error(E, POS(a[2]), "the scope of T.alloc_shared must be \"shared\" or \"shared.dyn\"");
      return false;
    }
    scope = strcmp(sc->u.str.s, "shared") == 0 ? TL_SCOPE_SHARED : TL_SCOPE_SHARED_DYN;
  }
  tl__elab_at(E, at);
  tl_ir_buffer *b = tl_ir_buffer_new(E->mod, name, dt, ndim, shape, NULL, scope);
  if (!b) return tl__elab_builder_failed(E), false;
  if (!emit(E, items, tl_ir_alloc(E->mod, b), at)) return false;
  tl__val *v = tl__val_new(E, V_BUFFER);
  if (!v) return false;
  v->u.buf = b;
  return tl__bind(E, name, v, B_ALLOC, t->line, t->col);
}

/* X = T.reshape(A, shape) / T.view(A, shape, dtype): a view of A's storage. */
static bool view_assign(tl__elab *E, const tl__ast_stmt *s, const tl__ast_expr *call, const tl__builtin_info *bi,
                        tl__vec *items) {
  const tl__ast_expr *t = s->u.assign.target;
  if (!named_in_kernel(E, s, call, bi)) return false;
  if (!check_rebind(E, t->u.name, POS(t))) return false;
  tl_ir_buffer *b = tl__elab_view(E, call, bi->name, bi->id == BI_VIEW, t->u.name);
  if (!b) return false;
  if (!emit(E, items, tl_ir_alloc(E->mod, b), POS(call))) return false;
  tl__val *v = tl__val_new(E, V_BUFFER);
  if (!v) return false;
  v->u.buf = b;
  return tl__bind(E, t->u.name, v, B_ALLOC, t->line, t->col);
}

/* ------------------------------------------------------------------ jit style */

static bool at_jit_top(tl__elab *E) { return E->fn->kind == FK_JIT && E->fn->depth == 1 && !E->fn->in_kernel; }

/* M, N = T.const("M, N"): symbolic dimensions bound from the inputs' shapes. */
static bool jit_const(tl__elab *E, const tl__ast_stmt *s, const tl__ast_expr *call, const tl__builtin_info *bi) {
  if (!at_jit_top(E)) {
    tl__elab_error(E, POS(call), "%s can only be used at the top of a @tilelang.jit function", bi->name);
    return false;
  }
  static const char *const names[] = {"names"};
  const tl__ast_expr *a[1];
  if (!tl__call_args(E, call, bi->name, names, 1, 1, a)) return false;
  tl__val *nv = tl__eval(E, a[0]);
  if (!nv) return false;
  if (nv->kind != V_STR) {
    tl__elab_error(E, POS(a[0]), "%s takes the names as one string: T.const(\"M, N\")", bi->name);
    return false;
  }
  const tl__ast_expr *t = s->u.assign.target;
  uint32_t nt = t->kind == AE_TUPLE || t->kind == AE_LIST ? t->u.seq.n : 1;
  const tl__ast_expr *const *targets = nt > 1 || t->kind == AE_TUPLE || t->kind == AE_LIST
                                           ? (const tl__ast_expr *const *)t->u.seq.items : &t;
  /* Split the string on commas and blanks. */
  const char *p = nv->u.str.s, *end = p + nv->u.str.n;
  uint32_t k = 0;
  while (p < end) {
    while (p < end && (*p == ',' || *p == ' ' || *p == '\t')) p++;
    if (p >= end) break;
    const char *q = p;
    while (q < end && *q != ',' && *q != ' ' && *q != '\t') q++;
    if (k >= nt) {
      tl__elab_error(E, POS(a[0]), "%s names more dimensions than the assignment binds", bi->name);
      return false;
    }
    const tl__ast_expr *tk = targets[k];
    if (tk->kind != AE_NAME) {
      tl__elab_error(E, POS(tk), "%s must be assigned to names", bi->name);
      return false;
    }
    char *nm = tl__pstrndup(E->p, p, (size_t)(q - p));
    if (!nm) return false;
    if (!check_rebind(E, tk->u.name, POS(tk))) return false;
    /* Shape specialization: a value bound for the dim (--param M=1024, as a call
     * with tensors of that shape binds it) makes it a compile-time integer. */
    bool found;
    tl__val *cv = tl__bound_const(E, nm, &found);
    if (E->p->status != TL_OK) return false;
    if (found) {
      int64_t iv;
      if (!tl__as_int(E, cv, POS(tk), "a T.const dimension", &iv)) return false;
      if (iv < 0) {
        tl__elab_error(E, POS(tk), "T.const dimension '%s' is bound to %lld; a dimension cannot be negative", nm,
                       (long long)iv);
        return false;
      }
      if (!tl__bind(E, tk->u.name, cv, B_VALUE, tk->line, tk->col)) return false;
      k++;
      p = q;
      continue;
    }
    tl__elab_at(E, POS(tk));
    tl__symvar sv = {NULL, tl_ir_var_new(E->mod, nm, TL_DT_INT32), false, tk->line, tk->col};
    if (!sv.var) return tl__elab_builder_failed(E), false;
    if (tl__vec_push(&E->fn->syms, &sv) != TL_OK) return tl__parse_oom(E->p), false;
    tl__val *v = tl__val_new(E, V_VAR);
    if (!v) return false;
    v->u.var = sv.var;
    if (!tl__bind(E, tk->u.name, v, B_SYM, tk->line, tk->col)) return false;
    k++;
    p = q;
  }
  if (k != nt) {
    tl__elab_error(E, POS(a[0]), "%s names %u dimension%s but the assignment binds %u", bi->name, k, k == 1 ? "" : "s", nt);
    return false;
  }
  return true;
}

/* C = T.empty(shape, dtype): an output tensor, returned at the end. */
static bool jit_empty(tl__elab *E, const tl__ast_stmt *s, const tl__ast_expr *call, const tl__builtin_info *bi) {
  const tl__ast_expr *t = s->u.assign.target;
  if (!at_jit_top(E)) {
    tl__elab_error(E, POS(call), "%s can only be used at the top of a @tilelang.jit function", bi->name);
    return false;
  }
  if (t->kind != AE_NAME) {
    tl__elab_error(E, POS(t), "%s must be assigned to a single name", bi->name);
    return false;
  }
  if (!check_rebind(E, t->u.name, POS(t))) return false;
  static const char *const names[] = {"shape", "dtype"};
  const tl__ast_expr *a[2];
  if (!tl__call_args(E, call, bi->name, names, 2, 1, a)) return false;
  E->fn->in_params = true; /* its shape defines symbolic dimensions too: it is a parameter */
  tl__val *sv = tl__eval(E, a[0]);
  uint32_t ndim = 0;
  tl_ir_expr **shape = NULL;
  bool ok = sv && tl__shape(E, sv, POS(a[0]), &ndim, &shape);
  E->fn->in_params = false;
  if (!ok) return false;
  tl_dtype dt = TL_DT_FLOAT32;
  if (a[1]) {
    tl__val *dv = tl__eval(E, a[1]);
    if (!dv || !tl__as_dtype(E, dv, POS(a[1]), &dt)) return false;
  }
  tl__elab_at(E, POS(t));
  tl_ir_buffer *b = tl_ir_buffer_new(E->mod, t->u.name, dt, ndim, shape, NULL, TL_SCOPE_GLOBAL);
  if (!b) return tl__elab_builder_failed(E), false;
  if (tl__vec_push(&E->fn->empties, &b) != TL_OK) return tl__parse_oom(E->p), false;
  tl__val *v = tl__val_new(E, V_BUFFER);
  if (!v) return false;
  v->u.buf = b;
  return tl__bind(E, t->u.name, v, B_ALLOC, t->line, t->col);
}

/* A: T.Tensor((M, K), dtype) in a jit body declares tensor parameter A. */
static int jit_declare(tl__elab *E, const tl__ast_stmt *s) {
  const tl__ast_expr *t = s->u.assign.target;
  if (E->fn->kind != FK_JIT || t->kind != AE_NAME) return 0;
  tl__jitparam *jp = NULL;
  for (size_t i = 0; i < E->fn->tparams.len; i++) {
    tl__jitparam *p = tl__vec_at(&E->fn->tparams, i);
    if (strcmp(p->name, t->u.name) == 0) jp = p;
  }
  if (!jp) return 0;
  if (!at_jit_top(E)) {
    tl__elab_error(E, POS(s), "the annotation of tensor parameter '%s' must be at the top of the function", jp->name);
    return -1;
  }
  if (jp->buf) {
    tl__elab_error(E, POS(s), "tensor parameter '%s' is annotated twice", jp->name);
    return -1;
  }
  if (s->u.assign.value) {
    tl__elab_error(E, POS(s), "a tensor parameter's annotation cannot assign a value");
    return -1;
  }
  tl_ir_var *var = NULL;
  if (!tl__annotation(E, s->u.assign.ann, jp->name, POS(s), &jp->buf, &var)) return -1;
  if (!jp->buf) {
    tl__elab_error(E, POS(s->u.assign.ann), "parameter '%s' of a @tilelang.jit function must be a T.Tensor", jp->name);
    return -1;
  }
  tl__val *v = tl__val_new(E, V_BUFFER);
  if (!v) return -1;
  v->u.buf = jp->buf;
  return tl__bind(E, jp->name, v, B_PARAM, s->line, s->col) ? 1 : -1;
}

static bool jit_return(tl__elab *E, const tl__ast_stmt *s, bool last) {
  if (E->fn->kind != FK_JIT) {
    tl__elab_error(E, POS(s), "'return' is not allowed in a T.prim_func (it returns nothing)");
    return false;
  }
  if (!at_jit_top(E) || !last) {
    tl__elab_error(E, POS(s), "'return' must be the last statement of a @tilelang.jit function");
    return false;
  }
  E->fn->returned = true;
  const tl__ast_expr *r = s->u.ret.value;
  if (!r || r->kind == AE_NONE) return true;
  uint32_t n = r->kind == AE_TUPLE ? r->u.seq.n : 1;
  const tl__ast_expr *const *items = r->kind == AE_TUPLE ? (const tl__ast_expr *const *)r->u.seq.items : &r;
  for (uint32_t i = 0; i < n; i++) {
    tl__val *v = tl__eval(E, items[i]);
    if (!v) return false;
    bool ok = false;
    for (size_t k = 0; v->kind == V_BUFFER && k < E->fn->empties.len; k++)
      ok |= TL__VEC_AT(&E->fn->empties, tl_ir_buffer *, k) == v->u.buf;
    for (size_t k = 0; ok && k < E->fn->outputs.len; k++)
      if (TL__VEC_AT(&E->fn->outputs, tl_ir_buffer *, k) == v->u.buf) {
        tl__elab_error(E, POS(items[i]), "'%s' is returned twice", v->u.buf->name);
        return false;
      }
    if (!ok) {
      tl__elab_error(E, POS(items[i]), "a @tilelang.jit function returns tensors made by T.empty, not %s", tl__val_describe(E, v));
      return false;
    }
    if (tl__vec_push(&E->fn->outputs, &v->u.buf) != TL_OK) return tl__parse_oom(E->p), false;
  }
  return true;
}

/* ------------------------------------------------------------------ control flow */

static bool elab_for(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  const tl__ast_expr *it = s->u.for_.iter;
  tl__builtin_info bi = {0};
  if (callee(E, it, &bi) == BI_NONE) {
    if (E->p->status == TL_OK)
      tl__elab_error(E, POS(it), "a for loop must iterate over T.Parallel, T.serial, T.Pipelined, T.unroll, T.vectorized, "
               "T.grid or range");
    return false;
  }
  tl_ir_for_kind kind;
  switch (bi.id) {
    case BI_PARALLEL: kind = TL_FOR_PARALLEL; break;
    case BI_GRID: kind = TL_FOR_SERIAL; break;
    case BI_SERIAL: case BI_RANGE: kind = TL_FOR_SERIAL; break;
    case BI_PIPELINED: kind = TL_FOR_PIPELINED; break;
    case BI_UNROLL: kind = TL_FOR_UNROLLED; break;
    case BI_VECTORIZED: kind = TL_FOR_VECTORIZED; break;
    case BI_THREAD_BINDING_OF: { /* the loop is the thread's own index: its body runs once, per thread */
      const tl__ast_expr *t = s->u.for_.target;
      if (t->kind != AE_NAME) {
        tl__elab_error(E, POS(t), "%s binds one loop variable", bi.name);
        return false;
      }
      tl__val *v = tl__eval(E, it);
      size_t mark;
      if (!v) return false;
      if (!open_scope(E, &mark, POS(s))) return close_scope(E, mark), false;
      bool ok = tl__bind(E, t->u.name, v, B_LOOP, t->line, t->col);
      tl_ir_stmt *body = ok ? block_items(E, &s->u.for_.body) : NULL;
      close_scope(E, mark);
      return body && emit(E, items, body, POS(s));
    }
    default:
      tl__elab_error(E, POS(it), "a for loop cannot iterate over %s", bi.name);
      return false;
  }
  const tl__ast_expr *t = s->u.for_.target;
  uint32_t nt = t->kind == AE_TUPLE || t->kind == AE_LIST ? t->u.seq.n : 1;
  const tl__ast_expr *const *targets = (t->kind == AE_TUPLE || t->kind == AE_LIST)
                                           ? (const tl__ast_expr *const *)t->u.seq.items : &t;
  for (uint32_t i = 0; i < nt; i++)
    if (targets[i]->kind != AE_NAME) {
      tl__elab_error(E, POS(targets[i]), "loop variables must be plain names");
      return false;
    }
  uint32_t n;
  tl_ir_expr **mins = NULL, **extents;
  int32_t num_stages = 0;
  if (bi.id == BI_PARALLEL || bi.id == BI_GRID) {
    if (it->u.call.nkw) {
      tl__elab_error(E, POS(it->u.call.kwvals[0]), "%s argument '%s' is not supported", bi.name, it->u.call.kwnames[0]);
      return false;
    }
    n = it->u.call.nargs;
    if (n == 0) {
      tl__elab_error(E, POS(it), "%s needs at least one extent", bi.name);
      return false;
    }
    if (n != nt) {
      tl__elab_error(E, POS(t), "%s has %u extent%s but the loop binds %u variable%s", bi.name, n, n == 1 ? "" : "s", nt,
               nt == 1 ? "" : "s");
      return false;
    }
    extents = tl__parse_alloc(E->p, sizeof *extents * n);
    if (!extents) return false;
    for (uint32_t i = 0; i < n; i++) {
      tl__val *v = tl__eval(E, it->u.call.args[i]);
      if (!v || !(extents[i] = tl__to_index(E, v, POS(it->u.call.args[i]), "a loop extent"))) return false;
    }
  } else {
    static const char *const names[] = {"start", "stop", "step", "num_stages"};
    const tl__ast_expr *a[4];
    bool pipelined = bi.id == BI_PIPELINED;
    /* T.Pipelined's schedule (order, stage, group) and unroll's options are hints */
    static const char *const loop_hints[] = {"order", "stage", "group", "sync", "explicit", "unroll_factor",
                                             "annotations"};
    if (!tl__elab_hint_kwargs(E, it, pipelined ? "Pipelined" : "loop", loop_hints, 7, &it)) return false;
    if (!tl__call_args(E, it, bi.name, names, pipelined ? 4 : 3, 1, a)) return false;
    if (nt != 1) {
      tl__elab_error(E, POS(t), "%s binds one loop variable", bi.name);
      return false;
    }
    n = 1;
    if (a[2]) {
      tl__val *st = tl__eval(E, a[2]);
      if (!st) return false;
      if (!(st->kind == V_INT && st->u.i == 1)) {
        tl__elab_error(E, POS(a[2]), "%s with a step is not supported (only a step of 1)", bi.name);
        return false;
      }
    }
    extents = tl__parse_alloc(E->p, sizeof *extents);
    if (!extents) return false;
    if (!a[1]) {
      tl__val *v = tl__eval(E, a[0]);
      if (!v || !(extents[0] = tl__to_index(E, v, POS(a[0]), "a loop extent"))) return false;
    } else {
      mins = tl__parse_alloc(E->p, sizeof *mins);
      tl__val *lo = mins ? tl__eval(E, a[0]) : NULL;
      if (!lo || !(mins[0] = tl__to_index(E, lo, POS(a[0]), "a loop start"))) return false;
      tl__val *ext;
      const tl__ast_expr *hi = a[1];
      if (hi->kind == AE_BINOP && hi->op == AOP_ADD && tl__ast_expr_equal(hi->u.bin.a, a[0])) {
        ext = tl__eval(E, hi->u.bin.b); /* stop written as start + extent */
      } else {
        tl__val *h = tl__eval(E, hi);
        ext = !h ? NULL : (lo->kind == V_INT && lo->u.i == 0) ? h : tl__binop(E, hi, AOP_SUB, h, lo);
      }
      if (!ext || !(extents[0] = tl__to_index(E, ext, POS(hi), "a loop extent"))) return false;
    }
    if (pipelined && a[3]) {
      tl__val *ns = tl__eval(E, a[3]);
      int64_t k;
      if (!ns || !tl__as_int(E, ns, POS(a[3]), "num_stages", &k)) return false;
      if (k < 0 || k > 64) {
        tl__elab_error(E, POS(a[3]), "num_stages must be between 0 and 64");
        return false;
      }
      num_stages = (int32_t)k;
    }
  }
  size_t mark;
  if (!open_scope(E, &mark, POS(s))) return close_scope(E, mark), false;
  E->fn->loops++;
  tl_ir_var **vars = tl__parse_alloc(E->p, sizeof *vars * n);
  bool ok = vars != NULL;
  for (uint32_t i = 0; ok && i < n; i++) {
    tl__elab_at(E, POS(targets[i]));
    vars[i] = tl_ir_var_new(E->mod, targets[i]->u.name, TL_DT_INT32);
    tl__val *v = vars[i] ? tl__val_new(E, V_VAR) : NULL;
    if (!vars[i]) tl__elab_builder_failed(E);
    if (!v) {
      ok = false;
      break;
    }
    v->u.var = vars[i];
    ok = tl__bind(E, targets[i]->u.name, v, B_LOOP, targets[i]->line, targets[i]->col);
  }
  tl_ir_stmt *body = ok ? block_items(E, &s->u.for_.body) : NULL;
  E->fn->loops--;
  close_scope(E, mark);
  if (!body) return false;
  tl__elab_at(E, POS(s));
  tl_ir_stmt *loop = tl_ir_for(E->mod, kind, n, vars, mins, extents, body);
  if (loop) loop->u.loop.num_stages = kind == TL_FOR_PIPELINED ? num_stages : 0;
  return emit(E, items, loop, POS(s));
}

static bool elab_kernel(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  const tl__ast_expr *c = s->u.with.ctx;
  tl__builtin_info bi = {0};
  if (callee(E, c, &bi) != BI_KERNEL) {
    if (E->p->status == TL_OK) tl__elab_error(E, POS(c), "only 'with T.Kernel(...)' is supported");
    return false;
  }
  if (E->fn->in_kernel) {
    tl__elab_error(E, POS(c), "T.Kernel cannot be nested");
    return false;
  }
  uint32_t ng = c->u.call.nargs;
  if (ng > 3) {
    tl__elab_error(E, POS(c), "%s takes 0 to 3 grid extents, got %u", bi.name, ng);
    return false;
  }
  tl_ir_expr *grid[3] = {0}, *threads[3] = {0};
  for (uint32_t i = 0; i < ng; i++) {
    tl__val *v = tl__eval(E, c->u.call.args[i]);
    if (!v || !(grid[i] = tl__to_index(E, v, POS(c->u.call.args[i]), "a grid extent"))) return false;
  }
  if (ng == 0) { /* T.Kernel(threads=128): one block, as upstream launches it */
    tl__elab_at(E, POS(c));
    if (!(grid[0] = tl_ir_i32(E->mod, 1))) return tl__elab_builder_failed(E), false;
    ng = 1;
  }
  uint32_t nthr = 0;
  for (uint32_t k = 0; k < c->u.call.nkw; k++) {
    const tl__ast_expr *kv = c->u.call.kwvals[k];
    if (strcmp(c->u.call.kwnames[k], "threads") != 0) {
      tl__elab_error(E, POS(kv), "%s argument '%s' is not supported", bi.name, c->u.call.kwnames[k]);
      return false;
    }
    tl__val *tv = tl__eval(E, kv);
    if (!tv) return false;
    nthr = tv->kind == V_TUPLE ? tv->u.tup.n : 1;
    if (nthr < 1 || nthr > 3) {
      tl__elab_error(E, POS(kv), "threads takes 1 to 3 extents");
      return false;
    }
    for (uint32_t i = 0; i < nthr; i++) {
      const tl__val *x = tv->kind == V_TUPLE ? tv->u.tup.items[i] : tv;
      if (!(threads[i] = tl__to_index(E, x, POS(kv), "a thread count"))) return false;
    }
  }
  if (nthr == 0) { /* TileLang's default */
    nthr = 1;
    tl__elab_at(E, POS(c));
    if (!(threads[0] = tl_ir_i32(E->mod, 128))) return tl__elab_builder_failed(E), false;
  }
  static const char *const dflt[3] = {"bx", "by", "bz"};
  const tl__ast_expr *t = s->u.with.target;
  const tl__ast_expr *names[3] = {0};
  if (t) {
    uint32_t nt = t->kind == AE_TUPLE || t->kind == AE_LIST ? t->u.seq.n : 1;
    if (nt != ng) {
      tl__elab_error(E, POS(t), "%s has %u grid dimension%s but 'as' binds %u name%s", bi.name, ng, ng == 1 ? "" : "s", nt,
               nt == 1 ? "" : "s");
      return false;
    }
    for (uint32_t i = 0; i < nt; i++) {
      names[i] = (t->kind == AE_TUPLE || t->kind == AE_LIST) ? t->u.seq.items[i] : t;
      if (names[i]->kind != AE_NAME) {
        tl__elab_error(E, POS(names[i]), "block indices must be bound to plain names");
        return false;
      }
    }
  }
  size_t mark;
  if (!open_scope(E, &mark, POS(s))) return close_scope(E, mark), false;
  E->fn->in_kernel = true;
  tl_ir_var *bvars[3] = {0};
  bool ok = true;
  for (uint32_t i = 0; ok && i < ng; i++) {
    tl__elab_at(E, names[i] ? POS(names[i]) : POS(c));
    bvars[i] = tl_ir_var_new(E->mod, names[i] ? names[i]->u.name : dflt[i], TL_DT_INT32);
    if (!bvars[i]) {
      tl__elab_builder_failed(E);
      ok = false;
      break;
    }
    if (names[i]) {
      tl__val *v = tl__val_new(E, V_VAR);
      if (!v) {
        ok = false;
        break;
      }
      v->u.var = bvars[i];
      ok = tl__bind(E, names[i]->u.name, v, B_BLOCK, names[i]->line, names[i]->col);
    }
  }
  tl__kernel_scope *ks = &E->fn->kernel;
  memset(ks, 0, sizeof *ks);
  ks->ng = ng;
  ks->nt = nthr;
  for (uint32_t i = 0; i < 3; i++) {
    ks->grid[i] = grid[i];
    ks->threads[i] = threads[i];
    ks->blocks[i] = bvars[i];
  }
  tl_ir_stmt *body = ok ? block_items(E, &s->u.with.body) : NULL;
  E->fn->in_kernel = false;
  close_scope(E, mark);
  if (!body) return false;
  /* Per-thread code (elab_simt.c): the kernel binds the thread indices it asked
   * for; a dimension past threads= has extent 1. */
  bool simt = ks->threads_bound[0] || ks->threads_bound[1] || ks->threads_bound[2];
  if (simt && !(body = tl__elab_check_simt_kernel(E, body))) return false;
  tl__elab_at(E, POS(s));
  for (uint32_t i = 0; simt && i < 3; i++)
    if (ks->threads_bound[i] && i >= nthr) {
      for (uint32_t j = nthr; j <= i; j++)
        if (!(threads[j] = tl_ir_i32(E->mod, 1))) return tl__elab_builder_failed(E), false;
      nthr = i + 1;
    }
  tl_ir_stmt *k = tl_ir_kernel(E->mod, ng, grid, nthr, threads, bvars, body);
  if (k)
    for (uint32_t i = 0; i < 3; i++) k->u.kernel.thread_vars[i] = ks->threads_bound[i];
  memset(ks, 0, sizeof *ks);
  return emit(E, items, k, POS(s));
}

static bool elab_if(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  tl__val *c = tl__eval(E, s->u.if_.cond);
  if (!c) return false;
  if (tl__val_is_py(c)) /* decided now: the chosen branch's statements belong to this block */
    return elab_stmts(E, tl__py_truth(c) ? &s->u.if_.body : &s->u.if_.orelse, items);
  tl_ir_expr *cond = tl__to_cond(E, c, POS(s->u.if_.cond));
  if (!cond) return false;
  tl_ir_stmt *then_ = tl__elab_block(E, &s->u.if_.body);
  if (!then_) return false;
  tl_ir_stmt *else_ = NULL;
  if (s->u.if_.orelse.n && !(else_ = tl__elab_block(E, &s->u.if_.orelse))) return false;
  tl__elab_at(E, POS(s));
  return emit(E, items, tl_ir_if(E->mod, cond, then_, else_), POS(s));
}

/* ------------------------------------------------------------------ statements */

static bool elab_expr_stmt(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  const tl__ast_expr *e = s->u.expr.e;
  if (e->kind == AE_STR) return true; /* a docstring */
  tl__builtin_info bi = {0};
  tl__builtin id = callee(E, e, &bi);
  if (E->p->status != TL_OK) return false;
  switch (id) {
    case BI_COPY: case BI_FILL: case BI_CLEAR: case BI_GEMM: case BI_REDUCE: case BI_ATOMIC_ADD: case BI_CUMSUM:
    case BI_SYNC_THREADS: case BI_ATOMIC_ADDX:
      if (!E->fn->in_kernel) {
        tl__elab_error(E, POS(e), "%s must be inside a T.Kernel block", bi.name);
        return false;
      }
      return emit(E, items, tl__elab_tile_op(E, e, &bi), POS(s));
    case BI_ASSUME: {
      if (!E->fn->in_kernel) {
        tl__elab_error(E, POS(e), "%s must be inside a T.Kernel block", bi.name);
        return false;
      }
      static const char *const names[] = {"cond"};
      const tl__ast_expr *a[1];
      if (!tl__call_args(E, e, bi.name, names, 1, 1, a)) return false;
      tl__val *v = tl__eval(E, a[0]);
      tl_ir_expr *cond = v ? tl__to_cond(E, v, POS(a[0])) : NULL;
      if (!cond) return false;
      tl__elab_at(E, POS(e));
      tl_ir_expr *call = tl_ir_call(E->mod, TL_OP_ASSUME, TL_DT_BOOL, 1, &cond);
      tl_ir_stmt *st = call ? tl_ir_eval(E->mod, call) : NULL;
      if (!st) return tl__elab_builder_failed(E), false;
      return emit(E, items, st, POS(s));
    }
    case BI_HINT: return tl__elab_hint_stmt(E, e, &bi);
    case BI_FUNC_ATTR: return tl__elab_func_attr(E, e);
    default: break;
  }
  const tl__val *h = helper_callee(E, e);
  if (E->p->status != TL_OK) return false;
  if (h) {
    tl__val *ret;
    return inline_helper(E, e, h, items, &ret);
  }
  /* print(...) in a kernel body prints while upstream traces it: no kernel code */
  if (e->kind == AE_CALL && e->u.call.fn->kind == AE_NAME && strcmp(e->u.call.fn->u.name, "print") == 0 &&
      !tl__lookup(E, "print"))
    return true;
  tl__val *v = tl__eval(E, e);
  if (!v) return false;
  tl__elab_error(E, POS(e), "this expression has no effect: only tile operations (T.copy, T.gemm, ...) can stand alone "
           "as statements");
  return false;
}

static bool elab_assign(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  const tl__ast_expr *value = s->u.assign.value;
  tl__builtin_info bi = {0};
  tl__builtin id = callee(E, value, &bi);
  if (E->p->status != TL_OK) return false;
  switch (id) {
    case BI_ALLOC_SHARED: case BI_ALLOC_FRAGMENT: case BI_ALLOC_LOCAL: case BI_ALLOC_VAR:
      return alloc_assign(E, s, value, &bi, items);
    case BI_RESHAPE: case BI_VIEW: return view_assign(E, s, value, &bi, items);
    case BI_THREAD_BINDING: case BI_THREAD_BINDING_OF: case BI_BLOCK_BINDING:
      /* tn = T.get_thread_binding(0): the name is the kernel's index itself (no LET),
       * as `as bx` binds a block index; a new thread variable takes the name */
      if (s->u.assign.target->kind == AE_NAME && E->fn && E->fn->in_kernel) {
        const tl__ast_expr *t = s->u.assign.target;
        if (!check_rebind(E, t->u.name, POS(t))) return false;
        E->fn->kernel.name_hint = t->u.name;
        tl__val *v = tl__eval(E, value);
        E->fn->kernel.name_hint = NULL;
        if (!v) return false;
        if (v->kind == V_VAR) return tl__bind(E, t->u.name, v, B_BLOCK, t->line, t->col);
        return assign_to(E, t, v, items);
      }
      break;
    case BI_CONST: return jit_const(E, s, value, &bi);
    case BI_EMPTY: return jit_empty(E, s, value, &bi);
    case BI_SYMBOLIC: {
      const tl__ast_expr *t = s->u.assign.target;
      tl__val *v = tl__eval(E, value);
      if (!v) return false;
      /* M = T.dynamic("M"); M, N = T.dynamic("M, N") */
      bool tuple = t->kind == AE_TUPLE || t->kind == AE_LIST;
      uint32_t cnt = tuple ? t->u.seq.n : 1;
      const tl__ast_expr *const *ts = tuple ? (const tl__ast_expr *const *)t->u.seq.items : &t;
      if (tuple != (v->kind == V_TUPLE) || (tuple && v->u.tup.n != cnt)) {
        tl__elab_error(E, POS(t), "%s makes %u dimension%s here, assigned to %u name%s", bi.name,
                       v->kind == V_TUPLE ? v->u.tup.n : 1, v->kind == V_TUPLE && v->u.tup.n == 1 ? "" : "s", cnt,
                       cnt == 1 ? "" : "s");
        return false;
      }
      for (uint32_t i = 0; i < cnt; i++) {
        if (ts[i]->kind != AE_NAME) {
          tl__elab_error(E, POS(ts[i]), "%s must be assigned to names", bi.name);
          return false;
        }
        if (!check_rebind(E, ts[i]->u.name, POS(ts[i])) ||
            !tl__bind(E, ts[i]->u.name, tuple ? v->u.tup.items[i] : v, B_SYM, ts[i]->line, ts[i]->col))
          return false;
      }
      return true;
    }
    default: break;
  }
  const tl__val *h = helper_callee(E, value);
  if (E->p->status != TL_OK) return false;
  if (h) {
    tl__val *ret;
    return inline_helper(E, value, h, items, &ret) && assign_to(E, s->u.assign.target, ret, items);
  }
  tl__val *v = tl__eval(E, value);
  return v && assign_to(E, s->u.assign.target, v, items);
}

static bool elab_augassign(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  const tl__ast_expr *t = s->u.assign.target;
  tl__ast_op op = (tl__ast_op)s->op;
  if (t->kind == AE_SUBSCRIPT) {
    tl_ir_buffer *b;
    uint32_t n;
    tl_ir_expr **ix;
    if (!target_indices(E, t, &b, &n, &ix)) return false;
    tl__elab_at(E, POS(t));
    tl__val *cur = tl__val_expr(E, tl_ir_load(E->mod, b, n, ix));
    tl__val *rhs = cur ? tl__eval(E, s->u.assign.value) : NULL;
    tl__val *v = rhs ? tl__binop(E, t, op, cur, rhs) : NULL;
    return v && store(E, b, n, ix, v, POS(t), items);
  }
  if (t->kind != AE_NAME) {
    tl__elab_error(E, POS(t), "cannot assign to this target");
    return false;
  }
  tl__val *cur = tl__eval(E, t);
  tl__val *rhs = cur ? tl__eval(E, s->u.assign.value) : NULL;
  tl__val *v = rhs ? tl__binop(E, t, op, cur, rhs) : NULL;
  return v && assign_name(E, t->u.name, v, POS(t), items);
}

static bool elab_annassign(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  int r = jit_declare(E, s);
  if (r) return r > 0;
  const tl__ast_expr *t = s->u.assign.target;
  if (t->kind != AE_NAME || !s->u.assign.value) {
    tl__elab_error(E, POS(s), "an annotated assignment must be name: dtype = value");
    return false;
  }
  tl__val *dv = tl__eval(E, s->u.assign.ann);
  tl_dtype dt;
  if (!dv || !tl__as_dtype(E, dv, POS(s->u.assign.ann), &dt)) return false;
  tl__val *v = tl__eval(E, s->u.assign.value);
  if (!v) return false;
  tl_ir_expr *e = tl__to_dtype(E, v, POS(s->u.assign.value), dt);
  tl__val *ev = e ? tl__val_expr(E, e) : NULL;
  return ev && assign_name(E, t->u.name, ev, POS(t), items);
}

/* `while` in kernel code. In the body of a plain helper `def` (Python that
 * upstream runs while tracing) a loop on a compile-time condition runs here,
 * its body elaborated once per iteration; anywhere else it would be a run-time
 * loop, which the IR does not have yet (upstream lowers it to TIR's While). */
static bool elab_while(tl__elab *E, const tl__ast_stmt *s, tl__vec *items) {
  const tl__frame *f = tl__cur_frame(E);
  if (!f || f->macro) {
    tl__elab_error(E, POS(s), "'while' loops in kernel code are not supported yet (use a for loop over T.serial)");
    return false;
  }
  int base = E->ct_loop_base;
  E->ct_loop_base = E->fn->loops;
  bool ok = true;
  for (int n = 0; ok; n++) {
    tl__val *c = tl__eval(E, s->u.if_.cond);
    if (!(ok = c != NULL)) break;
    if (!tl__val_is_py(c)) {
      tl__elab_error(E, POS(s->u.if_.cond), "a while loop in helper function '%s' needs a compile-time condition "
                     "(a run-time while loop is not supported yet)", f->def->u.def.name);
      ok = false;
      break;
    }
    if (!tl__py_truth(c)) break;
    if (n >= TL__MAX_WHILE_ITERATIONS) {
      tl__elab_error(E, POS(s), "this while loop ran %d times without ending", TL__MAX_WHILE_ITERATIONS);
      ok = false;
      break;
    }
    ok = elab_stmts(E, &s->u.if_.body, items);
    int ctl = E->loop_ctl;
    E->loop_ctl = TL__LOOP_NONE;
    if (ctl == TL__LOOP_BREAK || f->returned) break;
  }
  E->ct_loop_base = base;
  return ok;
}

static bool elab_stmt(tl__elab *E, const tl__ast_stmt *s, bool last, tl__vec *items) {
  switch ((tl__ast_skind)s->kind) {
    case AS_EXPR: return elab_expr_stmt(E, s, items);
    case AS_ASSIGN: return elab_assign(E, s, items);
    case AS_AUGASSIGN: return elab_augassign(E, s, items);
    case AS_ANNASSIGN: return elab_annassign(E, s, items);
    case AS_PASS: return true;
    case AS_RETURN: {
      tl__frame *f = tl__cur_frame(E);
      return f ? helper_return(E, f, s) : jit_return(E, s, last);
    }
    case AS_IF: return elab_if(E, s, items);
    case AS_FOR: return elab_for(E, s, items);
    case AS_WHILE: return elab_while(E, s, items);
    case AS_BREAK: case AS_CONTINUE:
      if (E->ct_loop_base >= 0 && E->ct_loop_base == E->fn->loops) { /* of a compile-time while */
        E->loop_ctl = s->kind == AS_BREAK ? TL__LOOP_BREAK : TL__LOOP_CONTINUE;
        return true;
      }
      tl__elab_error(E, POS(s), "'%s' in kernel code is not supported yet", s->kind == AS_BREAK ? "break" : "continue");
      return false;
    case AS_WITH: return elab_kernel(E, s, items);
    case AS_DEF: { /* a helper or @T.macro defined in the kernel: it sees the kernel's names */
      for (uint32_t i = 0; i < s->u.def.ndeco; i++) {
        const tl__ast_expr *x = s->u.def.decos[i];
        tl__val *d = tl__try_eval(E, x->kind == AE_CALL ? x->u.call.fn : x, NULL);
        if (!d && E->p->status != TL_OK) return false;
        if (d && d->kind == V_BUILTIN && (d->u.bi.id == BI_PRIM_FUNC || d->u.bi.id == BI_JIT)) {
          tl__elab_error(E, POS(s), "a kernel cannot be defined inside a kernel");
          return false;
        }
      }
      if (!check_rebind(E, s->u.def.name, POS(s))) return false;
      tl__val *v = tl__helper_value(E, s, E->env.len + 1);
      return v && tl__bind(E, s->u.def.name, v, B_VALUE, s->line, s->col);
    }
    case AS_IMPORT: case AS_FROM: return tl__elab_import_stmt(E, s);
    case AS_RAISE: return tl__elab_raise(E, s);
    case AS_OPAQUE: /* made only at the top level */
      tl__elab_error(E, POS(s), "this statement is not supported here");
      return false;
    case AS_ASSERT: {
      /* A compile-time check is fine anywhere; a run-time one is not in the subset. */
      tl__val *c = tl__eval(E, s->u.assert_.test);
      if (!c) return false;
      if (!tl__val_is_py(c)) {
        tl__elab_error(E, POS(s), "'assert' on a run-time value is not supported in a kernel");
        return false;
      }
      return tl__elab_assert(E, s);
    }
  }
  return false;
}

bool tl__elab_raise(tl__elab *E, const tl__ast_stmt *s) {
  /* raise ValueError("msg"): the message when it is a string (an f-string as
   * written); the exception's name otherwise. */
  const tl__ast_expr *x = s->u.ret.value;
  const tl__ast_expr *callee = x && x->kind == AE_CALL ? x->u.call.fn : x;
  const char *exc = callee && callee->kind == AE_NAME ? callee->u.name
                    : callee && callee->kind == AE_ATTR ? callee->u.attr.name : "an exception";
  const tl__ast_expr *m = x && x->kind == AE_CALL && x->u.call.nargs ? x->u.call.args[0] : NULL;
  if (m && m->kind == AE_STR)
    tl__elab_error(E, POS(s), "raise %s: %.*s", exc, (int)m->u.str.n, m->u.str.s);
  else
    tl__elab_error(E, POS(s), "raise %s (this branch runs for the values given)", exc);
  return false;
}

bool tl__elab_assert(tl__elab *E, const tl__ast_stmt *s) {
  tl__val *c = tl__eval(E, s->u.assert_.test);
  if (!c) return false;
  if (!tl__val_is_py(c)) {
    tl__elab_error(E, POS(s->u.assert_.test), "'assert' needs a compile-time condition");
    return false;
  }
  if (tl__py_truth(c)) return true;
  const tl__ast_expr *msg = s->u.assert_.msg;
  if (msg && msg->kind == AE_STR && msg->u.str.f) {
    /* An f-string message is shown as written (the subset does not format). */
    tl__elab_error(E, POS(s), "assertion failed: f\"%.*s\"", (int)(msg->u.str.n > 500 ? 500 : msg->u.str.n), msg->u.str.s);
    return false;
  }
  if (s->u.assert_.msg) {
    tl__val *m = tl__eval(E, s->u.assert_.msg);
    if (!m) return false;
    if (m->kind == V_STR) {
      tl__elab_error(E, POS(s), "assertion failed: %.*s", (int)(m->u.str.n > 500 ? 500 : m->u.str.n), m->u.str.s);
      return false;
    }
  }
  tl__elab_error(E, POS(s), "assertion failed");
  return false;
}

static bool elab_stmts(tl__elab *E, const tl__ast_block *b, tl__vec *items) {
  for (uint32_t i = 0; i < b->n; i++) {
    const tl__frame *f = tl__cur_frame(E);
    if (f && f->returned) return true; /* the rest of a helper after its `return` does not run */
    if (E->loop_ctl) return true;      /* nor the rest of a compile-time loop's body after break/continue */
    if (E->fn->returned) {
      tl__elab_error(E, POS(b->stmts[i]), "statement after 'return'");
      return false;
    }
    if (!elab_stmt(E, b->stmts[i], i + 1 == b->n, items)) return false;
  }
  return true;
}
