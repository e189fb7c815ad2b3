/* A small interval analysis of integer expressions, for deciding conditions from
 * loop bounds (simplify) and whether a tile copy can run past a buffer's edge
 * (lower_tile_ops).
 *
 * An environment maps variables to closed intervals: loop variables get
 * [min, min + extent - 1] of their bounds, let variables the interval of their
 * value, symbolic dims of a function's parameter shapes [0, INT32_MAX] (tensor
 * dimensions are never negative). A variable without an entry ranges over its
 * whole type. An interval is computed bottom-up; an operation whose result might
 * leave its dtype's range (and so wrap at run time) gives the whole range of the
 * dtype and marks the result as possibly wrapped, which keeps the analysis sound
 * for integers of any width. */
#ifndef TL_TRANSFORM_BOUNDS_H
#define TL_TRANSFORM_BOUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/vec.h"
#include "tilelang/ir.h"

/* INT64_MIN / INT64_MAX stand for -infinity / +infinity. */
typedef struct tl__interval {
  int64_t lo, hi;
} tl__interval;

typedef struct tl__bounds {
  tl__vec entries; /* {const tl_ir_var *, tl__interval} */
} tl__bounds;

void tl__bounds_init(tl__bounds *b);
void tl__bounds_free(tl__bounds *b);
/* The number of entries, to restore with tl__bounds_pop_to when a scope ends. */
size_t tl__bounds_mark(const tl__bounds *b);
void tl__bounds_pop_to(tl__bounds *b, size_t mark);
/* Adds (or shadows) var's interval. TL_ENOMEM on failure. */
tl_status tl__bounds_push(tl__bounds *b, const tl_ir_var *v, tl__interval iv);
/* Pushes [min, min + extent - 1] for a loop variable (an empty loop: nothing). */
tl_status tl__bounds_push_loop(tl__bounds *b, const tl_ir_var *v, const tl_ir_expr *min, const tl_ir_expr *extent);
/* Pushes the intervals of the variables statement s binds for its body: a loop's
 * variables, a let's variable (the interval of its value), a kernel's block and
 * thread indices. Other statements push nothing. */
tl_status tl__bounds_enter(tl__bounds *b, const tl_ir_stmt *s);
/* Pushes [0, INT32_MAX] (clipped to the var's type) for every variable that is a
 * whole dimension of one of f's buffer parameters (a tensor's extents are never
 * negative, and the host entry checks every dimension against it). */
tl_status tl__bounds_push_shape_vars(tl__bounds *b, const tl_ir_func *f);

/* The interval of an integer or bool expression (anything else: the widest). */
tl__interval tl__bounds_of(const tl__bounds *b, const tl_ir_expr *e);
/* Decides a bool expression from the bounds: true with *value set when it holds
 * (or fails) for every value the variables can take. Comparisons use the
 * interval of both sides and, when neither side can wrap, of their difference
 * with like terms cancelled ((x + 3) < (x + 5) holds). */
bool tl__bounds_decide(const tl__bounds *b, const tl_ir_expr *cond, bool *value);
/* True if a < b / a <= b provably (both integer expressions of one dtype). */
bool tl__bounds_prove_lt(const tl__bounds *b, const tl_ir_expr *x, const tl_ir_expr *y);
bool tl__bounds_prove_le(const tl__bounds *b, const tl_ir_expr *x, const tl_ir_expr *y);

#endif
