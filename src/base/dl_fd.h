/* Loading code from the descriptor that was checked, so that no rename or link swap
 * between the check and the load can substitute another file.
 *
 * dlopen takes a path; the path used is /proc/self/fd/<n> of the checked descriptor.
 * The dynamic loader reuses an already loaded library whose name matches, so a
 * descriptor number that names a resident library is first duplicated to one that
 * does not. Where /proc is unavailable the bytes are copied from the descriptor
 * into a private directory (under TMPDIR, else /tmp, by the rules of trust.h) and
 * loaded from there; the copy is removed at once (the mapping stays). */
#ifndef TL_BASE_DL_FD_H
#define TL_BASE_DL_FD_H

#include <stdbool.h>
#include <stddef.h>

#include "tilelang/base.h"

/* dlopen of the file open as `fd` (not consumed) with `flags`; `what` names it in
 * the message. TL_EIO "cannot load '<what>': <reason>", TL_ENOMEM. */
tl_status tl__dlopen_fd(int fd, const char *what, int flags, void **handle);

/* The files of the load in progress on this thread that were verified, each open:
 * the kernel cache sets it around an execution backend's load, so that the loader
 * uses those very descriptors. */
typedef struct tl__load_scope {
  const char *dir;          /* the directory load was given */
  const char *const *names; /* file names in it */
  const int *fds;           /* their verified descriptors */
  size_t n;
} tl__load_scope;

/* Sets (NULL: clears) this thread's scope. The scope is borrowed. */
void tl__load_scope_set(const tl__load_scope *scope);

/* Opens file `name` of `dir` for loading: a duplicate of the verified descriptor
 * when this thread's scope has it, else openat(O_NOFOLLOW), which must give a
 * regular file. TL_EIO naming the path. */
tl_status tl__load_open(const char *dir, const char *name, int *fd);

/* tl__load_open, then tl__dlopen_fd. */
tl_status tl__load_dlopen(const char *dir, const char *name, int flags, void **handle);

/* A path that reads file `name` of `dir` as verified, for loaders that read a path
 * once (libtcc, whole-file reads): /proc/self/fd/<n> of the scope's descriptor, else
 * dir/name. Fresh string (tl__free), NULL with TL_ENOMEM. */
char *tl__load_path(const char *dir, const char *name);

/* Test knob: pretend /proc is unavailable (the copy path). */
extern bool tl__dl_test_no_proc;

#endif
