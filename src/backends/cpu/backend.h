/* The cpu backend's manifest (target kind `c`). */
#ifndef TL_BACKENDS_CPU_BACKEND_H
#define TL_BACKENDS_CPU_BACKEND_H

#include "tilelang/base.h"

/* Registers the manifest `cpu` (idempotent: an identical declaration). */
tl_status tl__cpu_backend_init(void);

#endif
