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
 * the current user and are writable by no one else (below the root nothing may be
 * a symbolic link). Directories are created with mode 0700. */
#ifndef TL_ENGINE_CACHE_DISK_H
#define TL_ENGINE_CACHE_DISK_H

#include <stdbool.h>

#include "tilelang/base.h"

typedef struct tl__disk_ns {
  char *root;    /* the cache root */
  char *dir;     /* <root>/<version>/<platform>-<machine> */
  char *kernels; /* dir/kernels */
  char *staging; /* dir/.staging */
} tl__disk_ns;

/* Opens (creating what is missing, mode 0700) the namespace under `root` (NULL:
 * the default root) and checks that it is private. TL_EUNAVAILABLE, with the
 * reason as the message, when it cannot be created or may not be trusted; the
 * caller then builds privately (tl__disk_warn_once). TL_ENOMEM. Also removes
 * staging directories older than an hour, once per namespace and process. */
tl_status tl__disk_ns_open(const char *root, tl__disk_ns *out);
void tl__disk_ns_free(tl__disk_ns *ns);

/* Writes "tilelang: warning: <why>; ..." to stderr the first time it is called in
 * the process; later calls print nothing. */
void tl__disk_warn_once(const char *why);

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

/* Looks up `key`. `impl_files` (NULL-terminated) must all be in the entry. On HIT,
 * *out is filled (free it with tl__cache_entry_free) and *dir is the entry's
 * directory (tl__free it). On UNSAFE the message says why. A damaged entry
 * (missing or extra-sized files, checksum mismatch, unparsable meta.json) is
 * removed and reported as MISS; `damage` (if non-NULL, cap bytes) gets the reason
 * ("" otherwise). Fails only with TL_ENOMEM. */
tl_status tl__disk_lookup(const tl__disk_ns *ns, const char *key, const char *const *impl_files, tl__disk_result *res,
                          tl__cache_entry *out, char **dir, char *damage, size_t cap);

/* Removes entry `key` if present: renamed into the staging area first, so other
 * processes never see it half removed. */
tl_status tl__disk_evict(const tl__disk_ns *ns, const char *key);

/* A fresh staging directory .staging/<key>.<pid>.XXXXXX (mkdtemp). *out: tl__free. */
tl_status tl__disk_stage(const tl__disk_ns *ns, const char *key, char **out);

/* Completes the entry being written in `staging` (where the implementation's build
 * put `impl_files`): writes the sources and meta.json, then renames it into place.
 * On success *dir is the directory to load from and *temporary says whether the
 * caller must remove it after loading:
 *   - ours, now kernels/<key> (temporary false);
 *   - another process's complete entry for the key, published first ("use theirs":
 *     our staging directory is removed; temporary false);
 *   - our staging directory, when the other entry was damaged and could not be
 *     replaced (temporary true).
 * On failure the staging directory is removed. */
tl_status tl__disk_publish(const tl__disk_ns *ns, const char *key, const char *const *impl_files,
                           const tl__cache_entry *entry, const char *staging, char **dir, bool *temporary);

#endif
