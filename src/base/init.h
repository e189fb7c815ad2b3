/* Built-in components (code generators, execution backend implementations, target
 * detectors and normalizers, backend manifests, lazy plugins) are registered on
 * first use of any registry, exactly once per process.
 *
 * The registries live in the lower layers (target, ffi, backend, runtime), the
 * components in the top one (src/backends/), so base cannot name what registers
 * them: the layer that owns the components installs its registration function here
 * (src/backends/builtin.c, before main or when the shared library is loaded), the
 * way IREE's driver registry is filled by the layer that owns the drivers. */
#ifndef TL_BASE_INIT_H
#define TL_BASE_INIT_H

#include "tilelang/base.h"

/* Registers every built-in component; idempotent (a retry after a failure is safe). */
typedef tl_status (*tl__builtins_registration_fn)(void);

/* Installs the registration tl__ensure_builtins runs (replacing any earlier one).
 * Called once, by the layer that owns the built-ins. Thread-safe. */
void tl__install_builtins_registration(tl__builtins_registration_fn registration);

/* Registers the built-ins if not yet done. Every registry entry point calls this
 * first. Cheap after success (one atomic load). If registration fails (out of
 * memory), the error is returned and a later call tries again. Calls made by the
 * registration itself (same thread) return TL_OK at once. While no registration is
 * installed (a program that did not link the built-ins) there is nothing to
 * register: TL_OK, and a registration installed later still runs. Thread-safe. */
tl_status tl__ensure_builtins(void);

#endif
