/* The CUDA arch a compilation targets: the target's `arch` (and `code` list),
 * validated as TileLang validates them (../shared/ref/TARGETS.md 8.4), or the
 * arch of the GPU present when the target names none; never a guess. Shared by
 * the cuda backend's compile callbacks (nvcc) and the nvrtc execution backend. */
#ifndef TL_RUNTIME_CUDA_ARCH_H
#define TL_RUNTIME_CUDA_ARCH_H

#include <stddef.h>

#include "tilelang/target.h"

/* The most entries of a target's `code` list the library handles. */
#define TL__CUDA_MAX_CODES 16

/* Checks `arch` (an exact SM token: "sm_" digits and at most one lowercase letter,
 * "sm_90a", "sm_100f") and `code` (non-empty when present, each entry "sm_"
 * followed by letters and digits), with TileLang's messages (TL_EINVAL):
 *   "CUDA target arch must be an exact SM token such as 'sm_90' or 'sm_100f'."
 *   "CUDA target code must be a non-empty list of SM code tokens"
 *   "CUDA target code entries must be exact SM code tokens such as 'sm_100a' or 'sm_103a'."
 * A target without `arch` passes. Thread-safe. */
tl_status tl__cuda_validate_target(const tl_target *t);

/* The arch to compile for into buf: the target's `arch`; without one, the arch of
 * the current context's device (else device 0) as TileLang names it ("sm_90a"
 * for compute capability 9.0); without a device, TL_EINVAL saying how to pin it
 * (`{"kind":"cuda","arch":"sm_90a"}`). Validates the target first. Thread-safe. */
tl_status tl__cuda_resolve_arch(const tl_target *t, char *buf, size_t cap);

/* The target's `code` entries (borrowed from t) into out (at most cap), returning
 * their number; 0 when the target has no code list. */
size_t tl__cuda_target_codes(const tl_target *t, const char **out, size_t cap);

/* The compute capability number of an SM token ("sm_90a" -> 90), or -1. */
int tl__cuda_arch_number(const char *arch);

#endif
