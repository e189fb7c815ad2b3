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
/* The most threads a team for `blocks` blocks of `block_work` each uses (blocks
 * at least tl__cgen_min_parallel_blocks): one per block and one per
 * TL_PARALLEL_MIN_WORK of the whole launch's work, at least 2; at most `limit`
 * when limit > 0 (tl.cpu.num_threads). blocks < 0: not known when compiling (only
 * the limit applies; 0 when there is none). */
int64_t tl__cgen_team_size(int64_t blocks, int64_t block_work, int64_t limit);
/* The pass config tl.cpu.num_threads of the current session: *limit its value (a
 * positive integer), 0 when unset; TL_EINVAL (reported) for any other value. */
tl_status tl__cgen_thread_limit(int64_t *limit);

#endif
