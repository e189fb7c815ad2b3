/* The C target's limit on tile memory. Generated C keeps T.alloc_shared,
 * T.alloc_fragment and T.alloc_local tiles as automatic arrays of the kernel
 * function, on the stack of whichever thread runs a block (an OpenMP worker, a
 * Python thread), where a large tile would overflow the stack and kill the
 * process. This check refuses, at compile time, a kernel whose tiles together
 * exceed TL__CPU_TILE_BYTES_MAX, naming the tile that crosses the limit at its
 * line and column; GPU targets refuse oversized shared memory the same way. */
#ifndef TL_BACKENDS_CPU_TILE_BUDGET_H
#define TL_BACKENDS_CPU_TILE_BUDGET_H

#include "tilelang/ir.h"
#include "tilelang/target.h"

/* 1 MiB: an eighth of the usual 8 MiB thread stack (glibc's default for new
 * threads, libgomp's workers and Python's threads), leaving the rest to the
 * caller's frames. */
#define TL__CPU_TILE_BYTES_MAX ((int64_t)1 << 20)

/* The pass (changes nothing): TL_EUNSUPPORTED "file:line:col: ..." when a kernel's
 * tiles of constant shape exceed the limit (a shape that is not constant is
 * flatten's to refuse). */
tl_status tl__pass_cpu_tile_budget(tl_ir_module *mod, const tl_target *target);

#endif
