/* The webgpu backend's manifest (target kind `webgpu`). */
#ifndef TL_BACKENDS_WEBGPU_BACKEND_H
#define TL_BACKENDS_WEBGPU_BACKEND_H

#include "tilelang/plugin.h"

/* Registers the manifest `webgpu` (idempotent: an identical declaration). */
tl_status tl__webgpu_backend_init(void);

/* Pipeline "webgpu": the shared GPU pass list with WebGPU's parameters (warp 1 by
 * default, so reductions go through workgroup memory; 32 with supports_subgroups;
 * 256 invocations and 16 KB of workgroup storage, WebGPU's default limits);
 * launch convention "webgpu". */
extern const tl_pass_pipeline tl__webgpu_pipeline;

#endif
