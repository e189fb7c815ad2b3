/* The three kind registries of the seeds, shared with the manifest registry (which
 * publishes a manifest's components into them). */
#ifndef TL_BACKEND_CODEGEN_REGISTRIES_H
#define TL_BACKEND_CODEGEN_REGISTRIES_H

#include "backend/component_registry.h"

extern tl__component_registry tl__device_codegens;
extern tl__component_registry tl__host_codegens;
extern tl__component_registry tl__host_codegen_hooks;

/* Checks a descriptor before it enters a registry (TL_EINVAL naming the problem). */
tl_status tl__check_device_codegen(const tl_device_codegen *c);
tl_status tl__check_host_codegen(const tl_host_codegen *c);
tl_status tl__check_host_codegen_hook(const tl_host_codegen_hook *h);

/* Calls a global function named `name` with (module, target) and takes the artifact
 * it returns. `what` names the caller in messages. */
tl_status tl__codegen_via_global_func(const char *name, tl_ir_module *mod, const tl_target *target,
                                      tl_artifact **out);

#endif
