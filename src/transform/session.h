/* The compilation session: per-compilation settings that passes read without
 * changing the seed's pipeline signature (lower(mod, target, user_data)). The engine
 * enters a session around lowering; it is a thread-local pointer, like upstream's
 * contextvar, so concurrent compilations on different threads do not interfere.
 * Outside a session (a pipeline called directly), passes see defaults. */
#ifndef TL_TRANSFORM_SESSION_H
#define TL_TRANSFORM_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "base/str.h"
#include "base/vec.h"
#include "tilelang/base.h"

typedef struct tl__pass_timing {
  const char *name; /* static pass name */
  double ms;
} tl__pass_timing;

typedef struct tl__session {
  const char *kernel_name;          /* for messages and traces */
  const char *backend_name;
  const char *const *pass_configs;  /* "key=value", NULL-terminated; may be NULL; borrowed */
  bool time_passes;                 /* record per-pass wall time (and print it at the end) */
  bool print_after_all;             /* print the IR after every pass to `log` */
  const char *print_after;          /* print the IR after this pass to `log` */
  bool trace;                       /* one line per pass to `log` (TL_LOWER_TRACE=1) */
  FILE *log;                        /* NULL: stderr */
  tl__vec timings;                  /* tl__pass_timing, when time_passes */
  /* Which passes ran (names, ", "-separated) and whether `print_after` named one:
   * a name that matched no pass is an error, not silence. */
  tl__sb passes_run;
  bool print_after_matched;
} tl__session;

/* A session with defaults (trace from TL_LOWER_TRACE). */
void tl__session_init(tl__session *s);
void tl__session_free(tl__session *s);
/* Makes s current on this thread; returns the previous one for tl__session_exit. */
tl__session *tl__session_enter(tl__session *s);
void tl__session_exit(tl__session *previous);
/* The current session, or NULL. */
tl__session *tl__session_current(void);
/* The value of pass config `key` in the current session, or NULL. */
const char *tl__session_config(const char *key);
/* TL_EINVAL when `print_after` was set and no pass of that name ran (the message
 * lists those that did). */
tl_status tl__session_check_print_after(const tl__session *s);
/* Writes the recorded pass timings as a table to the session's log. */
void tl__session_report_timings(const tl__session *s);

#endif
