#include "tilelang/base.h"

#include <stdlib.h>

#ifndef TL_VERSION_STRING
#error "TL_VERSION_STRING is set by the build from the project version"
#endif

const char *tl_version(void) { return TL_VERSION_STRING; }

/* Everything handed to callers is allocated by tl__malloc, which is malloc. */
void tl_free(void *p) { free(p); }
