/* Resolution of variable and buffer uses to their definitions (see scope.h). */
#include "scope.h"

/* The slot of v in one defining statement, or -1. */
static int bind_slot(const tl_ir_stmt *d, const tl_ir_var *v) {
  switch (d->kind) {
  case TL_STMT_FOR:
    for (uint32_t i = 0; i < d->u.loop.n; i++)
      if (d->u.loop.vars[i] == v) return (int)i;
    return -1;
  case TL_STMT_LET:
    return d->u.let.var == v ? 0 : -1;
  case TL_STMT_KERNEL:
    for (int i = 0; i < 3; i++) {
      if (d->u.kernel.block_vars[i] == v) return i;
      if (d->u.kernel.thread_vars[i] == v) return 3 + i;
    }
    return -1;
  case TL_STMT_ALLOC:
    return d->u.alloc.buffer && d->u.alloc.buffer->data == v ? 0 : -1;
  default:
    return -1;
  }
}

const tl_ir_stmt *tl__ir_bind_find_var(const tl__ir_bind *chain, const tl_ir_var *v) {
  for (const tl__ir_bind *b = chain; b; b = b->up)
    if (bind_slot(b->def, v) >= 0) return b->def;
  return NULL;
}

typedef struct find_ctx {
  const tl_ir_var *v;
  uint32_t pos;
  bool found;
} find_ctx;

/* Counts variable mentions until v's first. */
static bool find_expr(tl_ir_visitor *vis, const tl_ir_expr *e) {
  find_ctx *c = vis->ctx;
  if (c->found) return false;
  if (e->kind == TL_EXPR_VAR) {
    if (e->u.var == c->v)
      c->found = true;
    else
      c->pos++;
  }
  return true;
}

tl__ir_ref tl__ir_resolve_var(const tl_ir_func *f, const tl__ir_bind *chain, const tl_ir_var *v) {
  uint32_t depth = 0;
  for (const tl__ir_bind *b = chain; b; b = b->up, depth++) {
    int slot = bind_slot(b->def, v);
    if (slot >= 0) return (tl__ir_ref){TL__REF_LOCAL, depth, (uint32_t)slot};
  }
  if (!f) return (tl__ir_ref){TL__REF_FREE, 0, 0};
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->params[i].var == v) return (tl__ir_ref){TL__REF_PARAM, i, 0};
  find_ctx c = {v, 0, false};
  tl_ir_visitor vis = {find_expr, NULL, &c};
  for (uint32_t i = 0; i < f->nparams && !c.found; i++) {
    const tl_ir_buffer *b = f->params[i].buffer;
    if (f->params[i].kind != TL_PARAM_BUFFER || !b) continue;
    for (uint32_t d = 0; d < b->ndim && !c.found; d++) tl_ir_visit_expr(&vis, b->shape[d]);
    for (uint32_t d = 0; b->strides && d < b->ndim && !c.found; d++) tl_ir_visit_expr(&vis, b->strides[d]);
  }
  if (c.found) return (tl__ir_ref){TL__REF_SHAPE, c.pos, 0};
  return (tl__ir_ref){TL__REF_FREE, 0, 0};
}

tl__ir_ref tl__ir_resolve_buffer(const tl_ir_func *f, const tl__ir_bind *chain, const tl_ir_buffer *buf) {
  uint32_t depth = 0;
  for (const tl__ir_bind *b = chain; b; b = b->up, depth++)
    if (b->def->kind == TL_STMT_ALLOC && b->def->u.alloc.buffer == buf) return (tl__ir_ref){TL__REF_LOCAL, depth, 0};
  for (uint32_t i = 0; f && i < f->nparams; i++)
    if (f->params[i].kind == TL_PARAM_BUFFER && f->params[i].buffer == buf) return (tl__ir_ref){TL__REF_PARAM, i, 0};
  return (tl__ir_ref){TL__REF_FREE, 0, 0};
}
