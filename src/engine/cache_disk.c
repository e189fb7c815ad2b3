/* The kernel cache on disk (see cache_disk.h for the layout and the rules). */
#include "engine/cache_disk.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/files.h"
#include "base/json.h"
#include "base/hash.h"
#include "base/str.h"
#include "base/dl_fd.h"
#include "base/trust.h"
#include "engine/cache_fs.h"

#define META_FILE "meta.json"
#define META_FORMAT 1
#define STALE_STAGING_SECONDS 3600

/* ------------------------------------------------------------- namespace */

/* "<platform>-<machine>", as upstream's sys.platform and platform.machine(). */
static char *platform_dir(void) {
  struct utsname u;
  if (uname(&u) != 0) return tl__format("unknown-unknown");
  char sys[sizeof u.sysname];
  size_t i = 0;
  for (; u.sysname[i] && i + 1 < sizeof sys; i++) sys[i] = (char)tolower((unsigned char)u.sysname[i]);
  sys[i] = '\0';
  return tl__format("%s-%s", sys, u.machine);
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

void tl__disk_ns_init(tl__disk_ns *ns) {
  memset(ns, 0, sizeof *ns);
  ns->root_fd = ns->dir_fd = ns->kernels_fd = ns->staging_fd = -1;
}

void tl__disk_ns_free(tl__disk_ns *ns) {
  if (!ns) return;
  tl__free(ns->root);
  tl__free(ns->dir);
  tl__free(ns->kernels);
  tl__free(ns->staging);
  close_fd(&ns->root_fd);
  close_fd(&ns->dir_fd);
  close_fd(&ns->kernels_fd);
  close_fd(&ns->staging_fd);
  tl__disk_ns_init(ns);
}

/* Namespaces whose staging area this process has already swept (a small ring:
 * forgetting one only means sweeping it again). */
static pthread_mutex_t g_swept_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_swept[8];
static size_t g_swept_next;
static pid_t g_swept_pid; /* a forked child starts afresh */

/* True the first time it is asked about `dir` (by hash) in this process. */
static bool first_sweep(const char *dir) {
  uint64_t h = tl__hash_str(dir, 0) | 1; /* never 0, the empty slot */
  pthread_mutex_lock(&g_swept_lock);
  if (g_swept_pid != getpid()) {
    memset(g_swept, 0, sizeof g_swept);
    g_swept_pid = getpid();
  }
  bool first = true;
  for (size_t i = 0; i < 8 && first; i++) first = g_swept[i] != h;
  if (first) g_swept[g_swept_next++ % 8] = h;
  pthread_mutex_unlock(&g_swept_lock);
  return first;
}

/* Removes staging directories left behind by crashed builds (older than an hour). */
static void sweep_staging(const tl__disk_ns *ns) {
  int fd = fcntl(ns->staging_fd, F_DUPFD_CLOEXEC, 0);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  time_t now = time(NULL);
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    struct stat st;
    if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (now - st.st_mtime < STALE_STAGING_SECONDS) continue;
    (void)tl__cfs_remove_tree(dirfd(d), de->d_name, ns->staging);
  }
  closedir(d);
  tl__error_clear();
}

/* Opens directory `name` below `parent` (creating it when missing and `create`),
 * checked as private. *created_ro: creating it failed because the file system or
 * the directory cannot be written. */
static tl_status open_below(int parent, const char *name, const char *path, bool create, int *fd, bool *cannot_write) {
  tl_status s = tl__trust_openat(parent, name, true, TL__TRUST_PRIVATE, path, fd);
  if (s != TL_ENOTFOUND || !create) return s;
  if (mkdirat(parent, name, 0700) != 0 && errno != EEXIST) {
    int e = errno;
    if (e == EROFS || e == EACCES || e == EPERM || e == ENOSPC || e == EDQUOT) *cannot_write = true;
    return tl__error(TL_EUNAVAILABLE, "cannot create kernel cache directory '%s': %s", path, strerror(e));
  }
  return tl__trust_openat(parent, name, true, TL__TRUST_PRIVATE, path, fd);
}

/* The root, opened by the trusted walk (created first when missing). */
static tl_status open_root(tl__disk_ns *ns) {
  tl_status s = tl__trust_open(ns->root, true, TL__TRUST_PRIVATE, &ns->root_fd);
  if (s == TL_ENOTFOUND) {
    s = tl__mkdirs_private(ns->root);
    if (s == TL_OK) s = tl__trust_open(ns->root, true, TL__TRUST_PRIVATE, &ns->root_fd);
  }
  if (s == TL_ENOMEM) return s;
  if (s != TL_OK) return tl__error(TL_EUNAVAILABLE, "kernel cache directory %s", tl_last_error());
  return TL_OK;
}

/* Opens every directory of the namespace from the root down. */
static tl_status open_chain(tl__disk_ns *ns, const char *plat, const char *ver) {
  TL__TRY(open_root(ns));
  bool cannot_write = false;
  tl_status s = open_below(ns->root_fd, tl_version(), ver, true, &ns->dir_fd, &cannot_write);
  int ver_fd = ns->dir_fd;
  ns->dir_fd = -1;
  if (s == TL_OK) s = open_below(ver_fd, plat, ns->dir, true, &ns->dir_fd, &cannot_write);
  if (ver_fd >= 0) close(ver_fd);
  if (s == TL_OK) s = open_below(ns->dir_fd, "kernels", ns->kernels, true, &ns->kernels_fd, &cannot_write);
  if (s == TL_OK) {
    s = open_below(ns->dir_fd, ".staging", ns->staging, true, &ns->staging_fd, &cannot_write);
    if (s == TL_EUNAVAILABLE && cannot_write) s = TL_OK; /* read-only: lookups only */
  }
  if (s == TL_ENOMEM) return s;
  if (s != TL_OK) return tl__error(TL_EUNAVAILABLE, "kernel cache directory %s", tl_last_error());
  ns->writable = ns->staging_fd >= 0 && faccessat(ns->staging_fd, ".", W_OK, AT_EACCESS) == 0 &&
                 faccessat(ns->kernels_fd, ".", W_OK, AT_EACCESS) == 0;
  struct statvfs fs;
  if (ns->writable && fstatvfs(ns->kernels_fd, &fs) == 0 && (fs.f_flag & ST_RDONLY)) ns->writable = false;
  tl__error_clear();
  return TL_OK;
}

tl_status tl__disk_ns_open(const char *root, tl__disk_ns *out) {
  tl__disk_ns_init(out);
  char *plat = platform_dir(), *ver = NULL;
  tl_status s = plat ? TL_OK : tl__oom();
  if (s == TL_OK) s = root && *root ? ((out->root = tl__strdup(root)) ? TL_OK : tl__oom()) : tl__env_cache_root(&out->root);
  if (s == TL_OK && !(ver = tl__path_join(out->root, tl_version()))) s = tl__oom();
  if (s == TL_OK && !(out->dir = tl__path_join(ver, plat))) s = tl__oom();
  if (s == TL_OK && !(out->kernels = tl__path_join(out->dir, "kernels"))) s = tl__oom();
  if (s == TL_OK && !(out->staging = tl__path_join(out->dir, ".staging"))) s = tl__oom();
  if (s == TL_OK) s = open_chain(out, plat, ver);
  if (s == TL_OK && out->writable && first_sweep(out->dir)) sweep_staging(out);
  tl__free(plat);
  tl__free(ver);
  if (s != TL_OK) tl__disk_ns_free(out);
  return s;
}

static atomic_flag g_warned = ATOMIC_FLAG_INIT;

void tl__disk_warn_once(const char *why) {
  if (atomic_flag_test_and_set(&g_warned)) return;
  fprintf(stderr,
          "tilelang: warning: %s; the kernel cache is not used there: kernels are built in private "
          "temporary directories instead\n",
          why);
}

static atomic_flag g_warned_ro = ATOMIC_FLAG_INIT;

void tl__disk_test_rearm_warnings(void) {
  atomic_flag_clear(&g_warned);
  atomic_flag_clear(&g_warned_ro);
}

void tl__disk_warn_readonly_once(const char *why) {
  if (atomic_flag_test_and_set(&g_warned_ro)) return;
  fprintf(stderr,
          "tilelang: warning: %s; kernels it holds are used, new ones are built in private temporary "
          "directories\n",
          why);
}

/* ----------------------------------------------------------------- entries */

void tl__cache_entry_free(tl__cache_entry *e) {
  if (!e) return;
  tl__free(e->name);
  tl__free(e->execution_backend);
  tl__free(e->target);
  tl__free(e->table_json);
  tl__free(e->device_format);
  tl__free(e->device_source);
  tl__free(e->host_format);
  tl__free(e->host_source);
  memset(e, 0, sizeof *e);
}

/* "<role>_source.<format>", the format reduced to [a-z0-9_]. */
static char *source_file_name(const char *role, const char *format) {
  char ext[32];
  size_t n = 0;
  for (const char *p = format; *p && n + 1 < sizeof ext; p++) {
    char c = (char)tolower((unsigned char)*p);
    if (isalnum((unsigned char)c) || c == '_') ext[n++] = c;
  }
  ext[n] = '\0';
  return tl__format("%s_source.%s", role, n ? ext : "txt");
}

static void hash_hex(const void *data, size_t len, char out[33]) { tl__hash128_hex(data, len, out); }

/* The checksum of meta.json: XXH3-128 of its canonical dump without "checksum". */
static tl_status meta_checksum(json_t *meta, char out[33]) {
  json_t *copy = json_copy(meta);
  if (!copy) return tl__oom();
  json_object_del(copy, "checksum");
  char *text = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
  json_decref(copy);
  if (!text) return tl__oom();
  hash_hex(text, strlen(text), out);
  free(text); /* jansson's allocation */
  return TL_OK;
}

/* A string member of obj, or NULL. */
static const char *jstr(json_t *obj, const char *key) { return json_string_value(json_object_get(obj, key)); }

/* The outcome of validating one entry. */
typedef enum { V_OK, V_DAMAGED, V_UNSAFE, V_NOMEM } vresult;

typedef struct validate_ctx {
  int dfd;          /* the entry's directory, as opened */
  const char *dir;  /* its path (messages) */
  char *damage;     /* reason buffer */
  size_t cap;
} validate_ctx;

static vresult damaged(validate_ctx *v, const char *fmt, ...) TL_PRINTF(2, 3);
static vresult damaged(validate_ctx *v, const char *fmt, ...) {
  if (v->damage && v->cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->damage, v->cap, fmt, ap);
    va_end(ap);
  }
  return V_DAMAGED;
}

/* Opens file `name` of the entry, checked as a private regular file of the user. */
static vresult open_file(validate_ctx *v, const char *name, int *fd, struct stat *st) {
  *fd = -1;
  char *path = tl__path_join(v->dir, name);
  if (!path) return V_NOMEM;
  tl_status s = tl__trust_openat(v->dfd, name, false, TL__TRUST_PRIVATE, path, fd);
  vresult r = V_OK;
  if (s == TL_ENOMEM) r = V_NOMEM;
  else if (s == TL_ENOTFOUND) r = damaged(v, "file '%s' is missing", name);
  else if (s == TL_EUNAVAILABLE) r = (tl__error(TL_EUNAVAILABLE, "kernel cache file %s", tl_last_error()), V_UNSAFE);
  else if (s != TL_OK) r = damaged(v, "file '%s' cannot be opened", name);
  else if (fstat(*fd, st) != 0) r = damaged(v, "file '%s' cannot be examined", name);
  tl__free(path);
  if (r != V_OK && *fd >= 0) {
    close(*fd);
    *fd = -1;
  }
  return r;
}

/* Checks one file of the entry against its record {size, xxh3_128}, through the
 * descriptor it was opened as. On success *content (if non-NULL) keeps the bytes
 * and *keep (if non-NULL) the descriptor. */
static vresult check_file(validate_ctx *v, const char *name, json_t *rec, char **content, int *keep) {
  if (strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return damaged(v, "meta.json names a file outside the entry ('%s')", name);
  int fd;
  struct stat st;
  vresult r = open_file(v, name, &fd, &st);
  if (r != V_OK) return r;
  json_t *size = json_object_get(rec, "size");
  const char *want = jstr(rec, "xxh3_128");
  if (!json_is_integer(size) || !want) {
    r = damaged(v, "meta.json has no size or hash for '%s'", name);
  } else if ((long long)st.st_size != json_integer_value(size)) {
    r = damaged(v, "file '%s' has the wrong size", name);
  } else {
    char *buf = NULL;
    tl_status s = tl__cfs_read_fd(fd, (size_t)st.st_size, name, &buf);
    if (s == TL_ENOMEM) {
      r = V_NOMEM;
    } else if (s != TL_OK) {
      r = damaged(v, "file '%s' cannot be read", name);
    } else {
      char got[33];
      hash_hex(buf, (size_t)st.st_size, got);
      if (strcmp(got, want) != 0) r = damaged(v, "file '%s' fails its checksum", name);
      else if (content) *content = buf, buf = NULL;
    }
    tl__free(buf);
  }
  if (r == V_OK && keep) *keep = fd;
  else close(fd);
  return r;
}

/* Copies a string member into *dst (NULL stays NULL). */
static vresult take_str(json_t *obj, const char *key, char **dst) {
  const char *s = jstr(obj, key);
  if (!s) return V_OK;
  *dst = tl__strdup(s);
  return *dst ? V_OK : V_NOMEM;
}

/* Reads a source named by meta's sources.<role> = {file, format}. */
static vresult load_source(validate_ctx *v, json_t *meta, const char *role, char **format, char **source) {
  json_t *src = json_object_get(json_object_get(meta, "sources"), role);
  if (!src || json_is_null(src)) return V_OK;
  const char *file = jstr(src, "file"), *fmt = jstr(src, "format");
  if (!file || !fmt) return damaged(v, "meta.json's %s source has no file or format", role);
  json_t *rec = json_object_get(json_object_get(meta, "files"), file);
  if (!rec) return damaged(v, "meta.json does not record the source file '%s'", file);
  vresult r = check_file(v, file, rec, source, NULL);
  if (r == V_OK && !(*format = tl__strdup(fmt))) r = V_NOMEM;
  return r;
}

/* Reads and parses meta.json. */
static vresult read_meta(validate_ctx *v, json_t **meta) {
  *meta = NULL;
  int fd;
  struct stat st;
  vresult r = open_file(v, META_FILE, &fd, &st);
  if (r != V_OK) return r == V_DAMAGED ? damaged(v, META_FILE " is missing") : r;
  char *text = NULL;
  tl_status s = tl__cfs_read_fd(fd, (size_t)st.st_size, META_FILE, &text);
  close(fd);
  if (s != TL_OK) return s == TL_ENOMEM ? V_NOMEM : damaged(v, META_FILE " cannot be read");
  json_error_t jerr;
  bool oom = false;
  *meta = tl__json_loads(text, JSON_REJECT_DUPLICATES, &jerr, &oom);
  tl__free(text);
  if (!*meta) return oom ? V_NOMEM : damaged(v, "meta.json does not parse");
  return V_OK;
}

/* Validates the entry open as v->dfd and fills *e; fds[i] gets impl_files[i] open. */
static vresult validate(validate_ctx *v, const char *key, const char *const *impl_files, tl__cache_entry *e, int *fds) {
  json_t *meta = NULL;
  vresult r = read_meta(v, &meta);
  if (r != V_OK) return r;
  char sum[33];
  json_t *files = json_object_get(meta, "files");
  json_t *format = json_object_get(meta, "format");
  if (!json_is_object(meta) || !json_is_integer(format) || json_integer_value(format) != META_FORMAT ||
      !json_is_object(files)) {
    r = damaged(v, "meta.json has an unknown format");
  } else if (!jstr(meta, "key") || strcmp(jstr(meta, "key"), key) != 0) {
    r = damaged(v, "meta.json belongs to another key");
  } else if (meta_checksum(meta, sum) != TL_OK) {
    r = V_NOMEM;
  } else if (!jstr(meta, "checksum") || strcmp(jstr(meta, "checksum"), sum) != 0) {
    r = damaged(v, "meta.json fails its checksum");
  }
  /* Every implementation file must be recorded and intact. */
  for (size_t i = 0; r == V_OK && impl_files && impl_files[i]; i++) {
    json_t *rec = json_object_get(files, impl_files[i]);
    r = rec ? check_file(v, impl_files[i], rec, NULL, &fds[i])
            : damaged(v, "meta.json does not record '%s'", impl_files[i]);
  }
  json_t *table = json_object_get(meta, "kernel_table");
  if (r == V_OK && (!jstr(meta, "name") || !jstr(meta, "execution_backend") || !jstr(meta, "target") || !table))
    r = damaged(v, "meta.json lacks a field");
  if (r == V_OK) r = take_str(meta, "name", &e->name);
  if (r == V_OK) r = take_str(meta, "execution_backend", &e->execution_backend);
  if (r == V_OK) r = take_str(meta, "target", &e->target);
  if (r == V_OK) {
    char *dumped = json_dumps(table, JSON_COMPACT | JSON_PRESERVE_ORDER);
    /* Into our allocator, so that the entry frees uniformly. */
    e->table_json = dumped ? tl__strdup(dumped) : NULL;
    free(dumped);
    if (!e->table_json) r = V_NOMEM;
  }
  if (r == V_OK) r = load_source(v, meta, "device", &e->device_format, &e->device_source);
  if (r == V_OK) r = load_source(v, meta, "host", &e->host_format, &e->host_source);
  json_decref(meta);
  if (r != V_OK) tl__cache_entry_free(e);
  return r;
}

/* ------------------------------------------------------------ open entries */

void (*tl__disk_test_before_load)(const char *entry_path);

static void entry_init(tl__disk_entry *e) {
  memset(e, 0, sizeof *e);
  e->dir_fd = -1;
}

void tl__disk_entry_close(const tl__disk_ns *ns, tl__disk_entry *e) {
  if (!e) return;
  for (size_t i = 0; e->fds && i < e->n; i++)
    if (e->fds[i] >= 0) close(e->fds[i]);
  if (e->dir_fd >= 0) close(e->dir_fd);
  if (e->staging_name && ns && ns->staging_fd >= 0) {
    (void)tl__cfs_remove_tree(ns->staging_fd, e->staging_name, ns->staging);
    tl__error_clear();
  }
  tl__free(e->fds);
  tl__free(e->path);
  tl__free(e->staging_name);
  entry_init(e);
}

tl_status tl__disk_entry_load(const tl__disk_entry *e, const tl__exec_impl *impl, const tl__build_request *req,
                              tl__loaded *out) {
  if (tl__disk_test_before_load) tl__disk_test_before_load(e->path);
  tl__load_scope scope = {e->path, e->names, e->fds, e->n};
  tl__load_scope_set(&scope);
  tl_status s = impl->load(req, e->path, out);
  tl__load_scope_set(NULL);
  return s;
}

/* Opens and validates entry `name` of the directory open as `parent` (path `path`).
 * res: HIT (*hit filled), MISS (none, or damaged: `damage` says why), UNSAFE. */
static tl_status open_entry(int parent, const char *name, const char *path, const char *key,
                            const char *const *impl_files, tl__disk_result *res, tl__cache_entry *out,
                            tl__disk_entry *hit, char *damage, size_t cap) {
  *res = TL__DISK_MISS;
  int dfd = -1;
  tl_status s = tl__trust_openat(parent, name, true, TL__TRUST_PRIVATE, path, &dfd);
  if (s == TL_ENOTFOUND) {
    tl__error_clear();
    return TL_OK;
  }
  if (s == TL_ENOMEM) return s;
  if (s != TL_OK) {
    *res = TL__DISK_UNSAFE;
    return tl__error(TL_OK, "kernel cache entry %s", tl_last_error());
  }
  size_t n = 0;
  while (impl_files && impl_files[n]) n++;
  int *fds = tl__malloc((n ? n : 1) * sizeof *fds);
  if (!fds) {
    close(dfd);
    return tl__oom();
  }
  for (size_t i = 0; i < n; i++) fds[i] = -1;
  validate_ctx v = {dfd, path, damage, cap};
  vresult r = validate(&v, key, impl_files, out, fds);
  char *p = r == V_OK ? tl__strdup(path) : NULL;
  if (r == V_OK && !p) {
    tl__cache_entry_free(out);
    r = V_NOMEM;
  }
  if (r != V_OK) {
    for (size_t i = 0; i < n; i++)
      if (fds[i] >= 0) close(fds[i]);
    tl__free(fds);
    close(dfd);
    if (r == V_NOMEM) return tl__oom();
    if (r == V_UNSAFE) *res = TL__DISK_UNSAFE;
    return TL_OK;
  }
  hit->path = p;
  hit->dir_fd = dfd;
  hit->names = impl_files;
  hit->fds = fds;
  hit->n = n;
  *res = TL__DISK_HIT;
  return TL_OK;
}

tl_status tl__disk_lookup(const tl__disk_ns *ns, const char *key, const char *const *impl_files, tl__disk_result *res,
                          tl__cache_entry *out, tl__disk_entry *hit, char *damage, size_t cap) {
  memset(out, 0, sizeof *out);
  entry_init(hit);
  *res = TL__DISK_MISS;
  if (damage && cap) damage[0] = '\0';
  char *path = tl__path_join(ns->kernels, key);
  if (!path) return tl__oom();
  char why[512] = "";
  tl_status s = open_entry(ns->kernels_fd, key, path, key, impl_files, res, out, hit, why, sizeof why);
  tl__free(path);
  if (s != TL_OK || *res != TL__DISK_MISS || !why[0]) return s;
  /* Damaged: removed (when we may write here) and rebuilt. */
  if (damage && cap) snprintf(damage, cap, "%s", why);
  if (!ns->writable) return TL_OK;
  s = tl__disk_evict(ns, key);
  if (s == TL_ENOMEM) return s;
  tl__error_clear();
  return TL_OK; /* an entry we cannot remove is rebuilt beside it */
}

tl_status tl__disk_evict(const tl__disk_ns *ns, const char *key) {
  if (ns->staging_fd < 0) return tl__error(TL_EIO, "kernel cache directory '%s' cannot be written", ns->dir);
  char *prefix = tl__format("%s.evicted.%ld.", key, (long)getpid()), *trash = NULL, *dest = NULL;
  tl_status s = prefix ? tl__cfs_mkdtemp(ns->staging_fd, prefix, ns->staging, &trash) : tl__oom();
  if (s == TL_OK && !(dest = tl__path_join(trash, "entry"))) s = tl__oom();
  /* Move the entry inside the fresh directory, then remove both. */
  if (s == TL_OK && renameat(ns->kernels_fd, key, ns->staging_fd, dest) != 0 && errno != ENOENT)
    s = tl__error(TL_EIO, "cannot remove kernel cache entry '%s/%s': %s", ns->kernels, key, strerror(errno));
  if (trash) {
    tl_status r = tl__cfs_remove_tree(ns->staging_fd, trash, ns->staging);
    if (s == TL_OK) s = r;
  }
  tl__free(dest);
  tl__free(trash);
  tl__free(prefix);
  return s;
}

tl_status tl__disk_stage(const tl__disk_ns *ns, const char *key, char **out) {
  *out = NULL;
  if (!ns->writable) return tl__error(TL_EIO, "kernel cache directory '%s' cannot be written", ns->dir);
  char *prefix = tl__format("%s.%ld.", key, (long)getpid()), *name = NULL;
  tl_status s = prefix ? tl__cfs_mkdtemp(ns->staging_fd, prefix, ns->staging, &name) : tl__oom();
  tl__free(prefix);
  if (s != TL_OK) return s;
  *out = tl__path_join(ns->staging, name);
  if (!*out) (void)tl__cfs_remove_tree(ns->staging_fd, name, ns->staging);
  tl__free(name);
  return *out ? TL_OK : tl__oom();
}

/* Records `name` (a file of the staged entry open as sfd) in files: {size, xxh3_128}. */
static tl_status record_file(json_t *files, int sfd, const char *name) {
  int fd = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    if (fd >= 0) close(fd);
    return tl__error(TL_EIO, "the execution backend's build did not produce '%s'%s%s", name, fd < 0 ? ": " : "",
                     fd < 0 ? strerror(e) : " as a regular file");
  }
  /* A build run under a permissive umask (002) leaves group-writable files; the
   * staging directory is private, so tightening them here is race-free. */
  if (st.st_mode & (S_IWGRP | S_IWOTH)) (void)fchmod(fd, st.st_mode & 07755);
  char *buf = NULL;
  tl_status s = tl__cfs_read_fd(fd, (size_t)st.st_size, name, &buf);
  close(fd);
  if (s != TL_OK) return s;
  char h[33];
  hash_hex(buf, (size_t)st.st_size, h);
  tl__free(buf);
  json_t *rec = json_pack("{s:I,s:s}", "size", (json_int_t)st.st_size, "xxh3_128", h);
  if (!rec || json_object_set_new(files, name, rec) != 0) return tl__oom();
  return TL_OK;
}

/* Writes one source into the staged entry and records it in meta's sources and files. */
static tl_status write_source(json_t *meta, int sfd, const char *staging, const char *role, const char *format,
                              const char *source, const char *const *impl_files) {
  if (!format) return json_object_set_new(json_object_get(meta, "sources"), role, json_null()) ? tl__oom() : TL_OK;
  char *name = source_file_name(role, format);
  if (!name) return tl__oom();
  for (size_t i = 0; impl_files && impl_files[i]; i++)
    if (strcmp(impl_files[i], name) == 0) {
      tl_status s = tl__error(TL_EINTERNAL, "the execution backend writes '%s', a name the kernel cache uses", name);
      tl__free(name);
      return s;
    }
  char *path = tl__path_join(staging, name);
  tl_status s = path ? tl__cfs_write_new(sfd, name, source ? source : "", source ? strlen(source) : 0, path) : tl__oom();
  if (s == TL_OK) s = record_file(json_object_get(meta, "files"), sfd, name);
  if (s == TL_OK) {
    json_t *rec = json_pack("{s:s,s:s}", "file", name, "format", format);
    if (!rec || json_object_set_new(json_object_get(meta, "sources"), role, rec) != 0) s = tl__oom();
  }
  tl__free(path);
  tl__free(name);
  return s;
}

/* Builds meta.json for the staged entry and writes it. */
static tl_status write_meta(int sfd, const char *staging, const char *key, const char *const *impl_files,
                            const tl__cache_entry *e) {
  json_error_t jerr;
  bool oom = false;
  json_t *table = tl__json_loads(e->table_json ? e->table_json : "", 0, &jerr, &oom);
  if (!table) {
    if (oom) return tl__oom();
    return tl__error(TL_EINTERNAL, "kernel table JSON does not parse: %s", jerr.text);
  }
  json_t *meta = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:o,s:{},s:{}}", "format", META_FORMAT, "key", key, "library",
                           tl_version(), "name", e->name, "execution_backend", e->execution_backend, "target",
                           e->target, "kernel_table", table, "sources", "files");
  if (!meta) return tl__oom();
  tl_status s = TL_OK;
  for (size_t i = 0; s == TL_OK && impl_files && impl_files[i]; i++)
    s = record_file(json_object_get(meta, "files"), sfd, impl_files[i]);
  if (s == TL_OK) s = write_source(meta, sfd, staging, "device", e->device_format, e->device_source, impl_files);
  if (s == TL_OK) s = write_source(meta, sfd, staging, "host", e->host_format, e->host_source, impl_files);
  char sum[33];
  if (s == TL_OK) s = meta_checksum(meta, sum);
  if (s == TL_OK && json_object_set_new(meta, "checksum", json_string(sum)) != 0) s = tl__oom();
  char *text = NULL;
  if (s == TL_OK && !(text = json_dumps(meta, JSON_INDENT(1) | JSON_SORT_KEYS))) s = tl__oom();
  json_decref(meta);
  char *path = NULL;
  if (s == TL_OK && !(path = tl__path_join(staging, META_FILE))) s = tl__oom();
  if (s == TL_OK) s = tl__cfs_write_new(sfd, META_FILE, text, strlen(text), path);
  free(text); /* jansson's */
  tl__free(path);
  return s;
}

tl_status tl__disk_publish(const tl__disk_ns *ns, const char *key, const char *const *impl_files,
                           const tl__cache_entry *entry, const char *staging, tl__disk_entry *hit) {
  entry_init(hit);
  const char *slash = strrchr(staging, '/');
  const char *name = slash ? slash + 1 : staging;
  int sfd = -1;
  tl_status s = tl__trust_openat(ns->staging_fd, name, true, TL__TRUST_PRIVATE, staging, &sfd);
  if (s == TL_OK) {
    s = write_meta(sfd, staging, key, impl_files, entry);
    close(sfd);
  }
  bool ours_from_staging = false;
  for (int attempt = 0; s == TL_OK && attempt < 3; attempt++) {
    bool renamed = renameat(ns->staging_fd, name, ns->kernels_fd, key) == 0;
    if (!renamed && errno != EEXIST && errno != ENOTEMPTY) {
      s = tl__error(TL_EIO, "cannot move '%s' to '%s/%s': %s", staging, ns->kernels, key, strerror(errno));
      break;
    }
    /* Ours, now in place, or another process's, published first: use it if sound. */
    tl__disk_result res;
    tl__cache_entry got;
    s = tl__disk_lookup(ns, key, impl_files, &res, &got, hit, NULL, 0);
    if (s != TL_OK) break;
    tl__cache_entry_free(&got);
    if (res == TL__DISK_HIT) {
      if (!renamed) (void)tl__cfs_remove_tree(ns->staging_fd, name, ns->staging);
      tl__error_clear();
      return TL_OK;
    }
    if (renamed) {
      s = tl__error(TL_EIO, "kernel cache entry '%s/%s' changed while it was being published", ns->kernels, key);
      break;
    }
    if (res == TL__DISK_UNSAFE) {
      ours_from_staging = true; /* leave theirs alone; load ours from staging */
      break;
    }
    /* Theirs was damaged and has been removed: try the rename again. */
  }
  if (s == TL_OK && !ours_from_staging) ours_from_staging = true; /* kept losing the race */
  if (s == TL_OK) {
    tl__disk_result res;
    tl__cache_entry got;
    s = open_entry(ns->staging_fd, name, staging, key, impl_files, &res, &got, hit, NULL, 0);
    tl__cache_entry_free(&got);
    if (s == TL_OK && res != TL__DISK_HIT) s = tl__error(TL_EIO, "the staged kernel cache entry '%s' does not verify", staging);
    if (s == TL_OK && !(hit->staging_name = tl__strdup(name))) s = tl__oom();
    if (s == TL_OK) return TL_OK;
    tl__disk_entry_close(NULL, hit);
  }
  (void)tl__cfs_remove_tree(ns->staging_fd, name, ns->staging);
  return s;
}
