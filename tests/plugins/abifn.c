/* A plugin whose ABI symbol is a function, not the uint32_t data object: the loader
 * must refuse it rather than read code as the version word. */
#include "tilelang/plugin.h"

TL_PLUGIN_EXPORT void tl_plugin_abi_version(void);
TL_PLUGIN_EXPORT void tl_plugin_abi_version(void) {}

TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host);
TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host) {
  (void)host;
  return TL_OK;
}
