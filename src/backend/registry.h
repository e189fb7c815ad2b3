/* The backend manifest registry's internals shared with context resolution. */
#ifndef TL_BACKEND_REGISTRY_H
#define TL_BACKEND_REGISTRY_H

#include <stddef.h>

#include "tilelang/backend.h"

/* The manifests owning `kind`, in registration order: up to `cap` go to buf, the
 * full count to *n. Unknown kind: TL_ENOTFOUND "No backend registered for target
 * kind 'k'. Available: a, b" (sorted kinds). Thread-safe; nothing is called. */
tl_status tl__backends_for_kind(const char *kind, const tl_backend_module **buf, size_t cap, size_t *n);

/* Records that the set of backends may have changed (a registration, or a lazy
 * registration whose import may register one): tl_backend_registry_generation. */
void tl__backend_registry_changed(void);

/* Whether the spec is one of the manifest's execution backends (by identity). */
bool tl__manifest_declares_spec(const tl_backend_module *m, const tl_execution_backend_spec *spec);

/* Checks that the manifest owns the target: TL_EINVAL "Backend 'x' does not match target T". */
tl_status tl__module_require_target(const tl_backend_module *m, const tl_target *target);

#endif
