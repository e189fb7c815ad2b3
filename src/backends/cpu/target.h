/* The CPU backend's target pieces: the "cpu" detector. */
#ifndef TL_BACKENDS_CPU_TARGET_H
#define TL_BACKENDS_CPU_TARGET_H

#include "tilelang/base.h"

/* Registers the cpu target detector (idempotent). */
tl_status tl__cpu_target_init(void);

#endif
