/* The plugin host table's ABI 1.1 services (plugin_services.c). */
#ifndef TL_BACKENDS_PLUGIN_SERVICES_H
#define TL_BACKENDS_PLUGIN_SERVICES_H

#include "tilelang/plugin.h"

/* Completes the plugin host table with the services (tl__plugin_host_extend).
 * Registered with the built-ins; idempotent. */
tl_status tl__plugin_services_init(void);

/* The host table's gpu_lower: the shared GPU pass list with `defaults` (plugin.h's
 * tl_gpu_lower_params) overridden by the target's attributes. */
tl_status tl__plugin_gpu_lower(tl_ir_module *mod, const tl_target *target, const tl_gpu_lower_params *defaults);

#endif
