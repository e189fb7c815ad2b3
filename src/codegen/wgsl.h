/* WGSL code generation (wgsl.c): GPU-lowered device kernels (docs/lowering.md) as a
 * WebGPU compute shader module. WGSL is not C-like enough for the C-family printer
 * (typed literals, no implicit conversions, module-scope bindings and workgroup
 * variables, `let`/`var`), so it has its own printer; it reuses the C printer's
 * naming and non-negativity tracking. docs/codegen.md, "WGSL", says what maps to
 * what and what is refused. */
#ifndef TL_CODEGEN_WGSL_H
#define TL_CODEGEN_WGSL_H

#include "tilelang/backend.h"

/* The WGSL module of every device kernel of a lowered module (a fresh string,
 * tl__free it). Each kernel is an entry point with its workgroup size from the host
 * entry's launch; TL_EUNSUPPORTED for what WGSL cannot express (64-bit and 8/16-bit
 * integers, float64, bfloat16, float atomics, ...), naming it. */
tl_status tl__wgsl_device_source(const tl_ir_module *mod, char **out);
/* The artifact of format "wgsl" with the host entry's kernel table. */
tl_status tl__wgsl_device_artifact(const tl_ir_module *mod, tl_artifact **out);

#endif
