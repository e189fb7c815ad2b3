/* Opening trusted paths by descriptor (see trust.h). */
#include "base/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"

#define MAX_LINKS 40 /* as the kernel's own limit */

static bool trusted_owner(uid_t uid, tl__trust_rule rule) {
  return uid == geteuid() || (rule == TL__TRUST_OWNED && uid == 0);
}

static const char *ancestor_violation(const struct stat *st);

const char *tl__trust_violation(const struct stat *st, tl__trust_rule rule, bool dir) {
  if (rule == TL__TRUST_PARENT) return dir ? ancestor_violation(st) : "not a directory";
  if (dir && !S_ISDIR(st->st_mode)) return "not a directory";
  if (!dir && !S_ISREG(st->st_mode)) return "not a regular file";
  if (!trusted_owner(st->st_uid, rule)) return "owned by another user";
  if (st->st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
  return NULL;
}

/* The rule for a directory above the last component. */
static const char *ancestor_violation(const struct stat *st) {
  if (!S_ISDIR(st->st_mode)) return "not a directory";
  if (st->st_uid != geteuid() && st->st_uid != 0) return "owned by another user";
  if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
    return "writable by group or others and not sticky";
  return NULL;
}

static tl_status refuse(const char *path, const char *component, const char *why) {
  if (!component || strcmp(path, component) == 0) return tl__error(TL_EUNAVAILABLE, "'%s' is %s", path, why);
  return tl__error(TL_EUNAVAILABLE, "'%s': '%s' is %s", path, component, why);
}

static tl_status open_failed(const char *path, const char *component, int e) {
  if (e == ENOENT) return tl__error(TL_ENOTFOUND, "'%s': %s", component, strerror(e));
  if (e == ENOTDIR) return refuse(path, component, "not a directory");
  return tl__error(TL_EIO, "cannot open '%s': %s", component, strerror(e));
}

/* Checks the directory or file open as fd by the rule that applies to it. */
static tl_status check_fd(int fd, const char *path, const char *component, bool last, bool dir, tl__trust_rule rule) {
  struct stat st;
  if (fstat(fd, &st) != 0) return tl__error(TL_EIO, "cannot stat '%s': %s", component, strerror(errno));
  const char *why = last ? tl__trust_violation(&st, rule, dir) : ancestor_violation(&st);
  return why ? refuse(path, component, why) : TL_OK;
}

/* The walk's state: what is still to walk and what was walked (for messages). */
typedef struct walk {
  char *todo;    /* the remaining path (heap) */
  size_t pos;    /* where the next component starts */
  tl__sb seen;   /* the directories walked, as a path */
  int cur;       /* the directory reached */
} walk;

/* Restarts at "/" (the start, or an absolute link target). */
static tl_status at_root(walk *w, const char *path, bool dir, tl__trust_rule rule) {
  if (w->cur >= 0) close(w->cur);
  w->cur = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (w->cur < 0) return tl__error(TL_EIO, "cannot open '/': %s", strerror(errno));
  tl__sb_truncate(&w->seen, 0);
  const char *p = w->todo + w->pos;
  while (*p == '/') p++;
  return check_fd(w->cur, path, "/", !*p, dir, rule);
}

/* Replaces the link just met by its target followed by the rest of the path. */
static tl_status splice_link(walk *w, const char *target, const char *rest) {
  char *todo = tl__format("%s/%s", target, rest);
  if (!todo) return tl__oom();
  tl__free(w->todo);
  w->todo = todo;
  w->pos = 0;
  return TL_OK;
}

/* Follows the symbolic link `name` in w->cur if the current user or root owns it. */
static tl_status follow_link(walk *w, const char *path, const char *name, const char *rest, bool dir,
                             tl__trust_rule rule) {
  struct stat st;
  const char *component = tl__sb_str(&w->seen);
  if (fstatat(w->cur, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return open_failed(path, component, errno);
  if (!S_ISLNK(st.st_mode)) return tl__error(TL_EIO, "'%s' changed while it was being opened", component);
  if (st.st_uid != geteuid() && st.st_uid != 0) return refuse(path, component, "a symbolic link owned by another user");
  char target[PATH_MAX];
  ssize_t n = readlinkat(w->cur, name, target, sizeof target - 1);
  if (n < 0) return tl__error(TL_EIO, "cannot read the link '%s': %s", component, strerror(errno));
  if (n == 0) return refuse(path, component, "an empty symbolic link");
  target[n] = '\0';
  TL__TRY(splice_link(w, target, rest));
  /* The link's own name leaves the walked path; its target is walked instead. */
  char *slash = strrchr(w->seen.buf, '/');
  tl__sb_truncate(&w->seen, slash ? (size_t)(slash - w->seen.buf) : 0);
  if (target[0] == '/') return at_root(w, path, dir, rule);
  return TL_OK;
}

static tl_status walk_all(walk *w, const char *path, bool dir, tl__trust_rule rule) {
  TL__TRY(at_root(w, path, dir, rule));
  int links = 0;
  for (;;) {
    char *p = w->todo + w->pos;
    while (*p == '/') p++;
    if (!*p) return TL_OK;
    char *end = p + strcspn(p, "/");
    char *next = end;
    while (*next == '/') next++;
    bool last = !*next;
    char name[NAME_MAX + 1];
    size_t len = (size_t)(end - p);
    if (len > NAME_MAX) return tl__error(TL_EIO, "'%s': a path component is too long", path);
    memcpy(name, p, len);
    name[len] = '\0';
    w->pos = (size_t)(next - w->todo);
    if (strcmp(name, ".") == 0) {
      if (last) return check_fd(w->cur, path, w->seen.len ? tl__sb_str(&w->seen) : "/", true, dir, rule);
      continue;
    }
    if (strcmp(name, "..") == 0) {
      char *slash = w->seen.len ? strrchr(w->seen.buf, '/') : NULL;
      tl__sb_truncate(&w->seen, slash ? (size_t)(slash - w->seen.buf) : 0);
    } else {
      tl__sb_putc(&w->seen, '/');
      tl__sb_append(&w->seen, name);
    }
    TL__TRY(tl__sb_status(&w->seen));
    const char *component = w->seen.len ? tl__sb_str(&w->seen) : "/";
    bool want_dir = !last || dir;
    int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (want_dir ? O_DIRECTORY : O_NONBLOCK);
    int fd = openat(w->cur, name, flags);
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
      int e = errno;
      struct stat st;
      if (fstatat(w->cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        if (++links > MAX_LINKS) return tl__error(TL_EIO, "'%s': too many levels of symbolic links", path);
        TL__TRY(follow_link(w, path, name, next, dir, rule));
        continue;
      }
      return open_failed(path, component, e);
    }
    if (fd < 0) return open_failed(path, component, errno);
    tl_status s = check_fd(fd, path, component, last, dir, rule);
    close(w->cur);
    w->cur = fd;
    if (s != TL_OK) return s;
  }
}

tl_status tl__trust_open(const char *path, bool dir, tl__trust_rule rule, int *fd) {
  *fd = -1;
  if (!path || !*path) return tl__error(TL_EINVAL, "an empty path");
  walk w = {NULL, 0, TL__SB_INIT, -1};
  if (path[0] == '/') {
    w.todo = tl__strdup(path);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return tl__error(TL_EIO, "cannot resolve '%s': %s", path, strerror(errno));
    w.todo = tl__format("%s/%s", cwd, path);
  }
  tl_status s = w.todo ? walk_all(&w, path, dir, rule) : tl__oom();
  tl__free(w.todo);
  tl__sb_free(&w.seen);
  if (s != TL_OK) {
    if (w.cur >= 0) close(w.cur);
    return s;
  }
  *fd = w.cur;
  return TL_OK;
}

tl_status tl__trust_openat(int dirfd, const char *name, bool dir, tl__trust_rule rule, const char *what, int *fd) {
  *fd = -1;
  int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : O_NONBLOCK);
  int f = openat(dirfd, name, flags);
  if (f < 0) {
    int e = errno;
    struct stat st;
    if ((e == ELOOP || e == ENOTDIR) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      return tl__error(TL_EUNAVAILABLE, "'%s' is a symbolic link", what);
    if (e == ENOENT) return tl__error(TL_ENOTFOUND, "'%s': %s", what, strerror(e));
    if (e == ENOTDIR) return tl__error(TL_EUNAVAILABLE, "'%s' is not a directory", what);
    return tl__error(TL_EIO, "cannot open '%s': %s", what, strerror(e));
  }
  struct stat st;
  if (fstat(f, &st) != 0) {
    int e = errno;
    close(f);
    return tl__error(TL_EIO, "cannot stat '%s': %s", what, strerror(e));
  }
  const char *why = tl__trust_violation(&st, rule, dir);
  if (why) {
    close(f);
    return tl__error(TL_EUNAVAILABLE, "'%s' is %s", what, why);
  }
  *fd = f;
  return TL_OK;
}
