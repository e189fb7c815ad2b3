/* The cuda backend's compile callbacks and their binary cache (compile.h).
 *
 * A cache entry is one file, <key>.<format>, holding a small header ("TLCUDAB1",
 * the payload's size and its 64-bit hash) and the binary; an entry whose header,
 * size or hash do not match is corrupt: compiled again and replaced. Entries are
 * written to a temporary file in the same directory and renamed into place, so a
 * reader never sees a partial one; a file not owned by the user, or writable by
 * others, is never read. */
#include "backends/cuda/compile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/files.h"
#include "base/hash.h"
#include "base/str.h"
#include "runtime/cuda_arch.h"
#include "runtime/nvcc_tool.h"
#include "tilelang/ffi.h"

/* ---------------------------------------------------------------- callbacks */

tl_status tl__cuda_callback_validate(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)ret, (void)user_data;
  if (nargs != 1 || args[0].kind != TL_VALUE_TARGET || !args[0].v.target)
    return tl__error(TL_EINVAL, "tilelang_callback_cuda_validate takes (target)");
  return tl__cuda_validate_target(args[0].v.target);
}

tl_status tl__cuda_callback_compile(const tl_value *args, int nargs, tl_value *ret, void *user_data) {
  (void)user_data;
  if (nargs != 2 || args[0].kind != TL_VALUE_STR || !args[0].v.s || args[1].kind != TL_VALUE_TARGET ||
      !args[1].v.target)
    return tl__error(TL_EINVAL, "tilelang_callback_cuda_compile takes (source, target)");
  char *bin = NULL;
  size_t size = 0;
  const char *format = NULL;
  TL__TRY(tl__cuda_compile_cached(args[0].v.s, args[1].v.target, &bin, &size, &format));
  tl_status s = tl_value_set_bytes(ret, bin, size);
  tl__free(bin);
  return s;
}

/* ------------------------------------------------------------------- stats */

static _Atomic uint64_t g_hits, g_misses, g_corrupt, g_compiles;

void tl__cuda_binary_cache_stats(tl__cuda_cache_stats *out) {
  out->hits = atomic_load(&g_hits);
  out->misses = atomic_load(&g_misses);
  out->corrupt = atomic_load(&g_corrupt);
  out->compiles = atomic_load(&g_compiles);
}

/* -------------------------------------------------------------- the key */

/* Everything one compilation depends on. */
typedef struct compile_job {
  char arch[32];
  const char *codes[TL__CUDA_MAX_CODES];
  size_t ncodes;
  tl__nvcc_options opts;
  const char *nvcc_version;
  char key[33];
} compile_job;

static tl_status make_job(const char *src, const tl_target *target, compile_job *j) {
  memset(j, 0, sizeof *j);
  TL__TRY(tl__cuda_resolve_arch(target, j->arch, sizeof j->arch));
  j->ncodes = tl__cuda_target_codes(target, j->codes, TL__CUDA_MAX_CODES);
  TL__TRY(tl__nvcc_make_options(j->arch, j->codes, j->ncodes, &j->opts));
  const char *path;
  TL__TRY(tl__nvcc_find(&path, &j->nvcc_version));
  char src_hash[33];
  tl__hash128_hex(src, strlen(src), src_hash);
  tl__sb sb = TL__SB_INIT;
  tl__sb_appendf(&sb, "tilelang-c cuda binary cache v1\nversion=%s\nsource=%s\nkind=cuda\narch=%s\ncode=", tl_version(),
                 src_hash, j->arch);
  for (size_t i = 0; i < j->ncodes; i++) tl__sb_appendf(&sb, "%s%s", i ? "," : "", j->codes[i]);
  tl__sb_appendf(&sb, "\nformat=%s\noptions=", j->opts.format);
  for (int i = 0; i < j->opts.n; i++) tl__sb_appendf(&sb, "%s\x1f", j->opts.argv[i]);
  tl__sb_appendf(&sb, "\nnvcc=%s\n", j->nvcc_version);
  tl_status s = tl__sb_status(&sb);
  if (s == TL_OK) tl__hash128_hex(tl__sb_str(&sb), sb.len, j->key);
  tl__sb_free(&sb);
  return s;
}

/* ---------------------------------------------------------- directories */

/* The private cache directory <root>/<version>/cuda-binaries, created as needed. */
static tl_status binary_dir(char **out) {
  *out = NULL;
  char *root = NULL;
  TL__TRY(tl__env_cache_root(&root)); /* the kernel cache's root */
  char *dir = tl__format("%s/%s/cuda-binaries", root, tl_version());
  tl__free(root);
  if (!dir) return tl__oom();
  tl_status s = tl__mkdirs_private(dir);
  char why[512];
  if (s == TL_OK && !tl__dir_is_private(dir, false, why, sizeof why))
    s = tl__error(TL_EIO,
                  "the CUDA binary cache directory '%s' is not a private directory of this user (a directory owned "
                  "by the user, writable by no one else: %s); fix its permissions, set TILELANG_CACHE_DIR elsewhere "
                  "or TILELANG_DISABLE_CACHE=1",
                  dir, why);
  if (s != TL_OK) {
    tl__free(dir);
    return s;
  }
  *out = dir;
  return TL_OK;
}

/* ---------------------------------------------------------------- entries */

#define MAGIC "TLCUDAB1"
enum { HEADER = 8 + 8 + 8 };

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Reads a valid entry into *bin; false (and nothing) for a missing or corrupt one
 * (*corrupt says which). A file that is not private is an error. */
static tl_status read_entry(const char *path, char **bin, size_t *size, bool *corrupt) {
  *bin = NULL;
  *size = 0;
  *corrupt = false;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return TL_OK;
    if (errno == ELOOP) return tl__error(TL_EIO, "cache entry '%s' is a symbolic link; refusing to read it", path);
    return tl__error(TL_EIO, "cannot open cache entry '%s': %s", path, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 022)) {
    close(fd);
    return tl__error(TL_EIO, "cache entry '%s' is not a private file of this user; remove it", path);
  }
  close(fd);
  char *data = NULL;
  size_t n = 0;
  TL__TRY(tl__file_read(path, &data, &n));
  const unsigned char *u = (const unsigned char *)data;
  if (n < HEADER || memcmp(data, MAGIC, 8) != 0 || get_u64(u + 8) != n - HEADER ||
      get_u64(u + 16) != tl__hash_bytes(u + HEADER, n - HEADER, 0)) {
    *corrupt = true;
    tl__free(data);
    return TL_OK;
  }
  memmove(data, data + HEADER, n - HEADER);
  *bin = data;
  *size = n - HEADER;
  return TL_OK;
}

/* Writes an entry atomically: a temporary file beside it, renamed over it. */
static tl_status write_entry(const char *path, const char *bin, size_t size) {
  char *tmp = tl__format("%s.XXXXXX", path);
  if (!tmp) return tl__oom();
  int fd = mkstemp(tmp);
  if (fd < 0) {
    tl_status s = tl__error(TL_EIO, "cannot create a temporary cache file beside '%s': %s", path, strerror(errno));
    tl__free(tmp);
    return s;
  }
  unsigned char header[HEADER];
  memcpy(header, MAGIC, 8);
  put_u64(header + 8, size);
  put_u64(header + 16, tl__hash_bytes(bin, size, 0));
  tl_status s = TL_OK;
  const char *parts[2] = {(const char *)header, bin};
  size_t lens[2] = {HEADER, size};
  for (int k = 0; k < 2 && s == TL_OK; k++) {
    const char *p = parts[k];
    size_t left = lens[k];
    while (left > 0) {
      ssize_t w = write(fd, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        s = tl__error(TL_EIO, "cannot write the cache file '%s': %s", tmp, strerror(errno));
        break;
      }
      p += w;
      left -= (size_t)w;
    }
  }
  if (s == TL_OK && fchmod(fd, 0600) != 0) s = tl__error(TL_EIO, "cannot set the mode of '%s': %s", tmp, strerror(errno));
  if (close(fd) != 0 && s == TL_OK) s = tl__error(TL_EIO, "cannot write the cache file '%s': %s", tmp, strerror(errno));
  if (s == TL_OK && rename(tmp, path) != 0)
    s = tl__error(TL_EIO, "cannot move the cache file into place as '%s': %s", path, strerror(errno));
  if (s != TL_OK) unlink(tmp);
  tl__free(tmp);
  return s;
}

/* ---------------------------------------------------------------- compiling */

/* Runs nvcc on src in a private scratch directory; *bin gets the output. */
static tl_status run_nvcc(const char *src, const compile_job *j, char **bin, size_t *size) {
  const char *tmpdir = tl__env("TMPDIR");
  char *dir = tl__format("%s/tl-nvcc-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  if (!dir) return tl__oom();
  if (!mkdtemp(dir)) {
    tl_status s = tl__error(TL_EIO, "cannot create a scratch directory for nvcc: %s", strerror(errno));
    tl__free(dir);
    return s;
  }
  char *cu = tl__path_join(dir, "kernel.cu");
  char *out = tl__format("%s/kernel.%s", dir, j->opts.format);
  tl_status s = cu && out ? tl__file_write(cu, src, strlen(src)) : tl__oom();
  if (s == TL_OK) {
    atomic_fetch_add(&g_compiles, 1);
    s = tl__nvcc_compile(&j->opts, cu, out);
  }
  if (s == TL_OK) s = tl__file_read(out, bin, size);
  if (s == TL_OK && *size == 0) {
    tl__free(*bin);
    *bin = NULL;
    s = tl__error(TL_ECOMPILE, "nvcc wrote an empty %s for %s", j->opts.format, cu);
  }
  if (cu) unlink(cu);
  if (out) unlink(out);
  rmdir(dir);
  tl__free(cu);
  tl__free(out);
  tl__free(dir);
  return s;
}

tl_status tl__cuda_compile_cached(const char *src, const tl_target *target, char **out, size_t *size,
                                  const char **format) {
  *out = NULL;
  *size = 0;
  compile_job j;
  TL__TRY(make_job(src, target, &j));
  *format = j.opts.format;
  if (tl__env_flag("TILELANG_DISABLE_CACHE", false)) return run_nvcc(src, &j, out, size);
  char *dir = NULL;
  TL__TRY(binary_dir(&dir));
  char *path = tl__format("%s/%s.%s", dir, j.key, j.opts.format);
  tl__free(dir);
  if (!path) return tl__oom();
  bool corrupt = false;
  tl_status s = read_entry(path, out, size, &corrupt);
  if (s == TL_OK && *out) {
    atomic_fetch_add(&g_hits, 1);
  } else if (s == TL_OK) {
    atomic_fetch_add(corrupt ? &g_corrupt : &g_misses, 1);
    s = run_nvcc(src, &j, out, size);
    if (s == TL_OK) {
      tl_status w = write_entry(path, *out, *size);
      if (w != TL_OK) {
        tl__free(*out);
        *out = NULL;
        *size = 0;
        s = w;
      }
    }
  }
  tl__free(path);
  return s;
}

char *tl__cuda_binary_cache_path(const char *src, const tl_target *target) {
  compile_job j;
  if (make_job(src, target, &j) != TL_OK) return NULL;
  char *dir = NULL;
  if (binary_dir(&dir) != TL_OK) return NULL;
  char *path = tl__format("%s/%s.%s", dir, j.key, j.opts.format);
  tl__free(dir);
  return path;
}
