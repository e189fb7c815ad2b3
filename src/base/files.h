/* The library's one set of file-system helpers (execution backends, the kernel
 * cache, the cuda binary cache, ahead-of-time export): whole-file reads and writes,
 * private directories, scratch directories and tree removal that never follows
 * symbolic links. Failures are TL_EIO naming the path and the system's reason (out
 * of memory: TL_ENOMEM). */
#ifndef TL_BASE_FILES_H
#define TL_BASE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tilelang/base.h"

/* dir + "/" + name as a fresh string (tl__free), or NULL when out of memory. */
char *tl__path_join(const char *dir, const char *name);

/* Reads the whole file at `path` (links followed, any kind of file) into a fresh
 * NUL-terminated buffer (*out, tl__free it); *len (if non-NULL) gets its size. For
 * files the library just wrote itself (a compiler's output in a scratch directory). */
tl_status tl__file_read(const char *path, char **out, size_t *len);

/* Like tl__file_read for files that may not be trusted: a symbolic link at `path`
 * is never followed and the file must be a regular file. With `private_only`, it
 * must also be owned by the current user and writable by neither group nor others
 * (TL_EIO saying which rule failed). */
tl_status tl__file_read_no_link(const char *path, bool private_only, char **out, size_t *len);

/* Creates or truncates `path` (mode 0644 before the umask) and writes n bytes. */
tl_status tl__file_write(const char *path, const void *data, size_t n);
/* Like tl__file_write, with the concatenation of the NULL-terminated list of strings. */
tl_status tl__file_write_parts(const char *path, const char *const *parts);

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
