/* Descriptor-relative file operations of the kernel cache: every name is resolved
 * in a directory the cache opened and checked (never by a path from the root), and
 * no symbolic link is followed. Failures: TL_EIO naming `what` and the system's
 * reason; TL_ENOMEM. */
#ifndef TL_ENGINE_CACHE_FS_H
#define TL_ENGINE_CACHE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tilelang/base.h"

/* A fresh directory `<prefix>XXXXXX` (mode 0700) in dirfd; *name: tl__free. */
tl_status tl__cfs_mkdtemp(int dirfd, const char *prefix, const char *what, char **name);

/* Creates file `name` in dirfd (it must not exist; mode 0600) with `len` bytes. A
 * failed write removes the file. */
tl_status tl__cfs_write_new(int dirfd, const char *name, const void *data, size_t len, const char *what);

/* Reads all of the regular file open as fd (from offset 0) into a fresh
 * NUL-terminated buffer; `size` is what fstat said (a file that changes size while
 * read fails). */
tl_status tl__cfs_read_fd(int fd, size_t size, const char *what, char **out);

/* Removes `name` in dirfd and everything under it, never following a link. A
 * missing name is not an error. */
tl_status tl__cfs_remove_tree(int dirfd, const char *name, const char *what);

/* Test knob: when nonzero, tl__cfs_write_new and tl__cfs_mkdtemp fail with this
 * errno (ENOSPC: a full disk; EROFS: a read-only cache) before writing. */
extern int tl__cfs_test_write_errno;

#endif
