/* The reference interpreter's internals, shared by its files:
 *   value.c    scalar values and arithmetic per dtype (rounding, wrapping, casts)
 *   memory.c   buffers: storage, layouts, element addressing and bounds checks
 *   expr.c     expression evaluation (lane by lane for vectors)
 *   stmt.c     statements: loops, T.Kernel, lets, allocations, launches
 *   tileops.c  T.copy, T.fill, T.clear, T.gemm, T.reduce_*, T.cumsum, T.atomic_add
 *   args.c     argument checking and binding; tl_ir_interpret
 *   simt*.c    SIMT execution of device code: one OS thread per GPU thread (simt.h)
 *
 * Values. A scalar is a tl__ival whose meaning comes from the dtype of the node
 * that produced it: integers and bools are held in `i` normalised to their width
 * (sign-extended for intN, zero-extended for uintN, uint64 as its bit pattern),
 * floats in `f` as a double already rounded to the dtype (so every float16 value
 * is exactly a double), handles in `p` (a tl__istore). Every arithmetic operation
 * is evaluated in double or 64-bit integers and rounded or wrapped to its dtype at
 * once, which is how hardware computes one operation at a time. */
#ifndef TL_IR_INTERP_H
#define TL_IR_INTERP_H

#include <stdbool.h>
#include <stdint.h>

#include "tilelang/ir.h"

typedef union tl__ival {
  int64_t i;
  double f;
  void *p;
} tl__ival;

/* ------------------------------------------------------------------ errors */

/* Sets "file:line:col: message" (no prefix when the span is unknown) and returns s. */
tl_status tl__interp_error(tl_status s, tl_ir_span span, const char *fmt, ...) TL_PRINTF(3, 4);

/* ------------------------------------------------------------------ values */

/* The dtype's name for messages ("float16"). */
const char *tl__interp_dtype_name(tl_dtype t, char buf[32]);
/* True for the scalar dtypes buffers may hold here: bool, (u)int8..64, float16,
 * bfloat16, float32, float64 (lanes ignored). */
bool tl__iv_dtype_supported(tl_dtype t);
/* The value as a double (exact for floats and integers up to 2^53). */
double tl__iv_as_f64(tl_dtype t, tl__ival v);
/* An integer normalised to the width and signedness of t (two's complement wrap). */
int64_t tl__iv_wrap(tl_dtype t, int64_t x);
/* x rounded to float dtype t (float16/bfloat16 to nearest even). */
double tl__iv_round(tl_dtype t, double x);
/* A scalar of dtype t from an integer, rounded or wrapped as a cast would. */
tl__ival tl__iv_from_i64(tl_dtype t, int64_t x);
/* Reads / writes one scalar element of dtype t at p (t.lanes ignored). */
tl__ival tl__iv_load(tl_dtype t, const void *p);
void tl__iv_store(tl_dtype t, void *p, tl__ival v);
/* Fills n elements at p with the poison pattern: NaN for floats, 0xA5 bytes otherwise. */
void tl__iv_poison(tl_dtype t, void *p, size_t n);

/* Conversion from `from` to `to` with C's rules (float->int truncates; NaN or out of
 * range is TL_ERUNTIME at span), float16/bfloat16 rounded to nearest even. */
tl_status tl__iv_cast(tl_dtype to, tl_dtype from, tl__ival v, tl_ir_span span, tl__ival *out);
/* a op b for operands of dtype t; comparisons give bool. Integer division by zero
 * and shifts out of range are TL_ERUNTIME at span. */
tl_status tl__iv_binary(tl_ir_binop op, tl_dtype t, tl__ival a, tl__ival b, tl_ir_span span, tl__ival *out);
tl_status tl__iv_unary(tl_ir_unop op, tl_dtype t, tl__ival a, tl_ir_span span, tl__ival *out);
/* A math intrinsic (TL_OP_EXP ... TL_OP_CEILDIV) on arguments of dtype t. */
tl_status tl__iv_math(tl_ir_op op, tl_dtype t, const tl__ival *args, uint32_t nargs, tl_ir_span span,
                      tl__ival *out);

/* ------------------------------------------------------------------ memory */

/* Memory behind a buffer's data variable: a tensor argument or an allocation. */
typedef struct tl__istore {
  char *data;
  size_t nbytes;
  bool owned;                /* allocated by the interpreter (freed with the scope) */
  bool global;               /* a tensor argument: T.copy clips at its edges */
  const tl_ir_buffer *buffer; /* the buffer it was made for (names in messages) */
  struct tl__istore *next;   /* the frame's stack of live allocations */
  struct tl__simt_shared *shared; /* SIMT: the block's shared instance (simt.h); else NULL */
} tl__istore;

/* A buffer's evaluated shape and strides (in elements) in one frame. */
typedef struct tl__ilayout {
  bool ready;
  int64_t *dims; /* ndim shape, then ndim strides */
} tl__ilayout;

typedef struct tl__interp tl__interp;

/* How a variable is bound. Only data variables bound to memory by the interpreter
 * itself (arguments, allocations, launches passing them on) count as buffers, so
 * no handle value computed by the program is ever taken for memory. */
enum { TL__UNBOUND = 0, TL__BOUND_VALUE = 1, TL__BOUND_STORAGE = 2 };

/* One function invocation: variable values and buffer layouts, indexed by id. */
typedef struct tl__iframe {
  tl__interp *in;
  const tl_ir_func *func;
  tl__ival *vals;
  uint8_t *bound;      /* per variable: TL__BOUND_* */
  tl__ilayout *layouts;
  tl__istore *allocs;  /* live allocations, newest first */
  struct tl__simt_thread *simt; /* the GPU thread this frame runs under SIMT execution; else NULL */
} tl__iframe;

struct tl__interp {
  const tl_ir_module *mod;
  uint32_t nvars, nbuffers; /* id bounds of the module's variables and buffers */
  int depth;                /* launch nesting, to stop runaway recursion */
  const tl_value *args;     /* the entry function's arguments as given (TL_OP_ARG_* read them) */
  int nargs;
};

tl_status tl__iframe_init(tl__iframe *fr, tl__interp *in, const tl_ir_func *f);
/* Frees the frame's allocations and layouts. */
void tl__iframe_free(tl__iframe *fr);

/* The storage bound to buf's data variable (TL_EINVAL at span if none). */
tl_status tl__interp_storage(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span, tl__istore **out);
/* The layout of buf in this frame, evaluating its shape on first use. */
tl_status tl__interp_layout(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span, const int64_t **dims,
                            const int64_t **strides);
/* Re-evaluates buf's shape (an allocation running again). */
tl_status tl__interp_layout_eval(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span);
/* Address of element idx[0..n) of buf; out of bounds is TL_ERUNTIME at span. */
tl_status tl__interp_addr(tl__iframe *fr, const tl_ir_buffer *buf, const int64_t *idx, uint32_t n, tl_ir_span span,
                          char **out);
/* Allocates buf (a non-global buffer) poisoned, pushes it on the frame's stack and
 * binds its data variable. */
tl_status tl__interp_alloc(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span);
/* The bytes buf needs (its layout evaluated in fr; a non-global buffer of a
 * supported dtype), for allocations. */
tl_status tl__interp_alloc_size(tl__iframe *fr, const tl_ir_buffer *buf, tl_ir_span span, size_t *nbytes);
/* Binds buf's data variable to st (memory the frame does not own) until the
 * enclosing scope ends, as an allocation would. */
tl_status tl__interp_bind_scoped(tl__iframe *fr, const tl_ir_buffer *buf, tl__istore *st);
/* Frees allocations made after `mark` (the stack top when the scope began). */
void tl__interp_free_to(tl__iframe *fr, tl__istore *mark);
/* "buffer 'A' index [3, 17] out of bounds for shape [16, 16]" at span. */
tl_status tl__interp_oob(tl_ir_span span, const tl_ir_buffer *buf, const int64_t *idx, uint32_t n,
                         const int64_t *dims);

/* ------------------------------------------------------------- evaluation */

/* Evaluates a scalar expression (dtype.lanes == 1) or one lane of a vector one. */
tl_status tl__interp_eval(tl__iframe *fr, const tl_ir_expr *e, uint32_t lane, tl__ival *out);
/* Evaluates an integer expression to int64. */
tl_status tl__interp_eval_int(tl__iframe *fr, const tl_ir_expr *e, int64_t *out);
/* Binds a variable to a value / a buffer's data variable to memory. */
void tl__interp_bind(tl__iframe *fr, const tl_ir_var *v, tl__ival val);
void tl__interp_bind_storage(tl__iframe *fr, const tl_ir_var *v, tl__istore *st);
tl_status tl__interp_check_var(tl__iframe *fr, const tl_ir_var *v, tl_ir_span span);

/* Runs a statement. */
tl_status tl__interp_exec(tl__iframe *fr, const tl_ir_stmt *s);
/* Runs a tile op or lowered builtin (an EVAL of a call with tl_ir_op_is_tile). */
tl_status tl__interp_tile_op(tl__iframe *fr, const tl_ir_expr *call, tl_ir_span span);

/* ------------------------------------------- host entries (hostargs.c) */

/* "an int", "a tensor", ...: a tl_value kind in words, for messages. */
const char *tl__interp_value_kind_name(tl_value_kind k);
/* The name of a DLPack dtype, also for codes the IR has no name for
 * ("dtype(code=7, bits=8, lanes=1)"). */
const char *tl__interp_dl_dtype_name(uint8_t code, uint8_t bits, uint16_t lanes, char buf[48]);
/* Evaluates a TL_OP_ARG_* builtin against the entry's arguments (fr->in->args);
 * a builtin whose precondition does not hold (index past nargs, not a tensor,
 * dimension past ndim, not a scalar) is TL_ERUNTIME at the call's span. */
tl_status tl__interp_arg_op(tl__iframe *fr, const tl_ir_expr *e, tl__ival *out);
/* The message of a failed assert with its placeholders ({dtype(0)}, {shape(1,0)},
 * ...; ir.h) filled in from the arguments; tl_free it. NULL on out of memory. */
char *tl__interp_assert_message(tl__iframe *fr, const char *msg);
/* Runs the asserts at the start of a packed host entry's body that read only
 * argument metadata (TL_OP_ARG_* and constants) before anything is bound, so the
 * entry reports its own argument messages. */
tl_status tl__interp_host_checks(tl__iframe *fr);

/* Runs s as a scope: allocations it makes die when it ends. */
tl_status tl__interp_exec_scope(tl__iframe *fr, const tl_ir_stmt *s);
/* Runs a function whose parameters are already bound in fr (after checks). */
tl_status tl__interp_run_func(tl__iframe *fr);
/* Checks whether f may be interpreted: thread-bound code that synchronises must be
 * inside T.Kernel or a launched device kernel, where SIMT execution runs it. */
tl_status tl__interp_check_func(const tl_ir_func *f);

#endif
