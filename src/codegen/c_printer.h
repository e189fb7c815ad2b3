/* The C-family source printer: lowered IR (docs/lowering.md) to the text of a
 * dialect (c_dialect.h). One printer serves every C-like target; what differs is
 * in the dialect table. Device code generators print device kernels with it; the
 * host code generator prints host entries with it, adding the lowered builtins
 * that only host code knows through `ext_call`.
 *
 * Naming: every variable gets one C identifier per function (its own name when that
 * is a valid, unused, unreserved identifier; else a sanitized and numbered one), so
 * nested scopes never shadow. Failures (unsupported constructs, out of memory) are
 * recorded once in `status` with the message set; printing goes on harmlessly, so
 * callers check at the end. */
#ifndef TL_CODEGEN_C_PRINTER_H
#define TL_CODEGEN_C_PRINTER_H

#include "base/map.h"
#include "base/str.h"
#include "base/vec.h"
#include "codegen/c_dialect.h"

/* C operator precedence, loosest first: an expression printed where the context
 * binds tighter than it gets parentheses. */
enum {
  TL__PREC_TOP = 0, /* a full expression (statement, argument, index) */
  TL__PREC_TERNARY = 3,
  TL__PREC_LOR, TL__PREC_LAND, TL__PREC_BOR, TL__PREC_BXOR, TL__PREC_BAND,
  TL__PREC_EQ, TL__PREC_REL, TL__PREC_SHIFT, TL__PREC_ADD, TL__PREC_MUL,
  TL__PREC_UNARY, /* unary operators and casts */
  TL__PREC_POSTFIX, /* calls, subscripts */
  TL__PREC_PRIMARY
};

typedef struct tl__cgen {
  const tl__c_dialect *d;
  tl__sb *out;      /* where text goes: &body, or a capture */
  tl__sb body;
  int indent;       /* in levels of two spaces */
  tl_status status; /* TL_OK until the first failure */
  tl__vec var_text;  /* char *, by variable id: how the variable prints (NULL: not named yet) */
  tl__vec var_flags; /* uint8_t, by variable id */
  tl__vec var_elem;  /* tl_dtype, by data variable id: the declared element type */
  tl__map idents;    /* identifiers taken in the current function */
  tl__vec helpers;   /* helper sections used so far (tl__cgen_helper_use) */
  const char *lane;  /* the lane index while a vector expression prints lane by lane */
  bool no_round;     /* the next 16-bit float operation leaves out its rounding (a store narrows) */
  int loop_depth;
  /* Extension: prints a call the printer does not know (host builtins); returns false
   * if it does not know it either. */
  bool (*ext_call)(struct tl__cgen *g, const tl_ir_expr *e, int prec);
  /* Extension: prints a statement the printer does not know or handles differently
   * in host code (checks, launches); returns false to leave it to the printer. */
  bool (*ext_stmt)(struct tl__cgen *g, const tl_ir_stmt *s);
  void *ext;
} tl__cgen;

typedef struct tl__cgen_helper_use {
  const tl__c_helper *helper;
  tl_dtype type; /* for per-type sections */
} tl__cgen_helper_use;

void tl__cgen_init(tl__cgen *g, const tl__c_dialect *d);
void tl__cgen_free(tl__cgen *g);
/* Forgets the names of the previous function (helpers used stay recorded). */
void tl__cgen_begin_func(tl__cgen *g);
/* Records the first failure (its message already set) and returns s. */
tl_status tl__cgen_fail(tl__cgen *g, tl_status s);
/* Records a failure with a formatted message. */
tl_status tl__cgen_error(tl__cgen *g, tl_status s, const char *fmt, ...) TL_PRINTF(3, 4);
/* The failure recorded, else the output's allocation status. */
tl_status tl__cgen_status(const tl__cgen *g);

/* Output: a line at the current indentation (newline added), and raw text. */
void tl__cgen_line(tl__cgen *g, const char *fmt, ...) TL_PRINTF(2, 3);
void tl__cgen_write(tl__cgen *g, const char *fmt, ...) TL_PRINTF(2, 3);
/* Redirects output into `sb` until the matching tl__cgen_capture_end. */
tl__sb *tl__cgen_capture_begin(tl__cgen *g, tl__sb *sb);
void tl__cgen_capture_end(tl__cgen *g, tl__sb *previous);

/* Reserves an identifier in the current function so no variable takes it. */
void tl__cgen_reserve(tl__cgen *g, const char *ident);
/* A fresh identifier based on `base`, reserved (borrowed from the printer). */
const char *tl__cgen_fresh(tl__cgen *g, const char *base);
/* Gives v a fresh identifier (its own name when possible) and returns it. */
const char *tl__cgen_declare(tl__cgen *g, const tl_ir_var *v);
/* Makes v print as `text` (an identifier or a primary expression). */
void tl__cgen_bind(tl__cgen *g, const tl_ir_var *v, const char *text);
/* How v prints, or NULL if it has no name yet. */
const char *tl__cgen_var_text(const tl__cgen *g, const tl_ir_var *v);
/* Marks v as never negative (sizes, indices), which lets // and % print as / and %. */
void tl__cgen_set_nonneg(tl__cgen *g, const tl_ir_var *v);
bool tl__cgen_var_nonneg(const tl__cgen *g, const tl_ir_var *v);
/* True if e is provably >= 0 (constants, sizes, loop indices from 0, and sums,
 * products and quotients of those). */
bool tl__cgen_expr_nonneg(const tl__cgen *g, const tl_ir_expr *e);
/* True if v was bound to a vector (an array indexed by lane). */
bool tl__cgen_var_vector(const tl__cgen *g, const tl_ir_var *v);

/* Types: the C type holding values of t in expressions (float for float16), and the
 * type of elements of t in memory (uint16_t for float16). NULL (failure recorded) for
 * a type the dialect lacks. */
const char *tl__cgen_type(tl__cgen *g, tl_dtype t);
const char *tl__cgen_storage_type(tl__cgen *g, tl_dtype t);
/* The dialect's 16-bit float type for t, or NULL if t is not float16/bfloat16. */
const tl__c_half_type *tl__cgen_half_type(const tl__cgen *g, tl_dtype t);
/* Requests a helper section ("intdiv" for int32, ...); t is ignored for sections
 * that are not per type. */
void tl__cgen_use_helper(tl__cgen *g, const char *name, tl_dtype t);
/* Appends the used helper sections, each guarded, in a dependency-respecting order. */
void tl__cgen_emit_helpers(tl__cgen *g, tl__sb *out);

/* Expressions and statements. */
void tl__cgen_expr(tl__cgen *g, const tl_ir_expr *e, int prec);
/* The text of an expression (a full expression), or NULL after a failure. */
char *tl__cgen_expr_str(tl__cgen *g, const tl_ir_expr *e);
void tl__cgen_stmt(tl__cgen *g, const tl_ir_stmt *s);
/* The C text of buffer element buf[indices] (an lvalue in memory). */
void tl__cgen_element(tl__cgen *g, const tl_ir_buffer *buf, uint32_t n, tl_ir_expr *const *indices);
/* A literal of dtype t with an integer value (0, 1, ...). */
void tl__cgen_int_literal(tl__cgen *g, tl_dtype t, int64_t v);

/* Device kernels: the declaration line without `;` or body (names the parameters),
 * and the whole definition. */
void tl__cgen_kernel_signature(tl__cgen *g, const tl_ir_func *f);
void tl__cgen_kernel(tl__cgen *g, const tl_ir_func *f);

/* True if `s` is a valid C identifier that is not a keyword. */
bool tl__c_is_identifier(const char *s);

#endif
