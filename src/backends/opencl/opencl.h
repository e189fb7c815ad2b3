/* The opencl backend plugin's internal interfaces. The plugin is compiled against
 * tilelang/plugin.h alone: everything from the library comes through the host
 * table `tlp_host` its init function receives (docs/writing-a-backend.md). */
#ifndef TLP_OPENCL_H
#define TLP_OPENCL_H

#include <stdbool.h>

#include "tilelang/plugin.h"

/* The host table (set by tl_plugin_init before anything else runs). */
extern const tl_plugin_host *tlp_host;

/* OpenCL C 1.2 for the C-family printer (dialect.c). */
extern const tl_c_dialect tlp_opencl_dialect;

/* The execution backend implementation `opencl` (runtime.c), its availability
 * (the ICD loader opens, a platform has a device, a context and a queue were made:
 * examined once per process) and why not (a string that stays valid). */
extern const tl_exec_impl tlp_opencl_exec;
bool tlp_opencl_available(void);
const char *tlp_opencl_unavailable_reason(void);

/* Global functions the plugin registers for programs that bring their own OpenCL
 * memory (kDLOpenCL tensors): "opencl.context", "opencl.queue" and "opencl.device"
 * return the backend's cl_context, cl_command_queue and cl_device_id as pointers
 * (TL_EUNAVAILABLE where OpenCL is not available). */
tl_status tlp_opencl_register_funcs(void);

#endif
