/* The C-family source printer: lowered IR (docs/lowering.md) to the text of a
 * dialect (c_dialect.h). One printer serves every C-like target; what differs is
 * in the dialect table. Device code generators print device kernels with it; the
 * host code generator prints host entries with it, adding the lowered builtins
 * that only host code knows through `ext_call`.
 *
 * Expressions are in c_expr.c, statements in c_printer.c, kernels in c_kernel.c;
 * all of them print through the context of c_context.h. */
#ifndef TL_CODEGEN_C_PRINTER_H
#define TL_CODEGEN_C_PRINTER_H

#include "codegen/c_context.h"

/* C operator precedence, loosest first: an expression printed where the context
 * binds tighter than it gets parentheses. */
enum {
  TL__PREC_TOP = 0, /* a full expression (statement, argument, index) */
  TL__PREC_TERNARY = 3,
  TL__PREC_LOR, TL__PREC_LAND, TL__PREC_BOR, TL__PREC_BXOR, TL__PREC_BAND,
  TL__PREC_EQ, TL__PREC_REL, TL__PREC_SHIFT, TL__PREC_ADD, TL__PREC_MUL,
  TL__PREC_UNARY, /* unary operators and casts */
  TL__PREC_POSTFIX, /* calls, subscripts */
  TL__PREC_PRIMARY
};

/* Expressions and statements. */
void tl__cgen_expr(tl__cgen *g, const tl_ir_expr *e, int prec);
/* True if e is provably >= 0 (constants, sizes, loop indices from 0, and sums,
 * products and quotients of those). */
bool tl__cgen_expr_nonneg(const tl__cgen *g, const tl_ir_expr *e);
/* The text of an expression (a full expression), or NULL after a failure. */
char *tl__cgen_expr_str(tl__cgen *g, const tl_ir_expr *e);
void tl__cgen_stmt(tl__cgen *g, const tl_ir_stmt *s);
/* The C text of buffer element buf[indices] (an lvalue in memory). */
void tl__cgen_element(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices);
/* A literal of dtype t with an integer value (0, 1, ...). */
void tl__cgen_int_literal(tl__cgen *g, tl_dtype t, int64_t v);

/* Device kernels: the declaration line without `;` or body (names the parameters),
 * and the whole definition. */
void tl__cgen_kernel_signature(tl__cgen *g, const tl_ir_func *f);
void tl__cgen_kernel(tl__cgen *g, const tl_ir_func *f);

#endif
