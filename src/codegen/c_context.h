/* The code generation context of the C-family printer (c_context.c): the output
 * (with captures into other buffers), the first failure, the identifiers of the
 * function being printed and what is known of each variable, the dialect's types,
 * the helper sections used so far and the "$key" template expansion.
 *
 * Naming: every variable gets one C identifier per function (its own name when that
 * is a valid, unused, unreserved identifier; else a sanitized and numbered one), so
 * nested scopes never shadow. Failures (unsupported constructs, out of memory) are
 * recorded once in `status` with the message set; printing goes on harmlessly, so
 * callers check at the end. */
#ifndef TL_CODEGEN_C_CONTEXT_H
#define TL_CODEGEN_C_CONTEXT_H

#include "base/map.h"
#include "base/str.h"
#include "base/vec.h"
#include "codegen/c_dialect.h"

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
  /* Constant block extents of the kernel being printed (every launch of it agrees),
   * or NULL: for the dialect's launch_bounds. Set by the caller of tl__cgen_kernel. */
  const int64_t *kernel_block;
  /* Dynamic shared memory of the current function: the next buffer's byte offset,
   * and the name of the declared array (NULL until the first shared.dyn buffer). */
  int64_t dyn_offset;
  const char *dyn_array;
  /* Vector loads of the statement being printed that were read ahead with one
   * vector access each (tl__cgen_hoisted), printed as their temporary at a lane. */
  tl__vec hoisted;
  /* Extension: prints a call the printer does not know (host builtins); returns false
   * if it does not know it either. */
  bool (*ext_call)(struct tl__cgen *g, const tl_ir_expr *e, int prec);
  /* Extension: prints a statement the printer does not know or handles differently
   * in host code (checks, launches); returns false to leave it to the printer. */
  bool (*ext_stmt)(struct tl__cgen *g, const tl_ir_stmt *s);
  void *ext;
} tl__cgen;

typedef struct tl__cgen_hoisted {
  const tl_ir_expr *load;
  const char *name; /* the aligned temporary array holding its lanes */
} tl__cgen_hoisted;

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
/* Records running out of memory (the standard message) and returns TL_ENOMEM. */
tl_status tl__cgen_oom(tl__cgen *g);
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
/* Marks v as bound to a vector (an array indexed by lane), and asks whether it is. */
void tl__cgen_set_vector(tl__cgen *g, const tl_ir_var *v);
bool tl__cgen_var_vector(const tl__cgen *g, const tl_ir_var *v);
/* Records the element type a data variable was declared with (pointer or array),
 * and reads it back (false: not recorded). */
void tl__cgen_set_elem(tl__cgen *g, const tl_ir_var *data, tl_dtype elem);
bool tl__cgen_var_elem(const tl__cgen *g, const tl_ir_var *data, tl_dtype *elem);
/* Marks v as holding data (a value computed from memory), for wrap_signed_data. */
void tl__cgen_set_data(tl__cgen *g, const tl_ir_var *v);
/* True if e's value depends on memory: a load, or a variable bound to data. */
bool tl__cgen_expr_is_data(const tl__cgen *g, const tl_ir_expr *e);
/* The temporary a vector load was read ahead into, or NULL. */
const char *tl__cgen_hoisted_name(const tl__cgen *g, const tl_ir_expr *load);

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

/* Templates of a dialect (c_dialect.h, plugin.h's tl_c_dialect): writes `tmpl` with
 * each "$key" replaced by its value (the longest key matching; "$$" is "$"); a
 * newline inside the template is followed by the current indentation. */
typedef struct tl__cgen_subst {
  const char *key;   /* without the dollar sign: "T", "DA" */
  const char *value; /* NULL writes nothing */
} tl__cgen_subst;
void tl__cgen_expand(tl__cgen *g, const char *tmpl, const tl__cgen_subst *subst, size_t n);
/* The dialect's qualifier of a buffer scope's memory ("" when none), and the
 * dialect-independent word for it ("global", "shared", "local"). */
const char *tl__cgen_space(const tl__cgen *g, tl_ir_scope scope);
const char *tl__cgen_space_word(tl_ir_scope scope);
/* The suffix of a scalar type as computed, which per-type helper sections are
 * instantiated with ($S): "i32", "u8", "f64", "f32" (also for 16-bit floats). */
const char *tl__cgen_helper_suffix(tl_dtype t);
/* The suffix of a scalar type in memory: "i8" .. "u64", "f16", "bf16", "f32", "f64",
 * "b" (bool), "h" (handle). */
const char *tl__cgen_storage_suffix(tl_dtype t);

/* True if `s` is a valid C identifier that is not a keyword. */
bool tl__c_is_identifier(const char *s);

#endif
