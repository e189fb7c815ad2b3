/* tilelang/runtime.h - what code generation hands on, and loaded, callable kernels.
 *
 * Launch metadata travels as data: an artifact carries a kernel table describing
 * the host entry's parameters (dtype, rank, each dimension constant or symbolic),
 * how the symbolic dimensions are bound, and the ordered kernel launches with their
 * argument mapping and grid/block extents as expressions over the symbolic dims.
 * No stage parses generated source to recover any of it. */
#ifndef TILELANG_RUNTIME_H
#define TILELANG_RUNTIME_H

#include "tilelang/base.h"
#include "tilelang/ffi.h"
#include "tilelang/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tl_target;
struct tl_artifact;

/* ------------------------------------------------------- launch expressions */

/* The launch expression and kernel table types (tl_launch_expr, tl_host_param,
 * tl_kernel_launch, tl_kernel_table, ...) are defined in tilelang/plugin.h, so that
 * plugins written against that header alone see the same definitions. */

/* Evaluates e with the symbolic dims' values. False on a malformed program or a zero
 * divisor. Thread-safe. */
TL_API bool tl_launch_expr_eval(const tl_launch_expr *e, const int64_t *syms, uint32_t nsyms, int64_t *out);

/* ----------------------------------------------------------- kernel table */

/* The table as compact JSON (tl_free it), and back. Used by the kernel cache. */
TL_API char *tl_kernel_table_to_json(const tl_kernel_table *t);
/* A new table owning all its memory; free with tl_kernel_table_free. */
TL_API tl_status tl_kernel_table_from_json(const char *json, tl_kernel_table **out);
TL_API tl_status tl_kernel_table_copy(const tl_kernel_table *t, tl_kernel_table **out);
TL_API void tl_kernel_table_free(tl_kernel_table *t);

/* Checks call arguments against the table's parameters (count, tensor/scalar kind,
 * dtype, ndim, constant dims, consistent symbolic dims, device type, non-NULL data,
 * data alignment, compact strides) and binds the symbolic dims into syms (nsyms entries). TL_EINVAL
 * naming the first offending parameter. Thread-safe. */
TL_API tl_status tl_kernel_table_bind_args(const tl_kernel_table *t, const tl_value *args, int nargs,
                                           int32_t device_type, int64_t *syms);

/* ---------------------------------------------------------------- kernels */

typedef struct tl_kernel tl_kernel;

/* Launches the kernel: args in the host entry's parameter order, tensors as
 * TL_VALUE_TENSOR (DLTensor*), scalars as INT/FLOAT/BOOL. Every argument is checked
 * before anything runs (TL_EINVAL naming the parameter). stream: the device stream
 * (NULL = the default stream); ignored on the CPU. A kernel built by an execution
 * backend that cannot run (`source`) fails with TL_EUNSUPPORTED naming the runtime
 * that was missing. Thread-safe. */
TL_API tl_status tl_kernel_call(tl_kernel *k, const tl_value *args, int nargs, void *stream);
TL_API tl_kernel *tl_kernel_retain(const tl_kernel *k);
TL_API void tl_kernel_release(const tl_kernel *k); /* NULL-safe */

/* Borrowed views, valid while the kernel lives. */
TL_API const char *tl_kernel_name(const tl_kernel *k);
TL_API const char *tl_kernel_execution_backend(const tl_kernel *k);
TL_API const struct tl_target *tl_kernel_target(const tl_kernel *k);
TL_API const tl_kernel_table *tl_kernel_get_table(const tl_kernel *k);
TL_API const char *tl_kernel_device_source(const tl_kernel *k); /* "" if none */
TL_API const char *tl_kernel_host_source(const tl_kernel *k);   /* "" if none */
/* True if the kernel came from the kernel cache (memory or disk). */
TL_API bool tl_kernel_from_cache(const tl_kernel *k);

/* ---------------------------------------------------------- device memory */
/* For callers whose data is on the host (tlc run, tests, C programs without a GPU
 * framework): where the kernel's tensors must live, and memory there through the
 * kernel's execution backend. Device ids are DLPack's device_id. Copies are
 * synchronous and ordered after work on the default stream. Kernels that run on
 * host memory report kDLCPU and the other calls fail with TL_EUNSUPPORTED
 * (tl_kernel_device_synchronize succeeds at once). Thread-safe. */

/* DLPack's DLDeviceType of the tensors the kernel takes (kDLCPU, kDLCUDA, ...). */
TL_API int32_t tl_kernel_device_type(const tl_kernel *k);
/* `bytes` of device memory on device `device_id` (at least 1 byte is allocated). */
TL_API tl_status tl_kernel_device_alloc(const tl_kernel *k, int32_t device_id, size_t bytes, void **out);
/* NULL-safe. */
TL_API void tl_kernel_device_free(const tl_kernel *k, int32_t device_id, void *data);
TL_API tl_status tl_kernel_copy_to_device(const tl_kernel *k, int32_t device_id, void *dst, const void *src,
                                          size_t bytes);
TL_API tl_status tl_kernel_copy_to_host(const tl_kernel *k, int32_t device_id, void *dst, const void *src,
                                        size_t bytes);
/* Waits until all work on the device has finished. */
TL_API tl_status tl_kernel_device_synchronize(const tl_kernel *k, int32_t device_id);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_RUNTIME_H */
