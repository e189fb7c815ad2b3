#include "env.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "str.h"

const char *tl__env(const char *name) { return name ? getenv(name) : NULL; }

bool tl__env_flag(const char *name, bool dflt) {
  const char *v = tl__env(name);
  if (!v) return dflt;
  static const char *const yes[] = {"1", "true", "yes", "on"};
  static const char *const no[] = {"0", "false", "no", "off", ""};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
    if (tl__str_eq_nocase(v, yes[i])) return true;
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    if (tl__str_eq_nocase(v, no[i])) return false;
  return dflt;
}

long long tl__env_int(const char *name, long long dflt) {
  const char *v = tl__env(name);
  if (!v || !*v) return dflt;
  char *end = NULL;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || !end || *end) return dflt;
  return x;
}

const char *tl__env_home(void) {
  const char *h = tl__env("HOME");
  if (h && *h) return h;
  struct passwd pw, *res = NULL;
  static _Thread_local char buf[1024];
  static _Thread_local char home[512];
  if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) == 0 && res && res->pw_dir) {
    size_t i = 0;
    for (; res->pw_dir[i] && i + 1 < sizeof home; i++) home[i] = res->pw_dir[i];
    home[i] = '\0';
    return home;
  }
  return NULL;
}

tl_status tl__env_cache_root(char **out) {
  *out = NULL;
  const char *env = tl__env("TILELANG_CACHE_DIR");
  if (env && *env) {
    *out = tl__strdup(env);
    return *out ? TL_OK : tl__oom();
  }
  const char *home = tl__env_home();
  if (!home) return tl__error(TL_EUNAVAILABLE, "no cache directory: TILELANG_CACHE_DIR is unset and the home directory is unknown");
  *out = tl__format("%s/.tilelang-c/cache", home);
  return *out ? TL_OK : tl__oom();
}
