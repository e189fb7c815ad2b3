/* T.gemm_strided in C-family code (c_gemm.c) and the C dialect's "gemm" helper
 * section that it calls (c_gemm_text.c). */
#ifndef TL_CODEGEN_C_GEMM_H
#define TL_CODEGEN_C_GEMM_H

#include "codegen/c_printer.h"

/* The text of helper section "gemm" (requires "fp16"): tl_gemm and its packing
 * and micro-kernel. */
extern const char tl__c_text_gemm[];

/* Prints the statement for a TL_OP_GEMM_STRIDED call (an EVAL). */
void tl__cgen_gemm_strided(tl__cgen *g, const tl_ir_expr *call);

#endif
