/* The metal backend's manifest (target kind `metal`). */
#ifndef TL_BACKENDS_METAL_BACKEND_H
#define TL_BACKENDS_METAL_BACKEND_H

#include "tilelang/plugin.h"

/* Registers the manifest `metal` (idempotent: an identical declaration). */
tl_status tl__metal_backend_init(void);

/* Pipeline "metal": the shared GPU pass list with Metal's parameters (the SIMD
 * group width from thread_warp_size, 256 threads and 32 KB of threadgroup memory
 * unless the target says otherwise, all of it static); launch convention "metal". */
extern const tl_pass_pipeline tl__metal_pipeline;

/* The host codegen hook `metal_context`: every host entry that launches a device
 * kernel gets the function attribute "tl.metal_context" = 1 (its host code must
 * run with a Metal device and command queue), as upstream's hook marks host
 * functions that call into Metal. */
extern const tl_host_codegen_hook tl__metal_context_hook;

#endif
