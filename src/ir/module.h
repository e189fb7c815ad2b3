/* The module's internals, shared by the IR's implementation files. */
#ifndef TL_IR_MODULE_H
#define TL_IR_MODULE_H

#include "base/arena.h"
#include "base/vec.h"
#include "tilelang/ir.h"

struct tl_ir_module {
  tl__arena arena;     /* every node of the module */
  tl__vec funcs;       /* tl_ir_func*, in insertion order */
  tl__vec attrs;       /* tl_ir_attr, strings in the arena */
  tl_ir_span loc;      /* location given to new nodes */
  uint32_t next_var_id;
  uint32_t next_buffer_id;
  /* Builder failures, so a caller that gets NULL from a callback or a NULL node
   * argument can report the original cause: the count grows with every failure. */
  uint64_t nfailures;
  tl_status last_failure;
};

/* Zeroed arena memory, or NULL with TL_ENOMEM set (recorded as a builder failure). */
void *tl__ir_alloc(tl_ir_module *mod, size_t n);
/* Records a builder failure whose message is already set; returns s. */
tl_status tl__ir_fail(tl_ir_module *mod, tl_status s);
/* The status to report for a NULL node that a builder returned earlier: the last
 * recorded failure (re-setting the out-of-memory message for TL_ENOMEM), or
 * TL_EINVAL with `what` as the message when nothing failed. */
tl_status tl__ir_null_status(tl_ir_module *mod, const char *what);
/* Same as tl_ir_module_intern, but counts a failure. */
const char *tl__ir_intern(tl_ir_module *mod, const char *s);
/* Copies an array of n pointers into the arena (NULL for n == 0 is fine). */
void *tl__ir_copy_ptrs(tl_ir_module *mod, const void *const *src, uint32_t n);

/* The dtypes the builder gives derived nodes (also used when the mutator rebuilds
 * a node whose children changed). */
tl_dtype tl__ir_binary_dtype(tl_ir_binop op, tl_dtype a);
tl_dtype tl__ir_unary_dtype(tl_ir_unop op, tl_dtype a);
tl_dtype tl__ir_load_dtype(const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices);

#endif
