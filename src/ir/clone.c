/* Deep copy of a module. Every variable and buffer is copied once, so a variable
 * used in several places is one object in the copy too; ids are kept (the copy
 * prints and hashes like the original). Expressions and statements are copied as
 * trees. Strings, span files included, are copied into the new module. */
#include <string.h>

#include "base/error.h"
#include "base/vec.h"
#include "module.h"

typedef struct pair {
  const void *src;
  void *dst;
} pair;

typedef struct cloner {
  tl_ir_module *dst;
  tl__vec vars;     /* pair, indexed by the source var's id */
  tl__vec buffers;  /* pair, indexed by the source buffer's id */
  tl__vec overflow; /* pair: vars and buffers whose id is out of range or shared */
  tl__vec files;    /* pair: span file strings already copied */
  bool failed;
} cloner;

static bool fail(cloner *c) {
  c->failed = true;
  return false;
}

/* Copies a string (NULL stays NULL). */
static bool dup_str(cloner *c, const char *s, const char **out) {
  *out = NULL;
  if (!s) return true;
  if (!(*out = tl__ir_intern(c->dst, s))) return fail(c);
  return true;
}

/* A span: the file string is copied once per distinct source pointer. */
static bool dup_span(cloner *c, tl_ir_span in, tl_ir_span *out) {
  *out = in;
  if (!in.file) return true;
  for (size_t i = 0; i < c->files.len; i++) {
    pair *p = tl__vec_at(&c->files, i);
    if (p->src == in.file) {
      out->file = p->dst;
      return true;
    }
  }
  const char *f;
  if (!dup_str(c, in.file, &f)) return false;
  pair p = {in.file, (void *)f};
  if (tl__vec_push(&c->files, &p) != TL_OK) return fail(c);
  out->file = f;
  return true;
}

/* The copy of a source var or buffer made earlier, or NULL. */
static void *lookup(const cloner *c, const tl__vec *table, const void *src, uint32_t id) {
  if (id < table->len) {
    const pair *p = tl__vec_at(table, id);
    if (p->src == src) return p->dst;
  }
  for (size_t i = 0; i < c->overflow.len; i++) {
    const pair *p = tl__vec_at(&c->overflow, i);
    if (p->src == src) return p->dst;
  }
  return NULL;
}

/* Remembers a copy: in its id's entry, or (an id out of range or shared by two
 * objects, as hand-made nodes may have) in the overflow list. */
static bool record(cloner *c, tl__vec *table, const void *src, uint32_t id, void *dst) {
  if (id < table->len) {
    pair *p = tl__vec_at(table, id);
    if (!p->src) {
      *p = (pair){src, dst};
      return true;
    }
  }
  pair p = {src, dst};
  return tl__vec_push(&c->overflow, &p) == TL_OK || fail(c);
}

static tl_ir_expr *clone_expr(cloner *c, const tl_ir_expr *e);

static tl_ir_var *clone_var(cloner *c, const tl_ir_var *v) {
  if (!v) return NULL;
  tl_ir_var *n = lookup(c, &c->vars, v, v->id);
  if (n) return n;
  n = tl__ir_alloc(c->dst, sizeof *n);
  if (!n) return fail(c), NULL;
  *n = *v;
  if (!dup_str(c, v->name, &n->name) || !dup_str(c, v->thread_tag, &n->thread_tag) || !dup_span(c, v->span, &n->span))
    return NULL;
  return record(c, &c->vars, v, v->id, n) ? n : NULL;
}

/* Copies an array of n expressions (NULL stays NULL). */
static bool clone_exprs(cloner *c, tl_ir_expr *const *src, uint32_t n, tl_ir_expr ***out) {
  *out = NULL;
  if (!src || n == 0) return true;
  tl_ir_expr **a = tl__ir_alloc(c->dst, sizeof *a * n);
  if (!a) return fail(c);
  for (uint32_t i = 0; i < n; i++)
    if (src[i] && !(a[i] = clone_expr(c, src[i]))) return false;
  *out = a;
  return true;
}

static tl_ir_buffer *clone_buffer(cloner *c, const tl_ir_buffer *b) {
  if (!b) return NULL;
  tl_ir_buffer *n = lookup(c, &c->buffers, b, b->id);
  if (n) return n;
  n = tl__ir_alloc(c->dst, sizeof *n);
  if (!n) return fail(c), NULL;
  *n = *b;
  if (!dup_str(c, b->name, &n->name) || !dup_span(c, b->span, &n->span)) return NULL;
  if (!clone_exprs(c, b->shape, b->ndim, &n->shape) || !clone_exprs(c, b->strides, b->ndim, &n->strides)) return NULL;
  if (b->data && !(n->data = clone_var(c, b->data))) return NULL;
  return record(c, &c->buffers, b, b->id, n) ? n : NULL;
}

static tl_ir_expr *clone_expr(cloner *c, const tl_ir_expr *e) {
  if (!e) return NULL;
  tl_ir_expr *n = tl__ir_alloc(c->dst, sizeof *n);
  if (!n) return fail(c), NULL;
  *n = *e;
  if (!dup_span(c, e->span, &n->span)) return NULL;
  bool ok = true;
  switch (e->kind) {
  case TL_EXPR_INT:
  case TL_EXPR_FLOAT:
    break;
  case TL_EXPR_STR:
    ok = dup_str(c, e->u.str, &n->u.str);
    break;
  case TL_EXPR_VAR:
    ok = (n->u.var = clone_var(c, e->u.var)) != NULL || !e->u.var;
    break;
  case TL_EXPR_BINARY:
    ok = (n->u.binary.a = clone_expr(c, e->u.binary.a)) && (n->u.binary.b = clone_expr(c, e->u.binary.b));
    break;
  case TL_EXPR_UNARY:
    ok = (n->u.unary.a = clone_expr(c, e->u.unary.a)) != NULL;
    break;
  case TL_EXPR_SELECT:
    ok = (n->u.select.cond = clone_expr(c, e->u.select.cond)) && (n->u.select.t = clone_expr(c, e->u.select.t)) &&
         (n->u.select.f = clone_expr(c, e->u.select.f));
    break;
  case TL_EXPR_CAST:
    ok = (n->u.cast.value = clone_expr(c, e->u.cast.value)) != NULL;
    break;
  case TL_EXPR_LOAD:
    ok = (n->u.load.buffer = clone_buffer(c, e->u.load.buffer)) &&
         clone_exprs(c, e->u.load.indices, e->u.load.n, &n->u.load.indices);
    break;
  case TL_EXPR_CALL:
    ok = clone_exprs(c, e->u.call.args, e->u.call.nargs, &n->u.call.args);
    break;
  case TL_EXPR_REGION:
    ok = (n->u.region.buffer = clone_buffer(c, e->u.region.buffer)) &&
         clone_exprs(c, e->u.region.mins, e->u.region.ndim, &n->u.region.mins) &&
         clone_exprs(c, e->u.region.extents, e->u.region.ndim, &n->u.region.extents);
    break;
  case TL_EXPR_RAMP:
    ok = (n->u.ramp.base = clone_expr(c, e->u.ramp.base)) != NULL;
    break;
  case TL_EXPR_BROADCAST:
    ok = (n->u.broadcast.value = clone_expr(c, e->u.broadcast.value)) != NULL;
    break;
  }
  return ok && !c->failed ? n : NULL;
}

static tl_ir_stmt *clone_stmt(cloner *c, const tl_ir_stmt *s);

static bool clone_triple(cloner *c, tl_ir_expr *const in[3], tl_ir_expr *out[3]) {
  for (int i = 0; i < 3; i++)
    if (in[i] && !(out[i] = clone_expr(c, in[i]))) return false;
  return true;
}

static bool clone_vars(cloner *c, tl_ir_var *const *in, tl_ir_var **out, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (in[i] && !(out[i] = clone_var(c, in[i]))) return false;
  return true;
}

static tl_ir_stmt *clone_stmt(cloner *c, const tl_ir_stmt *s) {
  if (!s) return NULL;
  tl_ir_stmt *n = tl__ir_alloc(c->dst, sizeof *n);
  if (!n) return fail(c), NULL;
  *n = *s;
  if (!dup_span(c, s->span, &n->span)) return NULL;
  bool ok = true;
  switch (s->kind) {
  case TL_STMT_SEQ:
    if (s->u.seq.n) {
      ok = (n->u.seq.stmts = tl__ir_alloc(c->dst, sizeof *n->u.seq.stmts * s->u.seq.n)) != NULL || fail(c);
      for (uint32_t i = 0; ok && i < s->u.seq.n; i++)
        ok = !s->u.seq.stmts[i] || (n->u.seq.stmts[i] = clone_stmt(c, s->u.seq.stmts[i]));
    }
    break;
  case TL_STMT_FOR:
    ok = (n->u.loop.vars = tl__ir_alloc(c->dst, sizeof *n->u.loop.vars * (s->u.loop.n ? s->u.loop.n : 1))) != NULL ||
         fail(c);
    ok = ok && clone_vars(c, s->u.loop.vars, n->u.loop.vars, s->u.loop.n) &&
         clone_exprs(c, s->u.loop.mins, s->u.loop.n, &n->u.loop.mins) &&
         clone_exprs(c, s->u.loop.extents, s->u.loop.n, &n->u.loop.extents) &&
         dup_str(c, s->u.loop.thread_tag, &n->u.loop.thread_tag) &&
         (!s->u.loop.body || (n->u.loop.body = clone_stmt(c, s->u.loop.body)));
    break;
  case TL_STMT_IF:
    ok = (n->u.if_.cond = clone_expr(c, s->u.if_.cond)) && (n->u.if_.then_ = clone_stmt(c, s->u.if_.then_)) &&
         (!s->u.if_.else_ || (n->u.if_.else_ = clone_stmt(c, s->u.if_.else_)));
    break;
  case TL_STMT_STORE:
    ok = (n->u.store.buffer = clone_buffer(c, s->u.store.buffer)) &&
         clone_exprs(c, s->u.store.indices, s->u.store.n, &n->u.store.indices) &&
         (n->u.store.value = clone_expr(c, s->u.store.value));
    break;
  case TL_STMT_LET:
    ok = (n->u.let.var = clone_var(c, s->u.let.var)) && (n->u.let.value = clone_expr(c, s->u.let.value)) &&
         (n->u.let.body = clone_stmt(c, s->u.let.body));
    break;
  case TL_STMT_ALLOC:
    ok = (n->u.alloc.buffer = clone_buffer(c, s->u.alloc.buffer)) != NULL;
    break;
  case TL_STMT_EVAL:
    ok = (n->u.eval.expr = clone_expr(c, s->u.eval.expr)) != NULL;
    break;
  case TL_STMT_KERNEL:
    ok = clone_triple(c, s->u.kernel.grid, n->u.kernel.grid) && clone_triple(c, s->u.kernel.threads, n->u.kernel.threads) &&
         clone_vars(c, s->u.kernel.block_vars, n->u.kernel.block_vars, 3) &&
         clone_vars(c, s->u.kernel.thread_vars, n->u.kernel.thread_vars, 3) &&
         (n->u.kernel.body = clone_stmt(c, s->u.kernel.body));
    break;
  case TL_STMT_BARRIER:
    break;
  case TL_STMT_ASSERT:
    ok = (n->u.assert_.cond = clone_expr(c, s->u.assert_.cond)) && dup_str(c, s->u.assert_.message, &n->u.assert_.message);
    break;
  case TL_STMT_LAUNCH:
    ok = dup_str(c, s->u.launch.kernel, &n->u.launch.kernel) &&
         clone_exprs(c, s->u.launch.args, s->u.launch.nargs, &n->u.launch.args) &&
         clone_triple(c, s->u.launch.grid, n->u.launch.grid) && clone_triple(c, s->u.launch.block, n->u.launch.block) &&
         (!s->u.launch.dyn_shared_bytes || (n->u.launch.dyn_shared_bytes = clone_expr(c, s->u.launch.dyn_shared_bytes)));
    break;
  }
  return ok && !c->failed ? n : NULL;
}

/* Attributes into a new arena array. */
static bool clone_attrs(cloner *c, const tl_ir_attr *src, uint32_t n, tl_ir_attr **out) {
  *out = NULL;
  if (n == 0) return true;
  tl_ir_attr *a = tl__ir_alloc(c->dst, sizeof *a * n);
  if (!a) return fail(c);
  for (uint32_t i = 0; i < n; i++) {
    a[i] = src[i];
    if (!dup_str(c, src[i].key, &a[i].key) || !dup_str(c, src[i].s, &a[i].s)) return false;
  }
  *out = a;
  return true;
}

static tl_ir_func *clone_func(cloner *c, const tl_ir_func *f) {
  tl_ir_func *n = tl__ir_alloc(c->dst, sizeof *n);
  if (!n) return fail(c), NULL;
  *n = *f;
  if (!dup_str(c, f->name, &n->name) || !dup_span(c, f->span, &n->span)) return NULL;
  if (f->nparams) {
    if (!(n->params = tl__ir_alloc(c->dst, sizeof *n->params * f->nparams))) return fail(c), NULL;
    for (uint32_t i = 0; i < f->nparams; i++) {
      const tl_ir_param *p = &f->params[i];
      tl_ir_param *q = &n->params[i];
      *q = *p;
      if (!dup_str(c, p->name, &q->name)) return NULL;
      if (p->buffer && !(q->buffer = clone_buffer(c, p->buffer))) return NULL;
      if (p->var && !(q->var = clone_var(c, p->var))) return NULL;
    }
  }
  if (!clone_attrs(c, f->attrs, f->nattrs, &n->attrs)) return NULL;
  if (f->body && !(n->body = clone_stmt(c, f->body))) return NULL;
  return n;
}

/* Sizes a table to `n` empty pairs. */
static bool init_table(cloner *c, tl__vec *t, uint32_t n) {
  if (tl__vec_reserve(t, n) != TL_OK) return fail(c);
  if (n) memset(t->data, 0, sizeof(pair) * n);
  t->len = n;
  return true;
}

tl_status tl_ir_module_clone(const tl_ir_module *src, tl_ir_module **out) {
  *out = NULL;
  if (!src) return tl__error(TL_EINVAL, "tl_ir_module_clone: module is NULL");
  tl_ir_module *dst;
  TL__TRY(tl_ir_module_create(&dst));
  cloner c = {dst, TL__VEC_INIT(pair), TL__VEC_INIT(pair), TL__VEC_INIT(pair), TL__VEC_INIT(pair), false};
  bool ok = init_table(&c, &c.vars, src->next_var_id) && init_table(&c, &c.buffers, src->next_buffer_id) &&
            dup_span(&c, src->loc, &dst->loc);
  for (size_t i = 0; ok && i < src->attrs.len; i++) {
    tl_ir_attr a = *(const tl_ir_attr *)tl__vec_at(&src->attrs, i);
    ok = dup_str(&c, a.key, &a.key) && dup_str(&c, a.s, &a.s) && (tl__vec_push(&dst->attrs, &a) == TL_OK || fail(&c));
  }
  for (size_t i = 0; ok && i < tl_ir_module_num_funcs(src); i++) {
    tl_ir_func *f = clone_func(&c, tl_ir_module_func(src, i));
    ok = f && (tl__vec_push(&dst->funcs, &f) == TL_OK || fail(&c));
  }
  tl__vec_free(&c.vars);
  tl__vec_free(&c.buffers);
  tl__vec_free(&c.overflow);
  tl__vec_free(&c.files);
  if (!ok || c.failed) {
    tl_ir_module_free(dst);
    return tl__oom();
  }
  dst->next_var_id = src->next_var_id;
  dst->next_buffer_id = src->next_buffer_id;
  *out = dst;
  return TL_OK;
}
