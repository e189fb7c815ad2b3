/* tl_compile: one call from a tile-level function to a loaded kernel, with the
 * kernel cache around the execution backend's build and load (docs/engine.md).
 *
 *   key = hash(function, target, host, execution backend, pass configs, identity)
 *   memory hit  -> the kernel
 *   disk hit    -> load the entry -> kernel
 *   otherwise   -> lower, codegen -> build into a staging directory -> publish
 *                  (rename) -> load -> kernel -> memory
 *
 * No lock is held while building, saving or loading: two threads or processes
 * compiling the same kernel both build, the first rename wins and the other uses
 * the winner's entry. */
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/files.h"
#include "engine/cache.h"
#include "engine/cache_disk.h"
#include "engine/engine_internal.h"
#include "runtime/kernel.h"

typedef struct job {
  tl_compile_options opts;
  const tl_ir_module *mod;
  const tl_ir_func *func;
  tl_backend_context *ctx;
  const tl_execution_backend_spec *spec;
  const tl__exec_impl *impl;
  const tl_target *target;
  bool use_cache;   /* memory and disk levels on */
  bool lookup;      /* look entries up (off when instrumentation must see the passes run) */
  char key[TL__CACHE_KEY_LEN + 1];
  tl__disk_ns ns;
  bool ns_ok;
} job;

static FILE *log_of(const job *j) { return j->opts.log ? j->opts.log : stderr; }

/* A kernel that forwards to another, marked as coming from the cache: what the
 * memory level holds, so that a hit reports tl_kernel_from_cache. */
static tl_status forward_call(void *state, const tl_value *args, int nargs, void *stream) {
  return tl_kernel_call(state, args, nargs, stream);
}
static void forward_destroy(void *state) { tl_kernel_release(state); }

static tl_status cached_alias(tl_kernel *k, tl_kernel **out) {
  tl__kernel_desc d = {tl_kernel_name(k),          tl_kernel_target(k),        tl_kernel_execution_backend(k),
                       tl_kernel_get_table(k),     tl_kernel_device_source(k), tl_kernel_host_source(k),
                       true,                       tl__kernel_memory(k)};
  tl__loaded fwd = {tl_kernel_retain(k), forward_call, forward_destroy};
  return tl__kernel_create(&d, fwd, out);
}

/* Puts the kernel into the memory level (as a cache-marked alias). */
static tl_status remember(const job *j, tl_kernel *k) {
  if (!j->use_cache) return TL_OK;
  tl_kernel *alias = NULL;
  if (tl_kernel_from_cache(k)) alias = tl_kernel_retain(k);
  else TL__TRY(cached_alias(k, &alias));
  tl_status s = tl__kcache_mem_put(j->key, alias);
  tl_kernel_release(alias);
  return s;
}

/* The cache key of the job; identity comes from the implementation, asked with
 * the parts of the request known before lowering. */
static tl_status compute_key(job *j) {
  tl__build_request early = {j->func->name, j->target, NULL, NULL, NULL, j->opts.pass_configs};
  const char *identity = j->impl->identity(&early);
  if (!identity) {
    /* The contract returns NULL with the message set; out of memory stays itself. */
    if (strcmp(tl_last_error(), tl_status_message(TL_ENOMEM)) == 0) return tl__oom();
    return tl__error_context(TL_EUNAVAILABLE, "execution backend '%s': ", j->impl->name);
  }
  const tl_target *host = tl_backend_context_target_host(j->ctx);
  tl__cache_key_input in = {
      tl__cache_func_hash(j->mod, j->func),
      tl_target_str(j->target),
      host ? tl_target_str(host) : NULL,
      j->spec->name,
      j->opts.pass_configs,
      identity,
  };
  return tl__cache_key(&in, j->key);
}

/* ------------------------------------------------------------- disk hits */

/* Loads a verified entry. Any failure leaves *out NULL and the status set. */
static tl_status load_entry(job *j, const tl__cache_entry *e, const tl__disk_entry *hit, tl_kernel **out) {
  *out = NULL;
  if (strcmp(e->name, j->func->name) != 0 || strcmp(e->execution_backend, j->spec->name) != 0 ||
      strcmp(e->target, tl_target_str(j->target)) != 0)
    return tl__error(TL_EIO, "kernel cache entry '%s' describes another kernel", hit->path);
  tl_kernel_table *table = NULL;
  tl_artifact *device = NULL, *host = NULL;
  tl_status s = tl_kernel_table_from_json(e->table_json, &table);
  if (s == TL_OK && e->device_format) s = tl_artifact_create(e->device_format, e->device_source, &device);
  if (s == TL_OK && e->host_format) s = tl_artifact_create(e->host_format, e->host_source, &host);
  tl__loaded loaded = {0};
  if (s == TL_OK) {
    tl__build_request req = {e->name, j->target, device, host, table, j->opts.pass_configs};
    s = tl__disk_entry_load(hit, j->impl, &req, &loaded);
  }
  if (s == TL_OK) {
    tl__kernel_desc d = {e->name,          j->target,         j->spec->name, table, e->device_source,
                         e->host_source, true,              j->impl->memory};
    s = tl__kernel_create(&d, loaded, out);
  }
  tl_kernel_table_free(table);
  tl_artifact_release(device);
  tl_artifact_release(host);
  return s;
}

/* Looks the key up on disk. TL_OK with *out NULL: build it. Unsafe entries and
 * namespaces switch the job to private building. */
static tl_status disk_lookup(job *j, tl_kernel **out) {
  *out = NULL;
  tl__disk_result res;
  tl__cache_entry e;
  tl__disk_entry hit;
  char damage[512];
  TL__TRY(tl__disk_lookup(&j->ns, j->key, j->impl->files, &res, &e, &hit, damage, sizeof damage));
  if (res == TL__DISK_UNSAFE) {
    tl__disk_warn_once(tl_last_error());
    j->ns_ok = false;
    tl__error_clear();
    return TL_OK;
  }
  if (res == TL__DISK_MISS) {
    if (damage[0])
      fprintf(log_of(j), "tilelang: warning: kernel cache entry %s/%s was damaged (%s); rebuilding\n", j->ns.kernels,
              j->key, damage);
    return TL_OK;
  }
  tl_status s = load_entry(j, &e, &hit, out);
  tl__cache_entry_free(&e);
  if (s != TL_OK && s != TL_ENOMEM) {
    /* An entry that does not load is removed and rebuilt (upstream does the same). */
    fprintf(log_of(j), "tilelang: warning: kernel cache entry %s does not load (%s); rebuilding\n", hit.path,
            tl_last_error());
    if (j->ns.writable) (void)tl__disk_evict(&j->ns, j->key);
    tl__error_clear();
    s = TL_OK;
  }
  tl__disk_entry_close(&j->ns, &hit);
  return s;
}

/* ------------------------------------------------------------ build + load */

/* Builds into a private scratch directory, loads, removes the directory. */
static tl_status build_private(job *j, const tl__build_request *req, tl__loaded *loaded) {
  char *scratch = NULL;
  TL__TRY(tl__make_scratch_dir("tilelang-build-", &scratch));
  tl_status s = j->impl->build(req, scratch);
  if (s == TL_OK) s = j->impl->load(req, scratch, loaded);
  (void)tl__remove_tree(scratch); /* what was loaded stays mapped */
  tl__free(scratch);
  return s;
}

/* True when a failure to write the cache is the file system's (read-only, full,
 * no permission), which degrades to a private build rather than failing. */
static bool cache_write_failed(const job *j, tl_status s) {
  if (s != TL_EIO && s != TL_ECOMPILE) return false;
  if (s == TL_EIO) return true;
  /* A compiler that failed writing into a full or read-only cache. */
  struct statvfs fs;
  return fstatvfs(j->ns.staging_fd, &fs) == 0 && ((fs.f_flag & ST_RDONLY) || fs.f_bavail == 0);
}

/* Builds into staging, publishes the entry and loads it. *degraded: the cache could
 * not be written (said once; TL_OK returned, nothing loaded); the caller builds
 * privately. */
static tl_status build_cached(job *j, const tl__build_request *req, const tl__lowered *l, tl__loaded *loaded,
                              bool *degraded) {
  *degraded = false;
  char *staging = NULL;
  tl_status s = tl__disk_stage(&j->ns, j->key, &staging);
  if (s == TL_OK) {
    s = j->impl->build(req, staging);
    if (s != TL_OK) {
      bool degrade = cache_write_failed(j, s);
      (void)tl__remove_tree(staging);
      tl__free(staging);
      if (!degrade) return s;
      staging = NULL;
    }
  }
  if (s != TL_OK) {
    if (s == TL_ENOMEM) return s;
    tl__disk_warn_readonly_once(tl_last_error());
    tl__error_clear();
    *degraded = true;
    return TL_OK;
  }
  char *table_json = tl_kernel_table_to_json(l->table);
  if (!table_json) {
    (void)tl__remove_tree(staging);
    tl__free(staging);
    return tl__oom();
  }
  tl__cache_entry e = {
      (char *)j->func->name,
      (char *)j->spec->name,
      (char *)tl_target_str(j->target),
      table_json,
      l->device ? (char *)tl_artifact_format(l->device) : NULL,
      l->device ? (char *)tl_artifact_source(l->device) : NULL,
      l->host ? (char *)tl_artifact_format(l->host) : NULL,
      l->host ? (char *)tl_artifact_source(l->host) : NULL,
  };
  tl__disk_entry hit;
  s = tl__disk_publish(&j->ns, j->key, j->impl->files, &e, staging, &hit);
  tl_free(table_json);
  tl__free(staging);
  if (s == TL_EIO) {
    /* Full disk, or the entry could not be put in place: degrade, said once. */
    tl__disk_warn_readonly_once(tl_last_error());
    tl__error_clear();
    *degraded = true;
    return TL_OK;
  }
  if (s != TL_OK) return s;
  s = tl__disk_entry_load(&hit, j->impl, req, loaded);
  if (s != TL_OK && s != TL_ENOMEM && !hit.staging_name)
    (void)tl__disk_evict(&j->ns, j->key); /* never leave an unloadable entry */
  tl__disk_entry_close(&j->ns, &hit);
  return s;
}

/* Lowers, generates code, builds and loads: a new kernel. */
static tl_status compile_fresh(job *j, tl_kernel **out) {
  if (tl__env_flag("TILELANG_PRINT_ON_COMPILATION", false))
    fprintf(log_of(j), "TileLang begins to compile kernel `%s` with `target=%s`\n", j->func->name,
            tl_target_str(j->target));
  tl__lowered l;
  TL__TRY(tl__engine_lower(j->mod, j->func, &j->opts, j->ctx, true, &l));
  tl__build_request req = {j->func->name, j->target, l.device, l.host, l.table, j->opts.pass_configs};
  tl__loaded loaded = {0};
  bool degraded = !(j->use_cache && j->ns_ok);
  tl_status s = degraded ? TL_OK : build_cached(j, &req, &l, &loaded, &degraded);
  if (s == TL_OK && degraded) s = build_private(j, &req, &loaded);
  if (s == TL_OK) {
    tl__kernel_desc d = {j->func->name,
                         j->target,
                         j->spec->name,
                         l.table,
                         l.device ? tl_artifact_source(l.device) : NULL,
                         l.host ? tl_artifact_source(l.host) : NULL,
                         false,
                         j->impl->memory};
    s = tl__kernel_create(&d, loaded, out);
  }
  tl__lowered_free(&l);
  return s;
}

/* ----------------------------------------------------------------- entry */

/* True when the caller asked to watch the passes: the pipeline must run. */
static bool instrumented(const tl_compile_options *o) {
  return o->time_passes || o->print_after_all || (o->print_after && *o->print_after) ||
         tl__env_flag("TL_LOWER_TRACE", false);
}

tl_status tl_compile(const tl_ir_module *mod, const char *func_name, const tl_compile_options *opts, tl_kernel **out) {
  if (out) *out = NULL;
  if (!mod || !out) return tl__error(TL_EINVAL, "tl_compile: the module and the output must not be NULL");
  job j;
  memset(&j, 0, sizeof j);
  tl__disk_ns_init(&j.ns); /* freed on every path, also when never opened (a memory hit) */
  j.mod = mod;
  TL__TRY(tl__compile_options_normalize(opts, &j.opts));
  TL__TRY(tl__engine_pick_func(mod, func_name, &j.func));
  TL__TRY(tl__engine_context(&j.opts, &j.ctx));
  j.spec = tl_backend_context_execution_backend(j.ctx);
  j.target = tl_backend_context_target(j.ctx);
  tl_status s = tl__engine_exec_impl(j.ctx, &j.impl);
  j.use_cache = !j.opts.disable_cache && !tl__env_flag("TILELANG_DISABLE_CACHE", false);
  j.lookup = !instrumented(&j.opts);
  if (s == TL_OK && j.use_cache) s = compute_key(&j);
  if (s == TL_OK && j.use_cache && j.lookup) *out = tl__kcache_mem_get(j.key);
  if (s == TL_OK && !*out && j.use_cache) {
    s = tl__disk_ns_open(j.opts.cache_dir, &j.ns);
    if (s == TL_EUNAVAILABLE) {
      tl__disk_warn_once(tl_last_error());
      tl__error_clear();
      s = TL_OK;
    } else if (s == TL_OK) {
      j.ns_ok = true;
    }
    if (s == TL_OK && j.ns_ok && j.lookup) s = disk_lookup(&j, out);
    if (s == TL_OK && *out) s = remember(&j, *out);
  }
  if (s == TL_OK && !*out) {
    s = compile_fresh(&j, out);
    if (s == TL_OK) s = remember(&j, *out);
  }
  tl__disk_ns_free(&j.ns);
  tl_backend_context_release(j.ctx);
  if (s != TL_OK) {
    tl_kernel_release(*out);
    *out = NULL;
  }
  return s;
}
