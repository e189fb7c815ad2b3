/* File helpers for execution backends. */
#include "runtime/files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/str.h"

char *tl__path_join(const char *dir, const char *name) { return tl__format("%s/%s", dir, name); }

static tl_status write_all(int fd, const char *path, const void *data, size_t n) {
  const char *p = data;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return tl__error(TL_EIO, "cannot write '%s': %s", path, strerror(errno));
    p += w;
    n -= (size_t)w;
  }
  return TL_OK;
}

tl_status tl__write_file_parts(const char *path, const char *const *parts) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return tl__error(TL_EIO, "cannot create '%s': %s", path, strerror(errno));
  tl_status s = TL_OK;
  for (size_t i = 0; parts[i] && s == TL_OK; i++) s = write_all(fd, path, parts[i], strlen(parts[i]));
  if (close(fd) != 0 && s == TL_OK) s = tl__error(TL_EIO, "cannot write '%s': %s", path, strerror(errno));
  return s;
}

tl_status tl__write_file(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return tl__error(TL_EIO, "cannot create '%s': %s", path, strerror(errno));
  tl_status s = write_all(fd, path, data, n);
  if (close(fd) != 0 && s == TL_OK) s = tl__error(TL_EIO, "cannot write '%s': %s", path, strerror(errno));
  return s;
}

tl_status tl__read_file(const char *path, char **out, size_t *len) {
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
  if (!text) return TL_ENOMEM;
  *out = text;
  if (len) *len = n;
  return TL_OK;
}
