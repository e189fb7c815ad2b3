/* The NVRTC symbol table: dlopen, all-or-nothing resolution, a one-time search
 * for the process-wide library, and compiling one program. */
#include "runtime/nvrtc_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/env.h"
#include "base/error.h"
#include "base/str.h"

/* True if dir/cuda_fp16.h exists. */
static bool has_fp16(const char *dir) {
  char path[600];
  int n = snprintf(path, sizeof path, "%s/cuda_fp16.h", dir);
  return n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0;
}

static bool try_dir(const char *dir, char *buf, size_t cap) {
  if (!dir || !*dir || strlen(dir) >= cap || !has_fp16(dir)) return false;
  snprintf(buf, cap, "%s", dir);
  return true;
}

/* dir of `lib` + "/" + rel, into out. */
static void beside(const char *lib, const char *rel, char *out, size_t cap) {
  out[0] = '\0';
  const char *slash = lib ? strrchr(lib, '/') : NULL;
  if (!slash) return;
  int n = snprintf(out, cap, "%.*s/%s", (int)(slash - lib), lib, rel);
  if (n < 0 || (size_t)n >= cap) out[0] = '\0';
}

void tl__cuda_find_include_dir(const char *lib, char *buf, size_t cap) {
  char tmp[600];
  buf[0] = '\0';
  const char *home = tl__env("CUDA_HOME"), *path = tl__env("CUDA_PATH");
  if (home && *home) {
    snprintf(tmp, sizeof tmp, "%s/include", home);
    if (try_dir(tmp, buf, cap)) return;
  }
  if (path && *path) {
    snprintf(tmp, sizeof tmp, "%s/include", path);
    if (try_dir(tmp, buf, cap)) return;
  }
  /* lib64/libnvrtc.so -> ../include; targets/x86_64-linux/lib -> ../include */
  static const char *const rel[] = {"../include", "../../include", NULL};
  for (size_t i = 0; rel[i]; i++) {
    beside(lib, rel[i], tmp, sizeof tmp);
    if (try_dir(tmp, buf, cap)) return;
  }
  if (try_dir("/usr/local/cuda/include", buf, cap)) return;
  try_dir("/usr/include", buf, cap);
}

tl_status tl__nvrtc_open(const char *path, tl__nvrtc *n) {
  memset(n, 0, sizeof *n);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    return tl__error(TL_EUNAVAILABLE, "NVRTC library %s could not be loaded (%s)", path, why ? why : "unknown reason");
  }
  tl__nvrtc tmp;
  memset(&tmp, 0, sizeof tmp);
  const char *missing = NULL;
#define TL__NVRTC_RESOLVE(field, ret, params) \
  if (!missing) {                             \
    void *p = dlsym(h, #field);               \
    if (p) memcpy(&tmp.field, &p, sizeof p);  \
    else missing = #field;                    \
  }
  TL__NVRTC_SYMBOLS(TL__NVRTC_RESOLVE)
#undef TL__NVRTC_RESOLVE
  if (missing) {
    dlclose(h);
    return tl__error(TL_EUNAVAILABLE,
                     "NVRTC library %s lacks the symbol %s; it is too old (NVRTC 11.1 or later is needed) or not "
                     "NVRTC",
                     path, missing);
  }
  tmp.handle = h;
  if (tmp.nvrtcVersion(&tmp.major, &tmp.minor) != TL__NVRTC_SUCCESS) tmp.major = tmp.minor = 0;
  snprintf(tmp.path, sizeof tmp.path, "%s", path);
  /* The library's own file tells which toolkit it belongs to. */
  Dl_info info;
  void *sym = NULL;
  memcpy(&sym, &tmp.nvrtcVersion, sizeof sym);
  const char *lib = dladdr(sym, &info) && info.dli_fname ? info.dli_fname : NULL;
  tl__cuda_find_include_dir(lib, tmp.include, sizeof tmp.include);
  *n = tmp;
  return TL_OK;
}

void tl__nvrtc_close(tl__nvrtc *n) {
  if (n->handle) dlclose(n->handle);
  memset(n, 0, sizeof *n);
}

/* ------------------------------------------------------------- process-wide */

static tl__nvrtc g_nvrtc;
static tl_status g_status;
static char g_reason[1024];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void open_once(void) {
  static const char *const sonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL};
  tl__sb tried = TL__SB_INIT;
  for (size_t i = 0; sonames[i]; i++) {
    if (tl__nvrtc_open(sonames[i], &g_nvrtc) == TL_OK) {
      g_status = TL_OK;
      tl__sb_free(&tried);
      return;
    }
  }
  const char *home = tl__env("CUDA_HOME");
  const char *dirs[] = {home && *home ? home : NULL, "/usr/local/cuda", NULL};
  for (size_t d = 0; d < 2; d++) {
    if (!dirs[d]) continue;
    for (size_t i = 0; sonames[i]; i++) {
      char path[600];
      snprintf(path, sizeof path, "%s/lib64/%s", dirs[d], sonames[i]);
      if (access(path, R_OK) != 0) continue;
      if (tl__nvrtc_open(path, &g_nvrtc) == TL_OK) {
        g_status = TL_OK;
        tl__sb_free(&tried);
        return;
      }
      tl__sb_appendf(&tried, "; %s", tl_last_error());
    }
  }
  g_status = TL_EUNAVAILABLE;
  snprintf(g_reason, sizeof g_reason,
           "NVRTC not found: libnvrtc.so.13, libnvrtc.so.12 and libnvrtc.so are not on the library path, nor in "
           "%s%s/usr/local/cuda/lib64%s; install the CUDA toolkit's NVRTC (cuda-nvrtc) or set CUDA_HOME",
           home && *home ? home : "", home && *home ? "/lib64 or " : "", tl__sb_str(&tried));
  tl__sb_free(&tried);
  tl__error_clear();
}

tl_status tl__nvrtc_get(const tl__nvrtc **out) {
  pthread_once(&g_once, open_once);
  if (g_status != TL_OK) {
    *out = NULL;
    return tl__error(g_status, "%s", g_reason);
  }
  *out = &g_nvrtc;
  return TL_OK;
}

bool tl__nvrtc_available(void) {
  pthread_once(&g_once, open_once);
  return g_status == TL_OK;
}

const char *tl__nvrtc_unavailable_reason(void) {
  pthread_once(&g_once, open_once);
  return g_status == TL_OK ? NULL : g_reason;
}

/* ---------------------------------------------------------------- compiling */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void tl__nvrtc_result_free(tl__nvrtc_result *r) {
  tl__free(r->cubin);
  tl__free(r->log);
  memset(r, 0, sizeof *r);
}

/* The program's log as a fresh string (trailing blanks trimmed). */
static char *program_log(const tl__nvrtc *n, tl__nvrtcProgram p) {
  size_t size = 0;
  if (n->nvrtcGetProgramLogSize(p, &size) != TL__NVRTC_SUCCESS) size = 0;
  char *log = tl__malloc(size + 1);
  if (!log) return NULL;
  log[0] = '\0';
  if (size && n->nvrtcGetProgramLog(p, log) != TL__NVRTC_SUCCESS) log[0] = '\0';
  log[size] = '\0';
  size_t len = strlen(log);
  while (len && (log[len - 1] == '\n' || log[len - 1] == ' ' || log[len - 1] == '\r')) log[--len] = '\0';
  return log;
}

tl_status tl__nvrtc_compile(const tl__nvrtc *n, const char *src, const char *name, const char *const *options,
                            int noptions, tl__nvrtc_result *out) {
  memset(out, 0, sizeof *out);
  tl__nvrtcProgram p = NULL;
  double t0 = now_ms();
  tl__nvrtcResult r = n->nvrtcCreateProgram(&p, src, name, 0, NULL, NULL);
  if (r != TL__NVRTC_SUCCESS)
    return tl__error(r == 1 ? TL_ENOMEM : TL_ERUNTIME, "nvrtcCreateProgram failed: %s", n->nvrtcGetErrorString(r));
  r = n->nvrtcCompileProgram(p, noptions, options);
  out->ms = now_ms() - t0;
  out->log = program_log(n, p);
  tl_status s = out->log ? TL_OK : tl__oom();
  if (s == TL_OK && r == TL__NVRTC_ERROR_COMPILATION) {
    s = tl__error(TL_ECOMPILE, "NVRTC %d.%d rejected %s:\n%s", n->major, n->minor, name, out->log);
  } else if (s == TL_OK && r != TL__NVRTC_SUCCESS) {
    s = tl__error(TL_ERUNTIME, "nvrtcCompileProgram failed on %s: %s%s%s", name, n->nvrtcGetErrorString(r),
                  *out->log ? "\n" : "", out->log);
  }
  if (s == TL_OK) {
    size_t size = 0;
    r = n->nvrtcGetCUBINSize(p, &size);
    if (r != TL__NVRTC_SUCCESS || size == 0) {
      s = tl__error(TL_ERUNTIME, "NVRTC produced no cubin for %s (%s); the architecture must be a real one (sm_XX)",
                    name, r != TL__NVRTC_SUCCESS ? n->nvrtcGetErrorString(r) : "empty");
    } else if (!(out->cubin = tl__malloc(size))) {
      s = tl__oom();
    } else if ((r = n->nvrtcGetCUBIN(p, out->cubin)) != TL__NVRTC_SUCCESS) {
      s = tl__error(TL_ERUNTIME, "nvrtcGetCUBIN failed: %s", n->nvrtcGetErrorString(r));
    } else {
      out->size = size;
    }
  }
  n->nvrtcDestroyProgram(&p);
  if (s != TL_OK) {
    tl__free(out->cubin);
    out->cubin = NULL;
    out->size = 0;
  }
  return s;
}
