/* The pass config keys a compilation accepts: upstream TileLang's (PassConfigKey,
 * with the `tir.` spellings of the TIR keys older releases used) and this
 * library's own. A key outside the table is a mistake (a typo silently ignored
 * would compile something other than what was asked), so it is refused. */
#ifndef TL_TRANSFORM_PASS_CONFIG_KEYS_H
#define TL_TRANSFORM_PASS_CONFIG_KEYS_H

#include <stdbool.h>

#include "tilelang/base.h"

/* True if `key` (up to `len` bytes) is a known pass config key. */
bool tl__pass_config_known(const char *key, size_t len);

/* Checks every "key=value" of the NULL-terminated list: TL_EINVAL naming the first
 * malformed entry or unknown key (and the closest known key, when one is close). */
tl_status tl__pass_configs_check(const char *const *configs);

#endif
