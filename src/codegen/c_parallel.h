/* Whether a block loop pays for a thread team (c_parallel.c). */
#ifndef TL_CODEGEN_C_PARALLEL_H
#define TL_CODEGEN_C_PARALLEL_H

#include <stdint.h>

#include "tilelang/ir.h"

/* A static estimate of the work of one iteration of the `depth` collapsed
 * loops starting at `loop` (one block): statements executed, at least 1. */
int64_t tl__cgen_block_work(const tl_ir_stmt *loop, int depth);
/* The smallest number of blocks of `block_work` each that pays for a team (>= 2). */
int64_t tl__cgen_min_parallel_blocks(int64_t block_work);

#endif
