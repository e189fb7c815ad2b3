/* Small file helpers for execution backends: whole-file writes and reads with
 * TL_EIO messages naming the path. */
#ifndef TL_RUNTIME_FILES_H
#define TL_RUNTIME_FILES_H

#include <stddef.h>

#include "tilelang/base.h"

/* dir + "/" + name as a fresh string (tl__free), or NULL with TL_ENOMEM set. */
char *tl__path_join(const char *dir, const char *name);
/* Writes n bytes to path (created with mode 0644 in its directory, truncated). */
tl_status tl__write_file(const char *path, const void *data, size_t n);
/* Writes the concatenation of the NULL-terminated list of strings. */
tl_status tl__write_file_parts(const char *path, const char *const *parts);
/* Reads the whole file into a fresh NUL-terminated buffer (*out, tl__free it). */
tl_status tl__read_file(const char *path, char **out, size_t *len);

#endif
