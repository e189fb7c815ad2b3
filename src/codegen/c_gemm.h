/* T.gemm_strided and T.mma_m16n8k16 in C-family code (c_gemm.c) and the C dialect's "gemm" helper
 * section that it calls (c_gemm_text.c). */
#ifndef TL_CODEGEN_C_GEMM_H
#define TL_CODEGEN_C_GEMM_H

#include "codegen/c_printer.h"

/* The text of helper section "gemm" (requires "fp16"): tl_gemm and its packing
 * and micro-kernel. */
extern const char tl__c_text_gemm[];

/* Prints the statement for a TL_OP_GEMM_STRIDED call (an EVAL). */
void tl__cgen_gemm_strided(tl__cgen *g, const tl_ir_expr *call);

/* Prints the statement for a TL_OP_MMA_M16N8K16 call (an EVAL): a call of the
 * dialect's helper section "mma_f16" or "mma_bf16" with the three addresses,
 *   tl_mma_m16n8k16_f16(&C_local[4], &a_frag[0], &b_frag[8]);
 * (the CUDA dialect's is one inline mma.sync; a dialect without the section
 * refuses the op with the printer's "no helper section" error). */
void tl__cgen_mma(tl__cgen *g, const tl_ir_expr *call);

/* Prints the statement for a TL_OP_LDMATRIX_X4 call: helper section
 * "ldmatrix_f16" or "ldmatrix_bf16",
 *   tl_ldmatrix_x4_f16(&b_frag[0], &B_shared[...], 1);   (1: .trans) */
void tl__cgen_ldmatrix(tl__cgen *g, const tl_ir_expr *call);

#endif
