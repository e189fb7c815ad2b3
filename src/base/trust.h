/* Which files and directories may hold code this process loads (the kernel cache,
 * plugins), and opening them so that what was checked is what gets used.
 *
 * A path is walked from "/" one component at a time with openat(O_NOFOLLOW): each
 * directory on the way is checked on the descriptor it was opened as, so no rename
 * or link swap between the check and the use can redirect the walk. The rules:
 *
 *   ancestor   every directory above the last component: owned by the current
 *              user or root, and writable by neither group nor others unless it is
 *              sticky (/tmp): nobody else can rename what lies below it.
 *   link       a symbolic link met on the way is followed only if the current user
 *              or root owns it (it sits in a checked directory, so nobody else can
 *              replace it); its target is walked by the same rules.
 *   last       the component itself, by `tl__trust_rule`.
 *
 * Access control lists and bind mounts are not examined. */
#ifndef TL_BASE_TRUST_H
#define TL_BASE_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "tilelang/base.h"

typedef enum tl__trust_rule {
  /* A directory or regular file of the current user that neither group nor others
   * may write (the kernel cache). */
  TL__TRUST_PRIVATE,
  /* A directory or regular file of the current user or of root that neither group
   * nor others may write (plugins: an administrator's installation is trusted). */
  TL__TRUST_OWNED,
  /* A directory the current user creates private entries in: held to the ancestor
   * rule (/tmp qualifies). */
  TL__TRUST_PARENT,
} tl__trust_rule;

/* Why `st` breaks `rule` (for a directory when `dir`, else a regular file), or NULL
 * when it keeps it. */
const char *tl__trust_violation(const struct stat *st, tl__trust_rule rule, bool dir);

/* Opens `path` (absolute, or relative to the working directory) by the walk above:
 * *fd is an O_RDONLY | O_CLOEXEC descriptor of the last component, which must be a
 * directory when `dir` (a file is opened O_NONBLOCK, so a FIFO never blocks, and
 * then refused). Failures: TL_ENOTFOUND when a component does not exist,
 * TL_EUNAVAILABLE when a rule is broken ("'<path>': '<component>' is <why>"),
 * TL_EIO for other errors, TL_ENOMEM. */
tl_status tl__trust_open(const char *path, bool dir, tl__trust_rule rule, int *fd);

/* openat(dirfd, name) of one more component below a checked directory, never
 * following a link, checked by `rule` on the descriptor (`what` names it in the
 * message). The same failures as tl__trust_open. */
tl_status tl__trust_openat(int dirfd, const char *name, bool dir, tl__trust_rule rule, const char *what, int *fd);

#endif
