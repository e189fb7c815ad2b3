/* The built-in execution backend implementations (exec_backend.h) and what the
 * backend manifests ask of them (availability, reasons). */
#ifndef TL_RUNTIME_EXEC_IMPLS_H
#define TL_RUNTIME_EXEC_IMPLS_H

#include "runtime/exec_backend.h"

/* native: the system C compiler ($CC, else cc) and dlopen. */
extern const tl__exec_impl tl__exec_native;
/* True if a C compiler was found (examined once per process). Thread-safe. */
bool tl__native_available(void);
/* Why not (a static string), or NULL when available. Thread-safe. */
const char *tl__native_unavailable_reason(void);
/* True if the compiler builds OpenMP code (-fopenmp). Thread-safe. */
bool tl__native_has_openmp(void);

/* Compiles the C file `src` into the shared object `so` with the system compiler
 * and native's flags (-O3 -fPIC -shared -fwrapv -ffp-contract=off -fno-trapping-math
 * -march=native; `portable` leaves out -march=native), -fopenmp when `openmp` and the compiler
 * has it, -lm and `libs` (NULL-terminated, may be NULL). TL_ECOMPILE with the
 * compiler's output; TL_EUNAVAILABLE without a compiler. Thread-safe. */
tl_status tl__native_compile_shared(const char *src, const char *so, bool openmp, bool portable,
                                    const char *const *libs);
/* The first line of `$CC --version` (static), or NULL with the message set. */
const char *tl__native_compiler_version(void);

/* tcc: libtcc in memory; registered only when the library was built with libtcc. */
extern const tl__exec_impl tl__exec_tcc;
bool tl__tcc_available(void);
const char *tl__tcc_unavailable_reason(void);

/* nvrtc: NVRTC (dlopen'd) compiles CUDA source to a cubin; the kernel table
 * launches it through the CUDA driver (nvrtc.c). Availability: tl__nvrtc_available
 * (nvrtc_lib.h). */
extern const tl__exec_impl tl__exec_nvrtc;

/* nvcc: device code compiled to a cubin by the device codegen (the cuda backend's
 * compile callback, nvcc), host code compiled with the C compiler into kernel.so
 * with the cubin embedded (nvcc.c). Availability: tl__nvcc_available (nvcc_tool.h). */
extern const tl__exec_impl tl__exec_nvcc;

/* source: writes the code; calling its kernels fails with TL_EUNSUPPORTED. */
extern const tl__exec_impl tl__exec_source;

/* Registers the built-in implementations (idempotent). */
tl_status tl__runtime_register_builtins(void);

/* Shared by native and tcc: writes the device and host code as one translation
 * unit at `path`; turns a host entry's return code and message into a status. */
tl_status tl__write_translation_unit(const tl__build_request *req, const char *path);
tl_status tl__host_entry_result(int32_t rc, const char *err);

#endif
