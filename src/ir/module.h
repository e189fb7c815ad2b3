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
};

/* Zeroed arena memory, or NULL with TL_ENOMEM set. */
void *tl__ir_alloc(tl_ir_module *mod, size_t n);
/* Copies an array of n pointers into the arena (NULL for n == 0 is fine). */
void *tl__ir_copy_ptrs(tl_ir_module *mod, const void *const *src, uint32_t n);

#endif
