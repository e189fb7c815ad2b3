/* The ROCm backend's target pieces: the "hip" normalizer. */
#ifndef TL_BACKENDS_ROCM_TARGET_H
#define TL_BACKENDS_ROCM_TARGET_H

#include "tilelang/base.h"

/* Registers the hip target normalizer (idempotent). */
tl_status tl__rocm_target_init(void);

/* Upstream rocm_warp_size_for_arch: 64 for gfx9*, 32 for gfx10*, gfx11* and
 * gfx12*, 0 for anything else. */
int tl__rocm_warp_size(const char *arch);

#endif
