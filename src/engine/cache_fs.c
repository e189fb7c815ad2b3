/* Descriptor-relative file operations of the kernel cache (see cache_fs.h). */
#include "engine/cache_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/hash.h"
#include "base/str.h"

int tl__cfs_test_write_errno;

tl_status tl__cfs_mkdtemp(int dirfd, const char *prefix, const char *what, char **name) {
  *name = NULL;
  if (tl__cfs_test_write_errno)
    return tl__error(TL_EIO, "cannot create a directory in '%s': %s", what, strerror(tl__cfs_test_write_errno));
  static atomic_uint counter;
  for (int attempt = 0; attempt < 100; attempt++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t mix[3] = {(uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30), (uint64_t)getpid(),
                       atomic_fetch_add(&counter, 1)};
    uint64_t h = tl__hash_bytes(mix, sizeof mix, 0);
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char suffix[7];
    for (int i = 0; i < 6; i++, h /= 62) suffix[i] = alphabet[h % 62];
    suffix[6] = '\0';
    char *n = tl__format("%s%s", prefix, suffix);
    if (!n) return tl__oom();
    if (mkdirat(dirfd, n, 0700) == 0) {
      *name = n;
      return TL_OK;
    }
    int e = errno;
    tl__free(n);
    if (e != EEXIST) return tl__error(TL_EIO, "cannot create a directory in '%s': %s", what, strerror(e));
  }
  return tl__error(TL_EIO, "cannot create a directory in '%s': no free name", what);
}

tl_status tl__cfs_write_new(int dirfd, const char *name, const void *data, size_t len, const char *what) {
  if (tl__cfs_test_write_errno) return tl__error(TL_EIO, "cannot write '%s': %s", what, strerror(tl__cfs_test_write_errno));
  int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return tl__error(TL_EIO, "cannot create '%s': %s", what, strerror(errno));
  const char *p = data;
  int e = 0;
  while (len && !e) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) e = n < 0 ? errno : ENOSPC;
    else p += n, len -= (size_t)n;
  }
  if (close(fd) != 0 && !e) e = errno;
  if (e) {
    unlinkat(dirfd, name, 0);
    return tl__error(TL_EIO, "cannot write '%s': %s", what, strerror(e));
  }
  return TL_OK;
}

tl_status tl__cfs_read_fd(int fd, size_t size, const char *what, char **out) {
  *out = NULL;
  char *buf = tl__malloc(size + 1);
  if (!buf) return tl__oom();
  size_t got = 0;
  while (got < size) {
    ssize_t n = pread(fd, buf + got, size - got, (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : 0;
      tl__free(buf);
      return tl__error(TL_EIO, "cannot read '%s': %s", what, e ? strerror(e) : "the file shrank while it was read");
    }
    got += (size_t)n;
  }
  char extra;
  if (pread(fd, &extra, 1, (off_t)size) > 0) {
    tl__free(buf);
    return tl__error(TL_EIO, "cannot read '%s': the file grew while it was read", what);
  }
  buf[size] = '\0';
  *out = buf;
  return TL_OK;
}

/* Empties the directory open as dfd (consumed). */
static tl_status remove_contents(int dfd, const char *what) {
  DIR *d = fdopendir(dfd);
  if (!d) {
    int e = errno;
    close(dfd);
    return tl__error(TL_EIO, "cannot read directory '%s': %s", what, strerror(e));
  }
  tl_status s = TL_OK;
  struct dirent *de;
  while (s == TL_OK && (de = readdir(d)) != NULL) {
    const char *n = de->d_name;
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
    if (unlinkat(dirfd(d), n, 0) == 0 || errno == ENOENT) continue;
    if (errno != EISDIR && errno != EPERM) {
      s = tl__error(TL_EIO, "cannot remove '%s/%s': %s", what, n, strerror(errno));
      break;
    }
    s = tl__cfs_remove_tree(dirfd(d), n, what);
  }
  closedir(d);
  return s;
}

tl_status tl__cfs_remove_tree(int dirfd, const char *name, const char *what) {
  if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT) return TL_OK;
  if (errno != EISDIR && errno != EPERM) return tl__error(TL_EIO, "cannot remove '%s/%s': %s", what, name, strerror(errno));
  int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0) return errno == ENOENT ? TL_OK : tl__error(TL_EIO, "cannot open '%s/%s': %s", what, name, strerror(errno));
  TL__TRY(remove_contents(sub, what));
  if (unlinkat(dirfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
    return tl__error(TL_EIO, "cannot remove '%s/%s': %s", what, name, strerror(errno));
  return TL_OK;
}
