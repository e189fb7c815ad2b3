/* The in-tree GPU source code generators: HIP and Metal through the C-family
 * printer with plain-data dialects (plugin.h's tl_c_dialect, the same form a
 * plugin's dialect takes), and WGSL through its own printer (wgsl.h). */
#ifndef TL_CODEGEN_GPU_DIALECTS_H
#define TL_CODEGEN_GPU_DIALECTS_H

#include "tilelang/backend.h"

/* HIP C++ (dialect_hip.c) and the Metal Shading Language (dialect_metal.c). */
extern const tl_c_dialect tl__c_dialect_hip;
extern const tl_c_dialect tl__c_dialect_metal;

/* Device codegens without compilation: artifacts of format "hip", "metal" and
 * "wgsl" carrying the module's kernel table, also as the global functions
 * target.build.tilelang_{hip,metal,webgpu}_without_compile (codegen_globals.c). */
tl_status tl__hip_device_codegen(const tl_ir_module *mod, const tl_target *target, tl_artifact **out);
tl_status tl__metal_device_codegen(const tl_ir_module *mod, const tl_target *target, tl_artifact **out);
tl_status tl__wgsl_device_codegen(const tl_ir_module *mod, const tl_target *target, tl_artifact **out);

#endif
