/* Shared helpers for the cmocka unit tests. */
#ifndef TL_TEST_H
#define TL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tilelang/base.h"

/* Asserts a call succeeded, printing the library's message if not. */
#define TL_ASSERT_OK(expr)                                                               \
  do {                                                                                   \
    tl_status tl_t_s = (expr);                                                           \
    if (tl_t_s != TL_OK)                                                                 \
      fail_msg("%s failed: %s: %s", #expr, tl_status_name(tl_t_s), tl_last_error());     \
  } while (0)

/* True if `needle` is NULL or occurs in `hay` (a function, so that a literal NULL
 * needle does not trip -Wnonnull on strstr). */
static inline int tl_test_contains(const char *hay, const char *needle) { return !needle || strstr(hay, needle); }

/* Asserts a call failed with `status` and a message containing `needle` (NULL: any). */
#define TL_ASSERT_ERR(expr, status, needle)                                               \
  do {                                                                                    \
    tl_status tl_t_s = (expr);                                                            \
    if (tl_t_s != (status))                                                               \
      fail_msg("%s: expected %s, got %s (%s)", #expr, tl_status_name(status),             \
               tl_status_name(tl_t_s), tl_last_error());                                  \
    if (!tl_test_contains(tl_last_error(), (needle)))                                     \
      fail_msg("%s: message \"%s\" lacks \"%s\"", #expr, tl_last_error(), (needle));      \
  } while (0)

/* Asserts the message equals `expected` exactly. */
#define TL_ASSERT_MSG(expected)                                                   \
  do {                                                                            \
    if (strcmp(tl_last_error(), (expected)) != 0)                                 \
      fail_msg("message:\n  got:      %s\n  expected: %s", tl_last_error(), (expected)); \
  } while (0)

/* The OOM sweep (as libuv's test-loop-oom): runs op with the Nth allocation failing,
 * for N = 1, 2, ... until op succeeds with no injected failure. Every failing run must
 * return TL_ENOMEM with "out of memory" in the message, and `after_failure` (if given)
 * checks that state is as it was. Leaks are caught by the sanitizer build. Returns the
 * number of allocation sites walked. */
#include "base/alloc.h"
typedef tl_status (*tl_oom_op)(void *ctx);
typedef void (*tl_oom_check)(void *ctx);
static inline long tl_oom_sweep(tl_oom_op op, tl_oom_check after_failure, void *ctx) {
  for (long n = 1;; n++) {
    tl__alloc_fail_after(n);
    tl_status s = op(ctx);
    int injected = tl__alloc_failed();
    tl__alloc_fail_after(0);
    if (!injected) {
      if (s != TL_OK) fail_msg("OOM sweep: op failed without injected failure at N=%ld: %s", n, tl_last_error());
      return n - 1;
    }
    if (s != TL_ENOMEM) fail_msg("OOM sweep: N=%ld gave %s (%s), expected TL_ENOMEM", n, tl_status_name(s), tl_last_error());
    if (!strstr(tl_last_error(), "out of memory")) fail_msg("OOM sweep: N=%ld message \"%s\"", n, tl_last_error());
    if (after_failure) after_failure(ctx);
    if (n > 1000000) fail_msg("OOM sweep did not terminate");
  }
}

#endif
