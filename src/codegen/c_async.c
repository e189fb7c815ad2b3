/* cp.async statements in C-family code (c_async.h). */
#include "codegen/c_async.h"

#include "codegen/c_context.h"

static void element_address(tl__cgen *g, const tl_ir_expr *r) {
  tl__cgen_write(g, "&");
  tl__cgen_element(g, r->u.region.buffer, r->u.region.ndim, r->u.region.mins);
}

void tl__cgen_cp_async_op(tl__cgen *g, const tl_ir_expr *call) {
  tl_ir_expr *const *a = call->u.call.args;
  tl_ir_op op = call->u.call.op;
  tl__cgen_use_helper(g, "cp_async", TL_DT_HANDLE);
  if (op == TL_OP_CP_ASYNC_COMMIT) {
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "tl_cp_async_commit();\n");
    return;
  }
  if (op == TL_OP_CP_ASYNC_WAIT) {
    if (call->u.call.nargs != 1 || !a || !a[0] || a[0]->kind != TL_EXPR_INT || a[0]->u.int_value < 0) {
      tl__cgen_error(g, TL_EINVAL, "T.cp_async_wait takes a non-negative integer constant");
      return;
    }
    tl__sb_indent(g->out, 2 * g->indent);
    tl__cgen_write(g, "tl_cp_async_wait<%lld>();\n", (long long)a[0]->u.int_value);
    return;
  }
  if (call->u.call.nargs != 4 || !a || !a[0] || !a[1] || !a[2] || !a[3] || a[0]->kind != TL_EXPR_REGION ||
      a[1]->kind != TL_EXPR_REGION || a[2]->kind != TL_EXPR_INT ||
      (a[2]->u.int_value != 4 && a[2]->u.int_value != 8 && a[2]->u.int_value != 16)) {
    tl__cgen_error(g, TL_EINVAL, "T.cp_async takes two one-element regions, 4, 8 or 16 bytes and a condition");
    return;
  }
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "tl_cp_async_%d(", (int)a[2]->u.int_value);
  element_address(g, a[0]);
  tl__cgen_write(g, ", ");
  element_address(g, a[1]);
  tl__cgen_write(g, ", ");
  tl__cgen_expr(g, a[3], TL__PREC_TOP);
  tl__cgen_write(g, ");\n");
}
