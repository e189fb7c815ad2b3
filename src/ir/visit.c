/* Pre-order traversal of expressions and statements. Children are visited in the
 * order they are evaluated or written; buffer shapes are not visited. */
#include "tilelang/ir.h"

void tl_ir_visit_expr(tl_ir_visitor *v, const tl_ir_expr *e) {
  if (!e) return;
  if (v->expr && !v->expr(v, e)) return;
  switch (e->kind) {
  case TL_EXPR_INT:
  case TL_EXPR_FLOAT:
  case TL_EXPR_STR:
  case TL_EXPR_VAR:
    break;
  case TL_EXPR_BINARY:
    tl_ir_visit_expr(v, e->u.binary.a);
    tl_ir_visit_expr(v, e->u.binary.b);
    break;
  case TL_EXPR_UNARY:
    tl_ir_visit_expr(v, e->u.unary.a);
    break;
  case TL_EXPR_SELECT:
    tl_ir_visit_expr(v, e->u.select.cond);
    tl_ir_visit_expr(v, e->u.select.t);
    tl_ir_visit_expr(v, e->u.select.f);
    break;
  case TL_EXPR_CAST:
    tl_ir_visit_expr(v, e->u.cast.value);
    break;
  case TL_EXPR_LOAD:
    for (uint32_t i = 0; i < e->u.load.n; i++) tl_ir_visit_expr(v, e->u.load.indices[i]);
    break;
  case TL_EXPR_CALL:
    for (uint32_t i = 0; i < e->u.call.nargs; i++) tl_ir_visit_expr(v, e->u.call.args[i]);
    break;
  case TL_EXPR_REGION:
    /* Per dimension: its start, then its extent. */
    for (uint32_t i = 0; i < e->u.region.ndim; i++) {
      tl_ir_visit_expr(v, e->u.region.mins[i]);
      tl_ir_visit_expr(v, e->u.region.extents[i]);
    }
    break;
  case TL_EXPR_RAMP:
    tl_ir_visit_expr(v, e->u.ramp.base);
    break;
  case TL_EXPR_BROADCAST:
    tl_ir_visit_expr(v, e->u.broadcast.value);
    break;
  }
}

void tl_ir_visit_stmt(tl_ir_visitor *v, const tl_ir_stmt *s) {
  if (!s) return;
  if (v->stmt && !v->stmt(v, s)) return;
  switch (s->kind) {
  case TL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++) tl_ir_visit_stmt(v, s->u.seq.stmts[i]);
    break;
  case TL_STMT_FOR:
    /* Per loop level, outermost first: its start, then its extent; then the body. */
    for (uint32_t i = 0; i < s->u.loop.n; i++) {
      tl_ir_visit_expr(v, s->u.loop.mins[i]);
      tl_ir_visit_expr(v, s->u.loop.extents[i]);
    }
    tl_ir_visit_stmt(v, s->u.loop.body);
    break;
  case TL_STMT_IF:
    tl_ir_visit_expr(v, s->u.if_.cond);
    tl_ir_visit_stmt(v, s->u.if_.then_);
    tl_ir_visit_stmt(v, s->u.if_.else_);
    break;
  case TL_STMT_STORE:
    for (uint32_t i = 0; i < s->u.store.n; i++) tl_ir_visit_expr(v, s->u.store.indices[i]);
    tl_ir_visit_expr(v, s->u.store.value);
    break;
  case TL_STMT_LET:
    tl_ir_visit_expr(v, s->u.let.value);
    tl_ir_visit_stmt(v, s->u.let.body);
    break;
  case TL_STMT_ALLOC:
  case TL_STMT_BARRIER:
    break;
  case TL_STMT_EVAL:
    tl_ir_visit_expr(v, s->u.eval.expr);
    break;
  case TL_STMT_KERNEL:
    for (uint32_t i = 0; i < s->u.kernel.grid_ndim && i < 3; i++) tl_ir_visit_expr(v, s->u.kernel.grid[i]);
    for (uint32_t i = 0; i < s->u.kernel.threads_ndim && i < 3; i++) tl_ir_visit_expr(v, s->u.kernel.threads[i]);
    tl_ir_visit_stmt(v, s->u.kernel.body);
    break;
  case TL_STMT_ASSERT:
    tl_ir_visit_expr(v, s->u.assert_.cond);
    break;
  case TL_STMT_LAUNCH:
    for (uint32_t i = 0; i < s->u.launch.nargs; i++) tl_ir_visit_expr(v, s->u.launch.args[i]);
    for (int i = 0; i < 3; i++) tl_ir_visit_expr(v, s->u.launch.grid[i]);
    for (int i = 0; i < 3; i++) tl_ir_visit_expr(v, s->u.launch.block[i]);
    tl_ir_visit_expr(v, s->u.launch.dyn_shared_bytes);
    break;
  }
}
