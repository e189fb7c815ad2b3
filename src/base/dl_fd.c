/* dlopen from a checked descriptor (see dl_fd.h). */
#include "base/dl_fd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"
#include "base/trust.h"

bool tl__dl_test_no_proc;

static _Thread_local const tl__load_scope *t_scope;

void tl__load_scope_set(const tl__load_scope *scope) { t_scope = scope; }

/* The scope's descriptor of dir/name, or -1. */
static int scope_fd(const char *dir, const char *name) {
  const tl__load_scope *sc = t_scope;
  if (!sc || !sc->dir || strcmp(sc->dir, dir) != 0) return -1;
  for (size_t i = 0; i < sc->n; i++)
    if (strcmp(sc->names[i], name) == 0) return sc->fds[i];
  return -1;
}

/* "/proc/self/fd/<fd>" if it reaches the same file as fd. */
static bool proc_path(int fd, const struct stat *st, char *buf, size_t cap) {
  if (tl__dl_test_no_proc) return false;
  snprintf(buf, cap, "/proc/self/fd/%d", fd);
  struct stat via;
  return stat(buf, &via) == 0 && via.st_dev == st->st_dev && via.st_ino == st->st_ino;
}

/* The file each name /proc/self/fd/<n> was last handed to dlopen for. The loader
 * keeps every name a library was opened under (also when it matched an already
 * loaded file by inode), so a name may be reused only for the same file, or once
 * no resident library answers to it. */
#define NAMED_FDS 4096
static pthread_mutex_t g_names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  bool used;
  dev_t dev;
  ino_t ino;
} g_names[NAMED_FDS];

/* Whether dlopen of /proc/self/fd/<fd> can only give the file `st`; if so, records
 * the name as that file's. Caller holds g_names_lock. */
static bool name_usable(int fd, const char *path, const struct stat *st) {
  if (fd < 0 || fd >= NAMED_FDS) return false;
  void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) dlerror();
  else dlclose(h);
  bool ours = g_names[fd].used && g_names[fd].dev == st->st_dev && g_names[fd].ino == st->st_ino;
  /* Not resident: free. Resident and ours: it is this file. Resident and never
   * named by us: it matched this file's inode. */
  bool usable = !h || ours || !g_names[fd].used;
  if (usable) {
    g_names[fd].used = true;
    g_names[fd].dev = st->st_dev;
    g_names[fd].ino = st->st_ino;
  }
  return usable;
}

static tl_status dl_failed(const char *what) {
  const char *why = dlerror();
  return tl__error(TL_EIO, "cannot load '%s': %s", what, why ? why : "dlopen failed");
}

/* Loads through /proc/self/fd: false when /proc does not serve (the caller copies). */
static bool load_via_proc(int fd, const struct stat *st, const char *what, int flags, void **handle, tl_status *s) {
  char path[64];
  if (!proc_path(fd, st, path, sizeof path)) return false;
  int dups[64], ndups = 0, use = fd;
  pthread_mutex_lock(&g_names_lock);
  bool ok;
  while (!(ok = name_usable(use, path, st)) && ndups < (int)(sizeof dups / sizeof *dups)) {
    int d = fcntl(use, F_DUPFD_CLOEXEC, use + 1);
    if (d < 0) break;
    dups[ndups++] = d;
    use = d;
    snprintf(path, sizeof path, "/proc/self/fd/%d", use);
  }
  if (ok) {
    dlerror();
    *handle = dlopen(path, flags);
    *s = *handle ? TL_OK : dl_failed(what);
  }
  pthread_mutex_unlock(&g_names_lock);
  for (int i = 0; i < ndups; i++) close(dups[i]);
  return ok;
}

/* Copies fd's bytes into a fresh file of a fresh private directory under TMPDIR and
 * loads that. */
static tl_status load_via_copy(int fd, const char *what, int flags, void **handle) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  int parent = -1;
  TL__TRY(tl__trust_open(tmp, true, TL__TRUST_PARENT, &parent));
  static atomic_uint counter;
  char name[64];
  int tries = 0;
  for (;; tries++) {
    snprintf(name, sizeof name, "tilelang-load-%ld-%u-%lx", (long)getpid(), atomic_fetch_add(&counter, 1),
             (unsigned long)time(NULL));
    if (mkdirat(parent, name, 0700) == 0) break;
    if (errno != EEXIST || tries > 100) {
      tl_status s = tl__error(TL_EIO, "cannot create a directory in '%s': %s", tmp, strerror(errno));
      close(parent);
      return s;
    }
  }
  char *dir = tl__format("%s/%s", tmp, name), *file = tl__format("%s/%s/lib.so", tmp, name);
  tl_status s = dir && file ? TL_OK : tl__oom();
  int dfd = -1, out = -1;
  if (s == TL_OK) s = tl__trust_openat(parent, name, true, TL__TRUST_PRIVATE, dir, &dfd);
  if (s == TL_OK && (out = openat(dfd, "lib.so", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700)) < 0)
    s = tl__error(TL_EIO, "cannot create '%s': %s", file, strerror(errno));
  char buf[65536];
  for (off_t off = 0; s == TL_OK;) {
    ssize_t n = pread(fd, buf, sizeof buf, off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) s = tl__error(TL_EIO, "cannot read '%s': %s", what, strerror(errno));
    if (n <= 0) break;
    for (ssize_t w = 0; s == TL_OK && w < n;) {
      ssize_t m = write(out, buf + w, (size_t)(n - w));
      if (m < 0 && errno == EINTR) continue;
      if (m <= 0) s = tl__error(TL_EIO, "cannot write '%s': %s", file, m < 0 ? strerror(errno) : "no space");
      else w += m;
    }
    off += n;
  }
  if (out >= 0 && close(out) != 0 && s == TL_OK) s = tl__error(TL_EIO, "cannot write '%s': %s", file, strerror(errno));
  if (s == TL_OK) {
    dlerror();
    *handle = dlopen(file, flags);
    if (!*handle) s = dl_failed(what);
  }
  if (dfd >= 0) {
    unlinkat(dfd, "lib.so", 0);
    close(dfd);
  }
  unlinkat(parent, name, AT_REMOVEDIR);
  close(parent);
  tl__free(dir);
  tl__free(file);
  return s;
}

tl_status tl__dlopen_fd(int fd, const char *what, int flags, void **handle) {
  *handle = NULL;
  struct stat st;
  if (fstat(fd, &st) != 0) return tl__error(TL_EIO, "cannot stat '%s': %s", what, strerror(errno));
  if (!S_ISREG(st.st_mode)) return tl__error(TL_EIO, "cannot load '%s': not a regular file", what);
  tl_status s = TL_OK;
  if (load_via_proc(fd, &st, what, flags, handle, &s)) return s;
  return load_via_copy(fd, what, flags, handle);
}

tl_status tl__load_open(const char *dir, const char *name, int *fd) {
  *fd = -1;
  int v = scope_fd(dir, name);
  if (v >= 0) {
    *fd = fcntl(v, F_DUPFD_CLOEXEC, 0);
    if (*fd < 0) return tl__error(TL_EIO, "cannot duplicate a descriptor of '%s/%s': %s", dir, name, strerror(errno));
    return TL_OK;
  }
  char *path = tl__format("%s/%s", dir, name);
  if (!path) return tl__oom();
  tl_status s = TL_OK;
  int f = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (f < 0) s = tl__error(TL_EIO, "cannot load '%s': %s", path, strerror(errno));
  else if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) s = tl__error(TL_EIO, "cannot load '%s': not a regular file", path);
  tl__free(path);
  if (s != TL_OK) {
    if (f >= 0) close(f);
    return s;
  }
  *fd = f;
  return TL_OK;
}

tl_status tl__load_dlopen(const char *dir, const char *name, int flags, void **handle) {
  *handle = NULL;
  int fd;
  TL__TRY(tl__load_open(dir, name, &fd));
  char *what = tl__format("%s/%s", dir, name);
  tl_status s = what ? tl__dlopen_fd(fd, what, flags, handle) : tl__oom();
  tl__free(what);
  close(fd);
  return s;
}

char *tl__load_path(const char *dir, const char *name) {
  int v = scope_fd(dir, name);
  struct stat st;
  char buf[64];
  if (v >= 0 && fstat(v, &st) == 0 && proc_path(v, &st, buf, sizeof buf)) return tl__strdup(buf);
  return tl__format("%s/%s", dir, name);
}
