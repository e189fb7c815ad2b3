/* The verifier's shared state: verify.c walks functions, statements and
 * expressions; verify_ops.c checks the argument conventions of calls. */
#ifndef TL_IR_VERIFY_H
#define TL_IR_VERIFY_H

#include "scope.h"
#include "tilelang/ir.h"

typedef struct tl__verify_ctx {
  const tl_ir_module *mod;  /* NULL when verifying one function: launch targets unchecked */
  const tl_ir_func *f;
  tl_ir_span loc;           /* the innermost enclosing statement's known location */
  bool in_kernel;           /* inside T.Kernel, or anywhere in a device kernel */
} tl__verify_ctx;

/* A dtype's name by value, usable as a printf argument. */
typedef struct tl__dtype_str_buf {
  char s[32];
} tl__dtype_str_buf;
tl__dtype_str_buf tl__dtype_str(tl_dtype t);

/* TL_EINVAL with "file:line:col: message": the span of `at`, else of the innermost
 * enclosing statement that has one, else of the function; the bare message when
 * none is known. */
tl_status tl__verify_error(const tl__verify_ctx *c, tl_ir_span at, const char *fmt, ...) TL_PRINTF(3, 4);

/* Checks an expression used as a value (regions and tile ops are not values). */
tl_status tl__verify_expr(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e);
/* Checks a buffer use: defined here, and indexed with its rank. */
tl_status tl__verify_buffer_use(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_buffer *buf, uint32_t n,
                                tl_ir_span at, const char *what);
/* Checks a region (an argument of a tile op). */
tl_status tl__verify_region(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e);
/* Checks a call of a math intrinsic or expression builtin (args already checked). */
tl_status tl__verify_value_call(const tl__verify_ctx *c, const tl_ir_expr *e);
/* Checks a tile op evaluated as a statement: argument counts, kinds, shapes. */
tl_status tl__verify_tile_op(const tl__verify_ctx *c, const tl__ir_bind *b, const tl_ir_expr *e);

#endif
