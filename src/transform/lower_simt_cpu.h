/* Per-thread kernels on the CPU (lower_simt_cpu.c, called by lower_kernel_cpu). */
#ifndef TL_TRANSFORM_LOWER_SIMT_CPU_H
#define TL_TRANSFORM_LOWER_SIMT_CPU_H

#include "tilelang/ir.h"

/* `body` is the body of T.Kernel statement `kernel`, which binds thread indices,
 * its other statements already lowered for the CPU (barriers kept): *out is the
 * block-level body that runs the block's threads as loops between barriers. */
tl_status tl__lower_simt_cpu(tl_ir_module *mod, const tl_ir_stmt *kernel, tl_ir_stmt *body, tl_ir_stmt **out);

#endif
