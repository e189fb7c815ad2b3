/* A plugin that forgot to declare its ABI version. */
#include "tilelang/plugin.h"

TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host);
TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host) {
  (void)host;
  return TL_OK;
}
