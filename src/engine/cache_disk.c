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
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/files.h"
#include "base/hash.h"
#include "base/str.h"

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

void tl__disk_ns_free(tl__disk_ns *ns) {
  if (!ns) return;
  tl__free(ns->root);
  tl__free(ns->dir);
  tl__free(ns->kernels);
  tl__free(ns->staging);
  memset(ns, 0, sizeof *ns);
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
static void sweep_staging(const char *staging) {
  DIR *d = opendir(staging);
  if (!d) return;
  time_t now = time(NULL);
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.') continue;
    struct stat st;
    if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (now - st.st_mtime < STALE_STAGING_SECONDS) continue;
    char *p = tl__path_join(staging, de->d_name);
    if (p) (void)tl__remove_tree(p);
    tl__free(p);
  }
  closedir(d);
}

/* Checks each directory from the root down; the root itself may be a link. */
static tl_status check_chain(const tl__disk_ns *ns, const char *ver) {
  char why[512];
  if (!tl__dir_is_private(ns->root, true, why, sizeof why))
    return tl__error(TL_EUNAVAILABLE, "kernel cache directory %s", why);
  const char *below[] = {ver, ns->dir, ns->kernels, ns->staging};
  for (size_t i = 0; i < sizeof below / sizeof *below; i++)
    if (!tl__dir_is_private(below[i], false, why, sizeof why))
      return tl__error(TL_EUNAVAILABLE, "kernel cache directory %s", why);
  return TL_OK;
}

/* mkdir that tolerates an existing entry (checked afterwards by check_chain). */
static tl_status make_dir(const char *p) {
  if (mkdir(p, 0700) != 0 && errno != EEXIST)
    return tl__error(TL_EUNAVAILABLE, "cannot create kernel cache directory '%s': %s", p, strerror(errno));
  return TL_OK;
}

tl_status tl__disk_ns_open(const char *root, tl__disk_ns *out) {
  memset(out, 0, sizeof *out);
  char *plat = platform_dir(), *ver = NULL;
  tl_status s = plat ? TL_OK : tl__oom();
  if (s == TL_OK) s = root && *root ? ((out->root = tl__strdup(root)) ? TL_OK : tl__oom()) : tl__env_cache_root(&out->root);
  if (s == TL_OK && !(ver = tl__path_join(out->root, tl_version()))) s = tl__oom();
  if (s == TL_OK && !(out->dir = tl__path_join(ver, plat))) s = tl__oom();
  if (s == TL_OK && !(out->kernels = tl__path_join(out->dir, "kernels"))) s = tl__oom();
  if (s == TL_OK && !(out->staging = tl__path_join(out->dir, ".staging"))) s = tl__oom();
  if (s == TL_OK && check_chain(out, ver) != TL_OK) {
    /* Something is missing (or unsafe): create what is missing, then check again. */
    s = tl__mkdirs_private(out->root);
    if (s == TL_EIO) s = tl__error(TL_EUNAVAILABLE, "%s", tl_last_error());
    if (s == TL_OK) s = make_dir(ver);
    if (s == TL_OK) s = make_dir(out->dir);
    if (s == TL_OK) s = make_dir(out->kernels);
    if (s == TL_OK) s = make_dir(out->staging);
    if (s == TL_OK) s = check_chain(out, ver);
  }
  if (s == TL_OK && first_sweep(out->dir)) sweep_staging(out->staging);
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
  const char *dir;
  char *damage; /* reason buffer */
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

/* Checks one file of the entry against its record {size, xxh3_128}; on success
 * *content (if non-NULL) keeps the bytes. */
static vresult check_file(validate_ctx *v, const char *name, json_t *rec, char **content) {
  if (strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return damaged(v, "meta.json names a file outside the entry ('%s')", name);
  char *path = tl__path_join(v->dir, name);
  if (!path) return V_NOMEM;
  struct stat st;
  vresult r = V_OK;
  if (lstat(path, &st) != 0) {
    r = damaged(v, "file '%s' is missing", name);
  } else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
    tl__error(TL_EUNAVAILABLE, "kernel cache file '%s' is not a private regular file of the current user", path);
    r = V_UNSAFE;
  } else {
    json_t *size = json_object_get(rec, "size");
    const char *want = jstr(rec, "xxh3_128");
    if (!json_is_integer(size) || !want) {
      r = damaged(v, "meta.json has no size or hash for '%s'", name);
    } else if ((long long)st.st_size != json_integer_value(size)) {
      r = damaged(v, "file '%s' has the wrong size", name);
    } else {
      char *buf = NULL;
      size_t len = 0;
      tl_status s = tl__file_read_no_link(path, true, &buf, &len);
      if (s == TL_ENOMEM) {
        r = V_NOMEM;
      } else if (s != TL_OK) {
        r = damaged(v, "file '%s' cannot be read", name);
      } else {
        char got[33];
        hash_hex(buf, len, got);
        if (strcmp(got, want) != 0) r = damaged(v, "file '%s' fails its checksum", name);
        else if (content) *content = buf, buf = NULL;
      }
      tl__free(buf);
    }
  }
  tl__free(path);
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
  vresult r = check_file(v, file, rec, source);
  if (r == V_OK && !(*format = tl__strdup(fmt))) r = V_NOMEM;
  return r;
}

/* Validates the entry in v->dir and fills *e. */
static vresult validate(validate_ctx *v, const char *key, const char *const *impl_files, tl__cache_entry *e) {
  char *path = tl__path_join(v->dir, META_FILE);
  if (!path) return V_NOMEM;
  struct stat st;
  if (lstat(path, &st) != 0) {
    tl__free(path);
    return damaged(v, META_FILE " is missing");
  }
  char *text = NULL;
  tl_status s = tl__file_read_no_link(path, true, &text, NULL);
  if (s != TL_OK) {
    vresult r = s == TL_ENOMEM ? V_NOMEM : V_UNSAFE;
    if (r == V_UNSAFE) tl__error(TL_EUNAVAILABLE, "kernel cache file '%s' is not a private regular file", path);
    tl__free(path);
    return r;
  }
  tl__free(path);
  json_error_t jerr;
  json_t *meta = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
  tl__free(text);
  if (!meta) return json_error_code(&jerr) == json_error_out_of_memory ? V_NOMEM : damaged(v, "meta.json does not parse");
  vresult r = V_OK;
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
    r = rec ? check_file(v, impl_files[i], rec, NULL) : damaged(v, "meta.json does not record '%s'", impl_files[i]);
  }
  json_t *table = json_object_get(meta, "kernel_table");
  if (r == V_OK && (!jstr(meta, "name") || !jstr(meta, "execution_backend") || !jstr(meta, "target") || !table))
    r = damaged(v, "meta.json lacks a field");
  if (r == V_OK) r = take_str(meta, "name", &e->name);
  if (r == V_OK) r = take_str(meta, "execution_backend", &e->execution_backend);
  if (r == V_OK) r = take_str(meta, "target", &e->target);
  if (r == V_OK) {
    e->table_json = json_dumps(table, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (e->table_json) {
      /* Into our allocator, so that the entry frees uniformly. */
      char *copy = tl__strdup(e->table_json);
      free(e->table_json);
      e->table_json = copy;
    }
    if (!e->table_json) r = V_NOMEM;
  }
  if (r == V_OK) r = load_source(v, meta, "device", &e->device_format, &e->device_source);
  if (r == V_OK) r = load_source(v, meta, "host", &e->host_format, &e->host_source);
  json_decref(meta);
  if (r != V_OK) tl__cache_entry_free(e);
  return r;
}

tl_status tl__disk_lookup(const tl__disk_ns *ns, const char *key, const char *const *impl_files, tl__disk_result *res,
                          tl__cache_entry *out, char **dir, char *damage, size_t cap) {
  memset(out, 0, sizeof *out);
  *dir = NULL;
  *res = TL__DISK_MISS;
  if (damage && cap) damage[0] = '\0';
  char *entry = tl__path_join(ns->kernels, key);
  if (!entry) return tl__oom();
  struct stat st;
  if (lstat(entry, &st) != 0) {
    tl__free(entry);
    return TL_OK; /* a miss */
  }
  char why[512];
  if (!tl__dir_is_private(entry, false, why, sizeof why)) {
    tl__free(entry);
    *res = TL__DISK_UNSAFE;
    return tl__error(TL_OK, "kernel cache entry %s", why);
  }
  validate_ctx v = {entry, damage, cap};
  vresult r = validate(&v, key, impl_files, out);
  if (r == V_NOMEM) {
    tl__free(entry);
    return tl__oom();
  }
  if (r == V_UNSAFE) {
    tl__free(entry);
    *res = TL__DISK_UNSAFE;
    return TL_OK;
  }
  if (r == V_DAMAGED) {
    tl__free(entry);
    tl_status s = tl__disk_evict(ns, key);
    return s == TL_ENOMEM ? s : TL_OK; /* an entry we cannot remove is rebuilt beside it */
  }
  *dir = entry;
  *res = TL__DISK_HIT;
  return TL_OK;
}

tl_status tl__disk_evict(const tl__disk_ns *ns, const char *key) {
  char *entry = tl__path_join(ns->kernels, key);
  if (!entry) return tl__oom();
  char *trash = tl__format("%s/%s.evicted.%ld.XXXXXX", ns->staging, key, (long)getpid());
  tl_status s = trash ? TL_OK : tl__oom();
  if (s == TL_OK && !mkdtemp(trash)) s = tl__error(TL_EIO, "cannot create '%s': %s", trash, strerror(errno));
  if (s == TL_OK) {
    /* Move the entry inside the fresh directory, then remove both. */
    char *dest = tl__path_join(trash, "entry");
    if (!dest) s = tl__oom();
    else if (rename(entry, dest) != 0 && errno != ENOENT)
      s = tl__error(TL_EIO, "cannot remove kernel cache entry '%s': %s", entry, strerror(errno));
    tl__free(dest);
    tl_status r = tl__remove_tree(trash);
    if (s == TL_OK) s = r;
  }
  tl__free(trash);
  tl__free(entry);
  return s;
}

tl_status tl__disk_stage(const tl__disk_ns *ns, const char *key, char **out) {
  char *p = tl__format("%s/%s.%ld.XXXXXX", ns->staging, key, (long)getpid());
  if (!p) return tl__oom();
  if (!mkdtemp(p)) {
    tl_status s = tl__error(TL_EIO, "cannot create a staging directory in '%s': %s", ns->staging, strerror(errno));
    tl__free(p);
    return s;
  }
  *out = p;
  return TL_OK;
}

/* Records `name` (a file in staging) in files: {size, xxh3_128}. */
static tl_status record_file(json_t *files, const char *staging, const char *name) {
  char *path = tl__path_join(staging, name);
  if (!path) return tl__oom();
  /* A build run under a permissive umask (002) leaves group-writable files; the
   * staging directory is private, so tightening them here is race-free. */
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)))
    (void)chmod(path, st.st_mode & 07755);
  char *buf = NULL;
  size_t len = 0;
  tl_status s = tl__file_read_no_link(path, true, &buf, &len);
  if (s != TL_OK) {
    if (s != TL_ENOMEM) s = tl__error(TL_EIO, "the execution backend's build did not produce '%s': %s", name, tl_last_error());
    tl__free(path);
    return s;
  }
  char h[33];
  hash_hex(buf, len, h);
  tl__free(buf);
  tl__free(path);
  json_t *rec = json_pack("{s:I,s:s}", "size", (json_int_t)len, "xxh3_128", h);
  if (!rec || json_object_set_new(files, name, rec) != 0) return tl__oom();
  return TL_OK;
}

/* Writes one source into staging and records it in meta's sources and files. */
static tl_status write_source(json_t *meta, const char *staging, const char *role, const char *format,
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
  tl_status s = path ? tl__file_write_new(path, source ? source : "", source ? strlen(source) : 0) : tl__oom();
  if (s == TL_OK) s = record_file(json_object_get(meta, "files"), staging, name);
  if (s == TL_OK) {
    json_t *rec = json_pack("{s:s,s:s}", "file", name, "format", format);
    if (!rec || json_object_set_new(json_object_get(meta, "sources"), role, rec) != 0) s = tl__oom();
  }
  tl__free(path);
  tl__free(name);
  return s;
}

/* Builds meta.json for the staged entry and writes it. */
static tl_status write_meta(const char *staging, const char *key, const char *const *impl_files,
                            const tl__cache_entry *e) {
  json_error_t jerr;
  json_t *table = json_loads(e->table_json ? e->table_json : "", 0, &jerr);
  if (!table) {
    if (json_error_code(&jerr) == json_error_out_of_memory) return tl__oom();
    return tl__error(TL_EINTERNAL, "kernel table JSON does not parse: %s", jerr.text);
  }
  json_t *meta = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:o,s:{},s:{}}", "format", META_FORMAT, "key", key, "library",
                           tl_version(), "name", e->name, "execution_backend", e->execution_backend, "target",
                           e->target, "kernel_table", table, "sources", "files");
  if (!meta) return tl__oom();
  tl_status s = TL_OK;
  for (size_t i = 0; s == TL_OK && impl_files && impl_files[i]; i++)
    s = record_file(json_object_get(meta, "files"), staging, impl_files[i]);
  if (s == TL_OK) s = write_source(meta, staging, "device", e->device_format, e->device_source, impl_files);
  if (s == TL_OK) s = write_source(meta, staging, "host", e->host_format, e->host_source, impl_files);
  char sum[33];
  if (s == TL_OK) s = meta_checksum(meta, sum);
  if (s == TL_OK && json_object_set_new(meta, "checksum", json_string(sum)) != 0) s = tl__oom();
  char *text = NULL;
  if (s == TL_OK && !(text = json_dumps(meta, JSON_INDENT(1) | JSON_SORT_KEYS))) s = tl__oom();
  json_decref(meta);
  char *path = NULL;
  if (s == TL_OK && !(path = tl__path_join(staging, META_FILE))) s = tl__oom();
  if (s == TL_OK) s = tl__file_write_new(path, text, strlen(text));
  free(text); /* jansson's */
  tl__free(path);
  return s;
}

tl_status tl__disk_publish(const tl__disk_ns *ns, const char *key, const char *const *impl_files,
                           const tl__cache_entry *entry, const char *staging, char **dir, bool *temporary) {
  *dir = NULL;
  *temporary = false;
  char *final = tl__path_join(ns->kernels, key);
  tl_status s = final ? write_meta(staging, key, impl_files, entry) : tl__oom();
  for (int attempt = 0; s == TL_OK && attempt < 2; attempt++) {
    if (rename(staging, final) == 0) {
      *dir = final;
      return TL_OK;
    }
    if (errno != EEXIST && errno != ENOTEMPTY) {
      s = tl__error(TL_EIO, "cannot move '%s' to '%s': %s", staging, final, strerror(errno));
      break;
    }
    /* Another process published the key first: use theirs if it is sound. */
    tl__disk_result res;
    tl__cache_entry theirs;
    char *their_dir = NULL;
    s = tl__disk_lookup(ns, key, impl_files, &res, &theirs, &their_dir, NULL, 0);
    if (s != TL_OK) break;
    tl__cache_entry_free(&theirs);
    if (res == TL__DISK_HIT) {
      tl__free(final);
      (void)tl__remove_tree(staging);
      *dir = their_dir;
      return TL_OK;
    }
    if (res == TL__DISK_UNSAFE) break; /* leave it alone; load ours from staging */
    /* It was damaged and has been removed: try the rename once more. */
  }
  tl__free(final);
  if (s != TL_OK) {
    (void)tl__remove_tree(staging);
    return s;
  }
  *dir = tl__strdup(staging);
  if (!*dir) {
    (void)tl__remove_tree(staging);
    return tl__oom();
  }
  *temporary = true;
  return TL_OK;
}
