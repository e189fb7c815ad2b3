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

/* tcc: libtcc in memory; registered only when the library was built with libtcc. */
extern const tl__exec_impl tl__exec_tcc;
bool tl__tcc_available(void);
const char *tl__tcc_unavailable_reason(void);

/* source: writes the code; calling its kernels fails with TL_EUNSUPPORTED. */
extern const tl__exec_impl tl__exec_source;

/* Registers the built-in implementations (idempotent). */
tl_status tl__runtime_register_builtins(void);

/* Shared by native and tcc: writes the device and host code as one translation
 * unit at `path`; turns a host entry's return code and message into a status. */
tl_status tl__write_translation_unit(const tl__build_request *req, const char *path);
tl_status tl__host_entry_result(int32_t rc, const char *err);

#endif
