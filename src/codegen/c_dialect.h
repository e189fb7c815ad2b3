/* C-family dialects: what differs between C, CUDA, HIP, OpenCL and Metal source, as
 * data (names, templates and per-op or per-type rows), so the one printer
 * (c_printer.h) emits all of them without ever asking which target it prints for.
 * A new dialect is a new table; plugin.h's plain-data tl_c_dialect converts into
 * one (c_dialect_plain.c), so the library's dialects and a plugin's are printed
 * alike. */
#ifndef TL_CODEGEN_C_DIALECT_H
#define TL_CODEGEN_C_DIALECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilelang/backend.h"
#include "tilelang/ir.h"

/* How a 16-bit float type is held: in memory as `storage`, in expressions as
 * `compute` (holding values exactly representable in the 16-bit type), with helpers
 * that widen a stored value, narrow a double to storage bits, and round a double to
 * the 16-bit type's values (to nearest even). The result of every operation is
 * rounded, as the interpreter does. */
typedef struct tl__c_half_type {
  const char *storage; /* "uint16_t" */
  const char *compute; /* "float" */
  const char *widen;   /* storage -> compute: "tl_f16_to_f32" */
  const char *narrow;  /* double -> storage: "tl_f16_from_f64" */
  const char *round;   /* double -> compute, rounded: "tl_round_f16" */
  const char *helper;  /* the helper section defining them (NULL: built into the dialect) */
  bool storage_helper; /* the storage type itself needs the helper section (a header type) */
} tl__c_half_type;

/* A math intrinsic as a call template per compute type: "%0", "%1", "%2" stand for
 * the arguments ("expf(%0)", "(1.0f / sqrtf(%0))"). `helper` names the helper
 * section a template needs (NULL: none). */
typedef struct tl__c_math {
  tl_ir_op op;
  const char *f32, *f64;
  const char *helper;
} tl__c_math;

/* A named block of helper definitions, emitted once before the code that uses it and
 * guarded by a macro so that device and host code of one translation unit may both
 * carry it. A parameterized section is instantiated per scalar type: "$T" stands for
 * the C type, "$S" for its suffix (i32, u8, f32, ...); "$F" for the dialect's helper
 * function prefix. */
typedef struct tl__c_helper {
  const char *name;     /* "intdiv", "minmax" */
  bool per_type;        /* instantiated per scalar type */
  const char *requires; /* a section emitted first (same type for per-type ones), or NULL */
  const char *text;
} tl__c_helper;

/* How a thread-tagged variable prints: {"blockIdx.x", "blockIdx.x"} (CUDA),
 * {"threadIdx.x", "get_local_id(0)"} (OpenCL). */
typedef struct tl__c_thread_tag {
  const char *tag, *text;
} tl__c_thread_tag;

/* A hardware builtin of the IR (T.warp_shfl_xor, ...) as a call template: "%0",
 * "%1", "%2" the arguments as held (no rounding: the builtins move values, they do
 * not compute them). `helper` names a helper section the template needs (NULL:
 * none). */
typedef struct tl__c_builtin {
  tl_ir_op op;
  const char *text;
  const char *helper;
} tl__c_builtin;

/* A vector type: the type of `lanes` elements whose storage suffix (i8 .. u64, f16,
 * bf16, f32, f64, b) is `elem` (NULL: any), where bit `lanes` of lane_mask is set
 * (0: any count) and the vector is `bytes` long (0: any size). `text` is a template:
 * $B the row's base, $N the lanes ("$B$N": float4). The first matching row wins. */
typedef struct tl__c_vector_type {
  const char *elem;
  uint32_t lane_mask;
  uint32_t bytes;
  const char *base;
  const char *text;
} tl__c_vector_type;

/* T.atomic_add_elem of elements of storage suffix `elem`: a statement template ($D
 * the element (lvalue), $V the value (compute type), $T the storage type, $S the
 * suffix, $A the element's space qualifier, $a its space word: "global", "shared",
 * "local"; a newline starts a further line) and the helper section it needs. */
typedef struct tl__c_atomic {
  const char *elem;
  const char *text;
  const char *helper;
} tl__c_atomic;

/* The most loops one parallel-for line covers (collapse(3)). */
#define TL__C_MAX_COLLAPSE 3

typedef struct tl__c_dialect {
  const char *name; /* "c" */

  /* Scalar type names. */
  const char *t_bool, *t_i8, *t_i16, *t_i32, *t_i64, *t_u8, *t_u16, *t_u32, *t_u64, *t_f32, *t_f64, *t_handle;
  tl__c_half_type f16, bf16;

  /* Qualifiers. */
  const char *restrict_kw;     /* on tensor pointers: "restrict", "__restrict__" */
  const char *global_space;    /* address space of tensor pointers: "" (C), "__global" (OpenCL) */
  const char *shared_space;    /* declaration prefix of shared buffers: "" (C), "__shared__" */
  const char *kernel_prefix;   /* before a device kernel's `void`: "static" (C), "extern \"C\" __global__" */
  const char *helper_prefix;   /* before helper functions: "static inline", "static inline __device__" */

  /* Thread-tagged variables; NULL: the dialect has no threads (an error if one appears). */
  const tl__c_thread_tag *thread_tags; /* ended by {NULL, NULL} */

  /* The block-wide barrier statement; NULL: one thread per block, nothing to wait for. */
  const char *barrier;

  /* Hardware builtins (warp shuffles, ...) as call templates, one row per op;
   * ended by an entry whose text is NULL. An op without a row is an error. */
  const tl__c_builtin *builtins;

  /* Prefix of shared and local array declarations that starts them at a 16-byte
   * aligned address ("__align__(16)"); "" when the dialect needs none (no vectors). */
  const char *array_align;

  /* Dynamic shared memory (`shared.dyn` buffers, laid out in ALLOC order at
   * 16-byte aligned offsets of one array): the declaration of that byte array,
   * with %s for its name ("extern __shared__ __align__(16) unsigned char %s[];");
   * NULL: the dialect has none (a shared.dyn buffer is an error). */
  const char *dyn_shared_decl;

  /* A qualifier a kernel's declaration gets when every launch of it has the same
   * constant block of at most max_block_threads threads: $N the thread count
   * ("__launch_bounds__($N)"); NULL: none. */
  const char *launch_bounds;
  int64_t max_block_threads;

  /* Signed 32- and 64-bit +, -, *, << and negation on data (values computed from
   * memory) are printed through the unsigned type, so they wrap as lowered code
   * means (docs/lowering.md) where the compiler has no -fwrapv. Index arithmetic
   * (loop and thread variables, sizes, constants) stays signed. */
  bool wrap_signed_data;

  /* Identifiers of the dialect's language no variable may take (C++ keywords,
   * built-in names), ended by NULL; NULL for none beyond C's. */
  const char *const *reserved_words;

  /* Math intrinsics, ended by an entry whose f32 is NULL. */
  const tl__c_math *math;

  /* Vector accesses (docs/lowering.md: contiguous, aligned, at most 16 bytes).
   * vector_types: the vector type of a number of elements, ended by an entry whose
   * text is NULL; none: vectors are computed lane by lane. vector_copy: a
   * contiguous copy (store of a load, both with stride-1 ramps) as one statement,
   * $V the vector type, $D and $S the destination and source elements (lvalues),
   * $DA and $SA their spaces, $N the lanes; NULL: "*($V *)&$D = *(const $V *)&$S;".
   * vector_read and vector_write: a vector load into, and a store from, an aligned
   * temporary array $T (vector_read "*($V *)$T = *(const $V *)&$S;"); with both, a
   * vector store of global or shared memory that is not a copy reads its
   * contiguous loads ahead, computes the lanes into a temporary and stores it at
   * once, and a select on a scalar condition becomes an if/else of two stores.
   * NULL: other vector stores are lane by lane. */
  const tl__c_vector_type *vector_types;
  const char *vector_copy;
  const char *vector_read;
  const char *vector_write;

  /* T.atomic_add_elem by element type, ended by an entry whose elem is NULL; a type
   * without an entry is an error. */
  const tl__c_atomic *atomic_add;
  /* T.atomic_max_elem / T.atomic_min_elem likewise (dst = max(dst, value), NaN
   * if either is NaN, as the interpreter's max; the value on a tie); NULL: none
   * (plain dialects: an error naming the op). */
  const tl__c_atomic *atomic_max;
  const tl__c_atomic *atomic_min;

  /* The line put before a parallel loop nest that is not inside another loop:
   * $C " collapse(n)" for n > 1 loops (at most TL__C_MAX_COLLAPSE), $I " if(cond)"
   * when the nest may have one iteration, $N the parallel_threads clause (or
   * nothing). NULL: none. */
  const char *parallel_for;
  /* $N's text where the team's size is limited: $B the most threads that pay
   * (c_parallel.c). NULL: no clause. */
  const char *parallel_threads;

  /* The line put before an unrolled loop (NULL: none). */
  const char *unroll_pragma;

  /* Helper sections the printer asks for by name ("fp16", "intdiv", "minmax"),
   * ended by an entry whose name is NULL. */
  const tl__c_helper *helpers;
  /* Text every device source of this dialect starts with (includes, macros). */
  const char *prelude;

  /* Forms of plugin.h's tl_c_dialect that C and CUDA do not need; NULL keeps the
   * behaviour described there (docs/codegen.md, "Dialects as plain data"). */
  const char *t_wide;        /* exact intermediates (int -> float16): NULL = t_f64 */
  const char *wide_suffix;   /* literal suffix of t_wide ("f"); NULL = "" */
  const char *t_bool_param;  /* a bool scalar kernel parameter's type; NULL = t_bool */
  const char *int64_suffix;  /* NULL = "LL" */
  const char *uint64_suffix; /* NULL = "ull" */
  const char *local_space;   /* per-thread buffers' space qualifier (Metal "thread"); NULL = none */
  const char *buffer_param;  /* kernel parameter templates */
  const char *scalar_param;
  const char *extra_params;
  const char *shared_array;  /* array declaration templates */
  const char *local_array;
} tl__c_dialect;

/* A dialect made from plugin.h's plain-data tl_c_dialect (c_dialect_plain.c): the
 * table above plus the arrays it owns. */
typedef struct tl__c_dialect_owned {
  tl__c_dialect d;
  tl__c_math *math;
  tl__c_helper *helpers;
  tl__c_thread_tag *tags;
  tl__c_builtin *builtins;
  tl__c_vector_type *vector_types;
  tl__c_atomic *atomics;
  tl__c_atomic *atomics_max, *atomics_min;
} tl__c_dialect_owned;

/* Fills *out from `plain`: names and templates are borrowed (they must outlive
 * *out), math ops are looked up by name (an unknown op name is TL_EINVAL), helper
 * sections the dialect lacks come from the portable defaults. Free with
 * tl__c_dialect_owned_free. */
tl_status tl__c_dialect_from_plain(const tl_c_dialect *plain, tl__c_dialect_owned *out);
void tl__c_dialect_owned_free(tl__c_dialect_owned *d);

/* Device source of every device kernel of `mod` in a plain-data dialect, and the
 * artifact of `format` with the host entry's kernel table (codegen_c.c's
 * tl__c_device_source and tl__c_device_codegen for any dialect). */
tl_status tl__c_plain_device_source(const tl_c_dialect *plain, const tl_ir_module *mod, char **out);
/* The kernel table of a lowered module's host entry (TL_EUNSUPPORTED where a table
 * cannot describe it; TL_EINVAL without a single host entry). */
tl_status tl__c_module_kernel_table(const tl_ir_module *mod, tl_kernel_table **out);
tl_status tl__c_plain_device_artifact(const tl_c_dialect *plain, const tl_ir_module *mod, const char *format,
                                      tl_artifact **out);

/* The C99 dialect (CPU). */
extern const tl__c_dialect tl__c_dialect_c;
/* CUDA C++ (dialect_cuda.c); the fast-math variant uses the intrinsics __expf,
 * __logf, ... (pass config tl.enable_fast_math). */
extern const tl__c_dialect tl__c_dialect_cuda;
extern const tl__c_dialect tl__c_dialect_cuda_fast_math;

#endif
