/* Where variables and buffers are defined, without allocating: a chain of the
 * enclosing defining statements (one link per FOR, LET, KERNEL or ALLOC, kept on
 * the C stack by the recursive walkers), then the function's parameters, then the
 * symbolic dims of the parameters' shapes. Structural equality, hashing and the
 * verifier resolve every use through it. */
#ifndef TL_IR_SCOPE_H
#define TL_IR_SCOPE_H

#include "tilelang/ir.h"

typedef struct tl__ir_bind {
  const struct tl__ir_bind *up; /* the enclosing binding, or NULL */
  const tl_ir_stmt *def;        /* TL_STMT_FOR, LET, KERNEL or ALLOC */
} tl__ir_bind;

typedef enum tl__ir_ref_kind {
  TL__REF_LOCAL, /* a: bindings between the use and its definition (0 = innermost), b: slot */
  TL__REF_PARAM, /* a: parameter index */
  TL__REF_SHAPE, /* a: position of the first mention among the parameters' shape/stride vars */
  TL__REF_FREE   /* defined nowhere in the function */
} tl__ir_ref_kind;

typedef struct tl__ir_ref {
  tl__ir_ref_kind kind;
  uint32_t a, b;
} tl__ir_ref;

/* Slots: a loop's variables 0..n-1; a let's variable 0; a kernel's block vars 0..2
 * and thread vars 3..5; an alloc's buffer data var 0. f may be NULL. */
tl__ir_ref tl__ir_resolve_var(const tl_ir_func *f, const tl__ir_bind *chain, const tl_ir_var *v);
/* Buffers: an alloc binding (slot 0) or a buffer parameter. */
tl__ir_ref tl__ir_resolve_buffer(const tl_ir_func *f, const tl__ir_bind *chain, const tl_ir_buffer *b);
/* The binding that defines v in the chain, or NULL. */
const tl_ir_stmt *tl__ir_bind_find_var(const tl__ir_bind *chain, const tl_ir_var *v);

#endif
