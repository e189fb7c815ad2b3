/* Helpers shared by the passes: building nodes at a given source location,
 * integer-expression builders that fold constants and trivial identities as they
 * build (so lowering emits clean index arithmetic), structural comparison of
 * expressions, and collecting the variables and buffers a tree uses. */
#ifndef TL_TRANSFORM_UTIL_H
#define TL_TRANSFORM_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/vec.h"
#include "tilelang/ir.h"

/* Sets the builder location to `span` and returns the previous one, so a pass
 * builds replacement nodes with the span of the construct it rewrites:
 *   tl_ir_span old = tl__loc_push(mod, s->span); ...; tl_ir_builder_set_loc(mod, old); */
tl_ir_span tl__loc_push(tl_ir_module *mod, tl_ir_span span);

/* TL_OK if `node` (a builder's result) is non-NULL; otherwise the status of the
 * builder failure that made it NULL (TL_ENOMEM with its message, ...). */
tl_status tl__built(tl_ir_module *mod, const void *node);

/* True (and *v set) if e is an integer or bool constant. */
bool tl__is_const_int(const tl_ir_expr *e, int64_t *v);
/* True if e is the integer constant v. */
bool tl__is_int(const tl_ir_expr *e, int64_t v);

/* The range of an integer type as [lo, hi] (uint64: [0, INT64_MAX] as far as
 * int64 arithmetic goes); bool is [0, 1]. */
void tl__dtype_range(tl_dtype t, int64_t *lo, int64_t *hi);
/* x wrapped to integer type t (two's complement), bool as x != 0. */
int64_t tl__wrap_int(tl_dtype t, int64_t x);

/* Integer builders in `a`'s dtype (operands must share it): constants fold (with
 * wrapping), x+0, x-0, x*1, x*0, x//1, x%1 and constant chains (x+1)+2 simplify.
 * NULL in, NULL out, as the builder. */
tl_ir_expr *tl__add(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b);
tl_ir_expr *tl__sub(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b);
tl_ir_expr *tl__mul(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b);
tl_ir_expr *tl__floordiv(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b);
tl_ir_expr *tl__floormod(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b);
/* a and b for bools; a constant true side folds away, a false one wins. */
tl_ir_expr *tl__and(tl_ir_module *mod, tl_ir_expr *a, tl_ir_expr *b);
/* An integer constant of e's type. */
tl_ir_expr *tl__int_like(tl_ir_module *mod, const tl_ir_expr *e, int64_t v);
/* e converted to integer type t (e itself when it already has it; constants fold). */
tl_ir_expr *tl__cast_int(tl_ir_module *mod, tl_dtype t, tl_ir_expr *e);
/* Zero of dtype t: 0, 0.0 or false. */
tl_ir_expr *tl__zero(tl_ir_module *mod, tl_dtype t);
/* A value converted to t (value itself if it already has t). */
tl_ir_expr *tl__convert(tl_ir_module *mod, tl_dtype t, tl_ir_expr *value);

/* The fold of tile op `op` as the op table gives it (ir/op_table.h, FOLD), for
 * the serial and GPU lowerings alike: where it starts in dtype t, the element it
 * folds (x, or |x|), and acc combined with x. NULL in, NULL out. */
tl_ir_expr *tl__fold_identity(tl_ir_module *mod, tl_ir_op op, tl_dtype t);
tl_ir_expr *tl__fold_input(tl_ir_module *mod, tl_ir_op op, tl_ir_expr *x);
tl_ir_expr *tl__fold_combine(tl_ir_module *mod, tl_ir_op op, tl_ir_expr *acc, tl_ir_expr *x);

/* Structural equality of two expressions in one scope: variables and buffers are
 * compared by identity, constants by value and dtype. */
bool tl__expr_same(const tl_ir_expr *a, const tl_ir_expr *b);

/* Appends to `vars` (const tl_ir_var*) each variable used (TL_EXPR_VAR) in e / s that
 * is not there yet, in order of first use; to `bufs` (const tl_ir_buffer*, may be
 * NULL) each buffer loaded, stored or named in a region. Buffer shapes are not
 * walked. TL_ENOMEM on failure. */
tl_status tl__collect_expr(const tl_ir_expr *e, tl__vec *vars, tl__vec *bufs);
tl_status tl__collect_stmt(const tl_ir_stmt *s, tl__vec *vars, tl__vec *bufs);

/* True if a (const pointer) vector holds p. */
bool tl__vec_has_ptr(const tl__vec *v, const void *p);

#endif
