/* Device kernels of the C-family printer: the signature (which tensors the kernel
 * only reads, the dialect's parameter templates and launch bounds), the block and
 * thread indices declared at the top, and the body through the statement printer. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "codegen/c_printer.h"

/* ---------------------------------------------------------------- kernels */

/* Data variables a kernel writes through (stores, atomics) or lets escape. */
typedef struct written_ctx {
  tl__vec ids; /* uint32_t */
  bool oom;
} written_ctx;

static void mark_written(written_ctx *c, const tl_ir_var *v) {
  if (tl__vec_push(&c->ids, &v->id) != TL_OK) c->oom = true;
}

static bool written_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  written_ctx *c = v->ctx;
  if (s->kind == TL_STMT_STORE) mark_written(c, s->u.store.buffer->data);
  return true;
}

static bool written_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  written_ctx *c = v->ctx;
  if (e->kind == TL_EXPR_CALL && tl_ir_op_is_tile(e->u.call.op))
    for (uint32_t i = 0; i < e->u.call.nargs; i++)
      if (e->u.call.args[i]->kind == TL_EXPR_REGION) mark_written(c, e->u.call.args[i]->u.region.buffer->data);
  /* A data pointer used as a value may be written through elsewhere. */
  if (e->kind == TL_EXPR_VAR && e->u.var->dtype.code == TL_DTYPE_HANDLE) mark_written(c, e->u.var);
  return true;
}

static bool is_written(const written_ctx *c, const tl_ir_var *v) {
  for (size_t i = 0; i < c->ids.len; i++)
    if (TL__VEC_AT(&c->ids, uint32_t, i) == v->id) return true;
  return false;
}

/* Variables in the parameters' shapes are symbolic dims (the host entry checked them
 * to be sizes): never negative. */
static bool mark_nonneg(tl_ir_visitor *v, const tl_ir_expr *e) {
  if (e->kind == TL_EXPR_VAR && tl_dtype_is_int(e->dtype)) tl__cgen_set_nonneg(v->ctx, e->u.var);
  return true;
}

static void mark_shape_vars(tl__cgen *g, const tl_ir_func *f) {
  tl_ir_visitor v = {mark_nonneg, NULL, g};
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !b) continue;
    for (uint32_t d = 0; d < b->ndim; d++) tl_ir_visit_expr(&v, b->shape[d]);
  }
}

/* The dialect's launch_bounds and a blank, when every launch of the kernel has the
 * same constant block (g->kernel_block) of at most max_block_threads threads. */
static void print_launch_bounds(tl__cgen *g) {
  const tl__c_dialect *d = g->d;
  if (!g->kernel_block || !d->launch_bounds) return;
  int64_t threads = g->kernel_block[0] * g->kernel_block[1] * g->kernel_block[2];
  if (threads <= 0 || threads > d->max_block_threads) return;
  char n[24];
  snprintf(n, sizeof n, "%lld", (long long)threads);
  tl__cgen_subst sub[] = {{"N", n}};
  tl__cgen_expand(g, d->launch_bounds, sub, 1);
  tl__cgen_write(g, " ");
}

void tl__cgen_kernel_signature(tl__cgen *g, const tl_ir_func *f) {
  const tl__c_dialect *d = g->d;
  if (!tl__c_is_identifier(f->name)) {
    tl__cgen_error(g, TL_EUNSUPPORTED, "kernel name '%s' is not a valid %s identifier", f->name, d->name);
    return;
  }
  written_ctx wc = {TL__VEC_INIT(uint32_t), false};
  tl_ir_visitor v = {written_expr, written_stmt, &wc};
  tl_ir_visit_stmt(&v, f->body);
  if (wc.oom) tl__cgen_oom(g);
  tl__cgen_write(g, "%s%s", d->kernel_prefix, *d->kernel_prefix ? " " : "");
  print_launch_bounds(g);
  tl__cgen_write(g, "void %s(", f->name);
  for (uint32_t i = 0; i < f->nparams; i++) {
    const tl_ir_param *p = &f->params[i];
    char index[16];
    snprintf(index, sizeof index, "%u", (unsigned)i);
    if (i) tl__cgen_write(g, ", ");
    if (p->kind == TL_PARAM_BUFFER) {
      const tl_ir_buffer *b = p->buffer;
      const char *type = tl__cgen_storage_type(g, b->dtype);
      const char *name = tl__cgen_declare(g, b->data);
      tl__cgen_set_elem(g, b->data, tl_dtype_scalar(b->dtype));
      bool ro = !is_written(&wc, b->data);
      if (d->buffer_param) {
        tl__sb space = TL__SB_INIT, restrict_kw = TL__SB_INIT;
        tl__sb_appendf(&space, "%s%s", d->global_space, *d->global_space ? " " : "");
        tl__sb_appendf(&restrict_kw, "%s%s", d->restrict_kw, *d->restrict_kw ? " " : "");
        if (tl__sb_status(&space) != TL_OK || tl__sb_status(&restrict_kw) != TL_OK) tl__cgen_oom(g);
        tl__cgen_subst sub[] = {{"G", tl__sb_str(&space)}, {"C", ro ? "const " : ""}, {"T", type},
                                {"R", tl__sb_str(&restrict_kw)}, {"N", name}, {"I", index}};
        tl__cgen_expand(g, d->buffer_param, sub, 6);
        tl__sb_free(&space);
        tl__sb_free(&restrict_kw);
        continue;
      }
      tl__cgen_write(g, "%s%s%s%s *%s%s%s", d->global_space, *d->global_space ? " " : "", ro ? "const " : "", type,
                     d->restrict_kw, *d->restrict_kw ? " " : "", name);
    } else {
      const char *type = tl__cgen_type(g, p->var->dtype);
      if (d->t_bool_param && tl_dtype_is_bool(p->var->dtype)) type = d->t_bool_param;
      const char *name = tl__cgen_declare(g, p->var);
      if (d->scalar_param) {
        tl__cgen_subst sub[] = {{"T", type}, {"N", name}, {"I", index}};
        tl__cgen_expand(g, d->scalar_param, sub, 3);
        continue;
      }
      tl__cgen_write(g, "%s%s%s", type, p->var->dtype.code == TL_DTYPE_HANDLE ? "" : " ", name);
    }
  }
  if (d->extra_params) tl__cgen_write(g, "%s%s", f->nparams ? ", " : "", d->extra_params);
  else if (f->nparams == 0) tl__cgen_write(g, "void");
  tl__cgen_write(g, ")");
  tl__vec_free(&wc.ids);
  mark_shape_vars(g, f);
}

/* The thread-tagged variables a kernel body mentions (blockIdx.x, threadIdx.x,
 * ...), each once. */
typedef struct tagged_ctx {
  tl__vec vars; /* const tl_ir_var * */
  bool oom;
} tagged_ctx;

static bool tagged_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  tagged_ctx *c = v->ctx;
  if (e->kind != TL_EXPR_VAR || !e->u.var->thread_tag) return true;
  for (size_t i = 0; i < c->vars.len; i++)
    if (TL__VEC_AT(&c->vars, const tl_ir_var *, i) == e->u.var) return true;
  if (tl__vec_push(&c->vars, &e->u.var) != TL_OK) c->oom = true;
  return true;
}

/* Declares the block and thread indices the body uses, as constants of their
 * own type at the top of the kernel (`const int32_t tx = threadIdx.x;`): the
 * dialect's built-ins may be unsigned, lowered index arithmetic is signed. */
static void declare_thread_vars(tl__cgen *g, const tl_ir_func *f) {
  tagged_ctx c = {TL__VEC_INIT(const tl_ir_var *), false};
  tl_ir_visitor v = {tagged_expr, NULL, &c};
  tl_ir_visit_stmt(&v, f->body);
  if (c.oom) tl__cgen_oom(g);
  g->indent++;
  for (size_t i = 0; i < c.vars.len && g->status == TL_OK; i++) {
    const tl_ir_var *var = TL__VEC_AT(&c.vars, const tl_ir_var *, i);
    const char *text = NULL;
    for (const tl__c_thread_tag *t = g->d->thread_tags; t && t->tag; t++)
      if (strcmp(t->tag, var->thread_tag) == 0) text = t->text;
    if (!text) {
      tl__cgen_error(g, TL_EUNSUPPORTED, "the %s dialect has no thread index '%s' (variable '%s')", g->d->name,
                     var->thread_tag, var->name);
      break;
    }
    const char *type = tl__cgen_type(g, var->dtype);
    const char *name = tl__cgen_declare(g, var);
    tl__cgen_line(g, "const %s %s = %s;", type, name, text);
  }
  g->indent--;
  tl__vec_free(&c.vars);
}

void tl__cgen_kernel(tl__cgen *g, const tl_ir_func *f) {
  tl__cgen_begin_func(g);
  tl__cgen_kernel_signature(g, f);
  tl__cgen_write(g, " {\n");
  declare_thread_vars(g, f);
  g->indent++;
  tl__cgen_stmt(g, f->body);
  g->indent--;
  tl__cgen_write(g, "}\n");
}
