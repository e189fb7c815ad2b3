/* Passes and their instrumentation. A pass is a name and a function that rewrites
 * a module in place for a target; a pipeline is a list of passes run in order by
 * tl__run_passes, which applies the compilation session's instrumentation
 * (session.h): per-pass wall time, printing the IR after all passes or after one
 * named pass, a trace line per pass (TL_LOWER_TRACE=1), and, with the pass config
 * tl.verify_after_each_pass=1, verification of the module after every pass.
 *
 * The shared passes are declared here; each lives in src/transform/<name>.c and
 * documents what it leaves behind (docs/lowering.md summarizes). */
#ifndef TL_TRANSFORM_PASS_H
#define TL_TRANSFORM_PASS_H

#include <stddef.h>

#include "tilelang/ir.h"
#include "tilelang/target.h"

typedef tl_status (*tl__pass_fn)(tl_ir_module *mod, const tl_target *target);

typedef struct tl__pass {
  const char *name; /* static: "simplify", "lower_tile_ops", ... */
  tl__pass_fn fn;
} tl__pass;

/* Runs passes[0..n) on mod in order. A failing pass stops the list; its message
 * gets the context "pass 'NAME': " in front (passes' own messages start with the
 * offending node's "file:line:col: "). Thread-safe for distinct modules. */
tl_status tl__run_passes(tl_ir_module *mod, const tl_target *target, const tl__pass *passes, size_t n);

/* A pass's error about a node: "file:line:col: message" (the bare message when the
 * span is unknown). Returns s. */
tl_status tl__pass_error(tl_status s, tl_ir_span span, const char *fmt, ...) TL_PRINTF(3, 4);

/* ------------------------------------------------------------ the passes */

/* PreLowerSemanticCheck: the verifier, then TileLang-level rules (a T.Kernel in
 * every tile-level function, tile-op scopes, shapes and dtypes, symbolic dims
 * bindable from the parameters). Changes nothing. */
tl_status tl__pass_semantic_check(tl_ir_module *mod, const tl_target *target);
/* Constant folding, identities, bound-aware if removal (simplify.c). */
tl_status tl__pass_simplify(tl_ir_module *mod, const tl_target *target);
/* Tile ops to loops, loads and stores (lower_tile_ops.c). */
tl_status tl__pass_lower_tile_ops(tl_ir_module *mod, const tl_target *target);
/* GPU pipelines: only T.copy, T.fill, T.clear and T.atomic_add, each into one
 * T.Parallel loop over its elements (lower_tile_ops.c). */
tl_status tl__pass_lower_elementwise_tile_ops(tl_ir_module *mod, const tl_target *target);
/* One tile op (the call of an EVAL) to serial loops with lower_tile_ops' exact
 * semantics, built at the call's location; guards are kept wherever the op alone
 * does not prove them (no enclosing loop bounds are known). */
tl_status tl__lower_tile_op_serial(tl_ir_module *mod, const tl_ir_expr *call, tl_ir_stmt **out);
/* The dtype T.gemm forms the product of an A and a B element in, so that
 * converting it to C's dtype rounds as the interpreter does (lower_tile_ops.c). */
tl_dtype tl__gemm_product_dtype(tl_dtype a, tl_dtype b, tl_dtype c);
/* T.gemm on on-chip tiles to T.gemm_strided for the C code generator's blocked
 * kernel, where it qualifies (lower_gemm_cpu.c). */
tl_status tl__pass_lower_gemm_cpu(tl_ir_module *mod, const tl_target *target);
/* Narrow `a + b` element indices that provably do not overflow to 64-bit
 * additions, so C compilers see contiguous rows under -fwrapv (widen_index_cpu.c). */
tl_status tl__pass_widen_index_cpu(tl_ir_module *mod, const tl_target *target);
/* T.Kernel's blocks to a parallel loop for the CPU (lower_kernel_cpu.c). */
tl_status tl__pass_lower_kernel_cpu(tl_ir_module *mod, const tl_target *target);
/* Allocated buffers to one dimension (flatten.c). */
tl_status tl__pass_flatten(tl_ir_module *mod, const tl_target *target);
/* T.reshape / T.view buffers -> accesses of their source (lower_views.c); the GPU
 * form runs before tile ops are lowered and refuses views they take. */
tl_status tl__pass_lower_views(tl_ir_module *mod, const tl_target *target);
tl_status tl__pass_gpu_lower_views(tl_ir_module *mod, const tl_target *target);
/* Host entry and device kernels (split_host_device.c). */
tl_status tl__pass_split_host_device(tl_ir_module *mod, const tl_target *target);
/* Argument checks and symbolic-dim bindings in host entries (make_packed_api.c). */
tl_status tl__pass_make_packed_api(tl_ir_module *mod, const tl_target *target);

#endif
