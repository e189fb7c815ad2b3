/* tilelang/base.h - status codes, the thread-local error message, ownership helpers.
 *
 * Every fallible call in the library returns a tl_status. On failure the calling
 * thread's message is set and tl_last_error() returns it. Messages never cross
 * threads. */
#ifndef TILELANG_BASE_H
#define TILELANG_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilelang/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Public symbols are exported through this one macro; everything else is hidden. */
#if defined(_WIN32)
#define TL_API __declspec(dllexport)
#elif defined(__GNUC__)
#define TL_API __attribute__((visibility("default")))
#else
#define TL_API
#endif

#if defined(__GNUC__)
#define TL_PRINTF(fmt_idx, args_idx) __attribute__((format(printf, fmt_idx, args_idx)))
#else
#define TL_PRINTF(fmt_idx, args_idx)
#endif

/* tl_status and its X-macro list TL_STATUS_MAP(X(name, value, default message)) are
 * defined in tilelang/plugin.h, the standalone header shared with plugins, so that
 * the library and its plugins see one definition. */

/* The calling thread's last error message. Never NULL; "" when none was set.
 * Valid until the thread's next failing call. Thread-safe (per-thread state). */
TL_API const char *tl_last_error(void);

/* "TL_EINVAL" for TL_EINVAL; "TL_UNKNOWN" for values outside the enum. Thread-safe. */
TL_API const char *tl_status_name(tl_status s);

/* Sets the calling thread's message to `message` (NULL means "") and returns `status`,
 * so a component written against the public API (a codegen, hook or callback that is
 * not a plugin; language bindings) reports a failure as the library does:
 * `return tl_set_error(TL_EINVAL, "...")`. Thread-safe (per-thread state). */
TL_API tl_status tl_set_error(tl_status status, const char *message);

/* A short generic description of the status ("invalid argument"). Thread-safe. */
TL_API const char *tl_status_message(tl_status s);

/* Frees memory the library handed to the caller (strings, arrays). NULL-safe. */
TL_API void tl_free(void *p);

/* The library version, "MAJOR.MINOR.PATCH". Thread-safe. */
TL_API const char *tl_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_BASE_H */
