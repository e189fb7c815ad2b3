/* cp.async in C-family code (c_async.c): the statements for TL_OP_CP_ASYNC,
 * TL_OP_CP_ASYNC_COMMIT and TL_OP_CP_ASYNC_WAIT, calls of the dialect's helper
 * section "cp_async" (the CUDA dialect's are one PTX instruction each; a dialect
 * without the section refuses the ops with the printer's "no helper section"
 * error):
 *   tl_cp_async_16(&A_shared[...], &A[...], 1);
 *   tl_cp_async_commit();
 *   tl_cp_async_wait<1>(); */
#ifndef TL_CODEGEN_C_ASYNC_H
#define TL_CODEGEN_C_ASYNC_H

#include "codegen/c_printer.h"

/* Prints the statement of an EVAL of one of the three ops. */
void tl__cgen_cp_async_op(tl__cgen *g, const tl_ir_expr *call);

#endif
