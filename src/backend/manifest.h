/* Backend manifests: upstream BackendModule.__post_init__ validation and the
 * "identical declaration" relation used by re-registration. */
#ifndef TL_BACKEND_MANIFEST_H
#define TL_BACKEND_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "tilelang/backend.h"

/* The first version's size: a manifest's struct_size must be 0 (this header's size)
 * or at least this. Fields appended later are read only when struct_size covers them. */
#define TL__BACKEND_MODULE_MIN_SIZE sizeof(tl_backend_module)

/* Every rule of upstream BackendModule.__post_init__, in upstream's order, each with
 * its own TL_EINVAL message; checks C adds (NULL descriptors, missing functions) sit
 * next to the upstream rule about the same field. */
tl_status tl__manifest_validate(const tl_backend_module *m);

/* The same pointer, or equal field by field: strings by content, descriptor and
 * function pointers by identity, entry arrays element-wise. */
bool tl__manifest_equal(const tl_backend_module *a, const tl_backend_module *b);

/* Element counts of the manifest's NULL-terminated arrays (NULL arrays count 0). */
size_t tl__manifest_num_kinds(const tl_backend_module *m);
size_t tl__manifest_num_specs(const tl_backend_module *m);

/* The entry for a kind, or NULL. */
const tl_pass_pipeline *tl__manifest_pipeline(const tl_backend_module *m, const char *kind);
const tl_device_codegen *tl__manifest_device_codegen(const tl_backend_module *m, const char *kind);
const tl_host_codegen *tl__manifest_host_codegen(const tl_backend_module *m, const char *host_kind);
const tl_host_codegen_hook *const *tl__manifest_hooks(const tl_backend_module *m, const char *kind);
bool tl__manifest_owns_kind(const tl_backend_module *m, const char *kind);

#endif
