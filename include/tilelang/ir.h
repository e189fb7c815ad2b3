/* tilelang/ir.h - the IR every pipeline and code generator works on.
 *
 * A module owns an arena; every node (expression, statement, variable, buffer,
 * function) lives in its module's arena and dies with it. Nodes are plain structs
 * that passes read directly. Passes rewrite by building new nodes (the mutator
 * below makes that copy-on-write), never by editing shared nodes in place, so a
 * node may be referenced from several places.
 *
 * The same IR holds tile-level programs (what the front end produces: T.Kernel,
 * T.Parallel, tile ops such as T.copy and T.gemm, shared/fragment buffers) and
 * lowered programs (loops, loads and stores on flattened buffers, host entries
 * with argument checks, kernel launches). */
#ifndef TILELANG_IR_H
#define TILELANG_IR_H

#include "tilelang/base.h"
#include "tilelang/ffi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- data types */

/* tl_dtype_code and tl_dtype (codes match DLPack's DLDataTypeCode) are defined in
 * tilelang/plugin.h, the standalone header shared with plugins. */

#define TL_DT(code_, bits_) ((tl_dtype){(uint8_t)(code_), (uint8_t)(bits_), 1})
#define TL_DT_BOOL TL_DT(TL_DTYPE_BOOL, 8)
#define TL_DT_INT8 TL_DT(TL_DTYPE_INT, 8)
#define TL_DT_INT16 TL_DT(TL_DTYPE_INT, 16)
#define TL_DT_INT32 TL_DT(TL_DTYPE_INT, 32)
#define TL_DT_INT64 TL_DT(TL_DTYPE_INT, 64)
#define TL_DT_UINT8 TL_DT(TL_DTYPE_UINT, 8)
#define TL_DT_UINT16 TL_DT(TL_DTYPE_UINT, 16)
#define TL_DT_UINT32 TL_DT(TL_DTYPE_UINT, 32)
#define TL_DT_UINT64 TL_DT(TL_DTYPE_UINT, 64)
#define TL_DT_FLOAT16 TL_DT(TL_DTYPE_FLOAT, 16)
#define TL_DT_BFLOAT16 TL_DT(TL_DTYPE_BFLOAT, 16)
#define TL_DT_FLOAT32 TL_DT(TL_DTYPE_FLOAT, 32)
#define TL_DT_FLOAT64 TL_DT(TL_DTYPE_FLOAT, 64)
#define TL_DT_HANDLE TL_DT(TL_DTYPE_HANDLE, 64)

static inline bool tl_dtype_eq(tl_dtype a, tl_dtype b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }
static inline bool tl_dtype_is_float(tl_dtype t) { return t.code == TL_DTYPE_FLOAT || t.code == TL_DTYPE_BFLOAT; }
static inline bool tl_dtype_is_int(tl_dtype t) { return t.code == TL_DTYPE_INT || t.code == TL_DTYPE_UINT; }
static inline bool tl_dtype_is_bool(tl_dtype t) { return t.code == TL_DTYPE_BOOL; }
static inline tl_dtype tl_dtype_scalar(tl_dtype t) { t.lanes = 1; return t; }
static inline tl_dtype tl_dtype_with_lanes(tl_dtype t, uint16_t lanes) { t.lanes = lanes; return t; }
/* Bytes of one element (all lanes). */
static inline size_t tl_dtype_bytes(tl_dtype t) { return (size_t)t.bits / 8 * t.lanes; }

/* The TileLang name: "float32", "bfloat16", "bool", "handle", "int8x4" for vectors.
 * Returns a static string for every scalar; vector names are written into `buf`
 * (at least 16 bytes) and `buf` is returned. Thread-safe. */
TL_API const char *tl_dtype_name(tl_dtype t, char *buf, size_t cap);
/* Parses a TileLang dtype name ("float16", "half" is not accepted; "float32x4" is).
 * Returns false if unknown. Thread-safe. */
TL_API bool tl_dtype_parse(const char *name, tl_dtype *out);

/* ------------------------------------------------------------------- nodes */

typedef struct tl_ir_module tl_ir_module;
typedef struct tl_ir_expr tl_ir_expr;
typedef struct tl_ir_stmt tl_ir_stmt;
typedef struct tl_ir_func tl_ir_func;

/* Where a node came from: file (owned by the module), 1-based line and column;
 * line 0 means unknown (nodes built by C code without a location). */
typedef struct tl_ir_span {
  const char *file;
  uint32_t line, col;
} tl_ir_span;

/* A variable: loop variables, let bindings, scalar parameters, symbolic dims, block
 * and thread indices, and the data pointer of a buffer. Identity is the pointer. */
typedef struct tl_ir_var {
  const char *name;
  tl_dtype dtype;
  uint32_t id;            /* unique in its module, in creation order */
  const char *thread_tag; /* NULL, or "blockIdx.x" ... "threadIdx.z" once bound by lowering */
  tl_ir_span span;
} tl_ir_var;

typedef enum tl_ir_scope {
  TL_SCOPE_GLOBAL,         /* a tensor parameter */
  TL_SCOPE_SHARED,         /* T.alloc_shared: one per block */
  TL_SCOPE_SHARED_DYN,     /* shared memory sized at launch */
  TL_SCOPE_LOCAL,          /* T.alloc_local: per thread */
  TL_SCOPE_LOCAL_FRAGMENT, /* T.alloc_fragment: a block-wide tile held in registers */
  TL_SCOPE_LOCAL_VAR       /* T.alloc_var: one mutable scalar (ndim 0) */
} tl_ir_scope;

/* "global", "shared", "shared.dyn", "local", "local.fragment", "local.var". */
TL_API const char *tl_ir_scope_name(tl_ir_scope s);
TL_API bool tl_ir_scope_parse(const char *name, tl_ir_scope *out);

typedef struct tl_ir_buffer {
  const char *name;
  tl_dtype dtype;
  uint32_t ndim;
  tl_ir_expr **shape;   /* ndim extents: integer constants or expressions of symbolic vars */
  tl_ir_expr **strides; /* NULL: compact row-major; else ndim strides in elements */
  tl_ir_scope scope;
  tl_ir_var *data;      /* the data pointer (dtype handle), made with the buffer */
  uint32_t id;          /* unique in its module, in creation order */
  tl_ir_span span;
  bool view;            /* T.reshape / T.view: shares the storage of the buffer that owns `data`; its
                         * TL_STMT_ALLOC declares it and allocates nothing */
} tl_ir_buffer;

typedef enum tl_ir_expr_kind {
  TL_EXPR_INT,       /* integer or bool constant: u.int_value */
  TL_EXPR_FLOAT,     /* float constant (may be +-infinity): u.float_value */
  TL_EXPR_STR,       /* string immediate: u.str */
  TL_EXPR_VAR,       /* u.var */
  TL_EXPR_BINARY,    /* u.binary */
  TL_EXPR_UNARY,     /* u.unary */
  TL_EXPR_SELECT,    /* cond ? t : f, evaluating only the chosen side (T.if_then_else) */
  TL_EXPR_CAST,      /* u.cast.value converted to the node's dtype */
  TL_EXPR_LOAD,      /* buffer[indices]; a vector load when dtype.lanes > 1 */
  TL_EXPR_CALL,      /* u.call: math intrinsics and tile ops (tl_ir_op) */
  TL_EXPR_REGION,    /* a buffer region, an argument of tile ops */
  TL_EXPR_RAMP,      /* vector base, base+stride, ...: u.ramp (lanes in dtype) */
  TL_EXPR_BROADCAST  /* vector of one value: u.broadcast (lanes in dtype) */
} tl_ir_expr_kind;

typedef enum tl_ir_binop {
  TL_BIN_ADD, TL_BIN_SUB, TL_BIN_MUL,
  TL_BIN_DIV,      /* `/`: true division for floats, truncating for integers (as C and TVM's Div) */
  TL_BIN_FLOORDIV, /* `//` */
  TL_BIN_FLOORMOD, /* `%` (Python's sign rule) */
  TL_BIN_MIN, TL_BIN_MAX,
  TL_BIN_EQ, TL_BIN_NE, TL_BIN_LT, TL_BIN_LE, TL_BIN_GT, TL_BIN_GE, /* result bool */
  TL_BIN_AND, TL_BIN_OR,                                            /* logical, on bools */
  TL_BIN_BITAND, TL_BIN_BITOR, TL_BIN_BITXOR, TL_BIN_SHL, TL_BIN_SHR
} tl_ir_binop;

typedef enum tl_ir_unop { TL_UN_NEG, TL_UN_NOT, TL_UN_BITNOT } tl_ir_unop;

/* Calls. Math intrinsics are expressions; tile ops appear as the expression of a
 * TL_STMT_EVAL. Argument conventions (R = TL_EXPR_REGION, E = expression, I = integer
 * constant used as a flag or a dimension):
 *   TL_OP_COPY        (R src, R dst)                              T.copy
 *   TL_OP_FILL        (R dst, E value)                            T.fill
 *   TL_OP_CLEAR       (R dst)                                     T.clear
 *   TL_OP_GEMM        (R A, R B, R C, I transpose_A, I transpose_B, I clear_accum, I policy)
 *                     C += op(A) @ op(B) (C = ... when clear_accum)  T.gemm; policy is
 *                     T.GemmWarpPolicy's value (0 Square, 1 FullRow, 2 FullCol): how a
 *                     GPU splits the block's warps over C, never what is computed
 *   TL_OP_REDUCE_*    (R src, R dst, I dim, I clear)              T.reduce_sum/max/min/abssum/absmax/bitxor/bitand/bitor
 *   TL_OP_ATOMIC_ADD  (R dst, E value | R value)                  T.atomic_add (_MAX, _MIN: T.atomic_max/min)
 *   TL_OP_CUMSUM      (R src, R dst, I dim, I reverse)            T.cumsum (TL_OP_CUMMAX: T.cummax)
 * Lowered code uses further ops (see the enum) that passes document where they
 * create them. */
typedef enum tl_ir_op {
  /* math intrinsics (floating point unless noted) */
  TL_OP_EXP, TL_OP_EXP2, TL_OP_LOG, TL_OP_LOG2, TL_OP_SQRT, TL_OP_RSQRT, TL_OP_TANH,
  TL_OP_SIGMOID, TL_OP_POW, TL_OP_FMA, TL_OP_FLOOR, TL_OP_CEIL, TL_OP_ROUND, TL_OP_TRUNC,
  TL_OP_SIN, TL_OP_COS,
  TL_OP_ABS,     /* integers and floats */
  TL_OP_CEILDIV, /* T.ceildiv(a, b) on integers */
  /* tile ops */
  TL_OP_COPY, TL_OP_FILL, TL_OP_CLEAR, TL_OP_GEMM,
  TL_OP_REDUCE_SUM, TL_OP_REDUCE_MAX, TL_OP_REDUCE_MIN, TL_OP_REDUCE_ABSSUM, TL_OP_REDUCE_ABSMAX,
  TL_OP_ATOMIC_ADD, TL_OP_CUMSUM,
  /* lowered builtins (added by passes; documented where created) */
  TL_OP_ATOMIC_ADD_ELEM, /* (R dst of extent 1 in every dim, E value): one element, atomically */
  TL_OP_WARP_SHFL_XOR,   /* (E value, E lane_mask, I width): __shfl_xor_sync over the full warp; width a
                          * power of two from 1 to 64 (the target's warp size at most) */
  /* Argument metadata of a host entry (made by make_packed_api; only in
   * TL_CALLCONV_PACKED functions). `i` is the argument's position and `d` a
   * dimension, both int32 constants. They read the caller's tl_value array
   * (generated C: `const TLValue *args, int32_t nargs`) directly, so a host entry
   * checks what it was given before it touches it. Each one is meaningful only
   * where the asserts before it have established its precondition: i < nargs;
   * argument i is a tensor (DTYPE_* .. DATA_IS_NULL, SHAPE, STRIDE); d < ndim;
   * argument i is a scalar (INT, FLOAT). Elsewhere the value is unspecified (the
   * interpreter reports an error; generated code may read anything). */
  TL_OP_ARG_NUM,             /* ()       int32: the number of arguments passed (nargs) */
  TL_OP_ARG_KIND,            /* (I i)    int32: args[i].kind, a tl_value_kind */
  TL_OP_ARG_DTYPE_CODE,      /* (I i)    int32: the tensor's dtype.code (DLPack's codes, as tl_dtype_code) */
  TL_OP_ARG_DTYPE_BITS,      /* (I i)    int32: dtype.bits */
  TL_OP_ARG_DTYPE_LANES,     /* (I i)    int32: dtype.lanes */
  TL_OP_ARG_NDIM,            /* (I i)    int32: ndim */
  TL_OP_ARG_SHAPE,           /* (I i, I d) int64: shape[d] */
  TL_OP_ARG_STRIDE,          /* (I i, I d) int64: strides[d] in elements; the compact row-major stride
                              * (product of shape[d+1..]) when the tensor has no strides */
  TL_OP_ARG_STRIDES_COMPACT, /* (I i)    bool: strides is NULL or row-major compact; strides of
                              * dimensions of extent 1 are ignored (PyTorch leaves them arbitrary) */
  TL_OP_ARG_DEVICE_TYPE,     /* (I i)    int32: device.device_type (DLDeviceType) */
  TL_OP_ARG_DATA_IS_NULL,    /* (I i)    bool: data == NULL */
  TL_OP_ARG_INT,             /* (I i)    int64: an INT scalar's value, a BOOL's as 0 or 1 */
  TL_OP_ARG_FLOAT,           /* (I i)    float64: a FLOAT scalar's value, an INT's or BOOL's converted */
  TL_OP_ARG_DATA_ALIGNED,    /* (I i, I bytes) bool: the tensor's data address (data + byte_offset) is a
                              * multiple of `bytes`, a power of two (GPU kernels with vector accesses) */
  /* tile ops added since (appended: the values above stay) */
  TL_OP_REDUCE_BITXOR, /* T.reduce_bitxor, integers only */
  /* A block GEMM on strided matrices (made by the c pipeline's lower_gemm_cpu; a
   * statement like the tile ops): (R a, R b, R c, N m, N n, N k, N a_rs, N a_cs,
   * N b_rs, N b_cs, N c_rs, N c_cs, I clear), the regions one element each, at
   * element (0, 0) of op(A), op(B) and C, the rest integer constants. Element (i, k)
   * of op(A) is `a_rs * i + a_cs * k` elements past a's, (k, j) of op(B) is
   * `b_rs * k + b_cs * j` past b's, (i, j) of C `c_rs * i + c_cs * j` past c's, in
   * each buffer's layout (its strides; row-major when compact): C[i, j] (= 0 when clear, then)
   * += sum over k ascending of op(A)[i, k] * op(B)[k, j], for i < m, j < n. */
  TL_OP_GEMM_STRIDED,
  TL_OP_REDUCE_BITAND, /* T.reduce_bitand, integers only */
  TL_OP_REDUCE_BITOR,  /* T.reduce_bitor, integers only */
  /* math intrinsics added since (floats; appended: the values above stay) */
  TL_OP_ERF, TL_OP_LOG10, TL_OP_LOG1P, TL_OP_EXPM1, TL_OP_TAN,
  TL_OP_FMOD, /* T.fmod(a, b): a - trunc(a / b) * b, the sign of a (C's fmod) */
  TL_OP_CUMMAX, /* T.cummax, the arguments of T.cumsum: an inclusive running maximum */
  /* A tensor-core step (made by the GPU lowering of T.gemm; a statement like the
   * tile ops): (R d, R a, R b), regions of one element each in local buffers: the
   * first of this lane's 4 float32 accumulators, of its 8 A elements and of its 4
   * B elements (float16, or bfloat16 both). Warp-collective, as PTX's
   * mma.sync.aligned.m16n8k16.row.col.f32: with lane l, g = l / 4, q = l % 4, A
   * element i is A[g + 8*((i/2)%2), 2q + i%2 + 8*(i/4)] of a 16 x 16 tile, B
   * element i is B[2q + i%2 + 8*(i/2), g] of a 16 x 8 tile, accumulator i is
   * D[g + 8*(i/2), 2q + i%2] of the 16 x 8 result; D[r, n] += A[r, k] * B[k, n]
   * for k ascending, each step rounded to float32 (the tile-level T.gemm's order;
   * the hardware's rounding differs within a step: GPU runs compare by tolerance). */
  TL_OP_MMA_M16N8K16,
  /* Four 8 x 8 matrices of 16-bit elements from shared memory into registers
   * (made with TL_OP_MMA_M16N8K16; a statement): (R dst, R src, I trans), dst one
   * element of a local buffer (8 consecutive elements are written), src one
   * element of a shared buffer of the same dtype: this lane's row address (8
   * consecutive elements are read, from a 16-byte aligned start). Warp-collective,
   * as PTX's ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: lanes 8m .. 8m+7
   * give rows 0..7 of matrix m; lane l receives dst[2m], dst[2m+1] = M_m[l/4][2(l%4)],
   * M_m[l/4][2(l%4)+1], or with trans M_m[2(l%4)][l/4], M_m[2(l%4)+1][l/4]. */
  TL_OP_LDMATRIX_X4,
  /* T.atomic_max / T.atomic_min: the arguments of T.atomic_add; dst = max(dst, value)
   * (min), elementwise, each element atomically on global memory */
  TL_OP_ATOMIC_MAX, TL_OP_ATOMIC_MIN,
  /* lowered builtins of those: (R dst of extent 1 in every dim, E value) */
  TL_OP_ATOMIC_MAX_ELEM, TL_OP_ATOMIC_MIN_ELEM,
  /* Asynchronous global -> shared copies (made by the GPU passes for T.Pipelined's
   * stages: gpu_software_pipeline, gpu_async_copy; statements like the tile ops), as PTX's
   * cp.async (sm_80 and later). T.cp_async (R dst, R src, N bytes, E valid): dst
   * one element of a shared buffer, src one of a global buffer of the same dtype,
   * bytes 4, 8 or 16 (whole elements, both addresses aligned to it); when valid,
   * the bytes at src are read, else zeros; they land at dst only when a
   * T.cp_async_wait of this thread covers the copy's group: until then dst keeps
   * what it held (reading it is the bug a missing wait makes, and the interpreter
   * shows it). Only the issuing thread sees them then: other threads need a
   * barrier after the wait. */
  TL_OP_CP_ASYNC,
  /* T.cp_async_commit (): closes this thread's copies issued since the last
   * commit into one group (cp.async.commit_group). */
  TL_OP_CP_ASYNC_COMMIT,
  /* T.cp_async_wait (N n): waits until at most n of this thread's committed
   * groups are pending, the oldest landing first (cp.async.wait_group n). */
  TL_OP_CP_ASYNC_WAIT,
  /* T.assume(cond) (a value op standing as a TL_STMT_EVAL; bool): a fact the
   * program asserts. The interpreter checks it (false is an error at the call);
   * lowering drops it (lower_tile_ops), as upstream's code has no check. */
  TL_OP_ASSUME,
  TL_OP__COUNT
} tl_ir_op;

/* "T.exp", "T.copy", ...: the name the printer and the front end use. */
TL_API const char *tl_ir_op_name(tl_ir_op op);
/* True for ops that are statements (tile ops and lowered side-effecting builtins). */
TL_API bool tl_ir_op_is_tile(tl_ir_op op);
/* The op whose tl_ir_op_name is `name` ("T.copy"); false if none. Thread-safe. */
TL_API bool tl_ir_op_parse(const char *name, tl_ir_op *out);

/* How a region was written, so the printer writes it back the same way. */
typedef enum tl_ir_region_form {
  TL_REGION_FULL,  /* `A`: the whole buffer */
  TL_REGION_POINT, /* `A[i, j]`: starts at the indices; extents taken from the other operand */
  TL_REGION_SLICE  /* `A[a:b, c]`: explicit ranges; a plain index is a range of extent 1 */
} tl_ir_region_form;

struct tl_ir_expr {
  tl_ir_expr_kind kind;
  tl_dtype dtype;
  tl_ir_span span;
  union {
    int64_t int_value;
    double float_value;
    const char *str;
    tl_ir_var *var;
    struct { tl_ir_binop op; tl_ir_expr *a, *b; } binary;
    struct { tl_ir_unop op; tl_ir_expr *a; } unary;
    struct { tl_ir_expr *cond, *t, *f; } select;
    struct { tl_ir_expr *value; } cast;
    struct { tl_ir_buffer *buffer; uint32_t n; tl_ir_expr **indices; } load;
    struct { tl_ir_op op; uint32_t nargs; tl_ir_expr **args; } call;
    struct {
      tl_ir_buffer *buffer;
      uint32_t ndim;          /* equals buffer->ndim */
      tl_ir_expr **mins;      /* ndim start indices */
      tl_ir_expr **extents;   /* ndim extents (always explicit, even for POINT) */
      tl_ir_region_form form;
    } region;
    struct { tl_ir_expr *base; int64_t stride; } ramp;
    struct { tl_ir_expr *value; } broadcast;
  } u;
};

typedef enum tl_ir_stmt_kind {
  TL_STMT_SEQ,     /* u.seq: statements in order */
  TL_STMT_FOR,     /* u.loop: one or more nested loop variables of one kind */
  TL_STMT_IF,      /* u.if_ (else may be NULL) */
  TL_STMT_STORE,   /* buffer[indices] = value */
  TL_STMT_LET,     /* immutable binding of var to value, visible in body */
  TL_STMT_ALLOC,   /* declares a non-global buffer, live until the end of the enclosing SEQ */
  TL_STMT_EVAL,    /* evaluates a call (tile ops) */
  TL_STMT_KERNEL,  /* `with T.Kernel(grid..., threads=...) as (bx, by, bz)` */
  TL_STMT_BARRIER, /* all threads of the block wait (T.sync_threads, __syncthreads) */
  TL_STMT_ASSERT,  /* if !cond: fail with message (host argument checks) */
  TL_STMT_LAUNCH   /* host side: launch a device kernel of the module */
} tl_ir_stmt_kind;

typedef enum tl_ir_for_kind {
  TL_FOR_SERIAL,     /* range, T.serial */
  TL_FOR_PARALLEL,   /* T.Parallel: iterations independent */
  TL_FOR_VECTORIZED, /* T.vectorized */
  TL_FOR_UNROLLED,   /* T.unroll */
  TL_FOR_PIPELINED,  /* T.Pipelined(n, num_stages=k): serial semantics */
  TL_FOR_THREAD      /* bound to a thread index (thread_tag): the loop runs once per thread */
} tl_ir_for_kind;

struct tl_ir_stmt {
  tl_ir_stmt_kind kind;
  tl_ir_span span;
  union {
    struct { uint32_t n; tl_ir_stmt **stmts; } seq;
    struct {
      tl_ir_for_kind kind;
      uint32_t n;             /* loop depth: T.Parallel(M, N) has n = 2, var 0 outermost */
      tl_ir_var **vars;
      tl_ir_expr **mins;      /* n starts (integer constant 0 unless written) */
      tl_ir_expr **extents;   /* n trip counts */
      int32_t num_stages;     /* TL_FOR_PIPELINED; 0 otherwise */
      const char *thread_tag; /* TL_FOR_THREAD: "threadIdx.x" ... */
      tl_ir_stmt *body;
    } loop;
    struct { tl_ir_expr *cond; tl_ir_stmt *then_; tl_ir_stmt *else_; } if_;
    struct { tl_ir_buffer *buffer; uint32_t n; tl_ir_expr **indices; tl_ir_expr *value; } store;
    struct { tl_ir_var *var; tl_ir_expr *value; tl_ir_stmt *body; } let;
    struct { tl_ir_buffer *buffer; } alloc;
    struct { tl_ir_expr *expr; } eval;
    struct {
      uint32_t grid_ndim;        /* 1..3 extents given to T.Kernel */
      tl_ir_expr *grid[3];       /* NULL past grid_ndim (extent 1) */
      uint32_t threads_ndim;     /* 1..3 */
      tl_ir_expr *threads[3];    /* NULL past threads_ndim (extent 1) */
      tl_ir_var *block_vars[3];  /* bx, by, bz as bound by `as`; NULL if not bound */
      tl_ir_var *thread_vars[3]; /* tx, ty, tz once lowering binds them; NULL at tile level */
      tl_ir_stmt *body;
    } kernel;
    /* The message of a host entry's argument check may embed what was passed:
     * `{nargs}`, `{kind(i)}` (the tl_value kind in words: "an int", "a tensor", ...),
     * `{dtype(i)}` (a tensor's dtype name, "float16"), `{ndim(i)}`, `{shape(i,d)}`,
     * `{stride(i,d)}`, `{device(i)}` (device type number), `{int(i)}` (a scalar's
     * integer value); `{{` and `}}` are literal braces. Whoever reports a failed
     * assert (generated host code, the interpreter) expands them, reading argument
     * i as the TL_OP_ARG_* builtins do; only placeholders whose preconditions the
     * earlier asserts established are used. docs/lowering.md has the exact forms. */
    struct { tl_ir_expr *cond; const char *message; } assert_;
    struct {
      const char *kernel;        /* symbol of a TL_CALLCONV_DEVICE_KERNEL function of the module */
      uint32_t nargs;
      tl_ir_expr **args;         /* in the kernel's parameter order */
      tl_ir_expr *grid[3];       /* launch extents (integer expressions) */
      tl_ir_expr *block[3];
      tl_ir_expr *dyn_shared_bytes; /* may be NULL (0) */
    } launch;
  } u;
};

typedef enum tl_ir_param_kind { TL_PARAM_BUFFER, TL_PARAM_SCALAR } tl_ir_param_kind;

typedef struct tl_ir_param {
  tl_ir_param_kind kind;
  const char *name;       /* the parameter's name (buffer name or scalar var name) */
  tl_ir_var *var;         /* scalar: the variable; buffer: the buffer's data var */
  tl_ir_buffer *buffer;   /* TL_PARAM_BUFFER only */
  bool is_output;         /* made by T.empty and returned (jit style) */
} tl_ir_param;

typedef enum tl_ir_callconv {
  TL_CALLCONV_DEFAULT,       /* a tile-level T.prim_func */
  TL_CALLCONV_PACKED,        /* a host entry: checks arguments, launches kernels */
  TL_CALLCONV_DEVICE_KERNEL  /* a device kernel, launched by a host entry */
} tl_ir_callconv;

typedef enum tl_ir_attr_kind { TL_ATTR_INT, TL_ATTR_STR } tl_ir_attr_kind;
typedef struct tl_ir_attr {
  const char *key;
  tl_ir_attr_kind kind;
  int64_t i;
  const char *s;
} tl_ir_attr;

struct tl_ir_func {
  const char *name;         /* global symbol */
  uint32_t nparams;
  tl_ir_param *params;
  tl_ir_stmt *body;
  tl_ir_callconv callconv;
  uint32_t nattrs;
  tl_ir_attr *attrs;        /* e.g. "target" (JSON), "tl.kernel_source_name" */
  tl_ir_span span;
};

/* ------------------------------------------------------------------ module */

/* An empty module. Free with tl_ir_module_free. Not thread-safe: one thread builds
 * or rewrites a module at a time; a finished module may be read by many threads. */
TL_API tl_status tl_ir_module_create(tl_ir_module **out);
TL_API void tl_ir_module_free(tl_ir_module *mod); /* NULL-safe */
TL_API size_t tl_ir_module_num_funcs(const tl_ir_module *mod);
TL_API tl_ir_func *tl_ir_module_func(const tl_ir_module *mod, size_t i);
/* The function named `name`, or NULL. */
TL_API tl_ir_func *tl_ir_module_find_func(const tl_ir_module *mod, const char *name);
/* Removes function i (keeping the others' order); its nodes stay in the arena. */
TL_API void tl_ir_module_remove_func(tl_ir_module *mod, size_t i);
/* Module attributes (copied into the module). */
TL_API tl_status tl_ir_module_set_attr_str(tl_ir_module *mod, const char *key, const char *value);
TL_API tl_status tl_ir_module_set_attr_int(tl_ir_module *mod, const char *key, int64_t value);
TL_API const tl_ir_attr *tl_ir_module_attr(const tl_ir_module *mod, const char *key); /* NULL if absent */
/* A deep copy of `src` (functions, attributes) into a new module: a variable or
 * buffer used in several places is one object in the copy; ids are kept, so the
 * copy prints, hashes and compares like the original. Free with tl_ir_module_free.
 * Not thread-safe with writers of `src`. */
TL_API tl_status tl_ir_module_clone(const tl_ir_module *src, tl_ir_module **out);
/* Copies a string into the module's arena (NULL on out of memory, message set). */
TL_API const char *tl_ir_module_intern(tl_ir_module *mod, const char *s);

/* ----------------------------------------------------------------- builder
 *
 * Builders allocate in the module's arena and never fail on types: the verifier
 * checks them. They return NULL on out of memory (message set) and return NULL
 * whenever a required node argument is NULL, so a C program can build a whole
 * tree and check once at the end. Each new node gets the module's current
 * location (tl_ir_builder_set_loc), so a parser or a pass sets it once per
 * construct. Caller errors that are not a NULL node (a NULL name, a loop with no
 * variable, grid_ndim outside 1..3, only one of a region's mins/extents) give NULL
 * with a TL_EINVAL message. The tl_ir_func_add_*_param functions given a NULL node
 * return the status of the builder failure that produced it (TL_ENOMEM, ...).
 * Not thread-safe (one thread builds a module at a time). */

TL_API void tl_ir_builder_set_loc(tl_ir_module *mod, tl_ir_span span);
TL_API tl_ir_span tl_ir_builder_loc(const tl_ir_module *mod);

TL_API tl_ir_var *tl_ir_var_new(tl_ir_module *mod, const char *name, tl_dtype dtype);
/* A buffer; shape entries are copied (the array, not the nodes). Its data var is
 * created with it, named after it. strides may be NULL. */
TL_API tl_ir_buffer *tl_ir_buffer_new(tl_ir_module *mod, const char *name, tl_dtype dtype, uint32_t ndim,
                                      tl_ir_expr *const *shape, tl_ir_expr *const *strides, tl_ir_scope scope);

TL_API tl_ir_expr *tl_ir_int(tl_ir_module *mod, tl_dtype dtype, int64_t value);
TL_API tl_ir_expr *tl_ir_i32(tl_ir_module *mod, int64_t value);
TL_API tl_ir_expr *tl_ir_bool(tl_ir_module *mod, bool value);
TL_API tl_ir_expr *tl_ir_float(tl_ir_module *mod, tl_dtype dtype, double value);
TL_API tl_ir_expr *tl_ir_str(tl_ir_module *mod, const char *s); /* dtype handle */
TL_API tl_ir_expr *tl_ir_var_ref(tl_ir_module *mod, tl_ir_var *var);
/* dtype: bool for comparisons and logical ops (with a's lanes), else a's dtype. */
TL_API tl_ir_expr *tl_ir_binary(tl_ir_module *mod, tl_ir_binop op, tl_ir_expr *a, tl_ir_expr *b);
/* dtype: bool (with a's lanes) for TL_UN_NOT, else a's dtype. */
TL_API tl_ir_expr *tl_ir_unary(tl_ir_module *mod, tl_ir_unop op, tl_ir_expr *a);
TL_API tl_ir_expr *tl_ir_select(tl_ir_module *mod, tl_ir_expr *cond, tl_ir_expr *t, tl_ir_expr *f);
TL_API tl_ir_expr *tl_ir_cast(tl_ir_module *mod, tl_dtype dtype, tl_ir_expr *value);
/* dtype: the buffer's dtype (with lanes of the last index when it is a ramp). */
TL_API tl_ir_expr *tl_ir_load(tl_ir_module *mod, tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices);
TL_API tl_ir_expr *tl_ir_call(tl_ir_module *mod, tl_ir_op op, tl_dtype dtype, uint32_t nargs, tl_ir_expr *const *args);
/* mins/extents may both be NULL for the whole buffer (form FULL: int32 zero mins,
 * the buffer's shape as extents); else both have buf->ndim entries. dtype handle. */
TL_API tl_ir_expr *tl_ir_region(tl_ir_module *mod, tl_ir_buffer *buf, tl_ir_expr *const *mins,
                                tl_ir_expr *const *extents, tl_ir_region_form form);
TL_API tl_ir_expr *tl_ir_ramp(tl_ir_module *mod, tl_ir_expr *base, int64_t stride, uint16_t lanes);
TL_API tl_ir_expr *tl_ir_broadcast(tl_ir_module *mod, tl_ir_expr *value, uint16_t lanes);

/* n may be 0 (an empty body). NULL entries make the result NULL. */
TL_API tl_ir_stmt *tl_ir_seq(tl_ir_module *mod, uint32_t n, tl_ir_stmt *const *stmts);
/* mins may be NULL (all 0, typed as their variables); n >= 1. num_stages
 * (TL_FOR_PIPELINED) and thread_tag (TL_FOR_THREAD) start 0/NULL: set them on the
 * returned node before it is shared. */
TL_API tl_ir_stmt *tl_ir_for(tl_ir_module *mod, tl_ir_for_kind kind, uint32_t n, tl_ir_var *const *vars,
                             tl_ir_expr *const *mins, tl_ir_expr *const *extents, tl_ir_stmt *body);
TL_API tl_ir_stmt *tl_ir_if(tl_ir_module *mod, tl_ir_expr *cond, tl_ir_stmt *then_, tl_ir_stmt *else_ /* may be NULL */);
TL_API tl_ir_stmt *tl_ir_store(tl_ir_module *mod, tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices,
                               tl_ir_expr *value);
TL_API tl_ir_stmt *tl_ir_let(tl_ir_module *mod, tl_ir_var *var, tl_ir_expr *value, tl_ir_stmt *body);
TL_API tl_ir_stmt *tl_ir_alloc(tl_ir_module *mod, tl_ir_buffer *buf);
TL_API tl_ir_stmt *tl_ir_eval(tl_ir_module *mod, tl_ir_expr *call);
/* block_vars has grid_ndim entries (entries may be NULL) or is NULL; grid_ndim and
 * threads_ndim are 1..3. thread_vars start NULL (lowering sets them). */
TL_API tl_ir_stmt *tl_ir_kernel(tl_ir_module *mod, uint32_t grid_ndim, tl_ir_expr *const *grid,
                                uint32_t threads_ndim, tl_ir_expr *const *threads,
                                tl_ir_var *const *block_vars, tl_ir_stmt *body);
TL_API tl_ir_stmt *tl_ir_barrier(tl_ir_module *mod);
TL_API tl_ir_stmt *tl_ir_assert(tl_ir_module *mod, tl_ir_expr *cond, const char *message);
/* grid and block: all three entries (integer expressions; 1 for unused dims). */
TL_API tl_ir_stmt *tl_ir_launch(tl_ir_module *mod, const char *kernel, uint32_t nargs, tl_ir_expr *const *args,
                                tl_ir_expr *const grid[3], tl_ir_expr *const block[3], tl_ir_expr *dyn_shared_bytes);

/* A new function named `name` appended to the module (TL_EINVAL if the name is taken). */
TL_API tl_status tl_ir_func_new(tl_ir_module *mod, const char *name, tl_ir_func **out);
TL_API tl_status tl_ir_func_add_buffer_param(tl_ir_module *mod, tl_ir_func *f, tl_ir_buffer *buf, bool is_output);
TL_API tl_status tl_ir_func_add_scalar_param(tl_ir_module *mod, tl_ir_func *f, tl_ir_var *var);
TL_API tl_status tl_ir_func_set_attr_str(tl_ir_module *mod, tl_ir_func *f, const char *key, const char *value);
TL_API tl_status tl_ir_func_set_attr_int(tl_ir_module *mod, tl_ir_func *f, const char *key, int64_t value);
TL_API const tl_ir_attr *tl_ir_func_attr(const tl_ir_func *f, const char *key); /* NULL if absent */

/* --------------------------------------------------------- visitor, mutator */

/* Pre-order traversal. A callback returns false to skip the node's children.
 * Either callback may be NULL. Buffer shapes are not visited. Children come in
 * source order: per dimension a region's min then extent, per level a loop's min
 * then extent then the body, a kernel's grid then threads then body, a launch's
 * args, grid, block, dyn_shared_bytes. A node shared by several parents is
 * visited once per parent. NULL is ignored. */
typedef struct tl_ir_visitor {
  bool (*expr)(struct tl_ir_visitor *v, const tl_ir_expr *e);
  bool (*stmt)(struct tl_ir_visitor *v, const tl_ir_stmt *s);
  void *ctx;
} tl_ir_visitor;
TL_API void tl_ir_visit_expr(tl_ir_visitor *v, const tl_ir_expr *e);
TL_API void tl_ir_visit_stmt(tl_ir_visitor *v, const tl_ir_stmt *s);

/* Copy-on-write rewriting. tl_ir_mutate_* calls the callback if set, else rewrites
 * the children; a callback calls tl_ir_mutate_*_children for the default behaviour
 * on the parts it does not replace. A node whose children are all unchanged is
 * returned as is. On error a callback calls tl_ir_mutator_fail and returns NULL;
 * the mutation then unwinds and returns NULL with mu->status set.
 * Details: a rebuilt node keeps the original's span and fields; the dtypes of
 * binary, unary, select, load, ramp and broadcast nodes are recomputed with the
 * builder's rules (casts and calls keep theirs). Definitions (loop/let/kernel
 * variables) and buffers are not rewritten by the default behaviour. A callback
 * returning NULL after a builder failed records that failure (TL_ENOMEM, ...);
 * NULL without any failure is TL_EINTERNAL. Once mu->status is set every call
 * returns NULL. Mutating NULL returns NULL without failing. */
typedef struct tl_ir_mutator {
  tl_ir_module *mod;
  tl_ir_expr *(*expr)(struct tl_ir_mutator *mu, tl_ir_expr *e);
  tl_ir_stmt *(*stmt)(struct tl_ir_mutator *mu, tl_ir_stmt *s);
  void *ctx;
  tl_status status; /* TL_OK until the first failure */
} tl_ir_mutator;
TL_API tl_ir_expr *tl_ir_mutate_expr(tl_ir_mutator *mu, tl_ir_expr *e);
TL_API tl_ir_stmt *tl_ir_mutate_stmt(tl_ir_mutator *mu, tl_ir_stmt *s);
TL_API tl_ir_expr *tl_ir_mutate_expr_children(tl_ir_mutator *mu, tl_ir_expr *e);
TL_API tl_ir_stmt *tl_ir_mutate_stmt_children(tl_ir_mutator *mu, tl_ir_stmt *s);
/* Records the failure (the message is already set) and returns s. */
TL_API tl_status tl_ir_mutator_fail(tl_ir_mutator *mu, tl_status s);

/* Replaces variables: every use (TL_EXPR_VAR) of vars[i] becomes values[i]
 * (the same node at every use); definitions and buffer shapes are left alone.
 * Returns the same node when nothing changed; NULL with the message set on
 * failure (out of memory, NULL vars or values). */
TL_API tl_ir_stmt *tl_ir_substitute_stmt(tl_ir_module *mod, tl_ir_stmt *s, uint32_t n, tl_ir_var *const *vars,
                                         tl_ir_expr *const *values);
TL_API tl_ir_expr *tl_ir_substitute_expr(tl_ir_module *mod, tl_ir_expr *e, uint32_t n, tl_ir_var *const *vars,
                                         tl_ir_expr *const *values);

/* ------------------------------------------------- equality, hash, printing */

/* Structural equality and hash: variables and buffers are matched by where they are
 * defined, so renaming a local variable or buffer changes neither. Function names,
 * parameter names, dtypes, shapes, scopes, constants and attributes count; spans do
 * not. Equal functions hash equally. Thread-safe for finished modules.
 * Details (docs/ir.md): a use is resolved to its enclosing FOR/LET/KERNEL/ALLOC by
 * distance and slot, to a parameter by index, or to a symbolic dim by its first
 * mention in the parameters' shapes; variables and buffers defined nowhere are
 * matched by name. Float constants compare bitwise (-0.0 != 0.0) except that all
 * NaNs are equal. Attributes compare as sets; a module's functions in order. Ids
 * do not count. Neither allocates, so neither can fail. */
TL_API bool tl_ir_func_equal(const tl_ir_func *a, const tl_ir_func *b);
TL_API uint64_t tl_ir_func_hash(const tl_ir_func *f);
TL_API bool tl_ir_module_equal(const tl_ir_module *a, const tl_ir_module *b);
TL_API uint64_t tl_ir_module_hash(const tl_ir_module *m);

/* TileLang-script text of a module, function, statement or expression (tl_free it).
 * Tile-level IR prints as valid TileLang that the front end parses back to an equal
 * module; lowered IR prints in the same style with lowered constructs spelled out.
 * NULL on out of memory. */
TL_API char *tl_ir_print_module(const tl_ir_module *mod);
TL_API char *tl_ir_print_func(const tl_ir_func *f);
TL_API char *tl_ir_print_stmt(const tl_ir_stmt *s);
TL_API char *tl_ir_print_expr(const tl_ir_expr *e);

/* ----------------------------------------------------------------- verifier */

/* Checks a module: operand types agree, every variable is defined before use (by a
 * parameter, loop, let, kernel binding or symbolic dim of a parameter's shape),
 * buffer ranks match their uses, scopes are used where they are legal (shared and
 * fragment buffers only inside T.Kernel), T.Kernel is not nested, tile-op arguments
 * follow their conventions. TL_EINVAL with "file:line:col: message" on the first
 * problem (the location of the offending node, else of its innermost statement
 * that has one, else of the function; the bare message when none is known).
 * The full rule list is in docs/ir.md. Tile-op dims are 0..ndim-1 (the front end
 * normalizes negative dims). A device kernel's body counts as inside a kernel.
 * tl_ir_verify_func sees one function, so it cannot check that a launch names an
 * existing device kernel with matching parameters; tl_ir_verify_module does.
 * Thread-safe for finished modules. */
TL_API tl_status tl_ir_verify_module(const tl_ir_module *mod);
TL_API tl_status tl_ir_verify_func(const tl_ir_func *f);

/* ---------------------------------------------------------------- front end */

/* A compile-time constant binding: `name=value` where value is a Python literal
 * (integer, float, True/False, a string, or a dtype name such as float16). */
typedef struct tl_ir_const_binding {
  const char *name;
  const char *value;
} tl_ir_const_binding;

typedef struct tl_ir_parse_options {
  size_t struct_size;                  /* sizeof(tl_ir_parse_options) */
  const tl_ir_const_binding *consts;   /* bind factory/jit constants; others use defaults */
  size_t nconsts;
  /* Since the field was added (struct_size covers it): when not NULL, only the
   * kernel, factory or jit function of this name is elaborated; the file's
   * other factories and jit functions are not run (as in Python, where a factory
   * runs when it is called), so their unbound parameters are no error. A name
   * the file does not define is TL_EINVAL naming the functions it has. */
  const char *func;
  /* Since the field was added: bindings that match nothing are not an error.
   * Language bindings set it: they bind every value a function closes over (its
   * globals and closure cells), not all of which the front end reads. */
  bool ignore_unused_consts;
} tl_ir_parse_options;

/* Parses kernel text in TileLang's Python DSL (the subset documented in
 * docs/frontend.md) into a new module: one function per top-level @T.prim_func,
 * factory function returning a prim_func (named after the factory), or
 * @tilelang.jit function. Errors are TL_EINVAL with "file:line:col: message", the
 * source line and a caret under the column. opts may be NULL. Thread-safe. */
TL_API tl_status tl_ir_parse(const char *source, const char *filename, const tl_ir_parse_options *opts,
                             tl_ir_module **out);
/* Reads and parses a file (TL_EIO if unreadable). */
TL_API tl_status tl_ir_parse_file(const char *path, const tl_ir_parse_options *opts, tl_ir_module **out);

/* ------------------------------------------------------------- interpreter */

/* Runs a function on host tensors with the DSL's meaning: blocks and threads of
 * T.Kernel in order, T.Parallel as loops, tile ops by their definitions, float16
 * and bfloat16 rounded to nearest even after every operation. args are in
 * parameter order: TL_VALUE_TENSOR (DLTensor on kDLCPU) for buffers, INT/FLOAT/BOOL
 * for scalars. Symbolic dims are bound from the tensors' shapes. Arguments are
 * checked first (TL_EINVAL naming the parameter); an out-of-bounds access outside
 * T.copy's clipping rules is TL_ERUNTIME naming the buffer, index and source line.
 * Works on tile-level and lowered functions of the module (launches run the named
 * device kernel). Device code whose threads synchronise or share memory (barriers,
 * warp shuffles, shared buffers, atomics) runs with one OS thread per GPU thread
 * of a block, so barriers and warp exchanges have their real meaning; divergence
 * and data races on shared memory are TL_ERUNTIME (docs/interpreter.md, "SIMT
 * mode"). Thread-safe for distinct tensors. */
TL_API tl_status tl_ir_interpret(const tl_ir_module *mod, const char *func_name, const tl_value *args, int nargs);

#ifdef __cplusplus
}
#endif

#endif /* TILELANG_IR_H */
