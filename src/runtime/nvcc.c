/* The `nvcc` execution backend (spec: enable_host_codegen and enable_device_compile,
 * as upstream's tvm_ffi path): the device codegen's `build` compiled the kernels to
 * a cubin through the cuda backend's compile callback (nvcc, with its binary
 * cache); host codegen `c` wrote entries with the `cuda_driver` launch emitter.
 *
 * build   writes kernel.cu (the device source), kernel.cubin (the binary) and
 *         kernel.c (the host entries followed by the cubin as a byte array), and
 *         compiles kernel.c with the C compiler (native's helper, without
 *         -march=native: the library is what `tlc build` exports) into kernel.so.
 * load    dlopen(kernel.so), the host entry and `<entry>_cuda_unload`.
 * call    the host entry: argument checks, device selection, lazy module load,
 *         cuLaunchKernel on the caller's stream.
 *
 * A library loaded by several kernel objects (dlopen returns one handle for one
 * file) unloads its CUDA modules when the last of them goes. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/dl_fd.h"
#include "base/error.h"
#include "base/files.h"
#include "base/str.h"
#include "codegen/codegen.h"
#include "runtime/cuda_arch.h"
#include "runtime/exec_impls.h"
#include "runtime/nvcc_tool.h"

/* --------------------------------------------------------------- identity */

static pthread_mutex_t g_id_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  char key[600];
  char *text;
} g_ids[64];

/* "nvcc <version>|<arch>|<options>|cc <version>|<flags>", per arch and code list. */
static const char *nvcc_identity(const tl__build_request *req) {
  const char *path, *version;
  if (tl__nvcc_find(&path, &version) != TL_OK) return NULL;
  const char *cc = tl__native_compiler_version();
  if (!cc) return NULL;
  char arch[32];
  if (tl__cuda_resolve_arch(req->target, arch, sizeof arch) != TL_OK) return NULL;
  const char *codes[TL__CUDA_MAX_CODES];
  size_t ncodes = tl__cuda_target_codes(req->target, codes, TL__CUDA_MAX_CODES);
  tl__nvcc_options o;
  if (tl__nvcc_make_options(arch, codes, ncodes, &o) != TL_OK) return NULL;
  char key[sizeof g_ids[0].key];
  if (tl__nvcc_options_text(&o, key, sizeof key) != TL_OK) return NULL;
  pthread_mutex_lock(&g_id_lock);
  const char *found = NULL;
  size_t i = 0;
  for (; i < sizeof g_ids / sizeof g_ids[0] && g_ids[i].text; i++)
    if (strcmp(g_ids[i].key, key) == 0) found = g_ids[i].text;
  if (!found) {
    char *text = tl__format("nvcc %s|%s|%s|cc %s|-O3 -fPIC -shared -fwrapv -ffp-contract=off", version, arch, key, cc);
    if (!text) {
      tl__oom();
    } else if (i < sizeof g_ids / sizeof g_ids[0]) {
      snprintf(g_ids[i].key, sizeof g_ids[i].key, "%s", key);
      g_ids[i].text = text; /* kept for the life of the process: callers hold it */
      found = text;
    } else {
      tl__free(text);
      tl__error(TL_EUNSUPPORTED, "execution backend 'nvcc': one process compiles for at most %zu option sets",
                sizeof g_ids / sizeof g_ids[0]);
    }
  }
  pthread_mutex_unlock(&g_id_lock);
  return found;
}

/* ------------------------------------------------------------------ build */

static tl_status nvcc_build(const tl__build_request *req, const char *dir) {
  if (!req->host)
    return tl__error(TL_EINVAL, "execution backend 'nvcc' needs host code (the backend's spec must enable host codegen)");
  size_t size = 0;
  const void *bin = req->device ? tl_artifact_binary(req->device, &size) : NULL;
  if (!bin || size == 0)
    return tl__error(TL_EINVAL,
                     "execution backend 'nvcc' needs the compiled device code (a cubin: the backend's spec must enable "
                     "device compilation), not an artifact of format '%s'",
                     req->device ? tl_artifact_format(req->device) : "(none)");
  char *cu = tl__path_join(dir, "kernel.cu"), *cubin = tl__path_join(dir, "kernel.cubin");
  char *c = tl__path_join(dir, "kernel.c"), *so = tl__path_join(dir, "kernel.so");
  char *image = tl__cuda_image_source(bin, size);
  tl_status s = cu && cubin && c && so && image ? TL_OK : tl__oom();
  const char *src = tl_artifact_source(req->device);
  if (s == TL_OK) s = tl__file_write(cu, src, strlen(src));
  if (s == TL_OK) s = tl__file_write(cubin, bin, size);
  if (s == TL_OK) {
    const char *parts[] = {tl_artifact_source(req->host), image, NULL};
    s = tl__file_write_parts(c, parts);
  }
  static const char *const libs[] = {"-ldl", "-lpthread", NULL};
  if (s == TL_OK) s = tl__native_compile_shared(c, so, false, true, libs);
  tl__free(cu);
  tl__free(cubin);
  tl__free(c);
  tl__free(so);
  tl__free(image);
  return s;
}

/* -------------------------------------------------------------------- load */

typedef int32_t (*host_entry_fn)(const tl_value *args, int32_t nargs, void *stream, char *err, size_t errcap);
typedef void (*unload_fn)(void);

typedef struct nvcc_state {
  void *handle;
  host_entry_fn entry;
  unload_fn unload;
} nvcc_state;

/* Kernel objects per loaded library, so the last one unloads its modules. */
static pthread_mutex_t g_libs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  void *handle;
  int refs;
} g_libs[256];

static void lib_ref(void *h) {
  pthread_mutex_lock(&g_libs_lock);
  size_t free_slot = sizeof g_libs / sizeof g_libs[0];
  for (size_t i = 0; i < sizeof g_libs / sizeof g_libs[0]; i++) {
    if (g_libs[i].handle == h) {
      g_libs[i].refs++;
      pthread_mutex_unlock(&g_libs_lock);
      return;
    }
    if (!g_libs[i].handle && free_slot == sizeof g_libs / sizeof g_libs[0]) free_slot = i;
  }
  if (free_slot < sizeof g_libs / sizeof g_libs[0]) {
    g_libs[free_slot].handle = h;
    g_libs[free_slot].refs = 1;
  }
  /* no slot: the library's modules simply stay loaded until the process ends */
  pthread_mutex_unlock(&g_libs_lock);
}

/* True if this was the last kernel object holding the library. */
static bool lib_unref(void *h) {
  bool last = false;
  pthread_mutex_lock(&g_libs_lock);
  for (size_t i = 0; i < sizeof g_libs / sizeof g_libs[0]; i++)
    if (g_libs[i].handle == h) {
      last = --g_libs[i].refs == 0;
      if (last) g_libs[i].handle = NULL;
      break;
    }
  pthread_mutex_unlock(&g_libs_lock);
  return last;
}

static tl_status nvcc_call(void *state, const tl_value *args, int nargs, void *stream) {
  nvcc_state *st = state;
  char err[1024];
  err[0] = '\0';
  int32_t rc = st->entry(args, nargs, stream, err, sizeof err);
  return tl__host_entry_result(rc, err);
}

static void nvcc_destroy(void *state) {
  nvcc_state *st = state;
  if (!st) return;
  if (lib_unref(st->handle) && st->unload) st->unload();
  dlclose(st->handle);
  tl__free(st);
}

static tl_status nvcc_load(const tl__build_request *req, const char *dir, tl__loaded *out) {
  const char *entry = req->table ? req->table->entry : req->func_name;
  if (!entry) return tl__error(TL_EINVAL, "nvcc: no host entry name");
  char *so = tl__path_join(dir, "kernel.so");
  char *unload_name = tl__format("%s_cuda_unload", entry);
  if (!so || !unload_name) {
    tl__free(so);
    tl__free(unload_name);
    return tl__oom();
  }
  tl_status s = TL_OK;
  void *h = NULL;
  host_entry_fn fn = NULL;
  unload_fn unload = NULL;
  s = tl__load_dlopen(dir, "kernel.so", RTLD_LOCAL | RTLD_NOW, &h);
  if (s == TL_OK) {
    void *p = dlsym(h, entry), *q = dlsym(h, unload_name);
    memcpy(&fn, &p, sizeof p);
    memcpy(&unload, &q, sizeof q);
    if (!fn) s = tl__error(TL_EINTERNAL, "'%s' has no host entry '%s'", so, entry);
  }
  nvcc_state *st = s == TL_OK ? tl__calloc(1, sizeof *st) : NULL;
  if (s == TL_OK && !st) s = tl__oom();
  tl__free(so);
  tl__free(unload_name);
  if (s != TL_OK) {
    if (h) dlclose(h);
    return s;
  }
  st->handle = h;
  st->entry = fn;
  st->unload = unload;
  lib_ref(h);
  *out = (tl__loaded){st, nvcc_call, nvcc_destroy};
  return TL_OK;
}

static const char *const k_files[] = {"kernel.cu", "kernel.cubin", "kernel.c", "kernel.so", NULL};

const tl__exec_impl tl__exec_nvcc = {
  .name = "nvcc",
  .files = k_files,
  .identity = nvcc_identity,
  .build = nvcc_build,
  .load = nvcc_load,
  .memory = &tl__cuda_memory,
};
