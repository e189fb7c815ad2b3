/* The cpu backend's pass pipeline for target kind `c` (docs/lowering.md). */
#ifndef TL_BACKENDS_CPU_PIPELINE_H
#define TL_BACKENDS_CPU_PIPELINE_H

#include "tilelang/plugin.h"

/* Pipeline "c": tile-level module -> PACKED host entry + DEVICE_KERNEL functions
 * whose blocks are loops; sets the module attribute tl.launch_convention = "call". */
extern const tl_pass_pipeline tl__cpu_pipeline;

#endif
