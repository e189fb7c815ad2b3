/* File-system helpers for the kernel cache and ahead-of-time export: whole-file
 * reads and writes, private directories, scratch directories and tree removal that
 * never follows symbolic links. Failures are TL_EIO naming the path and the
 * system's reason (out of memory: TL_ENOMEM). */
#ifndef TL_ENGINE_FILES_H
#define TL_ENGINE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "runtime/files.h" /* tl__path_join */
#include "tilelang/base.h"

/* Reads the file at `path` into a fresh NUL-terminated buffer (tl__free it); *len
 * (if non-NULL) gets its size. A symbolic link at `path` is never followed. With
 * `private_only`, the file must also be a regular file owned by the current user
 * and writable by neither group nor others (TL_EIO saying which rule failed). */
tl_status tl__file_read(const char *path, bool private_only, char **out, size_t *len);

/* Creates `path` (which must not exist) with mode 0600 and writes `len` bytes. */
tl_status tl__file_write_new(const char *path, const void *data, size_t len);

/* Creates or replaces `path` with `len` bytes and mode `mode` (the umask is not
 * applied): written to a temporary file beside it, then renamed over it. */
tl_status tl__file_replace(const char *path, const void *data, size_t len, mode_t mode);

/* Creates `path` and its missing parents; directories it creates get mode 0700.
 * An existing path must be a directory (a link to one is accepted). */
tl_status tl__mkdirs_private(const char *path);

/* True if `path` is a private directory of the current user: a directory owned by
 * the user that neither group nor others may write. `follow`: a symbolic link at
 * `path` is resolved first (else a link is refused). When false, the reason goes
 * to `why` (cap bytes). */
bool tl__dir_is_private(const char *path, bool follow, char *why, size_t cap);

/* A fresh private directory (mkdtemp, mode 0700) named `<prefix>XXXXXX` under
 * TMPDIR, else /tmp. *out is its path (tl__free it). */
tl_status tl__make_scratch_dir(const char *prefix, char **out);

/* Removes `path` and everything under it; symbolic links inside are removed, never
 * followed. A missing path is not an error. */
tl_status tl__remove_tree(const char *path);

#endif
