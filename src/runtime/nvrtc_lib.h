/* NVRTC, opened at run time with dlopen: one X-macro list of entry points expands
 * into a struct of function pointers and its resolver, all or nothing (as the CUDA
 * driver table, cuda_driver.h). No NVRTC header or link-time dependency. The
 * process-wide library is searched once: libnvrtc.so.13, libnvrtc.so.12,
 * libnvrtc.so through the dynamic loader, then in $CUDA_HOME/lib64 and
 * /usr/local/cuda/lib64. */
#ifndef TL_RUNTIME_NVRTC_LIB_H
#define TL_RUNTIME_NVRTC_LIB_H

#include <stddef.h>

#include "tilelang/base.h"

typedef int tl__nvrtcResult;
typedef struct tl__nvrtcProgram_st *tl__nvrtcProgram;

enum { TL__NVRTC_SUCCESS = 0, TL__NVRTC_ERROR_COMPILATION = 6 };

/* X(field, return type, parameters) */
#define TL__NVRTC_SYMBOLS(X)                                                                                 \
  X(nvrtcGetErrorString, const char *, (tl__nvrtcResult result))                                            \
  X(nvrtcVersion, tl__nvrtcResult, (int *major, int *minor))                                                \
  X(nvrtcCreateProgram, tl__nvrtcResult,                                                                     \
    (tl__nvrtcProgram * prog, const char *src, const char *name, int num_headers, const char *const *headers, \
     const char *const *include_names))                                                                      \
  X(nvrtcDestroyProgram, tl__nvrtcResult, (tl__nvrtcProgram * prog))                                        \
  X(nvrtcCompileProgram, tl__nvrtcResult, (tl__nvrtcProgram prog, int num_options, const char *const *options)) \
  X(nvrtcGetProgramLogSize, tl__nvrtcResult, (tl__nvrtcProgram prog, size_t *size))                          \
  X(nvrtcGetProgramLog, tl__nvrtcResult, (tl__nvrtcProgram prog, char *log))                                 \
  X(nvrtcGetCUBINSize, tl__nvrtcResult, (tl__nvrtcProgram prog, size_t *size))                               \
  X(nvrtcGetCUBIN, tl__nvrtcResult, (tl__nvrtcProgram prog, char *cubin))

typedef struct tl__nvrtc {
#define TL__NVRTC_FIELD(field, ret, params) ret(*field) params;
  TL__NVRTC_SYMBOLS(TL__NVRTC_FIELD)
#undef TL__NVRTC_FIELD
  void *handle;
  int major, minor;  /* nvrtcVersion */
  char path[512];    /* the library opened (as given, or the directory searched) */
  char include[512]; /* the CUDA include directory holding cuda_fp16.h, "" if none found */
} tl__nvrtc;

/* Opens `path` and resolves every symbol (all or nothing: on failure *n is zeroed
 * and the library closed); reads the version and looks for the CUDA include
 * directory. TL_EUNAVAILABLE naming the library, the missing symbol and what to
 * do. Not cached: for tests and tools. */
tl_status tl__nvrtc_open(const char *path, tl__nvrtc *n);
void tl__nvrtc_close(tl__nvrtc *n);

/* The process-wide NVRTC, searched and opened once (the outcome is kept: later
 * calls answer at once with the same message). TL_EUNAVAILABLE saying what was
 * tried and how to fix it. Thread-safe. */
tl_status tl__nvrtc_get(const tl__nvrtc **out);
/* True if the process-wide NVRTC loads; why not (static storage) or NULL. */
bool tl__nvrtc_available(void);
const char *tl__nvrtc_unavailable_reason(void);

/* The CUDA include directory for cuda_fp16.h / cuda_bf16.h: $CUDA_HOME/include,
 * $CUDA_PATH/include, the toolkit the library `lib` lives in (NULL: not known),
 * /usr/local/cuda/include, /usr/include; written into buf, "" if none has
 * cuda_fp16.h. */
void tl__cuda_find_include_dir(const char *lib, char *buf, size_t cap);

/* What one NVRTC compilation gave: the cubin (tl__free), NVRTC's log (tl__free,
 * "" if none) and NVRTC's own time. */
typedef struct tl__nvrtc_result {
  char *cubin;
  size_t size;
  char *log;
  double ms;
} tl__nvrtc_result;

/* Compiles `src` (named `name` in messages) with `options` to a cubin. A rejected
 * program is TL_ECOMPILE with the log and the source's name; *out then holds the
 * log only. Thread-safe (NVRTC programs are independent). */
tl_status tl__nvrtc_compile(const tl__nvrtc *n, const char *src, const char *name, const char *const *options,
                            int noptions, tl__nvrtc_result *out);
void tl__nvrtc_result_free(tl__nvrtc_result *r);

#endif
