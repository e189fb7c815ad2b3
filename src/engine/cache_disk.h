/* The kernel cache on disk (docs/engine.md):
 *
 *   <root>/<library version>/<platform>-<machine>/kernels/<key>/   one entry
 *   <root>/<library version>/<platform>-<machine>/.staging/         entries being written
 *
 * <root> is the cache_dir option, else tl__env_cache_root (src/base/env.h):
 * TILELANG_CACHE_DIR, else ~/.tilelang-c/cache.
 * An entry holds the files the execution backend implementation's build wrote,
 * the device and host sources, and meta.json: the kernel's name, execution
 * backend, target, kernel table, the sources' file names and formats, each file's
 * size and XXH3-128, and a checksum over the rest of meta.json. An entry is
 * written into a fresh staging directory and renamed into place, so readers see
 * complete entries or none; one that fails any check is removed and rebuilt.
 *
 * The cache holds code that gets loaded into the process, so nothing is used
 * unless the root, every directory below it, the entry and its files belong to
 * the current user and are writable by no one else, and the root's ancestors (and
 * a link at the root) can be changed by no one else (base/trust.h). The root is
 * opened once by that walk; everything below it is reached with openat(O_NOFOLLOW)
 * from the descriptors so opened, checked on the descriptor, and an entry's files
 * are hashed through the descriptors the load then uses (base/dl_fd.h): no rename
 * between the check and the load can substitute another file. Directories are
 * created with mode 0700. */
#ifndef TL_ENGINE_CACHE_DISK_H
#define TL_ENGINE_CACHE_DISK_H

#include <stdbool.h>

#include "runtime/exec_backend.h"
#include "tilelang/base.h"

typedef struct tl__disk_ns {
  char *root;    /* the cache root */
  char *dir;     /* <root>/<version>/<platform>-<machine> */
  char *kernels; /* dir/kernels */
  char *staging; /* dir/.staging */
  int root_fd, dir_fd, kernels_fd, staging_fd; /* as opened and checked; -1: closed */
  /* False when the namespace cannot be written (a read-only cache): entries are
   * looked up, new kernels are built privately. */
  bool writable;
} tl__disk_ns;

/* Opens (creating what is missing, mode 0700) the namespace under `root` (NULL:
 * the default root) and checks it. TL_EUNAVAILABLE, with the reason as the message,
 * when it cannot be created or may not be trusted; the caller then builds
 * privately (tl__disk_warn_once). A namespace that exists but cannot be written
 * opens with `writable` false. TL_ENOMEM. Also removes staging directories older
 * than an hour, once per namespace and process. */
/* An empty namespace: no strings, every descriptor -1 (so that freeing it closes
 * nothing; a zeroed one would close descriptor 0, another thread's file). */
void tl__disk_ns_init(tl__disk_ns *ns);
tl_status tl__disk_ns_open(const char *root, tl__disk_ns *out);
void tl__disk_ns_free(tl__disk_ns *ns);

/* Writes "tilelang: warning: <why>; ..." to stderr the first time it is called in
 * the process; later calls print nothing. */
void tl__disk_warn_once(const char *why);
/* The same for a cache that can be read but not written (its entries are used). */
void tl__disk_warn_readonly_once(const char *why);
/* Tests: the next warning of each kind is printed again. */
void tl__disk_test_rearm_warnings(void);

/* What an entry holds besides the implementation's files. */
typedef struct tl__cache_entry {
  char *name;              /* the host entry's symbol */
  char *execution_backend; /* the spec's name */
  char *target;            /* the target's JSON (host attached) */
  char *table_json;        /* the kernel table (tl_kernel_table_to_json) */
  char *device_format;     /* NULL: no device source */
  char *device_source;
  char *host_format;       /* NULL: no host source */
  char *host_source;
} tl__cache_entry;

void tl__cache_entry_free(tl__cache_entry *e);

typedef enum tl__disk_result {
  TL__DISK_MISS,   /* no entry (a damaged one was removed) */
  TL__DISK_HIT,    /* a complete, verified entry */
  TL__DISK_UNSAFE  /* an entry that may not be trusted: not used, not touched */
} tl__disk_result;

/* A verified entry, held open for loading. */
typedef struct tl__disk_entry {
  char *path;               /* its directory (what load is given; messages) */
  int dir_fd;               /* the directory as verified; -1: none */
  const char *const *names; /* the implementation's files ... */
  int *fds;                 /* ... each open as verified */
  size_t n;
  char *staging_name;       /* set when it is our staging directory: removed on close */
} tl__disk_entry;

/* Closes the entry (removing it when it is a staging directory). */
void tl__disk_entry_close(const tl__disk_ns *ns, tl__disk_entry *e);

/* impl->load of the entry: the implementation gets e->path, and this thread's load
 * scope (base/dl_fd.h) hands its loaders the verified descriptors. */
tl_status tl__disk_entry_load(const tl__disk_entry *e, const tl__exec_impl *impl, const tl__build_request *req,
                              tl__loaded *out);

/* Test hook: called after an entry was verified and before it is loaded (where a
 * racing rename would have to strike). NULL outside tests. */
extern void (*tl__disk_test_before_load)(const char *entry_path);

/* Looks up `key`. `impl_files` (NULL-terminated) must all be in the entry. On HIT,
 * *out is filled (free it with tl__cache_entry_free) and *hit is the open entry
 * (tl__disk_entry_close it). On UNSAFE the message says why. A damaged entry
 * (missing or extra-sized files, checksum mismatch, unparsable meta.json) is
 * removed (when the namespace is writable) and reported as MISS; `damage` (if
 * non-NULL, cap bytes) gets the reason ("" otherwise). Fails only with TL_ENOMEM. */
tl_status tl__disk_lookup(const tl__disk_ns *ns, const char *key, const char *const *impl_files, tl__disk_result *res,
                          tl__cache_entry *out, tl__disk_entry *hit, char *damage, size_t cap);

/* Removes entry `key` if present: renamed into the staging area first, so other
 * processes never see it half removed. */
tl_status tl__disk_evict(const tl__disk_ns *ns, const char *key);

/* A fresh staging directory .staging/<key>.<pid>.XXXXXX. *out is its path, which the
 * implementation builds into (tl__free it). TL_EIO when the namespace cannot be
 * written. */
tl_status tl__disk_stage(const tl__disk_ns *ns, const char *key, char **out);

/* Completes the entry being written in `staging` (where the implementation's build
 * put `impl_files`): writes the sources and meta.json, then renames it into place.
 * On success *hit is the verified entry to load:
 *   - ours, now kernels/<key>;
 *   - another process's complete entry for the key, published first ("use theirs":
 *     our staging directory is removed);
 *   - our staging directory, when the other entry was damaged and could not be
 *     replaced, or may not be trusted (removed when *hit is closed).
 * On failure the staging directory is removed. */
tl_status tl__disk_publish(const tl__disk_ns *ns, const char *key, const char *const *impl_files,
                           const tl__cache_entry *entry, const char *staging, tl__disk_entry *hit);

#endif
