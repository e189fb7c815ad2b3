/* C-family dialects: what differs between C, CUDA, HIP, OpenCL and Metal source, as
 * data plus a few small hooks, so the one printer (c_printer.h) emits all of them
 * without ever asking which target it prints for. A new dialect is a new table. */
#ifndef TL_CODEGEN_C_DIALECT_H
#define TL_CODEGEN_C_DIALECT_H

#include <stdbool.h>
#include <stddef.h>

#include "tilelang/ir.h"

struct tl__cgen;

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

  /* Math intrinsics, ended by an entry whose f32 is NULL. */
  const tl__c_math *math;

  /* Vector types: writes the type of `lanes` x `elem` ("float4") into buf and returns
   * it, or returns NULL when there is none. A NULL hook: vectors are always computed
   * lane by lane. Contiguous vector copies (store of a load, both with stride-1 ramps)
   * use the vector type when there is one. */
  const char *(*vector_type)(tl_dtype elem, uint16_t lanes, char *buf, size_t cap);

  /* Emits the statement(s) of an atomic `dst += value` (dst an lvalue of element
   * dtype t in memory, value an expression of t's compute type). */
  void (*atomic_add)(struct tl__cgen *g, const char *dst, const char *value, tl_dtype t);

  /* The line put before a parallel loop nest of depth `collapse` (1..3) that is not
   * inside another loop, written into buf; NULL for none. `run_parallel` is a C
   * condition for going parallel at all (the nest has more than one iteration), or
   * NULL when that is known to hold. */
  const char *(*parallel_for)(int collapse, const char *run_parallel, char *buf, size_t cap);

  /* The line put before an unrolled loop (NULL: none). */
  const char *unroll_pragma;

  /* Helper sections the printer asks for by name ("fp16", "intdiv", "minmax"),
   * ended by an entry whose name is NULL. */
  const tl__c_helper *helpers;
  /* Text every device source of this dialect starts with (includes, macros). */
  const char *prelude;
} tl__c_dialect;

/* The C99 dialect (CPU). */
extern const tl__c_dialect tl__c_dialect_c;

#endif
