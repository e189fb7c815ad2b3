/* File-system helpers (see files.h). Where a link could redirect us, everything goes
 * through file descriptors opened with O_NOFOLLOW, so checks and uses see one file. */
#include "base/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"

/* Describes why st (of `path`) is not a private regular file; NULL if it is one. */
static const char *file_not_private(const struct stat *st) {
  if (!S_ISREG(st->st_mode)) return "not a regular file";
  if (st->st_uid != geteuid()) return "owned by another user";
  if (st->st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
  return NULL;
}

tl_status tl__file_read_no_link(const char *path, bool private_only, char **out, size_t *len) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return tl__error(TL_EIO, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return tl__error(TL_EIO, "cannot stat '%s': %s", path, strerror(e));
  }
  const char *why = private_only ? file_not_private(&st) : (S_ISREG(st.st_mode) ? NULL : "not a regular file");
  if (why) {
    close(fd);
    return tl__error(TL_EIO, "'%s' is %s", path, why);
  }
  size_t size = (size_t)st.st_size;
  char *buf = tl__malloc(size + 1);
  if (!buf) {
    close(fd);
    return tl__oom();
  }
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : 0;
      close(fd);
      tl__free(buf);
      return tl__error(TL_EIO, "cannot read '%s': %s", path, e ? strerror(e) : "file shrank while reading");
    }
    got += (size_t)n;
  }
  close(fd);
  buf[size] = '\0';
  *out = buf;
  if (len) *len = size;
  return TL_OK;
}

/* Writes all of data to fd. */
static bool write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

char *tl__path_join(const char *dir, const char *name) { return tl__format("%s/%s", dir, name); }

tl_status tl__file_read(const char *path, char **out, size_t *len) {
  *out = NULL;
  if (len) *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl__error(TL_EIO, "cannot open '%s': %s", path, strerror(errno));
  tl__sb sb = TL__SB_INIT;
  char buf[8192];
  tl_status s = TL_OK;
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      s = tl__error(TL_EIO, "cannot read '%s': %s", path, strerror(errno));
      break;
    }
    if (r == 0) break;
    tl__sb_appendn(&sb, buf, (size_t)r);
  }
  close(fd);
  if (s != TL_OK) {
    tl__sb_free(&sb);
    return s;
  }
  size_t n = sb.len;
  char *text = tl__sb_finish(&sb);
  if (!text) return tl__oom();
  *out = text;
  if (len) *len = n;
  return TL_OK;
}

tl_status tl__file_write_parts(const char *path, const char *const *parts) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return tl__error(TL_EIO, "cannot create '%s': %s", path, strerror(errno));
  bool ok = true;
  for (size_t i = 0; parts[i] && ok; i++) ok = write_all(fd, parts[i], strlen(parts[i]));
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  return ok ? TL_OK : tl__error(TL_EIO, "cannot write '%s': %s", path, strerror(e));
}

tl_status tl__file_write(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return tl__error(TL_EIO, "cannot create '%s': %s", path, strerror(errno));
  bool ok = write_all(fd, data, n);
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  return ok ? TL_OK : tl__error(TL_EIO, "cannot write '%s': %s", path, strerror(e));
}

tl_status tl__file_write_new(const char *path, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return tl__error(TL_EIO, "cannot create '%s': %s", path, strerror(errno));
  bool ok = write_all(fd, data, len);
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    unlink(path);
    return tl__error(TL_EIO, "cannot write '%s': %s", path, strerror(e));
  }
  return TL_OK;
}

tl_status tl__file_replace(const char *path, const void *data, size_t len, mode_t mode) {
  char *tmp = tl__format("%s.tmpXXXXXX", path);
  if (!tmp) return tl__oom();
  int fd = mkstemp(tmp);
  if (fd < 0) {
    tl_status s = tl__error(TL_EIO, "cannot create a file beside '%s': %s", path, strerror(errno));
    tl__free(tmp);
    return s;
  }
  bool ok = fchmod(fd, mode) == 0 && write_all(fd, data, len);
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) unlink(tmp);
  tl__free(tmp);
  if (!ok) return tl__error(TL_EIO, "cannot write '%s': %s", path, strerror(e));
  return TL_OK;
}

tl_status tl__mkdirs_private(const char *path) {
  if (!path || !*path) return tl__error(TL_EINVAL, "empty directory path");
  char *p = tl__strdup(path);
  if (!p) return tl__oom();
  tl_status s = TL_OK;
  /* Walk the components left to right, creating what is missing. */
  for (char *q = p + 1;; q++) {
    if (*q != '/' && *q != '\0') continue;
    char saved = *q;
    *q = '\0';
    if (mkdir(p, 0700) != 0 && errno != EEXIST) {
      s = tl__error(TL_EIO, "cannot create directory '%s': %s", p, strerror(errno));
      break;
    }
    *q = saved;
    if (saved == '\0') break;
  }
  if (s == TL_OK) {
    struct stat st;
    if (stat(p, &st) != 0) s = tl__error(TL_EIO, "cannot stat '%s': %s", p, strerror(errno));
    else if (!S_ISDIR(st.st_mode)) s = tl__error(TL_EIO, "'%s' is not a directory", p);
  }
  tl__free(p);
  return s;
}

bool tl__dir_is_private(const char *path, bool follow, char *why, size_t cap) {
  struct stat st;
  const char *reason = NULL;
  char buf[64];
  if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
    snprintf(buf, sizeof buf, "%s", strerror(errno));
    reason = buf;
  } else if (S_ISLNK(st.st_mode)) {
    reason = "a symbolic link";
  } else if (!S_ISDIR(st.st_mode)) {
    reason = "not a directory";
  } else if (st.st_uid != geteuid()) {
    reason = "owned by another user";
  } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    reason = "writable by group or others";
  }
  if (reason && why && cap) snprintf(why, cap, "'%s' is %s", path, reason);
  return reason == NULL;
}

tl_status tl__make_scratch_dir(const char *prefix, char **out) {
  *out = NULL;
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  char *tmpl = tl__format("%s/%sXXXXXX", tmp, prefix);
  if (!tmpl) return tl__oom();
  if (!mkdtemp(tmpl)) {
    tl_status s = tl__error(TL_EIO, "cannot create a scratch directory in '%s': %s", tmp, strerror(errno));
    tl__free(tmpl);
    return s;
  }
  *out = tmpl;
  return TL_OK;
}

/* Removes the contents of the directory open as `dfd` (consumed). */
static tl_status remove_contents(int dfd, const char *path) {
  DIR *d = fdopendir(dfd);
  if (!d) {
    int e = errno;
    close(dfd);
    return tl__error(TL_EIO, "cannot read directory '%s': %s", path, strerror(e));
  }
  tl_status s = TL_OK;
  struct dirent *de;
  while (s == TL_OK && (errno = 0, de = readdir(d)) != NULL) {
    const char *n = de->d_name;
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
    if (unlinkat(dirfd(d), n, 0) == 0 || errno == ENOENT) continue;
    if (errno != EISDIR && errno != EPERM) {
      s = tl__error(TL_EIO, "cannot remove '%s/%s': %s", path, n, strerror(errno));
      break;
    }
    /* A directory: empty it (without following links), then remove it. */
    int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) {
      s = tl__error(TL_EIO, "cannot open '%s/%s': %s", path, n, strerror(errno));
      break;
    }
    char *subpath = tl__path_join(path, n);
    if (!subpath) {
      close(sub);
      s = tl__oom();
      break;
    }
    s = remove_contents(sub, subpath);
    if (s == TL_OK && unlinkat(dirfd(d), n, AT_REMOVEDIR) != 0 && errno != ENOENT)
      s = tl__error(TL_EIO, "cannot remove '%s': %s", subpath, strerror(errno));
    tl__free(subpath);
  }
  closedir(d);
  return s;
}

tl_status tl__remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return TL_OK;
    return tl__error(TL_EIO, "cannot stat '%s': %s", path, strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    if (unlink(path) != 0 && errno != ENOENT) return tl__error(TL_EIO, "cannot remove '%s': %s", path, strerror(errno));
    return TL_OK;
  }
  int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return tl__error(TL_EIO, "cannot open '%s': %s", path, strerror(errno));
  TL__TRY(remove_contents(dfd, path));
  if (rmdir(path) != 0 && errno != ENOENT) return tl__error(TL_EIO, "cannot remove '%s': %s", path, strerror(errno));
  return TL_OK;
}
