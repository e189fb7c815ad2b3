/* A plugin without the default init symbol, built for a newer minor ABI (1.7): only
 * "libtlp_noinit.so:tlp_noinit_setup" loads it. */
#include <stdatomic.h>

#include "tilelang/plugin.h"

TL_PLUGIN_EXPORT extern const uint32_t tl_plugin_abi_version;
TL_PLUGIN_EXPORT const uint32_t tl_plugin_abi_version = (TL_PLUGIN_ABI_MAJOR << 16) | 7u;

static atomic_int g_setups;

static tl_status count(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  ret->kind = TL_VALUE_INT;
  ret->v.i = atomic_load((atomic_int *)user_data);
  return TL_OK;
}

TL_PLUGIN_EXPORT tl_status tlp_noinit_setup(const tl_plugin_host *host);
TL_PLUGIN_EXPORT tl_status tlp_noinit_setup(const tl_plugin_host *host) {
  atomic_fetch_add(&g_setups, 1);
  return host->register_global_func("tlp_noinit.setup_count", count, &g_setups, true);
}
