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

/* The one list of status codes: X(name, value, default message). */
#define TL_STATUS_MAP(X)                                                              \
  X(TL_OK, 0, "success")                                                              \
  X(TL_EINVAL, 1, "invalid argument")                                                 \
  X(TL_ENOTFOUND, 2, "not found")                                                     \
  X(TL_EEXIST, 3, "conflicting registration")                                         \
  X(TL_EUNAVAILABLE, 4, "a library, toolchain or device needed for this is missing") \
  X(TL_EUNSUPPORTED, 5, "the component cannot do the requested mode")                 \
  X(TL_ECOMPILE, 6, "an external compiler rejected generated code")                   \
  X(TL_ERUNTIME, 7, "driver or launch failure")                                       \
  X(TL_EIO, 8, "input/output error")                                                  \
  X(TL_ENOMEM, 9, "out of memory")                                                    \
  X(TL_EINTERNAL, 10, "internal error")

typedef enum tl_status {
#define TL__STATUS_ENUM(name, value, msg) name = value,
  TL_STATUS_MAP(TL__STATUS_ENUM)
#undef TL__STATUS_ENUM
} tl_status;

/* The calling thread's last error message. Never NULL; "" when none was set.
 * Valid until the thread's next failing call. Thread-safe (per-thread state). */
TL_API const char *tl_last_error(void);

/* "TL_EINVAL" for TL_EINVAL; "TL_UNKNOWN" for values outside the enum. Thread-safe. */
TL_API const char *tl_status_name(tl_status s);

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
