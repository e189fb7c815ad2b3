/* The rocm backend's manifest (target kind `hip`). */
#ifndef TL_BACKENDS_ROCM_BACKEND_H
#define TL_BACKENDS_ROCM_BACKEND_H

#include "tilelang/base.h"

/* Registers the manifest `rocm` (idempotent: an identical declaration). */
tl_status tl__rocm_backend_init(void);

#endif
