/* tilelang/plugin.h - everything a backend plugin needs, in one standalone header.
 *
 * This header includes only standard C headers, so a plugin (a shared library that
 * declares a complete backend) compiles against it alone and needs no link-time
 * dependency on the library: registration and the other services reach the plugin
 * through the host table (tl_plugin_host) its init function receives.
 *
 * It is also the one place where the types shared by the library and its plugins are
 * defined: the status codes, tl_value and packed functions, data types, the
 * descriptors of the backend system (pipelines, codegens, hooks, execution backend
 * specs, manifests), kernel tables (launch metadata), execution backend
 * implementations, and the plain-data descriptions a plugin hands to the library's
 * shared GPU lowering and C-family code generator. The library's own headers
 * (base.h, ffi.h, ir.h, backend.h, runtime.h) obtain them from here, so there is
 * exactly one definition of each.
 *
 * Writing a plugin:
 *
 *     #include "tilelang/plugin.h"
 *
 *     TL_PLUGIN_ABI_VERSION_SYMBOL();          // exports tl_plugin_abi_version
 *
 *     static const tl_backend_module my_backend = { sizeof(tl_backend_module), "mine", ... };
 *
 *     TL_PLUGIN_EXPORT tl_status tl_plugin_init(const tl_plugin_host *host) {
 *       return host->register_backend(&my_backend, NULL);
 *     }
 *
 * The library loads it from TL_PLUGIN_PATH or from a lazy registration's import
 * path ("path/libmine.so" or "path/libmine.so:my_init"), at most once per import
 * path. See docs/backend-registry.md for the whole model, and docs/writing-a-backend.md
 * for a complete backend written as a plugin (src/backends/opencl/). */
#ifndef TILELANG_PLUGIN_H
#define TILELANG_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* =========================================================== status codes */

/* The one list of status codes: X(name, value, default message). */
#define TL_STATUS_MAP(X)                                                              \
  X(TL_OK, 0, "success")                                                              \
  X(TL_EINVAL, 1, "invalid argument")                                                 \
  X(TL_ENOTFOUND, 2, "not found")                                                     \
  X(TL_EEXIST, 3, "conflicting registration")                                         \
  X(TL_EUNAVAILABLE, 4, "a library, toolchain or device needed for this is missing") \
  X(TL_EUNSUPPORTED, 5, "the component cannot do the requested mode")                 \
  X(TL_ECOMPILE, 6, "an external compiler rejected generated code")                   \
  X(TL_ERUNTIME, 7, "driver or launch failure")                                       \
  X(TL_EIO, 8, "input/output error")                                                  \
  X(TL_ENOMEM, 9, "out of memory")                                                    \
  X(TL_EINTERNAL, 10, "internal error")

typedef enum tl_status {
#define TL__STATUS_ENUM(name, value, msg) name = value,
  TL_STATUS_MAP(TL__STATUS_ENUM)
#undef TL__STATUS_ENUM
} tl_status;

/* ============================================================ opaque types */

typedef struct tl_target tl_target;         /* tilelang/target.h */
typedef struct tl_ir_module tl_ir_module;   /* tilelang/ir.h */
typedef struct tl_artifact tl_artifact;     /* generated code, tilelang/backend.h */
struct DLTensor;                            /* dlpack/dlpack.h */

/* ============================================================== data types */

/* Codes match DLPack's DLDataTypeCode, so a tensor's dtype compares directly. */
typedef enum tl_dtype_code {
  TL_DTYPE_INT = 0,
  TL_DTYPE_UINT = 1,
  TL_DTYPE_FLOAT = 2,
  TL_DTYPE_HANDLE = 3,
  TL_DTYPE_BFLOAT = 4,
  TL_DTYPE_BOOL = 6
} tl_dtype_code;

typedef struct tl_dtype {
  uint8_t code;   /* tl_dtype_code */
  uint8_t bits;   /* 8, 16, 32, 64; bool is 8 bits (as DLPack's kDLBool) */
  uint16_t lanes; /* 1 for scalars; > 1 for vectors made by vectorization */
} tl_dtype;

/* =============================================== values and packed functions */

typedef enum tl_value_kind {
  TL_VALUE_NONE,
  TL_VALUE_INT,
  TL_VALUE_FLOAT,
  TL_VALUE_BOOL,
  TL_VALUE_STR,
  TL_VALUE_BYTES,
  TL_VALUE_PTR,
  TL_VALUE_TARGET,
  TL_VALUE_IR_MODULE,
  TL_VALUE_ARTIFACT,
  TL_VALUE_TENSOR /* DLTensor* */
} tl_value_kind;

/* A tagged value passed to and returned from packed functions. Arguments are
 * borrowed. A returned STR/BYTES (memory from the library's allocator, freed by
 * tl_free), ARTIFACT or TARGET (a reference) is owned by the caller: release it with
 * tl_value_clear. */
typedef struct tl_value {
  tl_value_kind kind;
  size_t size; /* for STR/BYTES */
  union {
    int64_t i;
    double f;
    bool b;
    const char *s;
    const void *bytes;
    void *ptr;
    const struct tl_target *target;
    struct tl_ir_module *mod;
    struct tl_artifact *artifact;
    struct DLTensor *tensor;
  } v;
} tl_value;

/* A global function (tvm_ffi's packed function). `ret` starts as NONE. */
typedef tl_status (*tl_packed_fn)(const tl_value *args, int nargs, tl_value *ret, void *user_data);

/* ====================================================== backend descriptors
 *
 * Plain structs the caller fills, usually `static const`. Registration keeps the
 * pointer: they must stay alive and unchanged for the life of the process. */

/* Whether a component accepts a target (upstream TargetPredicate). Must be cheap,
 * thread-safe and free of side effects: the registry calls it on every resolution. */
typedef bool (*tl_target_predicate)(const tl_target *target, void *user_data);

/* PassPipeline: lowers the module in place for a target of its kind. */
typedef struct tl_pass_pipeline {
  const char *name; /* equals the target kind it is declared for */
  tl_status (*lower)(tl_ir_module *mod, const tl_target *target, void *user_data);
  void *user_data;
} tl_pass_pipeline;

/* DeviceCodegen: device code for one backend target variant. */
typedef tl_status (*tl_device_codegen_fn)(tl_ir_module *mod, const tl_target *target, void *user_data,
                                          tl_artifact **out);
typedef struct tl_device_codegen_call {
  tl_device_codegen_fn fn; /* NULL: the mode is not supported */
  void *user_data;
} tl_device_codegen_call;
typedef struct tl_device_codegen {
  const char *name;
  tl_device_codegen_call build;                 /* compiles; fn may be NULL */
  tl_device_codegen_call build_without_compile; /* source only; fn may be NULL */
  tl_target_predicate supports_target;          /* NULL: every target of its kind */
  void *predicate_data;
} tl_device_codegen;

/* HostCodegen: host code for one host target variant. */
typedef tl_status (*tl_host_codegen_fn)(tl_ir_module *mod, const tl_target *target_host, void *user_data,
                                        tl_artifact **out);
typedef struct tl_host_codegen {
  const char *name;
  tl_host_codegen_fn build;
  void *user_data;
  tl_target_predicate supports_target; /* on the host target; NULL: every host target of its kind */
  void *predicate_data;
} tl_host_codegen;

/* HostCodegenHook: a device backend's preparation of the module before host codegen. */
typedef tl_status (*tl_host_codegen_hook_fn)(tl_ir_module *mod, const tl_target *target_host,
                                             const tl_target *target, void *user_data);
typedef struct tl_host_codegen_hook {
  const char *name;
  tl_host_codegen_hook_fn apply;
  void *user_data;
  tl_target_predicate supports_target; /* on the device target; NULL: every target of its kind */
  void *predicate_data;
} tl_host_codegen_hook;

/* ExecutionBackendSpec: what a manifest declares about a shared execution backend. */
typedef struct tl_execution_backend_spec {
  const char *name;                      /* lowercase: requests are lowered before comparing */
  bool (*is_available)(void *user_data); /* NULL: always available; called on every resolution */
  tl_target_predicate supports_target;   /* NULL: every target */
  void *user_data;                       /* for is_available, supports_target, unavailable_reason */
  bool enable_host_codegen;              /* the library generates the host side (host codegen runs) */
  bool enable_device_compile;            /* device codegen compiles (build, not build_without_compile) */
  /* Optional: why is_available returns false ("libnvrtc.so.12 not found"), for tools
   * such as `tlc backends`. A string that stays valid; NULL when unknown. */
  const char *(*unavailable_reason)(void *user_data);
} tl_execution_backend_spec;

/* The entries of a manifest's mappings: arrays ended by an entry whose key is NULL. */
typedef struct tl_pipeline_entry {
  const char *target_kind;
  const tl_pass_pipeline *pipeline;
} tl_pipeline_entry;
typedef struct tl_device_codegen_entry {
  const char *target_kind;
  const tl_device_codegen *codegen;
} tl_device_codegen_entry;
typedef struct tl_host_codegen_entry {
  const char *target_host_kind;
  const tl_host_codegen *codegen;
} tl_host_codegen_entry;
typedef struct tl_host_codegen_hooks_entry {
  const char *target_kind;
  const tl_host_codegen_hook *const *hooks; /* NULL-terminated, non-empty */
} tl_host_codegen_hooks_entry;
typedef struct tl_callback_entry {
  const char *name; /* registered as a global function (with override) */
  tl_packed_fn fn;
  void *user_data;
} tl_callback_entry;

/* BackendModule: the complete manifest of one backend. */
typedef struct tl_backend_module {
  size_t struct_size;                    /* sizeof(tl_backend_module); 0 means the current size */
  const char *name;
  const char *const *target_kinds;       /* NULL-terminated */
  const tl_pipeline_entry *pipelines;    /* {NULL}-terminated, exactly one per kind */
  const tl_device_codegen_entry *device_codegens; /* {NULL}-terminated, exactly one per kind */
  const tl_execution_backend_spec *const *execution_backends; /* NULL-terminated, 'auto' order */
  tl_target_predicate supports_target;   /* NULL: every target of its kinds */
  void *predicate_data;
  const tl_host_codegen_entry *host_codegens;            /* may be NULL */
  const tl_host_codegen_hooks_entry *host_codegen_hooks; /* may be NULL */
  const tl_callback_entry *callbacks;                    /* may be NULL */
} tl_backend_module;

/* ============================================================ kernel tables
 *
 * Launch metadata as data (docs/lowering.md, "The kernel table"): what an artifact
 * carries so that a runtime launches device kernels without host code and without
 * reading generated source back. Every table the library hands out is one block
 * (tl_kernel_table_free / the host table's kernel_table_free). */

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

/* ============================================ execution backend implementations
 *
 * The shared code that builds, loads and launches what code generation produced. A
 * manifest's tl_execution_backend_spec names one by `name`; the engine looks the
 * implementation up by that name (the built-ins: native, tcc, source; a plugin
 * registers its own through the host table's register_exec_impl). The kernel cache
 * sits between build and load: build writes files into a directory (a cache staging
 * directory or a scratch one), load reads them back from a directory, possibly in a
 * later process. */

/* What to build or load. Made by the library; fields are only appended. */
typedef struct tl_build_request {
  const char *func_name;             /* the host entry's symbol */
  const tl_target *target;           /* device target, host attached */
  const tl_artifact *device;         /* device code (source or binary); may be NULL */
  const tl_artifact *host;           /* host code; NULL when the spec disables host codegen */
  const tl_kernel_table *table;      /* may be NULL (an entry a table cannot describe) */
  const char *const *pass_configs;   /* "key=value" strings, NULL-terminated; may be NULL */
} tl_build_request;

/* A loaded kernel's runtime state and how to call and free it. `call` receives the
 * caller's arguments unchanged (tl_kernel_call: tensors as DLTensor*, scalars) and
 * must check every one before launching; it may run on many threads at once. */
typedef struct tl_loaded_kernel {
  void *state;
  tl_status (*call)(void *state, const tl_value *args, int nargs, void *stream);
  void (*destroy)(void *state); /* may be NULL */
} tl_loaded_kernel;

typedef struct tl_exec_impl {
  size_t struct_size;        /* sizeof(tl_exec_impl); 0 means the current size */
  const char *name;          /* "native", "tcc", "source", "opencl", ... */
  /* Files build writes (NULL-terminated); a cache entry is complete when all exist. */
  const char *const *files;
  /* Identity of the toolchain, device and flags, for the cache key ("gcc 12.2.0|-O3
   * ..."). A string that stays valid (static, or cached by the implementation);
   * NULL on failure with the message set. The engine asks before lowering (the key
   * decides whether to lower at all): only func_name, target and pass_configs of
   * `req` are set then. */
  const char *(*identity)(const tl_build_request *req);
  /* Writes what load needs into `dir` (which exists and is private). */
  tl_status (*build)(const tl_build_request *req, const char *dir);
  /* Loads from `dir` (what build wrote, perhaps in another process). */
  tl_status (*load)(const tl_build_request *req, const char *dir, tl_loaded_kernel *out);
} tl_exec_impl;

/* ========================================================= shared GPU lowering
 *
 * The parameters a backend runs the library's shared GPU pass list with
 * (docs/lowering.md, "The GPU pipeline"); the target's thread_warp_size,
 * max_threads_per_block and (when larger) max_shared_memory_per_block override
 * them. */
typedef struct tl_gpu_lower_params {
  size_t struct_size;            /* sizeof(tl_gpu_lower_params); 0 means the current size */
  int64_t warp_size;             /* lanes exchanging with warp shuffles; <= 1: shared memory only */
  int64_t max_threads;           /* threads per block */
  int64_t max_shared_bytes;      /* shared memory per block, static and dynamic together */
  int64_t static_shared_bytes;   /* a kernel needing more uses dynamic shared memory */
  int64_t vector_bytes;          /* the widest vector access (16) */
  const char *launch_convention; /* module attribute tl.launch_convention; NULL: none */
} tl_gpu_lower_params;

/* ====================================================== C-family dialects
 *
 * A C-like language (OpenCL C, CUDA, HIP, Metal, C) as plain data, printed by the
 * library's one C-family printer (docs/codegen.md, "Dialects as plain data"). NULL
 * fields take the documented default. Templates use placeholders; `$$` is a dollar
 * sign; a statement template may span lines ("\n"), each further line getting the
 * statement's indentation. The printer never asks which target it prints for. */

/* A 16-bit float type: held in memory as `storage`, in expressions as `compute`
 * (values exactly representable in the 16-bit type, every operation rounded as the
 * interpreter rounds). widen/narrow/round are function or cast names applied as
 * `name(expr)`: widen storage -> compute; narrow compute (or t_wide) -> storage,
 * to nearest even; round compute (or t_wide) -> compute, to the 16-bit type's
 * values, nearest even. */
typedef struct tl_c_half_type {
  const char *storage, *compute, *widen, *narrow, *round;
  const char *helper; /* the helper section defining them, or NULL */
} tl_c_half_type;

/* A helper section, emitted once (guarded) before the code that uses it. A per-type
 * section is instantiated per scalar type: $T the dialect's type name, $S its
 * suffix (i8 .. u64, f32, f64), $F the dialect's helper_prefix, $W its t_wide. */
typedef struct tl_c_helper {
  const char *name;     /* "fp16", "intdiv", "minmax", "abs", "fminmax", "fdiv", ... */
  bool per_type;
  const char *requires; /* a section emitted first, or NULL */
  const char *text;
} tl_c_helper;

/* A math intrinsic by the IR op's name ("T.exp"): call templates for float32 and
 * float64 operands, %0 %1 %2 standing for the arguments ("exp(%0)"). */
typedef struct tl_c_math {
  const char *op;
  const char *f32, *f64;
  const char *helper; /* a helper section the template needs, or NULL */
} tl_c_math;

/* A key and its text: thread tags ("threadIdx.x" -> "(int)get_local_id(0)"),
 * vector bases ("f32" -> "float"), atomic templates ("i32" -> "atomic_add(&$D, $V);"). */
typedef struct tl_c_pair {
  const char *key;
  const char *text;
} tl_c_pair;

typedef struct tl_c_dialect {
  size_t struct_size; /* sizeof(tl_c_dialect); 0 means the current size */
  const char *name;   /* "opencl": in messages ("the opencl dialect has no type for int4") */

  /* Scalar type names; NULL: the dialect has no such type (using one is an error). */
  const char *t_bool, *t_i8, *t_i16, *t_i32, *t_i64, *t_u8, *t_u16, *t_u32, *t_u64, *t_f32, *t_f64, *t_handle;
  tl_c_half_type f16, bf16;
  /* The type exact intermediates go through (an integer converted to a 16-bit float,
   * float floor division): NULL means t_f64. Float is enough for 16-bit targets
   * (rounding twice through float is exact for them). */
  const char *t_wide;
  const char *wide_suffix;   /* of literals of t_wide: NULL "" (double), "f" (float) */
  const char *t_bool_param;  /* a bool scalar kernel parameter's type (OpenCL: "int"); NULL: t_bool */
  /* True where signed overflow is undefined for the compiler and cannot be turned
   * off (no -fwrapv): signed 32/64-bit data arithmetic is printed through the
   * unsigned type, so it wraps as lowered code means. */
  bool wrap_signed_data;
  /* Words of the dialect's language no variable may be named (keywords, built-in
   * functions and types), NULL-terminated; NULL: C's only. */
  const char *const *reserved_words;
  const char *int64_suffix;  /* of int64 literals: NULL "LL" ("L" where long is 64 bits) */
  const char *uint64_suffix; /* of uint64 literals: NULL "ull" ("ul") */

  /* Qualifiers; NULL: none. Spaces: of tensor parameters (global), shared buffers,
   * per-thread buffers (local); the kernel's and helper functions' prefixes. */
  const char *restrict_kw, *global_space, *shared_space, *local_space;
  const char *kernel_prefix, *helper_prefix;

  /* Kernel signature. buffer_param: $G the global space and a blank (if any), $C
   * "const " for a tensor the kernel only reads, $T the storage type, $R restrict
   * and a blank (if any), $N the name, $I the parameter's position; default
   * "$G$C$T *$R$N". scalar_param: $T, $N, $I; default "$T $N". extra_params:
   * appended after the parameters (Metal's thread position arguments), or NULL. */
  const char *buffer_param, *scalar_param, *extra_params;
  /* Declarations of shared and per-thread arrays ($T storage type, $N name, $C
   * element count), each starting on a 16-byte boundary; defaults
   * "$Q $T $N[$C];" with $Q the space, and "$T $N[$C];". */
  const char *shared_array, *local_array;

  const tl_c_pair *thread_tags;  /* blockIdx.x .. threadIdx.z; {NULL} ends; NULL: no threads */
  const char *barrier;           /* the block-wide barrier statement; NULL: none needed */
  const tl_c_math *math;         /* {NULL} ends */
  /* T.warp_shfl_xor as a call template: %0 the value (in its compute type), %1 the
   * lane mask, %2 the width; NULL: the dialect has no warp shuffles (lower with
   * warp size 1). */
  const char *warp_shfl_xor;

  /* Vector accesses (docs/lowering.md: contiguous, aligned, at most 16 bytes).
   * vector_type: $B the base named in vector_bases for the element's suffix (i8 ..
   * u64, f16, bf16, f32, f64), $N the lanes ("$B$N": float4); vector_lanes: bit n
   * set when n-lane vectors exist; vector_copy: a contiguous copy statement, $V the
   * vector type, $D and $S the destination and source elements (lvalues), $DA and
   * $SA their spaces, $N the lanes. Without them vectors print lane by lane. */
  const char *vector_type;
  const tl_c_pair *vector_bases;
  uint32_t vector_lanes;
  const char *vector_copy;

  /* T.atomic_add_elem by element type suffix: a statement template with $D the
   * element (lvalue), $V the value (compute type), $T the storage type, $S the
   * suffix, $A the element's space qualifier, $a its space word ("global",
   * "shared", "local"). A type without an entry is an error. */
  const tl_c_pair *atomic_add;
  const char *atomic_helper;     /* a helper section every atomic add needs, or NULL */

  /* A line before the outermost parallel loop nest (CPU dialects): $C " collapse(n)"
   * for n > 1 loops, $I " if(cond)" when the nest may have one iteration, $N
   * parallel_threads (below) or nothing. NULL: none. */
  const char *parallel_for;
  const char *unroll_pragma;     /* a line before unrolled loops, or NULL */

  /* Helper sections ({NULL} ends). Sections the printer asks for and the dialect
   * lacks come from the library's portable defaults ("intdiv", "minmax", "abs",
   * "fminmax", "fdiv"); a half type's helper must be the dialect's own. */
  const tl_c_helper *helpers;
  const char *prelude;           /* text every device source starts with */

  /* Added after the first version (read only where struct_size covers them):
   * T.atomic_max_elem / T.atomic_min_elem by element type suffix, templates as
   * atomic_add's, storing max(dst, value) (min): NaN if either is NaN, else the
   * larger (smaller), the value on a tie. NULL, or a type without an entry: an
   * error naming the op. atomic_minmax_helper: a helper section each needs, or NULL. */
  const tl_c_pair *atomic_max, *atomic_min;
  const char *atomic_minmax_helper;
  /* Added later still: what parallel_for's $N becomes where the team's size is
   * limited (the launch's work, the pass config tl.cpu.num_threads), $B the most
   * threads that pay, e.g. " num_threads($B)"; NULL: $N is empty. */
  const char *parallel_threads;
} tl_c_dialect;

/* ================================================================ plugin ABI */

/* The ABI of this header: a plugin's major must equal the library's; minors only
 * append fields to the host table (check TL_PLUGIN_HOST_HAS before using a field
 * newer than the library you need). */
#define TL_PLUGIN_ABI_MAJOR 1
#define TL_PLUGIN_ABI_MINOR 1
#define TL_PLUGIN_ABI_VERSION ((uint32_t)((TL_PLUGIN_ABI_MAJOR << 16) | TL_PLUGIN_ABI_MINOR))

/* The services the library offers a plugin. Starts with struct_size and abi_version;
 * later versions only append fields. Every function is thread-safe and behaves as
 * its public counterpart (tl_register_backend, tl_target_kind, ...). */
typedef struct tl_plugin_host {
  size_t struct_size;
  uint32_t abi_version;          /* the library's TL_PLUGIN_ABI_VERSION */
  const char *library_version;   /* "MAJOR.MINOR.PATCH" */

  /* Registration. */
  tl_status (*register_backend)(const tl_backend_module *m, const tl_backend_module **out);
  tl_status (*register_device_codegen)(const char *target_kind, const tl_device_codegen *codegen, bool override);
  tl_status (*register_host_codegen)(const char *target_host_kind, const tl_host_codegen *codegen, bool override);
  tl_status (*register_host_codegen_hook)(const char *target_kind, const tl_host_codegen_hook *hook, bool override);
  tl_status (*register_lazy_device_codegen)(const char *target_kind, const char *import_path);
  tl_status (*register_lazy_host_codegen)(const char *target_host_kind, const char *import_path);
  tl_status (*register_lazy_host_codegen_hooks)(const char *target_kind, const char *import_path);

  /* Global functions and values. */
  tl_status (*register_global_func)(const char *name, tl_packed_fn fn, void *user_data, bool override);
  tl_status (*get_global_func)(const char *name, tl_packed_fn *fn, void **user_data);
  tl_status (*call_global_func)(const char *name, const tl_value *args, int nargs, tl_value *ret);
  void (*value_clear)(tl_value *v);
  tl_status (*value_set_str)(tl_value *v, const char *s);
  tl_status (*value_set_bytes)(tl_value *v, const void *data, size_t size);

  /* Errors: a plugin's failing callback sets the calling thread's message with
   * set_error (which returns `status`, so `return host->set_error(TL_EINVAL, "...")`). */
  tl_status (*set_error)(tl_status status, const char *message);
  const char *(*last_error)(void);

  /* Targets (read-only accessors, as in tilelang/target.h). */
  const char *(*target_kind)(const tl_target *t);
  const char *(*target_str)(const tl_target *t);
  const tl_target *(*target_host)(const tl_target *t);
  bool (*target_has_key)(const tl_target *t, const char *key);
  bool (*target_attr_str)(const tl_target *t, const char *name, const char **out);
  bool (*target_attr_int)(const tl_target *t, const char *name, int64_t *out);
  bool (*target_attr_bool)(const tl_target *t, const char *name, bool *out);
  size_t (*target_attr_array)(const tl_target *t, const char *name, const char **out, size_t cap);

  /* Artifacts: what codegens return. */
  tl_status (*artifact_create)(const char *format, const char *source, tl_artifact **out);
  tl_status (*artifact_create_binary)(const char *format, const char *source, const void *bytes, size_t size,
                                      tl_artifact **out);
  tl_artifact *(*artifact_retain)(const tl_artifact *a);
  void (*artifact_release)(const tl_artifact *a);
  const char *(*artifact_format)(const tl_artifact *a);
  const char *(*artifact_source)(const tl_artifact *a);
  const void *(*artifact_binary)(const tl_artifact *a, size_t *size);

  /* ---- ABI 1.1: what a complete out-of-tree backend needs (docs/writing-a-backend.md).
   * Check TL_PLUGIN_HOST_HAS(host, gpu_lower) before using any of them. */

  /* Memory through the library's allocator (its hook, its out-of-memory tests):
   * alloc returns NULL with the message set; free is NULL-safe. Strings and tables
   * the services below hand out are freed with `free` (tables: kernel_table_free). */
  void *(*alloc)(size_t size);
  void (*free)(void *p);
  /* set_error with a printf format. */
  tl_status (*set_errorf)(tl_status status, const char *fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 2, 3)))
#endif
      ;
  /* "float16", "int8x4" (tl_dtype_name): writes into buf (16 bytes suffice) and returns it. */
  const char *(*dtype_name)(tl_dtype t, char *buf, size_t cap);

  /* Lowering: the shared GPU pass list (the one every GPU backend's pipeline runs,
   * CUDA's included) on `mod` in place, with `defaults` overridden by the target's
   * attributes. Leaves the GPU-lowered form of docs/lowering.md. */
  tl_status (*gpu_lower)(tl_ir_module *mod, const tl_target *target, const tl_gpu_lower_params *defaults);

  /* Code generation with the library's C-family printer and a plugin's dialect:
   * the source of every device kernel of a lowered module (a fresh string), or an
   * artifact of `format` carrying that source and the kernel table of the module's
   * host entry (none when the entry has none or a table cannot describe it). */
  tl_status (*c_device_source)(const tl_ir_module *mod, const tl_c_dialect *dialect, char **out);
  tl_status (*c_device_artifact)(const tl_ir_module *mod, const tl_c_dialect *dialect, const char *format,
                                 tl_artifact **out);

  /* Kernel tables: an artifact's (borrowed), a new artifact with one attached, the
   * table of a lowered module's host entry (TL_EUNSUPPORTED where a table cannot
   * describe it), a copy (one block, as every table the library hands out), freeing
   * one. */
  const tl_kernel_table *(*artifact_kernel_table)(const tl_artifact *a);
  tl_status (*artifact_with_kernel_table)(const tl_artifact *a, const tl_kernel_table *table, tl_artifact **out);
  tl_status (*module_kernel_table)(const tl_ir_module *mod, tl_kernel_table **out);
  tl_status (*kernel_table_copy)(const tl_kernel_table *t, tl_kernel_table **out);
  void (*kernel_table_free)(tl_kernel_table *t);
  /* Checks call arguments against a table (the generated host code's checks and
   * messages, device_type the tensors' DLPack device type) and binds the symbolic
   * dims into syms (table->nsyms entries); evaluates a launch expression. */
  tl_status (*kernel_table_bind_args)(const tl_kernel_table *t, const tl_value *args, int nargs, int32_t device_type,
                                      int64_t *syms);
  bool (*launch_expr_eval)(const tl_launch_expr *e, const int64_t *syms, uint32_t nsyms, int64_t *out);

  /* Execution backends: registers an implementation under its name (kept by
   * pointer: it must stay alive). The same pointer again is a no-op; another
   * implementation of a taken name is TL_EEXIST. */
  tl_status (*register_exec_impl)(const tl_exec_impl *impl);

  /* Files: dir + "/" + name (a fresh string); whole-file write (replacing) and read
   * (a fresh buffer with a NUL after the `*size` bytes). Errors are TL_EIO naming
   * the path and the system's reason. */
  char *(*path_join)(const char *dir, const char *name);
  tl_status (*write_file)(const char *path, const void *data, size_t size);
  tl_status (*read_file)(const char *path, char **data, size_t *size);
} tl_plugin_host;

/* True when the host table has `field` (a library at least as new as that field). */
#define TL_PLUGIN_HOST_HAS(host, field) \
  ((host)->struct_size >= offsetof(tl_plugin_host, field) + sizeof((host)->field))

/* The init function a plugin exports (default name "tl_plugin_init"; another name
 * with an import path "lib.so:name"). Called once per import path, with no registry
 * lock held; registers the plugin's components through `host`. */
typedef tl_status (*tl_plugin_init_fn)(const tl_plugin_host *host);

#define TL_PLUGIN_DEFAULT_INIT "tl_plugin_init"
#define TL_PLUGIN_ABI_SYMBOL "tl_plugin_abi_version"

#if defined(_WIN32)
#define TL_PLUGIN_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define TL_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TL_PLUGIN_EXPORT
#endif

/* Defines the exported `const uint32_t tl_plugin_abi_version` (the ABI the plugin
 * was compiled against). Use once, at file scope, in one source of the plugin. */
#ifdef __cplusplus
#define TL_PLUGIN_ABI_VERSION_SYMBOL() \
  extern "C" TL_PLUGIN_EXPORT const uint32_t tl_plugin_abi_version = TL_PLUGIN_ABI_VERSION
#else
#define TL_PLUGIN_ABI_VERSION_SYMBOL() \
  TL_PLUGIN_EXPORT extern const uint32_t tl_plugin_abi_version; \
  TL_PLUGIN_EXPORT const uint32_t tl_plugin_abi_version = TL_PLUGIN_ABI_VERSION
#endif

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_PLUGIN_H */
