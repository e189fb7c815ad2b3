/* A fake CUDA driver: the entry points the library and the generated launchers
 * use, enough to follow what they ask (module loads, function lookups,
 * attributes, context switches, launches with their parameters) without a GPU.
 * Two devices, one primary context each; memory is host memory. Thread-safe by
 * one lock. Not a driver: kernels do not run. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct fake_ctx {
  int device;
} fake_ctx;
typedef struct fake_function {
  struct fake_module *module;
  struct fake_function *next; /* the module's functions, freed with it */
  char name[128];
} fake_function;
typedef struct fake_module {
  int serial, device;
  unsigned char *image;
  size_t size;
  fake_function *functions;
} fake_module;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_ctx g_ctx[2] = {{0}, {1}};
static __thread fake_ctx *g_current;
static fake_stats g_stats;
static size_t g_param_sizes[FAKE_MAX_PARAMS];
static int g_nparam_sizes;
static int g_launch_result;
static int g_serial;

EXPORT void fake_reset(void) {
  pthread_mutex_lock(&g_lock);
  memset(&g_stats, 0, sizeof g_stats);
  g_nparam_sizes = 0;
  g_launch_result = 0;
  pthread_mutex_unlock(&g_lock);
}
EXPORT void fake_get(fake_stats *out) {
  pthread_mutex_lock(&g_lock);
  *out = g_stats;
  pthread_mutex_unlock(&g_lock);
}
EXPORT void fake_set_param_sizes(const size_t *sizes, int n) {
  pthread_mutex_lock(&g_lock);
  g_nparam_sizes = n < FAKE_MAX_PARAMS ? n : FAKE_MAX_PARAMS;
  memcpy(g_param_sizes, sizes, (size_t)g_nparam_sizes * sizeof *sizes);
  pthread_mutex_unlock(&g_lock);
}
EXPORT void fake_fail_launch(int result) {
  pthread_mutex_lock(&g_lock);
  g_launch_result = result;
  pthread_mutex_unlock(&g_lock);
}
EXPORT void *fake_context(int d) { return &g_ctx[d]; }

/* ------------------------------------------------------------- the API */

EXPORT int cuInit(unsigned flags) {
  (void)flags;
  pthread_mutex_lock(&g_lock);
  g_stats.inits++;
  pthread_mutex_unlock(&g_lock);
  return 0;
}
EXPORT int cuDriverGetVersion(int *v) {
  *v = 13000;
  return 0;
}
EXPORT int cuGetErrorName(int e, const char **s) {
  *s = e == 0 ? "CUDA_SUCCESS" : e == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : e == 200 ? "CUDA_ERROR_INVALID_IMAGE"
       : e == 500 ? "CUDA_ERROR_NOT_FOUND" : e == 1 ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
EXPORT int cuGetErrorString(int e, const char **s) {
  *s = e == 700 ? "an illegal memory access was encountered" : "fake driver error";
  return 0;
}
EXPORT int cuDeviceGet(int *d, int ordinal) {
  if (ordinal < 0 || ordinal > 1) return 101;
  *d = ordinal;
  return 0;
}
EXPORT int cuDeviceGetCount(int *n) {
  *n = 2;
  return 0;
}
EXPORT int cuDeviceGetAttribute(int *v, int attrib, int dev) {
  (void)dev;
  *v = attrib == 75 ? 9 : attrib == 76 ? 0 : attrib == 1 ? 1024 : attrib == 10 ? 32 : 1;
  return 0;
}
EXPORT int cuDeviceGetName(char *name, int len, int dev) {
  (void)dev;
  strncpy(name, "Fake GPU", (size_t)len);
  return 0;
}
EXPORT int cuDeviceTotalMem_v2(size_t *b, int dev) {
  (void)dev;
  *b = (size_t)1 << 30;
  return 0;
}
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  pthread_mutex_lock(&g_lock);
  g_stats.retains++;
  pthread_mutex_unlock(&g_lock);
  *ctx = &g_ctx[dev];
  return 0;
}
EXPORT int cuDevicePrimaryCtxRelease_v2(int dev) {
  (void)dev;
  pthread_mutex_lock(&g_lock);
  g_stats.releases++;
  pthread_mutex_unlock(&g_lock);
  return 0;
}
EXPORT int cuCtxGetCurrent(void **ctx) {
  *ctx = g_current;
  return 0;
}
EXPORT int cuCtxSetCurrent(void *ctx) {
  pthread_mutex_lock(&g_lock);
  g_stats.ctx_sets++;
  pthread_mutex_unlock(&g_lock);
  g_current = ctx;
  return 0;
}
EXPORT int cuCtxGetDevice(int *d) {
  if (!g_current) return 201; /* CUDA_ERROR_INVALID_CONTEXT */
  *d = g_current->device;
  return 0;
}
EXPORT int cuCtxSynchronize(void) { return g_current ? 0 : 201; }
EXPORT int cuModuleLoadData(void **module, const void *image) {
  const unsigned char *b = image;
  if (!g_current) return 201;
  if (!(b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') && !(b[0] == 0x50 && b[3] == 0xba)) return 200;
  fake_module *m = calloc(1, sizeof *m);
  pthread_mutex_lock(&g_lock);
  m->serial = ++g_serial;
  m->device = g_current->device;
  g_stats.module_loads++;
  pthread_mutex_unlock(&g_lock);
  /* the image's size: the end of its section header table or of its last
   * section's bytes, whichever is further (ELF64) */
  uint64_t shoff, end = 0;
  uint16_t shentsize, shnum;
  memcpy(&shoff, b + 0x28, 8);
  memcpy(&shentsize, b + 0x3a, 2);
  memcpy(&shnum, b + 0x3c, 2);
  if (b[0] == 0x7f) {
    end = shoff + (uint64_t)shentsize * shnum;
    for (uint16_t i = 0; i < shnum; i++) {
      const unsigned char *sh = b + shoff + (uint64_t)i * shentsize;
      uint32_t type;
      uint64_t off, size;
      memcpy(&type, sh + 4, 4);
      memcpy(&off, sh + 0x18, 8);
      memcpy(&size, sh + 0x20, 8);
      if (type != 8 /* NOBITS */ && off + size > end) end = off + size;
    }
  }
  m->size = (size_t)end;
  m->image = malloc(m->size ? m->size : 1);
  if (m->size) memcpy(m->image, b, m->size);
  *module = m;
  return 0;
}
EXPORT int cuModuleUnload(void *module) {
  fake_module *m = module;
  pthread_mutex_lock(&g_lock);
  g_stats.module_unloads++;
  pthread_mutex_unlock(&g_lock);
  while (m->functions) {
    fake_function *f = m->functions;
    m->functions = f->next;
    free(f);
  }
  free(m->image);
  free(m);
  return 0;
}
/* A function exists if its name is a string of the image (its symbol table). */
EXPORT int cuModuleGetFunction(void **fn, void *module, const char *name) {
  fake_module *m = module;
  size_t n = strlen(name);
  bool found = false;
  for (size_t i = 0; !found && m->size > n && i + n < m->size; i++)
    found = memcmp(m->image + i, name, n + 1) == 0 && (i == 0 || m->image[i - 1] == 0);
  if (!found) return 500;
  fake_function *f = calloc(1, sizeof *f);
  f->module = m;
  strncpy(f->name, name, sizeof f->name - 1);
  pthread_mutex_lock(&g_lock);
  g_stats.get_functions++;
  f->next = m->functions; /* as in the driver, a function lives as long as its module */
  m->functions = f;
  pthread_mutex_unlock(&g_lock);
  *fn = f;
  return 0;
}
EXPORT int cuFuncSetAttribute(void *fn, int attrib, int value) {
  (void)fn;
  pthread_mutex_lock(&g_lock);
  g_stats.set_attributes++;
  g_stats.last_attribute = attrib;
  g_stats.last_attribute_value = value;
  pthread_mutex_unlock(&g_lock);
  return 0;
}
EXPORT int cuFuncGetAttribute(int *v, int attrib, void *fn) {
  (void)attrib, (void)fn;
  *v = 0;
  return 0;
}
EXPORT int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **params, void **extra) {
  (void)extra;
  fake_function *f = fn;
  pthread_mutex_lock(&g_lock);
  int r = g_launch_result;
  if (r == 0) {
    fake_launch *l = &g_stats.last;
    memset(l, 0, sizeof *l);
    l->device = f->module->device;
    l->module = f->module->serial;
    strncpy(l->name, f->name, sizeof l->name - 1);
    l->grid[0] = gx, l->grid[1] = gy, l->grid[2] = gz;
    l->block[0] = bx, l->block[1] = by, l->block[2] = bz;
    l->shared = shared;
    l->stream = stream;
    l->ctx = g_current;
    l->nparams = g_nparam_sizes;
    for (int i = 0; i < g_nparam_sizes; i++) memcpy(l->params[i], params[i], g_param_sizes[i]);
    g_stats.launches++;
  }
  pthread_mutex_unlock(&g_lock);
  return r;
}
/* NVRTC opens libcuda.so.1 too (the fake, here) and asks for the driver's export
 * tables: there are none, so it falls back to working without a driver. */
EXPORT int cuGetExportTable(const void **table, const void *id) {
  (void)id;
  *table = NULL;
  return 500; /* CUDA_ERROR_NOT_FOUND */
}
EXPORT int cuMemAlloc_v2(unsigned long long *p, size_t n) {
  *p = (unsigned long long)(uintptr_t)calloc(1, n ? n : 1);
  return 0;
}
EXPORT int cuMemFree_v2(unsigned long long p) {
  free((void *)(uintptr_t)p);
  return 0;
}
EXPORT int cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) {
  memcpy((void *)(uintptr_t)d, s, n);
  return 0;
}
EXPORT int cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) {
  memcpy(d, (const void *)(uintptr_t)s, n);
  return 0;
}
EXPORT int cuMemsetD8_v2(unsigned long long d, unsigned char v, size_t n) {
  memset((void *)(uintptr_t)d, v, n);
  return 0;
}
EXPORT int cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  *s = malloc(1);
  return 0;
}
EXPORT int cuStreamDestroy_v2(void *s) {
  free(s);
  return 0;
}
EXPORT int cuStreamSynchronize(void *s) {
  (void)s;
  return 0;
}
EXPORT int cuEventCreate(void **e, unsigned flags) {
  (void)flags;
  *e = malloc(1);
  return 0;
}
EXPORT int cuEventRecord(void *e, void *s) {
  (void)e, (void)s;
  return 0;
}
EXPORT int cuEventSynchronize(void *e) {
  (void)e;
  return 0;
}
EXPORT int cuEventElapsedTime(float *ms, void *a, void *b) {
  (void)a, (void)b;
  *ms = 1.0f;
  return 0;
}
EXPORT int cuEventDestroy_v2(void *e) {
  free(e);
  return 0;
}
EXPORT int cuPointerGetAttribute(void *data, int attrib, unsigned long long p) {
  (void)data, (void)attrib, (void)p;
  return 1;
}
