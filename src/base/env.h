/* Environment helpers with one reading of booleans and integers across the library. */
#ifndef TL_BASE_ENV_H
#define TL_BASE_ENV_H

#include <stdbool.h>

#include "tilelang/base.h"

/* The value, or NULL when unset. An empty value is returned as "". */
const char *tl__env(const char *name);
/* 1/true/yes/on -> true, 0/false/no/off/"" -> false (any case); unset or other: dflt. */
bool tl__env_flag(const char *name, bool dflt);
/* A decimal integer; unset or malformed: dflt. */
long long tl__env_int(const char *name, long long dflt);
/* The user's home directory (HOME, else the password database); NULL if unknown. */
const char *tl__env_home(void);

/* The root of the library's caches on disk (the kernel cache, the cuda binary
 * cache) when no directory is given: TILELANG_CACHE_DIR, else ~/.tilelang-c/cache
 * (fresh string, tl__free it). TL_EUNAVAILABLE when neither the variable nor a home
 * directory is known. */
tl_status tl__env_cache_root(char **out);

#endif
