/* The `source` execution backend: always available, it writes the generated code and
 * nothing else. build writes `device.<ext>` (the device artifact's format gives the
 * extension: c, cu, hip, cl, metal, wgsl, ...; binary artifacts their bytes),
 * `host.c` when there is host code, and last `sources.txt` naming them (the
 * cache's completeness marker). A kernel loaded from it fails every call with
 * TL_EUNSUPPORTED, saying which runtime was missing: the kernel's backend's other
 * execution backends that are unavailable, and why. */
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/files.h"
#include "base/str.h"
#include "runtime/exec_impls.h"

static const char *source_identity(const tl__build_request *req) {
  (void)req;
  return "source";
}

/* The file extension for an artifact format. */
static const char *extension(const char *format) {
  static const char *const map[][2] = {{"cuda", "cu"}, {"opencl", "cl"}, {"hip", "hip"}, {"metal", "metal"},
                                       {"wgsl", "wgsl"}, {"c", "c"},     {"ptx", "ptx"}, {"cubin", "cubin"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(map[i][0], format) == 0) return map[i][1];
  return format;
}

static tl_status write_artifact(const tl_artifact *a, const char *dir, const char *name, tl__sb *list) {
  char *path = tl__path_join(dir, name);
  if (!path) return tl__oom();
  size_t size = 0;
  const void *bytes = tl_artifact_binary(a, &size);
  const char *text = tl_artifact_source(a);
  tl_status s = bytes ? tl__file_write(path, bytes, size) : tl__file_write(path, text, strlen(text));
  tl__free(path);
  tl__sb_appendf(list, "%s\n", name);
  return s;
}

static tl_status source_build(const tl__build_request *req, const char *dir) {
  tl__sb list = TL__SB_INIT;
  tl_status s = TL_OK;
  if (req->device) {
    char *name = tl__format("device.%s", extension(tl_artifact_format(req->device)));
    s = name ? write_artifact(req->device, dir, name, &list) : tl__oom();
    tl__free(name);
  }
  if (s == TL_OK && req->host) s = write_artifact(req->host, dir, "host.c", &list);
  char *path = s == TL_OK ? tl__path_join(dir, "sources.txt") : NULL;
  if (s == TL_OK && !path) s = tl__oom();
  if (s == TL_OK) s = tl__sb_status(&list);
  if (s == TL_OK) s = tl__file_write(path, tl__sb_str(&list), list.len);
  tl__free(path);
  tl__sb_free(&list);
  return s;
}

/* The message every call gives. */
typedef struct source_state {
  char *message;
} source_state;

static tl_status source_call(void *state, const tl_value *args, int nargs, void *stream) {
  (void)args, (void)nargs, (void)stream;
  source_state *st = state;
  return tl__error(TL_EUNSUPPORTED, "%s", st->message);
}

static void source_destroy(void *state) {
  source_state *st = state;
  if (!st) return;
  tl__free(st->message);
  tl__free(st);
}

/* The backend owning the target, or NULL. */
static const tl_backend_module *owner(const tl_target *target) {
  if (!target) return NULL;
  const tl_backend_module *list[64];
  size_t n = tl_list_backends(list, 64);
  for (size_t i = 0; i < n && i < 64; i++)
    if (tl_backend_module_matches(list[i], target)) return list[i];
  return NULL;
}

/* "Kernel 'f' was built with execution backend 'source', which only writes code: ..." */
static char *explain(const tl__build_request *req) {
  tl__sb sb = TL__SB_INIT;
  const char *name = req->table ? req->table->entry : req->func_name;
  tl__sb_appendf(&sb, "Kernel '%s' was built with execution backend 'source', which only writes code and cannot run it",
                 name ? name : "?");
  const tl_backend_module *m = owner(req->target);
  size_t unavailable = 0, runnable = 0;
  tl__sb others = TL__SB_INIT;
  for (size_t i = 0; m && m->execution_backends[i]; i++) {
    const tl_execution_backend_spec *spec = m->execution_backends[i];
    if (strcmp(spec->name, "source") == 0 || !tl_execution_backend_spec_matches(spec, req->target)) continue;
    if (tl_execution_backend_spec_is_available(spec)) {
      tl__sb_appendf(&others, "%s%s", runnable++ ? ", " : "", spec->name);
      continue;
    }
    const char *why = tl_execution_backend_spec_unavailable_reason(spec);
    tl__sb_appendf(&sb, "%s '%s' is not available (%s)", unavailable++ ? ";" : ":", spec->name,
                   why ? why : "no reason given");
  }
  if (runnable)
    tl__sb_appendf(&sb, "%s to run it, use execution backend%s %s", unavailable ? ";" : ":", runnable > 1 ? "s" : "",
                   tl__sb_str(&others));
  tl__sb_free(&others);
  tl__error_clear();
  return tl__sb_finish(&sb);
}

static tl_status source_load(const tl__build_request *req, const char *dir, tl__loaded *out) {
  (void)dir;
  source_state *st = tl__calloc(1, sizeof *st);
  if (!st) return tl__oom();
  st->message = explain(req);
  if (!st->message) {
    tl__free(st);
    return tl__oom();
  }
  *out = (tl__loaded){st, source_call, source_destroy};
  return TL_OK;
}

static const char *const k_files[] = {"sources.txt", NULL};

const tl__exec_impl tl__exec_source = {
  .name = "source",
  .files = k_files,
  .identity = source_identity,
  .build = source_build,
  .load = source_load,
};
