/* The CUDA driver API, opened at run time with dlopen("libcuda.so.1"): one X-macro
 * list of entry points expands into a struct of function pointers and its resolver.
 * Resolution is all or nothing; nothing links against libcuda, and no CUDA header
 * is needed (the few types and constants used are declared here). */
#ifndef TL_RUNTIME_CUDA_DRIVER_H
#define TL_RUNTIME_CUDA_DRIVER_H

#include <stddef.h>

#include "tilelang/base.h"

typedef int tl__CUresult;
typedef int tl__CUdevice;
typedef unsigned long long tl__CUdeviceptr;
typedef struct tl__CUctx_st *tl__CUcontext;
typedef struct tl__CUmod_st *tl__CUmodule;
typedef struct tl__CUfunc_st *tl__CUfunction;
typedef struct tl__CUstream_st *tl__CUstream;
typedef struct tl__CUevent_st *tl__CUevent;

/* CUresult values the library tells apart (cuda.h). */
enum {
  TL__CUDA_SUCCESS = 0,
  TL__CUDA_ERROR_NOT_INITIALIZED = 3,
  TL__CUDA_ERROR_DEINITIALIZED = 4,
  TL__CUDA_ERROR_STUB_LIBRARY = 34,
  TL__CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  TL__CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  TL__CUDA_ERROR_NO_DEVICE = 100,
  TL__CUDA_ERROR_INVALID_DEVICE = 101,
  TL__CUDA_ERROR_OPERATING_SYSTEM = 304,
  TL__CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  TL__CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
};

/* CUdevice_attribute values (cuda.h). */
enum {
  TL__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  TL__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  TL__CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  TL__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  TL__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  TL__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  TL__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/* X(field, symbol, return type, parameters): `symbol` is the name the driver
 * exports, the versioned one where cuda.h maps the API name to a _v2 symbol. */
#define TL__CUDA_DRIVER_SYMBOLS(X)                                                                     \
  X(cuInit, "cuInit", tl__CUresult, (unsigned int flags))                                             \
  X(cuDriverGetVersion, "cuDriverGetVersion", tl__CUresult, (int *version))                           \
  X(cuGetErrorName, "cuGetErrorName", tl__CUresult, (tl__CUresult error, const char **str))           \
  X(cuGetErrorString, "cuGetErrorString", tl__CUresult, (tl__CUresult error, const char **str))       \
  X(cuDeviceGet, "cuDeviceGet", tl__CUresult, (tl__CUdevice * device, int ordinal))                   \
  X(cuDeviceGetCount, "cuDeviceGetCount", tl__CUresult, (int *count))                                 \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", tl__CUresult, (int *value, int attrib, tl__CUdevice dev)) \
  X(cuDeviceGetName, "cuDeviceGetName", tl__CUresult, (char *name, int len, tl__CUdevice dev))         \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", tl__CUresult, (size_t * bytes, tl__CUdevice dev))        \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", tl__CUresult,                               \
    (tl__CUcontext * pctx, tl__CUdevice dev))                                                         \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", tl__CUresult, (tl__CUdevice dev))      \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", tl__CUresult, (tl__CUcontext * pctx))                         \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", tl__CUresult, (tl__CUcontext ctx))                            \
  X(cuCtxGetDevice, "cuCtxGetDevice", tl__CUresult, (tl__CUdevice * device))                          \
  X(cuCtxSynchronize, "cuCtxSynchronize", tl__CUresult, (void))                                       \
  X(cuModuleLoadData, "cuModuleLoadData", tl__CUresult, (tl__CUmodule * module, const void *image))   \
  X(cuModuleUnload, "cuModuleUnload", tl__CUresult, (tl__CUmodule module))                            \
  X(cuModuleGetFunction, "cuModuleGetFunction", tl__CUresult,                                         \
    (tl__CUfunction * fn, tl__CUmodule module, const char *name))                                     \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", tl__CUresult, (tl__CUfunction fn, int attrib, int value)) \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", tl__CUresult, (int *value, int attrib, tl__CUfunction fn)) \
  X(cuLaunchKernel, "cuLaunchKernel", tl__CUresult,                                                   \
    (tl__CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,  \
     unsigned shared_bytes, tl__CUstream stream, void **params, void **extra))                        \
  X(cuMemAlloc, "cuMemAlloc_v2", tl__CUresult, (tl__CUdeviceptr * dptr, size_t bytes))               \
  X(cuMemFree, "cuMemFree_v2", tl__CUresult, (tl__CUdeviceptr dptr))                                  \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", tl__CUresult, (tl__CUdeviceptr dst, const void *src, size_t bytes)) \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", tl__CUresult, (void *dst, tl__CUdeviceptr src, size_t bytes))    \
  X(cuMemsetD8, "cuMemsetD8_v2", tl__CUresult, (tl__CUdeviceptr dst, unsigned char value, size_t n))  \
  X(cuStreamCreate, "cuStreamCreate", tl__CUresult, (tl__CUstream * stream, unsigned int flags))      \
  X(cuStreamDestroy, "cuStreamDestroy_v2", tl__CUresult, (tl__CUstream stream))                       \
  X(cuStreamSynchronize, "cuStreamSynchronize", tl__CUresult, (tl__CUstream stream))                  \
  X(cuEventCreate, "cuEventCreate", tl__CUresult, (tl__CUevent * event, unsigned int flags))          \
  X(cuEventRecord, "cuEventRecord", tl__CUresult, (tl__CUevent event, tl__CUstream stream))           \
  X(cuEventSynchronize, "cuEventSynchronize", tl__CUresult, (tl__CUevent event))                      \
  X(cuEventElapsedTime, "cuEventElapsedTime", tl__CUresult, (float *ms, tl__CUevent start, tl__CUevent end)) \
  X(cuEventDestroy, "cuEventDestroy_v2", tl__CUresult, (tl__CUevent event))                           \
  X(cuPointerGetAttribute, "cuPointerGetAttribute", tl__CUresult,                                     \
    (void *data, int attrib, tl__CUdeviceptr ptr))

typedef struct tl__cuda_driver {
#define TL__CUDA_DRIVER_FIELD(field, symbol, ret, params) ret(*field) params;
  TL__CUDA_DRIVER_SYMBOLS(TL__CUDA_DRIVER_FIELD)
#undef TL__CUDA_DRIVER_FIELD
  void *handle;       /* the dlopen handle */
  int driver_version; /* cuDriverGetVersion after a successful cuInit, else 0 */
} tl__cuda_driver;

/* The default library name. */
#define TL__CUDA_DRIVER_LIBRARY "libcuda.so.1"

/* Opens `path` and resolves every symbol of the list into *d (all or nothing: on
 * failure *d is zeroed and the library closed). TL_EUNAVAILABLE with the library,
 * the missing symbol and what to do. No cuInit. Not cached: for tests and tools. */
tl_status tl__cuda_driver_open(const char *path, tl__cuda_driver *d);
/* Closes a table opened by tl__cuda_driver_open. */
void tl__cuda_driver_close(tl__cuda_driver *d);

/* The process-wide driver: libcuda.so.1 opened, resolved and initialised (cuInit)
 * once, on first use, under a once-guard. TL_EUNAVAILABLE when the library, a
 * symbol or a usable device is missing (a stub library, no device, a driver too
 * old: see tl__cuda_is_no_device), with a message saying which; the outcome is
 * kept, so later calls answer at once with the same message. Thread-safe. */
tl_status tl__cuda_driver_get(const tl__cuda_driver **out);

/* True for results that mean "no usable CUDA device here" rather than a failure:
 * no device, a stub library, no or an incompatible driver. */
int tl__cuda_is_no_device(tl__CUresult r);
/* "CUDA_ERROR_NO_DEVICE" for a result, through the driver when it can say;
 * "CUDA error <n>" otherwise. Static or driver-owned storage. */
const char *tl__cuda_error_name(const tl__cuda_driver *d, tl__CUresult r);
/* The driver's description of a result ("no CUDA-capable device is detected"), or "". */
const char *tl__cuda_error_string(const tl__cuda_driver *d, tl__CUresult r);

#endif
