/* Internal error reporting: set the calling thread's message and return the status,
 * so a failure path reads `return tl__error(TL_EINVAL, "bad %s", what);`. */
#ifndef TL_BASE_ERROR_H
#define TL_BASE_ERROR_H

#include <stdarg.h>

#include "tilelang/base.h"

/* Sets the thread's message (printf-style) and returns s. Arguments may point into
 * the current message (e.g. tl_last_error()); they are read before it is replaced. */
tl_status tl__error(tl_status s, const char *fmt, ...) TL_PRINTF(2, 3);
tl_status tl__verror(tl_status s, const char *fmt, va_list ap);

/* Prepends context to the current message ("while registering backend 'cuda': ...")
 * and returns s unchanged. */
tl_status tl__error_context(tl_status s, const char *fmt, ...) TL_PRINTF(2, 3);

/* TL_ENOMEM with the standard message. Never allocates. */
tl_status tl__oom(void);

/* Clears the thread's message to "". */
void tl__error_clear(void);

/* Propagates a failing status: `TL__TRY(f(x));` */
#define TL__TRY(expr)                  \
  do {                                 \
    tl_status tl__try_s = (expr);      \
    if (tl__try_s != TL_OK) return tl__try_s; \
  } while (0)

#endif
