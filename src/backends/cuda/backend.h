/* The cuda backend's manifest (target kind `cuda`). */
#ifndef TL_BACKENDS_CUDA_BACKEND_H
#define TL_BACKENDS_CUDA_BACKEND_H

#include "tilelang/base.h"

/* Registers the manifest `cuda` (idempotent: an identical declaration). */
tl_status tl__cuda_backend_init(void);

#endif
