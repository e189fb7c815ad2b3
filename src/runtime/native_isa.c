/* The instruction set the native backend compiles for.
 *
 * A target's `march`, else its `mcpu` ("znver3", "x86-64-v3", "native"), becomes
 * `-march=<name>`, and `mattr` entries where the kind has them ("+avx2",
 * "-avx512f") become `-mavx2` / `-mno-avx512f`, so {"kind": "c", "mcpu":
 * "x86-64-v2"} builds kernels that run on any such machine.
 * Without mcpu the backend compiles with -march=native; the kernel cache then
 * keys on the host CPU (its /proc/cpuinfo model and feature list, hashed), since
 * the flag alone does not say which instructions the library holds. The target's
 * attributes are in the cache key already. */
#include "runtime/native_isa.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/str.h"

#define MAX_MATTR 64

static bool valid_word(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
          *s == '.' || *s == '+'))
      return false;
  return true;
}

tl_status tl__native_isa_flags(const tl_target *t, char ***out) {
  *out = NULL;
  const char *mcpu = NULL, *mattr[MAX_MATTR];
  if (t && !tl_target_attr_str(t, "march", &mcpu)) tl_target_attr_str(t, "mcpu", &mcpu);
  size_t n = t ? tl_target_attr_array(t, "mattr", mattr, MAX_MATTR) : 0;
  if (n > MAX_MATTR) return tl__error(TL_EINVAL, "target: more than %d mattr entries", MAX_MATTR);
  if (mcpu && !valid_word(mcpu)) return tl__error(TL_EINVAL, "target: mcpu '%s' is not a CPU name", mcpu);
  char **flags = tl__calloc(n + 2, sizeof *flags);
  if (!flags) return tl__oom();
  flags[0] = tl__format("-march=%s", mcpu && *mcpu ? mcpu : "native");
  tl_status s = flags[0] ? TL_OK : tl__oom();
  for (size_t i = 0; i < n && s == TL_OK; i++) {
    const char *a = mattr[i];
    if ((a[0] != '+' && a[0] != '-') || !valid_word(a + 1) || a[1] == '+' || a[1] == '-') {
      s = tl__error(TL_EINVAL, "target: mattr entry '%s' must be +feature or -feature", a);
      break;
    }
    flags[i + 1] = tl__format("-m%s%s", a[0] == '-' ? "no-" : "", a + 1);
    if (!flags[i + 1]) s = tl__oom();
  }
  if (s != TL_OK) {
    tl__native_isa_flags_free(flags);
    return s;
  }
  *out = flags;
  return TL_OK;
}

void tl__native_isa_flags_free(char **flags) {
  for (size_t i = 0; flags && flags[i]; i++) tl__free(flags[i]);
  tl__free(flags);
}

/* The lines of /proc/cpuinfo's first processor that name the model and features. */
static bool cpu_line(const char *line) {
  static const char *const keys[] = {"model name", "flags", "Features", "CPU implementer", "CPU part", "cpu model", NULL};
  for (size_t i = 0; keys[i]; i++)
    if (strncmp(line, keys[i], strlen(keys[i])) == 0) return true;
  return false;
}

char *tl__native_host_cpu(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  tl__hasher h;
  tl__hasher_init(&h, 0);
  char line[8192];
  bool any = false;
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '\n') break; /* the first processor's block only */
    if (!cpu_line(line)) continue;
    tl__hasher_bytes(&h, line, strlen(line));
    any = true;
  }
  if (f) fclose(f);
  return any ? tl__format("%016llx", (unsigned long long)tl__hasher_done(&h)) : tl__strdup("unknown");
}
