/* Built-in components (target detectors and normalizers, backend manifests) are
 * registered on first use of any registry, exactly once per process. */
#ifndef TL_BASE_INIT_H
#define TL_BASE_INIT_H

#include "tilelang/base.h"

/* Registers the built-ins if not yet done. Every registry entry point calls this
 * first. Cheap after success (one atomic load). If registration fails (out of
 * memory), the error is returned and a later call tries again; built-in
 * registrations are idempotent. Calls made by the registration itself (same
 * thread) return TL_OK at once. Thread-safe. */
tl_status tl__ensure_builtins(void);

/* Defined by the top layer (src/backends/builtin.c): registers every compiled-in
 * component. Only tl__ensure_builtins calls it. */
tl_status tl__register_builtins(void);

#endif
