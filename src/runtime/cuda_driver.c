/* The CUDA driver symbol table: dlopen, all-or-nothing resolution, one-time
 * process-wide initialisation. */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"

tl_status tl__cuda_driver_open(const char *path, tl__cuda_driver *d) {
  memset(d, 0, sizeof *d);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    return tl__error(TL_EUNAVAILABLE,
                     "CUDA driver library %s could not be loaded (%s); install the NVIDIA driver, or add the "
                     "directory holding %s to LD_LIBRARY_PATH",
                     path, why ? why : "unknown reason", path);
  }
  tl__cuda_driver tmp;
  memset(&tmp, 0, sizeof tmp);
  const char *missing = NULL;
  /* POSIX allows converting dlsym's void* to a function pointer; memcpy keeps
   * -Wpedantic quiet about it. */
#define TL__CUDA_DRIVER_RESOLVE(field, symbol, ret, params) \
  if (!missing) {                                           \
    void *p = dlsym(h, symbol);                             \
    if (p) memcpy(&tmp.field, &p, sizeof p);                \
    else missing = symbol;                                  \
  }
  TL__CUDA_DRIVER_SYMBOLS(TL__CUDA_DRIVER_RESOLVE)
#undef TL__CUDA_DRIVER_RESOLVE
  if (missing) {
    dlclose(h);
    return tl__error(TL_EUNAVAILABLE,
                     "CUDA driver library %s lacks the symbol %s; the driver is too old or the library is not "
                     "the NVIDIA driver (install a current NVIDIA driver)",
                     path, missing);
  }
  tmp.handle = h;
  *d = tmp;
  return TL_OK;
}

void tl__cuda_driver_close(tl__cuda_driver *d) {
  if (d->handle) dlclose(d->handle);
  memset(d, 0, sizeof *d);
}

int tl__cuda_is_no_device(tl__CUresult r) {
  switch (r) {
    case TL__CUDA_ERROR_NO_DEVICE:
    case TL__CUDA_ERROR_INVALID_DEVICE:
    case TL__CUDA_ERROR_STUB_LIBRARY:
    case TL__CUDA_ERROR_INSUFFICIENT_DRIVER:
    case TL__CUDA_ERROR_DEVICE_UNAVAILABLE:
    case TL__CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case TL__CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    case TL__CUDA_ERROR_NOT_INITIALIZED:
    case TL__CUDA_ERROR_DEINITIALIZED:
    case TL__CUDA_ERROR_OPERATING_SYSTEM: return 1;
    default: return 0;
  }
}

const char *tl__cuda_error_name(const tl__cuda_driver *d, tl__CUresult r) {
  const char *s = NULL;
  if (d && d->cuGetErrorName && d->cuGetErrorName(r, &s) == TL__CUDA_SUCCESS && s) return s;
  static _Thread_local char buf[32];
  snprintf(buf, sizeof buf, "CUDA error %d", r);
  return buf;
}

const char *tl__cuda_error_string(const tl__cuda_driver *d, tl__CUresult r) {
  const char *s = NULL;
  if (d && d->cuGetErrorString && d->cuGetErrorString(r, &s) == TL__CUDA_SUCCESS && s) return s;
  return "";
}

/* The process-wide table and the outcome of opening it. */
static tl__cuda_driver g_driver;
static tl_status g_status;
static char g_message[512];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void open_once(void) {
  g_status = tl__cuda_driver_open(TL__CUDA_DRIVER_LIBRARY, &g_driver);
  if (g_status == TL_OK) {
    tl__CUresult r = g_driver.cuInit(0);
    if (r != TL__CUDA_SUCCESS) {
      g_status = TL_EUNAVAILABLE;
      snprintf(g_message, sizeof g_message, "%s: cuInit failed with %s (%s)%s", TL__CUDA_DRIVER_LIBRARY,
               tl__cuda_error_name(&g_driver, r), tl__cuda_error_string(&g_driver, r),
               tl__cuda_is_no_device(r) ? ": no usable CUDA device" : "");
      /* Keep the library open: tl__cuda_error_name may still be asked about r. */
      return;
    }
    int v = 0;
    if (g_driver.cuDriverGetVersion(&v) == TL__CUDA_SUCCESS) g_driver.driver_version = v;
    return;
  }
  snprintf(g_message, sizeof g_message, "%s", tl_last_error());
}

tl_status tl__cuda_driver_get(const tl__cuda_driver **out) {
  pthread_once(&g_once, open_once);
  if (g_status != TL_OK) {
    *out = NULL;
    return tl__error(g_status, "%s", g_message);
  }
  *out = &g_driver;
  return TL_OK;
}
