/* tilelang/backend_registry.h - whether the set of registered backends changed.
 *
 * For callers that keep tl_list_backends' result (the Python package does): they
 * reuse it while this number stays the same. A header of its own so that adding it
 * changed nothing else. */
#ifndef TILELANG_BACKEND_REGISTRY_H
#define TILELANG_BACKEND_REGISTRY_H

#include <stdint.h>

#include "tilelang/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A number that changes whenever the set of registered backends may have changed (a
 * registration, or a lazy device codegen registration, whose import may register
 * one), and only then. Lock-free; thread-safe. */
TL_API uint64_t tl_backend_registry_generation(void);

#ifdef __cplusplus
}
#endif

#endif
