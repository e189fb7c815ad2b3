/* The shared GPU pass list (docs/lowering.md, "GPU pipeline"). Every GPU
 * backend's pipeline (cuda, hip, opencl, ...) is this list run with its own
 * parameters, not a branch on the target kind:
 *
 *   static tl_status lower(tl_ir_module *mod, const tl_target *t, void *ud) {
 *     tl__gpu_params p;
 *     tl__gpu_params_from_target(t, &my_defaults, &p);
 *     return tl__gpu_lower(mod, t, &p);
 *   }
 */
#ifndef TL_BACKENDS_GPU_PIPELINE_H
#define TL_BACKENDS_GPU_PIPELINE_H

#include <stddef.h>

#include "transform/gpu/gpu.h"
#include "transform/pass.h"

/* The passes, in order (names as the instrumentation reports them). */
extern const tl__pass tl__gpu_passes[];
extern const size_t tl__gpu_num_passes;

/* Runs the list on mod with `params` current (tl__gpu_params_enter), then sets the
 * module attribute tl.launch_convention to params->launch_convention. The module
 * then holds PACKED host entries and DEVICE_KERNEL functions in the GPU-lowered
 * form, each kernel with the "target" attribute (its thread_warp_size the warp
 * size lowered for). Thread-safe for distinct modules. */
tl_status tl__gpu_lower(tl_ir_module *mod, const tl_target *target, const tl__gpu_params *params);

#endif
