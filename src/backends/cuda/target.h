/* The CUDA backend's target pieces: the "cuda" detector and normalizer. */
#ifndef TL_BACKENDS_CUDA_TARGET_H
#define TL_BACKENDS_CUDA_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "tilelang/base.h"

/* Registers the cuda target detector and normalizer (idempotent). */
tl_status tl__cuda_target_init(void);

/* The arch of the current context's device, else of device 0, as TileLang names
 * it: "sm_" + (major * 10 + minor), with "a" from major 9 on (an H100 or H200 gives
 * "sm_90a"). *found is false when there is no usable device or driver; the reason
 * is then the thread's message, and the status is still TL_OK. A driver call that
 * fails for another reason: TL_ERUNTIME. */
tl_status tl__cuda_detect_arch(char *arch, size_t size, bool *found);

/* TileLang's get_target_arch for a compute capability ("sm_90a" for 9.0). */
void tl__cuda_arch_name(int major, int minor, char *arch, size_t size);

#endif
