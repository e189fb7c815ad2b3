/* A plugin built for an incompatible ABI (major 2). Its init must never run. */
#include "tilelang/plugin.h"

TL_PLUGIN_EXPORT extern const uint32_t tl_plugin_abi_version;
TL_PLUGIN_EXPORT const uint32_t tl_plugin_abi_version = (2u << 16) | 0u;

TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host);
TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host) {
  return host->set_error(TL_EINTERNAL, "the ABI 2 plugin's init ran");
}
