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

/* An integer expression over the symbolic dims, as a postfix program: evaluating
 * it is a short loop, with no allocation, at every launch. */
typedef enum tl_lexpr_op {
  TL_LX_CONST,    /* push value */
  TL_LX_SYM,      /* push syms[value] */
  TL_LX_ADD, TL_LX_SUB, TL_LX_MUL,
  TL_LX_FLOORDIV, TL_LX_FLOORMOD, /* Python semantics; a zero divisor fails evaluation */
  TL_LX_MIN, TL_LX_MAX
} tl_lexpr_op;

typedef struct tl_lexpr_insn {
  int32_t op; /* tl_lexpr_op */
  int64_t value;
} tl_lexpr_insn;

typedef struct tl_launch_expr {
  uint32_t n;                 /* 0 means the constant 1 */
  const tl_lexpr_insn *code;
} tl_launch_expr;

/* Evaluates e with the symbolic dims' values. False on a malformed program or a zero
 * divisor. Thread-safe. */
TL_API bool tl_launch_expr_eval(const tl_launch_expr *e, const int64_t *syms, uint32_t nsyms, int64_t *out);

/* ----------------------------------------------------------- kernel table */

/* One dimension of a host parameter: a constant, or symbolic dim `sym`. */
typedef struct tl_host_dim {
  int64_t value; /* the constant (when sym < 0) */
  int32_t sym;   /* index into the table's syms, or -1 */
} tl_host_dim;

typedef struct tl_host_param {
  const char *name;
  bool is_tensor;           /* false: a scalar of dtype */
  tl_dtype dtype;           /* element dtype for tensors */
  uint32_t ndim;
  const tl_host_dim *dims;  /* ndim entries */
  bool is_output;           /* made by T.empty (jit style) */
  uint32_t data_alignment;  /* tensors: bytes `data + byte_offset` must be a multiple of
                             * (the device code uses vector accesses); 0: no requirement */
} tl_host_param;

/* Where a symbolic dim's value comes from: the first parameter dimension that uses
 * it (tensor `param`, dimension `dim`), or a scalar parameter (dim = -1). Every other
 * use is checked against it. */
typedef struct tl_host_sym {
  const char *name;
  uint32_t param;
  int32_t dim;
} tl_host_sym;

typedef enum tl_kernel_arg_kind {
  TL_KARG_TENSOR, /* the data pointer of host param `index` */
  TL_KARG_SCALAR, /* the value of scalar host param `index` */
  TL_KARG_SYM     /* the value of symbolic dim `index` */
} tl_kernel_arg_kind;

typedef struct tl_kernel_arg {
  int32_t kind;  /* tl_kernel_arg_kind */
  uint32_t index;
  tl_dtype dtype; /* element dtype (tensors) or value dtype */
} tl_kernel_arg;

typedef struct tl_kernel_launch {
  const char *symbol;          /* device function symbol */
  uint32_t nargs;
  const tl_kernel_arg *args;   /* in the device function's parameter order */
  tl_launch_expr grid[3];
  tl_launch_expr block[3];
  tl_launch_expr dyn_shared_bytes;
} tl_kernel_launch;

typedef struct tl_kernel_table {
  const char *entry;           /* the host entry's symbol (the tile-level function's name) */
  uint32_t nparams;
  const tl_host_param *params;
  uint32_t nsyms;
  const tl_host_sym *syms;
  uint32_t nlaunches;
  const tl_kernel_launch *launches; /* in execution order */
} tl_kernel_table;

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

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_RUNTIME_H */
