/* Elaboration of the top level and of functions: imports, module constants,
 * @T.prim_func kernels, factories (functions returning a nested @T.prim_func,
 * whose parameters are compile-time constants) and @tilelang.jit functions
 * (tensor parameters declared in the body, T.const dimensions, T.empty outputs),
 * and the binding of constants given by the caller. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "elab.h"

/* ------------------------------------------------------------------ annotations */

/* True if `ann` is T.Tensor(...) / T.Tensor[...] (or T.Buffer). Other annotations
 * are not errors here: a jit function's constants may be annotated with any
 * Python type (`Optional[int]`), which the front end does not evaluate. */
static bool tensor_form(tl__elab *E, const tl__ast_expr *ann, const tl__ast_expr **head) {
  const tl__ast_expr *h = ann->kind == AE_CALL ? ann->u.call.fn : ann->kind == AE_SUBSCRIPT ? ann->u.sub.obj : NULL;
  if (!h || (h->kind != AE_NAME && h->kind != AE_ATTR)) return false;
  tl__val *v = tl__eval(E, h);
  if (!v) {
    if (E->p->status != TL_ENOMEM) E->p->status = TL_OK; /* not ours to judge */
    return false;
  }
  *head = h;
  return v->kind == V_BUILTIN && (v->u.bi.id == BI_TENSOR || v->u.bi.id == BI_BUFFER);
}

bool tl__annotation(tl__elab *E, const tl__ast_expr *ann, const char *name, tl__pos at, tl_ir_buffer **buf,
                    tl_ir_var **var) {
  *buf = NULL;
  *var = NULL;
  const tl__ast_expr *head = NULL;
  bool tensor = tensor_form(E, ann, &head);
  if (E->p->status != TL_OK) return false;
  if (tensor) {
    const tl__ast_expr *shape_ast = NULL, *dtype_ast = NULL;
    if (ann->kind == AE_CALL) {
      static const char *const names[] = {"shape", "dtype"};
      const tl__ast_expr *a[2];
      if (!tl__call_args(E, ann, "T.Tensor", names, 2, 1, a)) return false;
      shape_ast = a[0];
      dtype_ast = a[1];
    } else {
      const tl__ast_expr *idx = ann->u.sub.index;
      if (idx->kind == AE_TUPLE && idx->u.seq.n == 2) {
        shape_ast = idx->u.seq.items[0];
        dtype_ast = idx->u.seq.items[1];
      } else {
        tl__elab_error(E, POS(ann), "write the tensor type as T.Tensor[shape, dtype]");
        return false;
      }
    }
    E->fn->in_params = true;
    tl__val *sv = tl__eval(E, shape_ast);
    uint32_t ndim = 0;
    tl_ir_expr **shape = NULL;
    bool ok = sv && tl__shape(E, sv, POS(shape_ast), &ndim, &shape);
    E->fn->in_params = false;
    if (!ok) return false;
    tl_dtype dt = TL_DT_FLOAT32;
    if (dtype_ast) {
      tl__val *dv = tl__eval(E, dtype_ast);
      if (!dv || !tl__as_dtype(E, dv, POS(dtype_ast), &dt)) return false;
    }
    tl__elab_at(E, at);
    *buf = tl_ir_buffer_new(E->mod, name, dt, ndim, shape, NULL, TL_SCOPE_GLOBAL);
    if (!*buf) return tl__elab_builder_failed(E), false;
    return true;
  }
  tl__val *v = tl__eval(E, ann);
  if (!v) return false;
  if (v->kind != V_DTYPE) {
    tl__elab_error(E, POS(ann), "parameter '%s' needs a type: T.Tensor(shape, dtype), T.Buffer(shape, dtype) or a scalar dtype "
             "such as T.int32", name);
    return false;
  }
  tl__elab_at(E, at);
  *var = tl_ir_var_new(E->mod, name, v->u.dt);
  if (!*var) return tl__elab_builder_failed(E), false;
  return true;
}

/* ------------------------------------------------------------------ function state */

static void fstate_begin(tl__elab *E, tl__fstate *fs, tl__fkind kind, size_t outer_visible) {
  memset(fs, 0, sizeof *fs);
  fs->kind = kind;
  fs->env_start = E->env.len;
  fs->outer_visible = outer_visible;
  fs->depth = 1;
  tl__vec_init(&fs->syms, sizeof(tl__symvar));
  tl__vec_init(&fs->tparams, sizeof(tl__jitparam));
  tl__vec_init(&fs->empties, sizeof(tl_ir_buffer *));
  tl__vec_init(&fs->outputs, sizeof(tl_ir_buffer *));
}

static void fstate_end(tl__elab *E, tl__fstate *fs, tl__fstate *prev) {
  E->env.len = fs->env_start;
  tl__vec_free(&fs->syms);
  tl__vec_free(&fs->tparams);
  tl__vec_free(&fs->empties);
  tl__vec_free(&fs->outputs);
  E->fn = prev;
}

static tl__prim_func_val *pfunc_new(tl__elab *E, const tl__ast_stmt *def) {
  tl__prim_func_val *pf = tl__parse_alloc(E->p, sizeof *pf);
  if (!pf) return NULL;
  tl__vec_init(&pf->params, sizeof(tl__fparam));
  tl__vec_init(&pf->attrs, sizeof(tl__fattr));
  pf->line = def->line;
  pf->col = def->col;
  return pf;
}

/* pfunc params live in a tl__vec (heap); they are released by pfunc_free. */
static void pfunc_free(tl__prim_func_val *pf) {
  if (pf) {
    tl__vec_free(&pf->params);
    tl__vec_free(&pf->attrs);
  }
}

void tl__prim_func_free(tl__prim_func_val *pf) { pfunc_free(pf); }

static bool add_param(tl__elab *E, tl__prim_func_val *pf, tl_ir_buffer *buf, tl_ir_var *var, bool is_output) {
  tl__fparam fp = {buf ? TL_PARAM_BUFFER : TL_PARAM_SCALAR, buf, var, is_output};
  if (tl__vec_push(&pf->params, &fp) != TL_OK) return tl__parse_oom(E->p), false;
  return true;
}

/* Every symbolic dimension must be mentioned by a parameter's shape: that is how
 * a call's arguments give it a value. */
static bool check_syms(tl__elab *E) {
  for (size_t i = 0; i < E->fn->syms.len; i++) {
    tl__symvar *s = tl__vec_at(&E->fn->syms, i);
    if (!s->in_shape) {
      tl__elab_error(E, (tl__pos){s->line, s->col},
               "symbolic dimension '%s' does not appear in any parameter's shape, so no argument defines it", s->var->name);
      return false;
    }
  }
  return true;
}

tl__prim_func_val *tl__elab_prim_func(tl__elab *E, const tl__ast_stmt *def, size_t outer_visible) {
  tl__fstate fs, *prev = E->fn;
  fstate_begin(E, &fs, FK_PRIM_FUNC, outer_visible);
  E->fn = &fs;
  tl__prim_func_val *pf = pfunc_new(E, def);
  bool ok = pf != NULL;
  fs.pf = pf;
  for (uint32_t i = 0; ok && i < def->u.def.nparams; i++) {
    const tl__ast_param *p = &def->u.def.params[i];
    tl__pos at = {p->line, p->col};
    if (p->star != TL__PARAM_PLAIN) {
      tl__elab_error(E, at, "a T.prim_func cannot take %s parameters", p->star == TL__PARAM_VARARGS ? "*args" : "**kwargs");
      ok = false;
      break;
    }
    if (p->dflt) {
      tl__elab_error(E, POS(p->dflt), "parameters of a T.prim_func cannot have defaults (make the function a factory)");
      ok = false;
      break;
    }
    if (!p->ann) {
      tl__elab_error(E, at, "parameter '%s' needs a type: T.Tensor(shape, dtype) or a scalar dtype such as T.int32", p->name);
      ok = false;
      break;
    }
    tl_ir_buffer *buf;
    tl_ir_var *var;
    if (!(ok = tl__annotation(E, p->ann, p->name, at, &buf, &var))) break;
    tl__val *v = tl__val_new(E, buf ? V_BUFFER : V_VAR);
    if (!v) {
      ok = false;
      break;
    }
    if (buf) v->u.buf = buf;
    else v->u.var = var;
    ok = add_param(E, pf, buf, var, false) && tl__bind(E, p->name, v, B_PARAM, p->line, p->col);
  }
  if (ok) {
    pf->body = tl__elab_block_here(E, &def->u.def.body);
    ok = pf->body && check_syms(E);
  }
  fstate_end(E, &fs, prev);
  if (!ok) {
    pfunc_free(pf);
    return NULL;
  }
  return pf;
}

/* Adds an elaborated function to the module under `name`. Consumes pf. */
static bool install(tl__elab *E, const char *name, tl__prim_func_val *pf, tl__pos at) {
  bool ok = false;
  if (tl_ir_module_find_func(E->mod, name)) {
    tl__elab_error(E, at, "function '%s' is defined twice", name);
    goto done;
  }
  tl__elab_at(E, (tl__pos){pf->line, pf->col});
  tl_ir_func *f;
  tl_status st = tl_ir_func_new(E->mod, name, &f);
  if (st != TL_OK) {
    if (E->p->status == TL_OK) E->p->status = st;
    goto done;
  }
  for (size_t i = 0; i < pf->params.len; i++) {
    tl__fparam *fp = tl__vec_at(&pf->params, i);
    tl_status s = fp->kind == TL_PARAM_BUFFER ? tl_ir_func_add_buffer_param(E->mod, f, fp->buf, fp->is_output)
                                              : tl_ir_func_add_scalar_param(E->mod, f, fp->var);
    if (s != TL_OK) {
      if (E->p->status == TL_OK) E->p->status = s;
      goto done;
    }
  }
  for (size_t i = 0; i < pf->attrs.len; i++) {
    const tl__fattr *a = tl__vec_at(&pf->attrs, i);
    tl_status s = a->is_int ? tl_ir_func_set_attr_int(E->mod, f, a->key, a->i) : tl_ir_func_set_attr_str(E->mod, f, a->key, a->s);
    if (s != TL_OK) {
      if (E->p->status == TL_OK) E->p->status = s;
      goto done;
    }
  }
  f->body = pf->body;
  ok = true;
done:
  pfunc_free(pf);
  return ok;
}

/* ------------------------------------------------------------------ constants */

/* A value given by the caller: a Python literal or a bare dtype name. */
static tl__val *literal(tl__elab *E, const tl__ast_expr *e) {
  switch ((tl__ast_ekind)e->kind) {
    case AE_INT: return tl__val_int(E, e->u.i);
    case AE_FLOAT: return tl__val_float(E, e->u.f);
    case AE_BOOL: return tl__val_bool(E, e->u.b);
    case AE_NONE: return tl__val_new(E, V_NONE);
    case AE_STR: {
      tl__val *v = tl__val_new(E, V_STR);
      char *s = v ? tl__pstrndup(E->p, e->u.str.s, e->u.str.n) : NULL;
      if (!s) return NULL;
      v->u.str.s = s;
      v->u.str.n = e->u.str.n;
      return v;
    }
    case AE_NAME: {
      tl_dtype dt;
      if (!tl__dtype_from_name(e->u.name, &dt)) return NULL;
      tl__val *v = tl__val_new(E, V_DTYPE);
      if (v) v->u.dt = dt;
      return v;
    }
    case AE_UNOP: {
      if (e->op != AOP_NEG && e->op != AOP_POS) return NULL;
      tl__val *a = literal(E, e->u.un.a);
      if (!a || (a->kind != V_INT && a->kind != V_FLOAT)) return NULL;
      if (e->op == AOP_POS) return a;
      if (a->kind == V_FLOAT) return tl__val_float(E, -a->u.f);
      return a->u.i == INT64_MIN ? NULL : tl__val_int(E, -a->u.i);
    }
    case AE_TUPLE: case AE_LIST: {
      tl__val *v = tl__val_new(E, V_TUPLE);
      if (!v) return NULL;
      v->u.tup.n = e->u.seq.n;
      v->u.tup.items = e->u.seq.n ? tl__parse_alloc(E->p, sizeof *v->u.tup.items * e->u.seq.n) : NULL;
      for (uint32_t i = 0; i < e->u.seq.n; i++)
        if (!v->u.tup.items || !(v->u.tup.items[i] = literal(E, e->u.seq.items[i]))) return NULL;
      return v;
    }
    default: return NULL;
  }
}

/* The caller's binding for `name`, parsed; NULL with no error when there is none. */
tl__val *tl__bound_const(tl__elab *E, const char *name, bool *found) {
  *found = false;
  if (!E->opts) return NULL;
  for (size_t i = 0; i < E->opts->nconsts; i++) {
    const tl_ir_const_binding *b = &E->opts->consts[i];
    if (!b->name || strcmp(b->name, name) != 0) continue;
    *found = true;
    E->used_consts[i] = true;
    const char *text = b->value ? b->value : "";
    tl__parse_ctx sub;
    tl__parse_ctx_init(&sub, text, strlen(text), "<binding>");
    tl__vec toks = TL__VEC_INIT(tl__tok);
    tl__ast_expr *ast = NULL;
    tl__val *v = NULL;
    if (tl__lex(&sub, &toks) == TL_OK && tl__parse_expr_only(&sub, toks.data, toks.len, &ast) == TL_OK)
      v = literal(E, ast);
    tl_status sub_status = sub.status;
    tl__vec_free(&toks);
    tl__parse_ctx_free(&sub);
    if (E->p->status != TL_OK) return NULL;
    if (sub_status == TL_ENOMEM) {
      tl__parse_oom(E->p);
      return NULL;
    }
    if (!v) {
      E->p->status = tl__error(TL_EINVAL,
                               "invalid value '%s' bound to '%s': expected a Python literal (an integer, a float, "
                               "True/False, a string or a dtype name such as float16)",
                               text, name);
      return NULL;
    }
    return v;
  }
  return NULL;
}

/* Binds the compile-time parameters of a factory or jit function: the caller's
 * value, else the default, else an error naming the parameter. */
static bool bind_const_param(tl__elab *E, const tl__ast_stmt *def, const tl__ast_param *p, const char *what) {
  bool found;
  tl__val *v = tl__bound_const(E, p->name, &found);
  if (E->p->status != TL_OK) return false;
  if (!found && p->star != TL__PARAM_PLAIN) { /* *args: (), **kwargs: nothing the kernel may use */
    v = tl__val_new(E, p->star == TL__PARAM_VARARGS ? V_TUPLE : V_OPAQUE);
    if (v && p->star == TL__PARAM_VARKW) v->u.opaque = "a **kwargs parameter (not supported in a kernel)";
    return v && tl__bind(E, p->name, v, B_VALUE, p->line, p->col);
  }
  if (!found) {
    if (!p->dflt) {
      tl__elab_error(E, (tl__pos){p->line, p->col},
               "%s '%s': parameter '%s' has no default and no value was given for it", what, def->u.def.name, p->name);
      return false;
    }
    v = tl__eval(E, p->dflt);
    if (!v) return false;
  }
  return tl__bind(E, p->name, v, B_VALUE, p->line, p->col);
}

/* ------------------------------------------------------------------ decorators */

typedef struct deco_info {
  bool prim_func, jit;
  const tl__ast_expr *out_idx; /* @tilelang.jit(out_idx=...) */
  const tl__ast_expr *at;
  const char *foreign;         /* how to name another library's decorator */
} deco_info;

static bool read_decorators(tl__elab *E, const tl__ast_stmt *def, deco_info *d, bool *foreign) {
  memset(d, 0, sizeof *d);
  *foreign = false;
  for (uint32_t i = 0; i < def->u.def.ndeco; i++) {
    const tl__ast_expr *x = def->u.def.decos[i];
    const tl__ast_expr *callee = x->kind == AE_CALL ? x->u.call.fn : x;
    /* A decorator that does not resolve (tilelang.autotune, a name from a module
     * we do not read) belongs to another library, as an opaque one does. */
    tl__val *v = tl__try_eval(E, callee, NULL);
    if (!v && E->p->status != TL_OK) return false;
    if (!v) {
      *foreign = true;
      d->at = x;
      d->foreign = "a decorator of another library";
      continue;
    }
    if (v->kind == V_BUILTIN && v->u.bi.id == BI_PRIM_FUNC) {
      if (x->kind == AE_CALL && (x->u.call.nargs || x->u.call.nkw)) {
        tl__elab_error(E, POS(x), "arguments of %s are not supported", v->u.bi.name);
        return false;
      }
      d->prim_func = true;
    } else if (v->kind == V_BUILTIN && v->u.bi.id == BI_JIT) {
      d->jit = true;
      d->at = x;
      if (x->kind == AE_CALL) {
        if (x->u.call.nargs) {
          tl__elab_error(E, POS(x->u.call.args[0]), "%s takes only keyword arguments here", v->u.bi.name);
          return false;
        }
        /* Compile options (target, pass_configs, ...) are given to tlc separately;
         * only out_idx changes the kernel's interface. */
        for (uint32_t k = 0; k < x->u.call.nkw; k++)
          if (strcmp(x->u.call.kwnames[k], "out_idx") == 0) d->out_idx = x->u.call.kwvals[k];
      }
    } else if (v->kind == V_OPAQUE || v->kind == V_MODULE) {
      *foreign = true;
      d->at = x;
      d->foreign = tl__val_describe(E, v);
    } else {
      /* a user's decorator that returns the function, @simplify_prim_func, ... */
      *foreign = true;
      d->at = x;
      d->foreign = tl__val_describe(E, v);
    }
  }
  return true;
}

static bool is_prim_func_def(tl__elab *E, const tl__ast_stmt *s) {
  if (s->kind != AS_DEF) return false;
  for (uint32_t i = 0; i < s->u.def.ndeco; i++) {
    const tl__ast_expr *x = s->u.def.decos[i];
    const tl__ast_expr *callee = x->kind == AE_CALL ? x->u.call.fn : x;
    if (callee->kind != AE_NAME && callee->kind != AE_ATTR) continue;
    tl__val *v = tl__try_eval(E, callee, NULL);
    if (!v && E->p->status != TL_OK) return false;
    if (!v) continue;
    if (v->kind == V_BUILTIN && v->u.bi.id == BI_PRIM_FUNC) return true;
  }
  return false;
}

/* Marks parameters listed by out_idx (an int or a list; negative from the end). */
static bool apply_out_idx(tl__elab *E, tl__prim_func_val *pf, const tl__ast_expr *out_idx) {
  if (!out_idx) return true;
  tl__val *v = tl__eval(E, out_idx);
  if (!v) return false;
  if (v->kind == V_NONE) return true;
  uint32_t n = v->kind == V_TUPLE ? v->u.tup.n : 1;
  for (uint32_t i = 0; i < n; i++) {
    const tl__val *x = v->kind == V_TUPLE ? v->u.tup.items[i] : v;
    int64_t k;
    if (!tl__as_int(E, x, POS(out_idx), "out_idx", &k)) return false;
    int64_t np = (int64_t)pf->params.len;
    int64_t j = k < 0 ? k + np : k;
    if (j < 0 || j >= np) {
      tl__elab_error(E, POS(out_idx), "out_idx %lld is out of range for %lld parameters", (long long)k, (long long)np);
      return false;
    }
    tl__fparam *fp = tl__vec_at(&pf->params, (size_t)j);
    if (fp->kind != TL_PARAM_BUFFER) {
      tl__elab_error(E, POS(out_idx), "out_idx %lld names a scalar parameter; outputs must be tensors", (long long)k);
      return false;
    }
    fp->is_output = true;
  }
  return true;
}

/* ------------------------------------------------------------------ factories */

/* Statements of a factory's body run at compile time. */
static bool factory_stmts(tl__elab *E, const tl__ast_block *b, tl__prim_func_val **result, const tl__ast_stmt **ret_at);

static bool factory_assign(tl__elab *E, const tl__ast_expr *t, tl__val *v) {
  if (t->kind == AE_NAME) {
    if (!tl__val_is_py(v) && v->kind != V_SYMBOLIC && v->kind != V_BUILTIN && v->kind != V_MODULE &&
        v->kind != V_LAMBDA && v->kind != V_OPAQUE && v->kind != V_FUNC && v->kind != V_PRIMFUNC) {
      tl__elab_error(E, POS(t), "a factory can only assign compile-time values (numbers, strings, dtypes, tuples), not %s",
               tl__val_describe(E, v));
      return false;
    }
    return tl__bind(E, t->u.name, v, B_VALUE, t->line, t->col);
  }
  if ((t->kind == AE_TUPLE || t->kind == AE_LIST) && v->kind == V_TUPLE && v->u.tup.n == t->u.seq.n) {
    for (uint32_t i = 0; i < t->u.seq.n; i++)
      if (!factory_assign(E, t->u.seq.items[i], v->u.tup.items[i])) return false;
    return true;
  }
  tl__elab_error(E, POS(t), "cannot assign %s to this target in a factory", tl__val_describe(E, v));
  return false;
}

/* A loop in factory code: Python's, over a compile-time sequence (a tuple, a
 * list, range(...)); it builds values, its body runs once per item. */
#define FACTORY_MAX_ITERATIONS 100000
static bool factory_for(tl__elab *E, const tl__ast_stmt *s, tl__prim_func_val **result, const tl__ast_stmt **ret_at) {
  const tl__ast_expr *it = s->u.for_.iter;
  int64_t lo = 0, hi = 0, step = 1;
  tl__val *seq = NULL;
  bool is_range = false;
  if (it->kind == AE_CALL && it->u.call.fn->kind == AE_NAME && strcmp(it->u.call.fn->u.name, "range") == 0 &&
      !tl__lookup(E, "range") && it->u.call.nkw == 0 && it->u.call.nargs >= 1 && it->u.call.nargs <= 3) {
    int64_t v[3];
    for (uint32_t i = 0; i < it->u.call.nargs; i++) {
      tl__val *x = tl__eval(E, it->u.call.args[i]);
      if (!x || !tl__as_int(E, x, POS(it->u.call.args[i]), "a range() bound in factory code", &v[i])) return false;
    }
    is_range = true;
    if (it->u.call.nargs == 1) hi = v[0];
    else lo = v[0], hi = v[1];
    if (it->u.call.nargs == 3) step = v[2];
    if (step == 0) {
      tl__elab_error(E, POS(it), "range() arg 3 must not be zero");
      return false;
    }
  } else {
    seq = tl__eval(E, it);
    if (!seq) return false;
    if (seq->kind != V_TUPLE) {
      tl__elab_error(E, POS(it), "a loop in factory code runs over a compile-time sequence (a tuple, a list, range()), "
                     "not %s", tl__val_describe(E, seq));
      return false;
    }
  }
  uint64_t n = is_range ? (step > 0 ? (hi > lo ? (uint64_t)((hi - lo + step - 1) / step) : 0)
                                    : (lo > hi ? (uint64_t)((lo - hi - step - 1) / -step) : 0))
                        : seq->u.tup.n;
  if (n > FACTORY_MAX_ITERATIONS) {
    tl__elab_error(E, POS(it), "this factory loop would run %llu times (at most %d)", (unsigned long long)n,
                   FACTORY_MAX_ITERATIONS);
    return false;
  }
  for (uint64_t i = 0; i < n && !*ret_at; i++) {
    tl__val *x = is_range ? tl__val_int(E, lo + (int64_t)i * step) : seq->u.tup.items[i];
    if (!x || !factory_assign(E, s->u.for_.target, x)) return false;
    if (!factory_stmts(E, &s->u.for_.body, result, ret_at)) return false;
    int ctl = E->loop_ctl;
    E->loop_ctl = TL__LOOP_NONE;
    if (ctl == TL__LOOP_BREAK) break;
  }
  return true;
}

/* `while cond:` in factory code: the condition must be a compile-time value. */
static bool factory_while(tl__elab *E, const tl__ast_stmt *s, tl__prim_func_val **result, const tl__ast_stmt **ret_at) {
  for (uint64_t n = 0; !*ret_at; n++) {
    tl__val *c = tl__eval(E, s->u.if_.cond);
    if (!c) return false;
    if (!tl__val_is_py(c)) {
      tl__elab_error(E, POS(s->u.if_.cond), "a while loop in a factory needs a compile-time condition");
      return false;
    }
    if (!tl__py_truth(c)) break;
    if (n >= TL__MAX_WHILE_ITERATIONS) {
      tl__elab_error(E, POS(s), "this while loop ran %d times without ending", TL__MAX_WHILE_ITERATIONS);
      return false;
    }
    if (!factory_stmts(E, &s->u.if_.body, result, ret_at)) return false;
    int ctl = E->loop_ctl;
    E->loop_ctl = TL__LOOP_NONE;
    if (ctl == TL__LOOP_BREAK) break;
  }
  return true;
}

static bool factory_stmts(tl__elab *E, const tl__ast_block *b, tl__prim_func_val **result, const tl__ast_stmt **ret_at) {
  for (uint32_t i = 0; i < b->n && !*ret_at && !E->loop_ctl; i++) {
    const tl__ast_stmt *s = b->stmts[i];
    switch ((tl__ast_skind)s->kind) {
      case AS_PASS: continue;
      case AS_BREAK: case AS_CONTINUE: /* the parser saw the loop around it */
        E->loop_ctl = s->kind == AS_BREAK ? TL__LOOP_BREAK : TL__LOOP_CONTINUE;
        continue;
      case AS_WHILE:
        if (!factory_while(E, s, result, ret_at)) return false;
        continue;
      case AS_ASSERT:
        if (!tl__elab_assert(E, s)) return false;
        continue;
      case AS_RAISE: return tl__elab_raise(E, s);
      case AS_FOR:
        if (!factory_for(E, s, result, ret_at)) return false;
        continue;
      case AS_IMPORT: case AS_FROM: /* import tilelang.language as T in the body */
        if (!tl__elab_import_stmt(E, s)) return false;
        continue;
      case AS_EXPR: {
        if (s->u.expr.e->kind == AE_STR) continue;
        /* A call of another library (print(...), torch.cuda.synchronize()) is
         * script code: not run. */
        const tl__ast_expr *fn = s->u.expr.e->kind == AE_CALL ? s->u.expr.e->u.call.fn : NULL;
        tl__val *f = fn ? tl__try_eval(E, fn, NULL) : NULL;
        if (!f && E->p->status != TL_OK) return false;
        if (fn && (!f || f->kind == V_OPAQUE || f->kind == V_MODULE)) continue;
        if (f && f->kind == V_FUNC) { /* a helper run for what it checks (assert, raise) */
          tl__val *r = tl__eval(E, s->u.expr.e);
          if (!r) return false;
          if (r->kind == V_PRIMFUNC) pfunc_free(r->u.pf); /* a kernel it made, dropped */
          continue;
        }
        break;
      }
      case AS_ASSIGN: case AS_ANNASSIGN: {
        if (!s->u.assign.value) break;
        tl__val *v = tl__eval(E, s->u.assign.value);
        if (!v || !factory_assign(E, s->u.assign.target, v)) return false;
        continue;
      }
      case AS_AUGASSIGN: {
        const tl__ast_expr *t = s->u.assign.target;
        if (t->kind != AE_NAME) break;
        tl__val *cur = tl__eval(E, t);
        tl__val *rhs = cur ? tl__eval(E, s->u.assign.value) : NULL;
        tl__val *v = rhs ? tl__binop(E, t, (tl__ast_op)s->op, cur, rhs) : NULL;
        if (!v || !factory_assign(E, t, v)) return false;
        continue;
      }
      case AS_IF: {
        tl__val *c = tl__eval(E, s->u.if_.cond);
        if (!c) return false;
        if (!tl__val_is_py(c)) {
          tl__elab_error(E, POS(s->u.if_.cond), "a condition in a factory must be a compile-time value");
          return false;
        }
        if (!factory_stmts(E, tl__py_truth(c) ? &s->u.if_.body : &s->u.if_.orelse, result, ret_at)) return false;
        continue;
      }
      case AS_DEF: {
        if (!is_prim_func_def(E, s)) { /* a helper or @T.macro: the factory's names are visible to it */
          if (E->p->status != TL_OK) return false;
          tl__val *v = tl__helper_value(E, s, E->env.len + 1);
          if (!v || !tl__bind(E, s->u.def.name, v, B_VALUE, s->line, s->col)) return false;
          continue;
        }
        if (!tl__nested_prim_func(E, s)) return false;
        continue;
      }
      case AS_RETURN: {
        *ret_at = s;
        if (!s->u.ret.value) break;
        tl__val *v = tl__eval(E, s->u.ret.value);
        if (!v) return false;
        if (v->kind != V_PRIMFUNC) {
          tl__elab_error(E, POS(s->u.ret.value), "a factory must return its @T.prim_func, not %s", tl__val_describe(E, v));
          return false;
        }
        *result = v->u.pf;
        continue;
      }
      default: break;
    }
    tl__elab_error(E, POS(s), "a factory function may only assign compile-time values, define its @T.prim_func and return it");
    return false;
  }
  return true;
}

bool tl__nested_prim_func(tl__elab *E, const tl__ast_stmt *s) {
  deco_info d;
  bool foreign;
  if (!read_decorators(E, s, &d, &foreign)) return false;
  if (foreign) {
    tl__elab_error(E, POS(d.at), "decorator %s is not supported on a kernel (only @T.prim_func and @tilelang.jit)",
                   d.foreign);
    return false;
  }
  tl__prim_func_val *pf = tl__elab_prim_func(E, s, E->env.len);
  if (!pf) return false;
  if (!apply_out_idx(E, pf, d.out_idx)) {
    pfunc_free(pf);
    return false;
  }
  tl__val *v = tl__val_new(E, V_PRIMFUNC);
  if (!v) {
    pfunc_free(pf);
    return false;
  }
  v->u.pf = pf;
  if (!tl__bind(E, s->u.def.name, v, B_VALUE, s->line, s->col)) {
    pfunc_free(pf);
    return false;
  }
  return true;
}

bool tl__is_prim_func_def(tl__elab *E, const tl__ast_stmt *s) { return is_prim_func_def(E, s); }

/* Frees the nested prim_funcs a factory made but did not return. */
static void free_unreturned(tl__elab *E, size_t from, const tl__prim_func_val *keep) {
  for (size_t i = from; i < E->env.len; i++) {
    tl__binding *b = tl__vec_at(&E->env, i);
    if (b->v->kind == V_PRIMFUNC && b->v->u.pf != keep) {
      pfunc_free(b->v->u.pf);
      b->v->u.pf = NULL;
      b->v->kind = V_NONE;
    }
  }
}

static bool elab_factory(tl__elab *E, const tl__ast_stmt *def, const deco_info *d) {
  tl__fstate fs, *prev = E->fn;
  fstate_begin(E, &fs, FK_FACTORY, E->env.len);
  E->fn = &fs;
  bool ok = true;
  for (uint32_t i = 0; ok && i < def->u.def.nparams; i++)
    ok = bind_const_param(E, def, &def->u.def.params[i], "factory");
  tl__prim_func_val *pf = NULL;
  const tl__ast_stmt *ret_at = NULL;
  if (ok) ok = factory_stmts(E, &def->u.def.body, &pf, &ret_at);
  if (ok && !pf) {
    tl__elab_error(E, ret_at ? POS(ret_at) : POS(def), "factory '%s' does not return its @T.prim_func", def->u.def.name);
    ok = false;
  }
  free_unreturned(E, fs.env_start, ok ? pf : NULL);
  if (!ok) pf = NULL;
  fstate_end(E, &fs, prev);
  if (!ok) return false;
  if (!apply_out_idx(E, pf, d->out_idx)) {
    pfunc_free(pf);
    return false;
  }
  return install(E, def->u.def.name, pf, POS(def));
}

/* ------------------------------------------------------------------ jit functions */

/* True if the body declares `name` with a top-level annotation (A: T.Tensor(...)). */
static bool body_declares(const tl__ast_stmt *def, const char *name) {
  for (uint32_t i = 0; i < def->u.def.body.n; i++) {
    const tl__ast_stmt *s = def->u.def.body.stmts[i];
    if (s->kind == AS_ANNASSIGN && !s->u.assign.value && s->u.assign.target->kind == AE_NAME &&
        strcmp(s->u.assign.target->u.name, name) == 0)
      return true;
  }
  return false;
}

static bool elab_jit(tl__elab *E, const tl__ast_stmt *def, const deco_info *d) {
  tl__fstate fs, *prev = E->fn;
  fstate_begin(E, &fs, FK_JIT, E->env.len);
  E->fn = &fs;
  tl__prim_func_val *pf = pfunc_new(E, def);
  bool ok = pf != NULL;
  fs.pf = pf;
  for (uint32_t i = 0; ok && i < def->u.def.nparams; i++) {
    const tl__ast_param *p = &def->u.def.params[i];
    const tl__ast_expr *head;
    bool sig_tensor = p->ann && tensor_form(E, p->ann, &head);
    if (E->p->status != TL_OK) {
      ok = false;
      break;
    }
    if (sig_tensor || body_declares(def, p->name)) {
      tl__jitparam jp = {p->name, NULL, p->line, p->col};
      if (sig_tensor) {
        tl_ir_var *var;
        if (!(ok = tl__annotation(E, p->ann, p->name, (tl__pos){p->line, p->col}, &jp.buf, &var))) break;
        tl__val *v = tl__val_new(E, V_BUFFER);
        if (!v) {
          ok = false;
          break;
        }
        v->u.buf = jp.buf;
        if (!(ok = tl__bind(E, p->name, v, B_PARAM, p->line, p->col))) break;
      }
      if (tl__vec_push(&fs.tparams, &jp) != TL_OK) {
        tl__parse_oom(E->p);
        ok = false;
      }
      continue;
    }
    ok = bind_const_param(E, def, p, "jit function");
  }
  if (ok) {
    pf->body = tl__elab_block_here(E, &def->u.def.body);
    ok = pf->body != NULL;
  }
  for (size_t i = 0; ok && i < fs.tparams.len; i++) {
    tl__jitparam *jp = tl__vec_at(&fs.tparams, i);
    ok = add_param(E, pf, jp->buf, NULL, false);
  }
  for (size_t i = 0; ok && i < fs.empties.len; i++) {
    tl_ir_buffer *b = TL__VEC_AT(&fs.empties, tl_ir_buffer *, i);
    bool returned = false;
    for (size_t k = 0; k < fs.outputs.len; k++) returned |= TL__VEC_AT(&fs.outputs, tl_ir_buffer *, k) == b;
    if (!returned) {
      tl__elab_error(E, (tl__pos){b->span.line, b->span.col}, "'%s' is made by T.empty but not returned", b->name);
      ok = false;
    }
  }
  for (size_t i = 0; ok && i < fs.outputs.len; i++)
    ok = add_param(E, pf, TL__VEC_AT(&fs.outputs, tl_ir_buffer *, i), NULL, true);
  if (ok) ok = check_syms(E);
  fstate_end(E, &fs, prev);
  if (ok && d->out_idx) {
    tl__elab_error(E, POS(d->out_idx), "out_idx is not used with T.empty outputs: return them instead");
    ok = false;
  }
  if (!ok) {
    pfunc_free(pf);
    return false;
  }
  return install(E, def->u.def.name, pf, POS(def));
}

/* ------------------------------------------------------------------ the top level */

typedef struct pending {
  const tl__ast_stmt *def;
  size_t visible; /* module bindings visible at the definition */
} pending;

static bool bind_module_name(tl__elab *E, const char *name, tl__val *v, const tl__ast_stmt *s) {
  return tl__bind(E, name, v, B_MODULE, s->line, s->col);
}

static tl__val *module_val(tl__elab *E, tl__modkind kind, const char *name) {
  tl__val *v = tl__val_new(E, V_MODULE);
  if (v) {
    v->u.mod.kind = (uint8_t)kind;
    v->u.mod.name = name;
  }
  return v;
}

/* An opaque value described as `what` (copied). */
static tl__val *opaque(tl__elab *E, const char *what) {
  char *d = tl__arena_strdup(&E->p->arena, what ? what : "?");
  tl__val *v = d ? tl__val_new(E, V_OPAQUE) : NULL;
  if (!d) tl__parse_oom(E->p);
  if (v) v->u.opaque = d;
  return v;
}

static tl__val *opaquef2(tl__elab *E, const char *prefix, const char *a, const char *mid, const char *b) {
  char *s = tl__format("%s%s%s%s", prefix, a, mid, b);
  if (!s) {
    tl__parse_oom(E->p);
    return NULL;
  }
  tl__val *v = opaque(E, s);
  tl__free(s);
  return v;
}

static bool elab_import(tl__elab *E, const tl__ast_stmt *s) {
  for (uint32_t i = 0; i < s->u.import.n; i++) {
    const tl__ast_alias *a = &s->u.import.names[i];
    const char *name = a->name;
    tl__val *v;
    const char *bind_as;
    if (a->asname) {
      bind_as = a->asname;
      if (strcmp(name, "tilelang") == 0) v = module_val(E, MOD_TILELANG, a->asname);
      else if (strcmp(name, "tilelang.language") == 0) v = module_val(E, MOD_LANG, a->asname);
      else v = module_val(E, MOD_OTHER, name);
    } else {
      /* `import a.b` binds a */
      const char *dot = strchr(name, '.');
      bind_as = dot ? tl__pstrndup(E->p, name, (size_t)(dot - name)) : name;
      if (!bind_as) return false;
      v = module_val(E, strcmp(bind_as, "tilelang") == 0 ? MOD_TILELANG : MOD_OTHER, bind_as);
    }
    if (!v || !bind_module_name(E, bind_as, v, s)) return false;
  }
  return true;
}

static bool elab_from(tl__elab *E, const tl__ast_stmt *s) {
  const char *m = s->u.from.module;
  if (s->u.from.star) {
    /* The module's names are not known here (tilelang.language's are): a name
     * nothing else defines may be one of them. */
    if (strcmp(m, "tilelang.language") == 0) E->star_lang = true;
    else E->star_module = m;
    return true;
  }
  for (uint32_t i = 0; i < s->u.from.n; i++) {
    const tl__ast_alias *a = &s->u.from.names[i];
    const char *bind_as = a->asname ? a->asname : a->name;
    tl__val *v = NULL;
    if (strcmp(m, "tilelang") == 0 && strcmp(a->name, "language") == 0) {
      v = module_val(E, MOD_LANG, bind_as);
    } else if (strcmp(m, "tilelang") == 0 && strcmp(a->name, "jit") == 0) {
      v = tl__val_new(E, V_BUILTIN);
      if (v) {
        v->u.bi.id = BI_JIT;
        v->u.bi.op = -1;
        v->u.bi.name = bind_as;
      }
    } else if (strcmp(m, "tilelang.language") == 0) {
      const tl__builtin_info *bi = tl__builtin_lang(a->name);
      tl_dtype dt;
      if (bi) {
        v = tl__val_new(E, V_BUILTIN);
        if (v) {
          v->u.bi.id = bi->id;
          v->u.bi.op = bi->op;
          v->u.bi.name = bind_as;
        }
      } else if (tl__dtype_from_name(a->name, &dt)) {
        v = tl__val_new(E, V_DTYPE);
        if (v) v->u.dt = dt;
      } else {
        v = opaquef2(E, "", m, ".", a->name);
      }
    } else {
      v = opaquef2(E, "", m, ".", a->name);
    }
    if (!v || !bind_module_name(E, bind_as, v, s)) return false;
  }
  return true;
}

/* The names a parsed top-level statement binds (targets, imports, defs), for
 * code the front end reads but does not run (a top-level loop). */
static bool stmt_names(tl__elab *E, const tl__ast_stmt *s, tl__vec *out);

static bool target_names(tl__elab *E, const tl__ast_expr *t, tl__vec *out) {
  while (t->kind == AE_SUBSCRIPT || t->kind == AE_ATTR) t = t->kind == AE_SUBSCRIPT ? t->u.sub.obj : t->u.attr.obj;
  if (t->kind == AE_NAME) return tl__vec_push(out, &t->u.name) == TL_OK || (tl__parse_oom(E->p), false);
  if (t->kind == AE_TUPLE || t->kind == AE_LIST)
    for (uint32_t i = 0; i < t->u.seq.n; i++)
      if (!target_names(E, t->u.seq.items[i], out)) return false;
  return true;
}

static bool block_names(tl__elab *E, const tl__ast_block *b, tl__vec *out) {
  for (uint32_t i = 0; i < b->n; i++)
    if (!stmt_names(E, b->stmts[i], out)) return false;
  return true;
}

static bool stmt_names(tl__elab *E, const tl__ast_stmt *s, tl__vec *out) {
  switch ((tl__ast_skind)s->kind) {
    case AS_ASSIGN: case AS_ANNASSIGN: case AS_AUGASSIGN: return target_names(E, s->u.assign.target, out);
    case AS_FOR: return target_names(E, s->u.for_.target, out) && block_names(E, &s->u.for_.body, out);
    case AS_WHILE: return block_names(E, &s->u.if_.body, out);
    case AS_WITH:
      return (!s->u.with.target || target_names(E, s->u.with.target, out)) && block_names(E, &s->u.with.body, out);
    case AS_IF: return block_names(E, &s->u.if_.body, out) && block_names(E, &s->u.if_.orelse, out);
    case AS_DEF: return tl__vec_push(out, &s->u.def.name) == TL_OK || (tl__parse_oom(E->p), false);
    case AS_IMPORT:
      for (uint32_t i = 0; i < s->u.import.n; i++) {
        const tl__ast_alias *a = &s->u.import.names[i];
        const char *nm = a->asname ? a->asname : a->name;
        const char *dot = a->asname ? NULL : strchr(nm, '.');
        if (dot && !(nm = tl__pstrndup(E->p, nm, (size_t)(dot - nm)))) return false;
        if (tl__vec_push(out, &nm) != TL_OK) return tl__parse_oom(E->p), false;
      }
      return true;
    case AS_FROM:
      for (uint32_t i = 0; i < s->u.from.n; i++) {
        const tl__ast_alias *a = &s->u.from.names[i];
        const char *nm = a->asname ? a->asname : a->name;
        if (tl__vec_push(out, &nm) != TL_OK) return tl__parse_oom(E->p), false;
      }
      return true;
    case AS_OPAQUE:
      for (uint32_t i = 0; i < s->u.opaque.n; i++)
        if (tl__vec_push(out, &s->u.opaque.names[i]) != TL_OK) return tl__parse_oom(E->p), false;
      return true;
    default: return true;
  }
}

/* Binds `names` to opaque values: top-level code the front end does not run set
 * them (at s, because `why`), so a kernel that uses one fails naming it. */
static bool bind_unread(tl__elab *E, const tl__ast_stmt *s, const char *const *names, size_t n, const char *why) {
  for (size_t i = 0; i < n; i++) {
    char line[16];
    snprintf(line, sizeof line, "%u", s->line);
    tl__val *v = opaquef2(E, "'", names[i], "', set at line ", line);
    char *d = v ? tl__format("%s by code the front end does not evaluate (%s),", v->u.opaque, why ? why : "") : NULL;
    if (v && !d) return tl__parse_oom(E->p), false;
    if (!v || !(v->u.opaque = tl__arena_strdup(&E->p->arena, d))) {
      tl__free(d);
      return tl__parse_oom(E->p), false;
    }
    tl__free(d);
    if (!bind_module_name(E, names[i], v, s)) return false;
  }
  return true;
}

/* The names s binds become opaque (see bind_unread). */
static bool unread_names(tl__elab *E, const tl__ast_stmt *s, const char *why) {
  tl__vec names = TL__VEC_INIT(const char *);
  bool ok = stmt_names(E, s, &names) && bind_unread(E, s, names.data, names.len, why);
  tl__vec_free(&names);
  return ok;
}

bool tl__elab_import_stmt(tl__elab *E, const tl__ast_stmt *s) {
  return s->kind == AS_IMPORT ? elab_import(E, s) : elab_from(E, s);
}

/* NAME = value at the top level; a caller's binding for NAME replaces the value.
 * A value the front end cannot compute (torch.device("cuda"), a call of a helper)
 * leaves the names opaque instead: script code, an error only if a kernel uses it. */
static bool module_assign(tl__elab *E, const tl__ast_stmt *s) {
  const tl__ast_expr *t = s->u.assign.target;
  if (!s->u.assign.value) {
    tl__elab_error(E, POS(s), "a module-level annotation needs a value");
    return false;
  }
  uint32_t n = (t->kind == AE_TUPLE || t->kind == AE_LIST) ? t->u.seq.n : 1;
  const tl__ast_expr *const *names = n > 1 || t->kind == AE_TUPLE || t->kind == AE_LIST
                                         ? (const tl__ast_expr *const *)t->u.seq.items : &t;
  bool names_only = true;
  for (uint32_t i = 0; i < n; i++) names_only &= names[i]->kind == AE_NAME;
  if (!names_only) /* d["k"] = v, cfg.x = v: the object changes in ways not followed */
    return unread_names(E, s, "an item or attribute is assigned");
  const char *why;
  tl__val *v = tl__try_eval(E, s->u.assign.value, &why);
  if (!v && E->p->status != TL_OK) return false;
  if (!v) { /* unread, but a caller's binding still sets a name (--param BLOCK=64) */
    for (uint32_t i = 0; i < n; i++) {
      bool found;
      tl__val *x = tl__bound_const(E, names[i]->u.name, &found);
      if (E->p->status != TL_OK) return false;
      if (found ? !bind_module_name(E, names[i]->u.name, x, s)
                : !bind_unread(E, s, &names[i]->u.name, 1, why))
        return false;
    }
    return true;
  }
  if (t->kind == AE_TUPLE || t->kind == AE_LIST) {
    if (v->kind != V_TUPLE || v->u.tup.n != n) {
      tl__elab_error(E, POS(t), "cannot unpack %s into %u names", tl__val_describe(E, v), n);
      return false;
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    bool found;
    tl__val *x = tl__bound_const(E, names[i]->u.name, &found);
    if (E->p->status != TL_OK) return false;
    if (!found) x = (t->kind == AE_TUPLE || t->kind == AE_LIST) ? v->u.tup.items[i] : v;
    if (!bind_module_name(E, names[i]->u.name, x, s)) return false;
  }
  return true;
}

/* A deferred definition (outside the subset) is ours when a decorator is
 * @T.prim_func or @tilelang.jit, or when it defines a @...prim_func inside (a
 * factory, maybe under @simplify_prim_func); @triton.jit and the like are not. */
static bool deferred_is_ours(tl__elab *E, const tl__ast_stmt *s) {
  for (uint32_t i = 0; i < s->u.def.ndeco; i++) {
    tl__val *v = tl__try_eval(E, s->u.def.decos[i], NULL);
    if (v && v->kind == V_BUILTIN && (v->u.bi.id == BI_JIT || v->u.bi.id == BI_PRIM_FUNC)) return true;
  }
  return s->u.def.nested_kernel;
}

static bool elab_top_stmt(tl__elab *E, const tl__ast_stmt *s, tl__vec *pend) {
  switch ((tl__ast_skind)s->kind) {
    case AS_IMPORT: return elab_import(E, s);
    case AS_FROM: return elab_from(E, s);
    case AS_ASSIGN: case AS_ANNASSIGN: return module_assign(E, s);
    case AS_AUGASSIGN: {
      const tl__ast_expr *t = s->u.assign.target;
      if (t->kind != AE_NAME) return unread_names(E, s, "an item or attribute is updated");
      const char *why;
      tl__val *cur = tl__try_eval(E, t, &why);
      tl__val *rhs = cur ? tl__try_eval(E, s->u.assign.value, &why) : NULL;
      tl__val *v = rhs ? tl__binop(E, t, (tl__ast_op)s->op, cur, rhs) : NULL;
      if (rhs && !v && E->p->status == TL_EINVAL) { /* the operator does not apply to these values */
        E->p->status = TL_OK;
        why = "the operator does not apply";
      }
      if (!v) return E->p->status == TL_OK && unread_names(E, s, why);
      return bind_module_name(E, t->u.name, v, s);
    }
    case AS_PASS: return true;
    case AS_ASSERT: return tl__elab_assert(E, s);
    case AS_OPAQUE:
      return bind_unread(E, s, s->u.opaque.names, s->u.opaque.n, s->u.opaque.why);
    case AS_RAISE: return tl__elab_raise(E, s);
    case AS_EXPR: {
      /* Script code (torch.manual_seed(0), tilelang.disable_cache(), print(...)):
       * it does not change a kernel, and is not run. A method call on a module
       * constant may change it (CONFIGS.append(c)): that name becomes opaque. */
      const tl__ast_expr *e = s->u.expr.e;
      if (e->kind == AE_CALL && e->u.call.fn->kind == AE_ATTR && e->u.call.fn->u.attr.obj->kind == AE_NAME) {
        const char *nm = e->u.call.fn->u.attr.obj->u.name;
        tl__binding *b = tl__lookup(E, nm);
        if (b && tl__val_is_py(b->v)) return bind_unread(E, s, &nm, 1, "a method call may change it");
      }
      return true;
    }
    case AS_DEF: {
      if (s->u.def.skipped && s->u.def.deferred && deferred_is_ours(E, s)) {
        /* Ours, but outside the subset: an error if it is elaborated. */
        pending pd = {s, E->env.len};
        if (tl__vec_push(pend, &pd) != TL_OK) return tl__parse_oom(E->p), false;
      }
      if (E->p->status != TL_OK) return false;
      if (s->u.def.skipped) {
        tl__val *v = s->u.def.why ? opaquef2(E, "helper function '", s->u.def.name, "' (not read: ", s->u.def.why)
                                  : opaquef2(E, "helper function '", s->u.def.name, "'", "");
        if (v && s->u.def.why) {
          char *d = tl__format("%s)", v->u.opaque);
          if (!d || !(v->u.opaque = tl__arena_strdup(&E->p->arena, d))) {
            tl__free(d);
            return tl__parse_oom(E->p), false;
          }
          tl__free(d);
        }
        return v && bind_module_name(E, s->u.def.name, v, s);
      }
      if (s->u.def.helper) { /* callable from kernels and factories: inlined where called */
        tl__val *v = tl__helper_value(E, s, TL__VISIBLE_MODULE);
        return v && bind_module_name(E, s->u.def.name, v, s);
      }
      pending pd = {s, E->env.len};
      if (tl__vec_push(pend, &pd) != TL_OK) return tl__parse_oom(E->p), false;
      tl__val *v = opaquef2(E, "kernel function '", s->u.def.name, "'", "");
      return v && bind_module_name(E, s->u.def.name, v, s);
    }
    case AS_IF: {
      /* Decided when the condition is a compile-time value (if USE_FP8: ...); else
       * what either branch binds is opaque (if torch.cuda.is_available(): ...). */
      const char *why;
      tl__val *c = tl__try_eval(E, s->u.if_.cond, &why);
      if (!c && E->p->status != TL_OK) return false;
      if (c && !tl__val_is_py(c)) c = NULL, why = "the condition is not a compile-time value";
      if (!c) return unread_names(E, s, why);
      const tl__ast_block *b = tl__py_truth(c) ? &s->u.if_.body : &s->u.if_.orelse;
      for (uint32_t i = 0; i < b->n; i++)
        if (!elab_top_stmt(E, b->stmts[i], pend)) return false;
      return true;
    }
    case AS_FOR: case AS_WHILE: return unread_names(E, s, "top-level loops are not run");
    case AS_BREAK: case AS_CONTINUE: return true; /* only inside loops, which are not run */
    case AS_WITH: return unread_names(E, s, "top-level 'with' blocks are not run");
    case AS_RETURN:
      tl__elab_error(E, POS(s), "'return' outside function");
      return false;
  }
  tl__elab_error(E, POS(s), "this statement is not supported at the top level");
  return false;
}

/* A definition decorated @<...>.prim_func (the decorator's last name). */
static bool spelled_prim_func(const tl__ast_stmt *s) {
  if (s->kind != AS_DEF) return false;
  for (uint32_t i = 0; i < s->u.def.ndeco; i++) {
    const tl__ast_expr *x = s->u.def.decos[i];
    if (x->kind == AE_CALL) x = x->u.call.fn;
    const char *last = x->kind == AE_ATTR ? x->u.attr.name : x->kind == AE_NAME ? x->u.name : "";
    if (strcmp(last, "prim_func") == 0) return true;
  }
  return false;
}

/* A block that defines a @<...>.prim_func, itself or in a nested helper
 * (`def kernel_func(block_M, ...): @T.prim_func ...; return main`, called by
 * the factory). */
static bool defines_prim_func(const tl__ast_block *b) {
  for (uint32_t i = 0; i < b->n; i++) {
    const tl__ast_stmt *s = b->stmts[i];
    if (spelled_prim_func(s)) return true;
    if (s->kind == AS_DEF && defines_prim_func(&s->u.def.body)) return true;
  }
  return false;
}

static bool elab_def(tl__elab *E, const pending *pd) {
  const tl__ast_stmt *def = pd->def;
  if (def->u.def.deferred) {
    E->p->status = tl__error(TL_EINVAL, "%s", def->u.def.deferred);
    return false;
  }
  deco_info d;
  bool foreign;
  if (!read_decorators(E, def, &d, &foreign)) return false;
  bool factory = false;
  /* By the decorator's spelling: the factory may import T itself. */
  factory = defines_prim_func(&def->u.def.body);
  if (E->p->status != TL_OK) return false;
  /* Other decorators on a kernel (@autotune(configs=...), @simplify_prim_func, a
   * user's own) are accepted and have no effect: autotuning takes the defaults or
   * the --param values as the configuration. On anything else they mean the
   * function is another library's (@triton.jit). */
  if (foreign && !(d.prim_func || d.jit || factory)) return true;
  if (d.prim_func) {
    tl__prim_func_val *pf = tl__elab_prim_func(E, def, pd->visible);
    if (!pf) return false;
    if (!apply_out_idx(E, pf, d.out_idx)) {
      pfunc_free(pf);
      return false;
    }
    return install(E, def->u.def.name, pf, POS(def));
  }
  if (factory) return elab_factory(E, def, &d);
  if (d.jit) return elab_jit(E, def, &d);
  return true; /* a helper after all (its decorator line only mentioned prim_func) */
}

tl_status tl__elab_module(tl__parse_ctx *p, const tl__ast_block *file, const tl_ir_parse_options *opts, tl_ir_module *mod) {
  tl__elab E = {0};
  E.p = p;
  E.mod = mod;
  E.opts = opts;
  if (opts && opts->struct_size >= offsetof(tl_ir_parse_options, func) + sizeof opts->func) E.only_func = opts->func;
  tl__vec_init(&E.env, sizeof(tl__binding));
  E.ct_loop_base = -1;
  tl__vec pend = TL__VEC_INIT(pending);
  E.file = tl_ir_module_intern(mod, p->file);
  if (!E.file) {
    tl__parse_oom(p);
    goto done;
  }
  if (opts && opts->nconsts) {
    E.used_consts = tl__calloc(opts->nconsts, sizeof(bool));
    if (!E.used_consts) {
      tl__parse_oom(p);
      goto done;
    }
  }
  for (uint32_t i = 0; i < file->n; i++)
    if (!elab_top_stmt(&E, file->stmts[i], &pend)) goto done;
  /* Functions run after the top level: a helper they call sees its final names. */
  E.module_len = E.env.len;
  E.module_done = true;
  bool found_func = false;
  for (size_t i = 0; i < pend.len; i++) {
    const pending *pd = tl__vec_at(&pend, i);
    /* With opts->func, the others are not run, as a factory runs when called. */
    if (E.only_func && strcmp(pd->def->u.def.name, E.only_func) != 0) continue;
    found_func = true;
    if (!elab_def(&E, pd)) goto done;
  }
  if (E.only_func && !found_func) {
    tl__sb names = TL__SB_INIT;
    for (size_t i = 0; i < pend.len; i++)
      tl__sb_appendf(&names, "%s%s", i ? ", " : "", ((const pending *)tl__vec_at(&pend, i))->def->u.def.name);
    p->status = tl__sb_status(&names) != TL_OK ? tl__oom()
                : tl__error(TL_EINVAL, "%s has no function '%s' (%s%s)", p->file, E.only_func,
                            pend.len ? "functions: " : "it defines none", tl__sb_str(&names));
    tl__sb_free(&names);
    goto done;
  }
  bool check_unused = !(opts && opts->struct_size >= offsetof(tl_ir_parse_options, ignore_unused_consts) +
                                                          sizeof opts->ignore_unused_consts &&
                         opts->ignore_unused_consts);
  for (size_t i = 0; check_unused && opts && i < opts->nconsts; i++)
    if (!E.used_consts[i]) {
      p->status = tl__error(TL_EINVAL,
                            "%s: nothing named '%s' to bind (bindings set parameters of factories and @tilelang.jit "
                            "functions, and module-level constants)",
                            p->file, opts->consts[i].name ? opts->consts[i].name : "(null)");
      goto done;
    }
done:
  /* Nested prim_funcs of failed factories were freed; their vecs are the only heap state. */
  tl__vec_free(&pend);
  tl__vec_free(&E.env);
  tl__free(E.used_consts);
  tl_ir_builder_set_loc(mod, (tl_ir_span){NULL, 0, 0});
  return p->status;
}
