/* T.gemm_strided in C-family code: one call of the dialect's blocked GEMM helper
 * (section "gemm", c_gemm_text.c), with the address of each operand's first
 * element, the sizes, the element strides and the element type of A and B:
 *
 *   tl_gemm(64, 64, 32, TL_GEMM_F16, &A_shared[0], 32, 1, &B_shared[0], 64, 1,
 *           &C_local[0], 64, 1, 0);
 *
 * A dialect without that section refuses the op with the printer's "no helper
 * section" error. */
#include "codegen/c_gemm.h"

/* The helper's name for an element type of A and B (lower_gemm_cpu admits only these). */
static const char *element_code(tl_dtype t) {
  if (t.lanes != 1) return NULL;
  if (t.code == TL_DTYPE_BFLOAT && t.bits == 16) return "TL_GEMM_BF16";
  if (t.code == TL_DTYPE_FLOAT && t.bits == 16) return "TL_GEMM_F16";
  if (t.code == TL_DTYPE_FLOAT && t.bits == 32) return "TL_GEMM_F32";
  return NULL;
}

/* `&buf[first element]` of a one-element region. */
static void element_address(tl__cgen *g, const tl_ir_expr *r) {
  tl__cgen_write(g, "&");
  tl__cgen_element(g, r->u.region.buffer, r->u.region.ndim, r->u.region.mins);
}

void tl__cgen_gemm_strided(tl__cgen *g, const tl_ir_expr *call) {
  tl_ir_expr *const *a = call->u.call.args;
  if (call->u.call.nargs != 13 || !a) {
    tl__cgen_error(g, TL_EINVAL, "T.gemm_strided takes 13 arguments, not %u", call->u.call.nargs);
    return;
  }
  for (int i = 0; i < 13; i++)
    if (!a[i] || (i < 3) != (a[i]->kind == TL_EXPR_REGION) || (i >= 3 && a[i]->kind != TL_EXPR_INT)) {
      tl__cgen_error(g, TL_EINVAL, "T.gemm_strided: argument %d must be %s", i,
                     i < 3 ? "a one-element region" : "an integer constant");
      return;
    }
  tl_dtype at = a[0]->u.region.buffer->dtype, bt = a[1]->u.region.buffer->dtype, ct = a[2]->u.region.buffer->dtype;
  const char *code = element_code(at);
  if (!code || !tl_dtype_eq(at, bt) || !tl_dtype_eq(ct, TL_DT_FLOAT32)) {
    tl__cgen_error(g, TL_EUNSUPPORTED,
                   "T.gemm_strided: A and B must both be float32, float16 or bfloat16 and C float32 (buffers '%s', "
                   "'%s', '%s')",
                   a[0]->u.region.buffer->name, a[1]->u.region.buffer->name, a[2]->u.region.buffer->name);
    return;
  }
  tl__cgen_use_helper(g, "gemm", at);
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "tl_gemm(%lld, %lld, %lld, %s, ", (long long)a[3]->u.int_value, (long long)a[4]->u.int_value,
                 (long long)a[5]->u.int_value, code);
  element_address(g, a[0]);
  tl__cgen_write(g, ", %lld, %lld, ", (long long)a[6]->u.int_value, (long long)a[7]->u.int_value);
  element_address(g, a[1]);
  tl__cgen_write(g, ", %lld, %lld, ", (long long)a[8]->u.int_value, (long long)a[9]->u.int_value);
  element_address(g, a[2]);
  tl__cgen_write(g, ", %lld, %lld, %d);\n", (long long)a[10]->u.int_value, (long long)a[11]->u.int_value,
                 a[12]->u.int_value != 0);
}

void tl__cgen_mma(tl__cgen *g, const tl_ir_expr *call) {
  tl_ir_expr *const *a = call->u.call.args;
  if (call->u.call.nargs != 3 || !a || !a[0] || !a[1] || !a[2] || a[0]->kind != TL_EXPR_REGION ||
      a[1]->kind != TL_EXPR_REGION || a[2]->kind != TL_EXPR_REGION) {
    tl__cgen_error(g, TL_EINVAL, "T.mma_m16n8k16 takes three one-element regions");
    return;
  }
  tl_dtype t = a[1]->u.region.buffer->dtype;
  bool bf16 = t.code == TL_DTYPE_BFLOAT;
  tl__cgen_use_helper(g, bf16 ? "mma_bf16" : "mma_f16", t);
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "tl_mma_m16n8k16_%s(", bf16 ? "bf16" : "f16");
  element_address(g, a[0]);
  tl__cgen_write(g, ", ");
  element_address(g, a[1]);
  tl__cgen_write(g, ", ");
  element_address(g, a[2]);
  tl__cgen_write(g, ");\n");
}

void tl__cgen_ldmatrix(tl__cgen *g, const tl_ir_expr *call) {
  tl_ir_expr *const *a = call->u.call.args;
  if (call->u.call.nargs != 3 || !a || !a[0] || !a[1] || !a[2] || a[0]->kind != TL_EXPR_REGION ||
      a[1]->kind != TL_EXPR_REGION || a[2]->kind != TL_EXPR_INT) {
    tl__cgen_error(g, TL_EINVAL, "T.ldmatrix_x4 takes two one-element regions and a constant flag");
    return;
  }
  tl_dtype t = a[0]->u.region.buffer->dtype;
  bool bf16 = t.code == TL_DTYPE_BFLOAT;
  tl__cgen_use_helper(g, bf16 ? "ldmatrix_bf16" : "ldmatrix_f16", t);
  tl__sb_indent(g->out, 2 * g->indent);
  tl__cgen_write(g, "tl_ldmatrix_x4_%s(", bf16 ? "bf16" : "f16");
  element_address(g, a[0]);
  tl__cgen_write(g, ", ");
  element_address(g, a[1]);
  tl__cgen_write(g, ", %d);\n", a[2]->u.int_value != 0);
}
