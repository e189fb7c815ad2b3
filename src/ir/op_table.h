/* The table of operations: what every tl_ir_op is, in one place.
 *
 * Two X-macros, one row per op:
 *
 *   TL__VALUE_OPS(X)  ops that are values (math intrinsics, lowered builtins,
 *                     host argument metadata): X(OP, NAME, ARITY, FRONT)
 *   TL__TILE_OPS(X)   tile ops, the statements of a TL_STMT_EVAL:
 *                     X(OP, NAME, FRONT, SIG, ARGS, DEFAULTS, WRITTEN, WRITTEN_READ, FOLD,
 *                       VERIFY, INTERP, CHECK, SERIAL, ELEMENTWISE, GPU)
 *
 * Columns:
 *   OP           the tl_ir_op enumerator without TL_OP_ (the public enum in
 *                tilelang/ir.h keeps its values; the table is keyed by it)
 *   NAME         "T.copy": printer, tl_ir_op_parse, messages; the front end
 *                accepts it as T.<name> when FRONT is not NONE
 *   ARITY        the number of arguments of a value op
 *   FRONT        the front end's elaboration family (BI_<FRONT> in
 *                parse/elab.h) or NONE (made by passes only)
 *   SIG          one letter per argument: R region, E value, I integer
 *                constant (a flag or "dim"), X a region or a value, N a
 *                non-negative integer constant (a size or a stride)
 *   ARGS         (argument names) in order, as messages and keywords name them
 *   DEFAULTS     (the default of every I flag; 0 for the others): the printer
 *                leaves a flag at its default out
 *   WRITTEN      the index of the region argument the op writes
 *   WRITTEN_READ whether the written region is also read: TL__READ_NEVER,
 *                TL__READ_ALWAYS or TL__READ_UNLESS(k): unless flag k is 1
 *   FOLD         TL__FOLD(COMBINE, IDENTITY, ABS): the op folds elements with
 *                TL_BIN_<COMBINE> from TL__IDENTITY_<IDENTITY> (ABS: of |x|),
 *                or TL__NO_FOLD; for the atomics, COMBINE is their
 *                read-modify-write (dst = dst COMBINE value)
 *
 * The stage columns name the functions of each stage, by a stem, or `none`
 * where the stage has no code for the op. Each stage's file expands the macro
 * itself into a static table of its own static functions (`verify_<stem>` in
 * ir/verify_ops.c, ...), so a stage of a higher layer (transform) keeps its
 * functions without src/ir naming or including anything above it; each file
 * defines `<prefix>_none` as NULL:
 *   VERIFY       ir/verify_ops.c: `verify_<stem>`, rules beyond the signature
 *   INTERP       ir/interp/tileops.c: `op_<stem>`, the reference semantics
 *   CHECK        transform/semantic_check.c: `check_<stem>` (scopes, dtypes
 *                the verifier leaves to the target-independent checks)
 *   SERIAL       transform/lower_tile_ops.c: `lower_<stem>`, loops over elements
 *   ELEMENTWISE  1 if lower_elementwise_tile_ops lowers it (inside T.Parallel
 *                and before the GPU passes), 0 if it reaches the GPU passes
 *   GPU          transform/gpu/layout.c `layout_<stem>` (its constraints on
 *                fragment layouts) and gpu/lower_simt.c `gpu_<stem>` (its SIMT
 *                lowering); `none`: lowered before the GPU passes
 *
 * Adding a tile op: its enumerator (appended to tl_ir_op), a row here, and the
 * functions its row names. */
#ifndef TL_IR_OP_TABLE_H
#define TL_IR_OP_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "tilelang/ir.h"

#define TL__VALUE_OPS(X)                                   \
  X(EXP, "T.exp", 1, MATH)                                 \
  X(EXP2, "T.exp2", 1, MATH)                               \
  X(LOG, "T.log", 1, MATH)                                 \
  X(LOG2, "T.log2", 1, MATH)                               \
  X(SQRT, "T.sqrt", 1, MATH)                               \
  X(RSQRT, "T.rsqrt", 1, MATH)                             \
  X(TANH, "T.tanh", 1, MATH)                               \
  X(SIGMOID, "T.sigmoid", 1, MATH)                         \
  X(POW, "T.pow", 2, MATH)                                 \
  X(FMA, "T.fma", 3, MATH)                                 \
  X(FLOOR, "T.floor", 1, MATH)                             \
  X(CEIL, "T.ceil", 1, MATH)                               \
  X(ROUND, "T.round", 1, MATH)                             \
  X(TRUNC, "T.trunc", 1, MATH)                             \
  X(SIN, "T.sin", 1, MATH)                                 \
  X(COS, "T.cos", 1, MATH)                                 \
  X(ABS, "T.abs", 1, MATH)                                 \
  X(ERF, "T.erf", 1, MATH)                                 \
  X(LOG10, "T.log10", 1, MATH)                             \
  X(LOG1P, "T.log1p", 1, MATH)                             \
  X(EXPM1, "T.expm1", 1, MATH)                             \
  X(TAN, "T.tan", 1, MATH)                                 \
  X(FMOD, "T.fmod", 2, MATH)                               \
  X(CEILDIV, "T.ceildiv", 2, CEILDIV)                      \
  X(WARP_SHFL_XOR, "T.warp_shfl_xor", 3, NONE)             \
  X(ARG_NUM, "T.arg_num", 0, NONE)                         \
  X(ARG_KIND, "T.arg_kind", 1, NONE)                       \
  X(ARG_DTYPE_CODE, "T.arg_dtype_code", 1, NONE)           \
  X(ARG_DTYPE_BITS, "T.arg_dtype_bits", 1, NONE)           \
  X(ARG_DTYPE_LANES, "T.arg_dtype_lanes", 1, NONE)         \
  X(ARG_NDIM, "T.arg_ndim", 1, NONE)                       \
  X(ARG_SHAPE, "T.arg_shape", 2, NONE)                     \
  X(ARG_STRIDE, "T.arg_stride", 2, NONE)                   \
  X(ARG_STRIDES_COMPACT, "T.arg_strides_compact", 1, NONE) \
  X(ARG_DEVICE_TYPE, "T.arg_device_type", 1, NONE)         \
  X(ARG_DATA_IS_NULL, "T.arg_data_is_null", 1, NONE)       \
  X(ARG_INT, "T.arg_int", 1, NONE)                         \
  X(ARG_FLOAT, "T.arg_float", 1, NONE)                     \
  X(ARG_DATA_ALIGNED, "T.arg_data_aligned", 2, NONE)     \
  X(ASSUME, "T.assume", 1, ASSUME)

/* clang-format off */
/* T.GemmWarpPolicy's members by value (T.gemm's `policy` argument): the front
 * end reads them, the printer writes them. */
#define TL__GEMM_POLICY_NAMES {"Square", "FullRow", "FullCol"}
#define TL__GEMM_POLICY_COUNT 3

#define TL__TILE_OPS(X)                                                                                        \
  /* OP, NAME, FRONT, SIG, ARGS, DEFAULTS, WRITTEN, WRITTEN_READ, FOLD,                                        \
   *   VERIFY, INTERP, CHECK, SERIAL, ELEMENTWISE, GPU */                                                      \
  X(COPY, "T.copy", COPY, "RR", ("src", "dst"), (0, 0), 1, TL__READ_NEVER, TL__NO_FOLD,                        \
    copy, copy, none, copy, 1, none)                                                                           \
  X(FILL, "T.fill", FILL, "RE", ("dst", "value"), (0, 0), 0, TL__READ_NEVER, TL__NO_FOLD,                      \
    none, fill, none, fill, 1, none)                                                                           \
  X(CLEAR, "T.clear", CLEAR, "R", ("dst"), (0), 0, TL__READ_NEVER, TL__NO_FOLD,                                \
    none, clear, none, clear, 1, none)                                                                         \
  X(GEMM, "T.gemm", GEMM, "RRRIIII", ("A", "B", "C", "transpose_A", "transpose_B", "clear_accum", "policy"),  \
    (0, 0, 0, 0, 0, 0, 0), 2, TL__READ_UNLESS(5), TL__NO_FOLD,                                                 \
    gemm, gemm, gemm, gemm, 0, gemm)                                                                           \
  X(REDUCE_SUM, "T.reduce_sum", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,             \
    TL__READ_UNLESS(3), TL__FOLD(ADD, ZERO, false), reduce, reduce, reduce, reduce, 0, reduce)                 \
  X(REDUCE_MAX, "T.reduce_max", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,             \
    TL__READ_UNLESS(3), TL__FOLD(MAX, LOWEST, false), reduce, reduce, reduce, reduce, 0, reduce)               \
  X(REDUCE_MIN, "T.reduce_min", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,             \
    TL__READ_UNLESS(3), TL__FOLD(MIN, HIGHEST, false), reduce, reduce, reduce, reduce, 0, reduce)              \
  X(REDUCE_ABSSUM, "T.reduce_abssum", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,       \
    TL__READ_UNLESS(3), TL__FOLD(ADD, ZERO, true), reduce, reduce, reduce, reduce, 0, reduce)                  \
  X(REDUCE_ABSMAX, "T.reduce_absmax", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,       \
    TL__READ_UNLESS(3), TL__FOLD(MAX, ZERO, true), reduce, reduce, reduce, reduce, 0, reduce)                  \
  X(REDUCE_BITXOR, "T.reduce_bitxor", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,       \
    TL__READ_UNLESS(3), TL__FOLD(BITXOR, ZERO, false), reduce_bitwise, reduce, reduce, reduce, 0, reduce)      \
  X(REDUCE_BITAND, "T.reduce_bitand", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,       \
    TL__READ_UNLESS(3), TL__FOLD(BITAND, ALL_ONES, false), reduce_bitwise, reduce, reduce, reduce, 0, reduce)  \
  X(REDUCE_BITOR, "T.reduce_bitor", REDUCE, "RRII", ("src", "dst", "dim", "clear"), (0, 0, 0, 1), 1,         \
    TL__READ_UNLESS(3), TL__FOLD(BITOR, ZERO, false), reduce_bitwise, reduce, reduce, reduce, 0, reduce)       \
  X(ATOMIC_ADD, "T.atomic_add", ATOMIC_ADD, "RX", ("dst", "value"), (0, 0), 0, TL__READ_ALWAYS,            \
    TL__FOLD(ADD, ZERO, false), atomic_add, atomic_add, atomic_add, atomic_add, 1, none)                       \
  X(CUMSUM, "T.cumsum", CUMSUM, "RRII", ("src", "dst", "dim", "reverse"), (0, 0, 0, 0), 1, TL__READ_NEVER,   \
    TL__FOLD(ADD, ZERO, false), cumsum, cumsum, none, cumsum, 0, cumsum)                                       \
  X(CUMMAX, "T.cummax", CUMSUM, "RRII", ("src", "dst", "dim", "reverse"), (0, 0, 0, 0), 1, TL__READ_NEVER,   \
    TL__FOLD(MAX, LOWEST, false), cumsum, cumsum, none, cumsum, 0, cumsum)                                     \
  X(ATOMIC_ADD_ELEM, "T.atomic_add_elem", NONE, "RE", ("dst", "value"), (0, 0), 0, TL__READ_ALWAYS,          \
    TL__FOLD(ADD, ZERO, false), atomic_add_elem, atomic_add, none, none, 0, atomic_add_elem)                   \
  X(GEMM_STRIDED, "T.gemm_strided", NONE, "RRRNNNNNNNNNI",                                                     \
    ("a", "b", "c", "m", "n", "k", "a_rs", "a_cs", "b_rs", "b_cs", "c_rs", "c_cs", "clear"),                   \
    (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 2, TL__READ_UNLESS(12), TL__NO_FOLD,                              \
    gemm_strided, gemm_strided, none, none, 0, none)                                                          \
  X(MMA_M16N8K16, "T.mma_m16n8k16", NONE, "RRR", ("d", "a", "b"), (0, 0, 0), 0, TL__READ_ALWAYS, TL__NO_FOLD, \
    mma, mma, none, none, 0, none)                                                                            \
  X(LDMATRIX_X4, "T.ldmatrix_x4", NONE, "RRI", ("dst", "src", "trans"), (0, 0, 0), 0, TL__READ_NEVER,          \
    TL__NO_FOLD, ldmatrix, ldmatrix, none, none, 0, none)                                                      \
  X(ATOMIC_MAX, "T.atomic_max", ATOMIC_ADD, "RX", ("dst", "value"), (0, 0), 0, TL__READ_ALWAYS,            \
    TL__FOLD(MAX, LOWEST, false), atomic_add, atomic_add, atomic_add, atomic_add, 1, none)                     \
  X(ATOMIC_MIN, "T.atomic_min", ATOMIC_ADD, "RX", ("dst", "value"), (0, 0), 0, TL__READ_ALWAYS,            \
    TL__FOLD(MIN, HIGHEST, false), atomic_add, atomic_add, atomic_add, atomic_add, 1, none)                    \
  X(ATOMIC_MAX_ELEM, "T.atomic_max_elem", NONE, "RE", ("dst", "value"), (0, 0), 0, TL__READ_ALWAYS,          \
    TL__FOLD(MAX, LOWEST, false), atomic_add_elem, atomic_add, none, none, 0, atomic_add_elem)                 \
  X(ATOMIC_MIN_ELEM, "T.atomic_min_elem", NONE, "RE", ("dst", "value"), (0, 0), 0, TL__READ_ALWAYS,          \
    TL__FOLD(MIN, HIGHEST, false), atomic_add_elem, atomic_add, none, none, 0, atomic_add_elem)                 \
  X(CP_ASYNC, "T.cp_async", NONE, "RRNE", ("dst", "src", "bytes", "valid"), (0, 0, 0, 0), 0, TL__READ_NEVER,    \
    TL__NO_FOLD, cp_async, cp_async, none, none, 0, async)                                                     \
  X(CP_ASYNC_COMMIT, "T.cp_async_commit", NONE, "", (), (), 0, TL__READ_NEVER, TL__NO_FOLD, none,                \
    cp_async_commit, none, none, 0, async)                                                                     \
  X(CP_ASYNC_WAIT, "T.cp_async_wait", NONE, "N", ("n"), (0), 0, TL__READ_NEVER, TL__NO_FOLD, none,                \
    cp_async_wait, none, none, 0, async)
/* clang-format on */

/* Where a fold starts. */
typedef enum tl__identity_kind {
  TL__IDENTITY_ZERO,    /* sums; the largest of absolute values */
  TL__IDENTITY_LOWEST,  /* max: -inf, or the dtype's lowest integer */
  TL__IDENTITY_HIGHEST, /* min: +inf, or the dtype's highest integer */
  TL__IDENTITY_ALL_ONES, /* bitwise and: every bit set (integers only) */
} tl__identity_kind;

typedef struct tl__op_fold {
  bool folds;
  tl_ir_binop combine;
  tl__identity_kind identity;
  bool abs; /* folds |x| */
} tl__op_fold;

#define TL__FOLD(combine, identity, abs) {true, TL_BIN_##combine, TL__IDENTITY_##identity, abs}
#define TL__NO_FOLD {false, TL_BIN_ADD, TL__IDENTITY_ZERO, false}

#define TL__READ_NEVER -1
#define TL__READ_ALWAYS -2
#define TL__READ_UNLESS(flag) (flag)

#define TL__OP_MAX_ARGS 13 /* T.gemm_strided */

/* The IR facts of a tile op (the stage columns are expanded by the stages). */
typedef struct tl__tile_op_info {
  const char *name;
  const char *sig;                         /* strlen(sig) arguments */
  uint32_t nargs;
  const char *arg_names[TL__OP_MAX_ARGS];
  int64_t defaults[TL__OP_MAX_ARGS];       /* of the I flags */
  uint32_t written;                        /* the region written */
  int written_read;                        /* TL__READ_NEVER, TL__READ_ALWAYS or the flag index */
  tl__op_fold fold;
  bool elementwise;                        /* lowered by lower_elementwise_tile_ops */
} tl__tile_op_info;

/* The row of tile op `op`; NULL if op is not a tile op. */
const tl__tile_op_info *tl__tile_op(tl_ir_op op);
/* The number of arguments of value op `op` (math, lowered builtins, argument
 * metadata); -1 for tile ops and invalid ops. */
int tl__value_op_arity(tl_ir_op op);
/* Whether the written region of `call` (a tile op with its full argument list)
 * is read too: flags set to other than their default count. */
bool tl__tile_op_reads_written(const tl__tile_op_info *t, const tl_ir_expr *call);

/* Whether `op` is one of the lowered one-element atomics (T.atomic_add_elem,
 * T.atomic_max_elem, T.atomic_min_elem); their FOLD's combine is the update. */
bool tl__op_is_atomic_elem(tl_ir_op op);
/* The one-element atomic that lowers tile atomic `op` (T.atomic_add ->
 * T.atomic_add_elem, ...); TL_OP__COUNT if op is not a tile atomic. */
tl_ir_op tl__atomic_elem_of(tl_ir_op op);

/* Helpers for the expansions. */
#define TL__PARENS_TO_BRACES(...) {__VA_ARGS__}

#endif
