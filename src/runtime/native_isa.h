/* The instruction set the native backend compiles for (native_isa.c). */
#ifndef TL_RUNTIME_NATIVE_ISA_H
#define TL_RUNTIME_NATIVE_ISA_H

#include "tilelang/target.h"

/* The compiler flags that choose the instruction set for target t (NULL: the
 * host): "-march=<mcpu or native>", then one "-m<f>" / "-mno-<f>" per mattr entry
 * "+f" / "-f". A fresh NULL-terminated array (tl__native_isa_flags_free). TL_EINVAL
 * for an mcpu or mattr entry that is not a plain word. */
tl_status tl__native_isa_flags(const tl_target *t, char ***out);
void tl__native_isa_flags_free(char **flags);
/* A short fingerprint of the host CPU (model and features) for -march=native
 * builds' cache identity; "unknown" where /proc/cpuinfo is not readable. A fresh
 * string (tl__free), NULL when out of memory. */
char *tl__native_host_cpu(void);

#endif
