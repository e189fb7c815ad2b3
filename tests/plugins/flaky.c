/* A plugin whose init fails while TLP_FLAKY_FAIL is set, to test retries. */
#include <stdatomic.h>
#include <stdlib.h>

#include "tilelang/plugin.h"

TL_PLUGIN_ABI_VERSION_SYMBOL();

static atomic_int g_inits;

static tl_status count(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)args;
  (void)nargs;
  ret->kind = TL_VALUE_INT;
  ret->v.i = atomic_load((atomic_int *)user_data);
  return TL_OK;
}

TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host);
TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host) {
  atomic_fetch_add(&g_inits, 1);
  tl_status s = host->register_global_func("tlp_flaky.init_count", count, &g_inits, true);
  if (s != TL_OK) return s;
  if (getenv("TLP_FLAKY_FAIL")) return host->set_error(TL_EUNAVAILABLE, "the flaky plugin was told to fail");
  return TL_OK;
}
