/* The printer's state, shared by print.c (statements, functions, modules) and
 * print_expr.c (expressions). */
#ifndef TL_IR_PRINT_H
#define TL_IR_PRINT_H

#include "base/arena.h"
#include "base/map.h"
#include "base/str.h"
#include "base/vec.h"
#include "tilelang/ir.h"

typedef struct tl__printer {
  tl__sb sb;
  int indent;
  tl__arena names;  /* name strings */
  tl__map node_name; /* "%p" of a var or buffer -> its printed name */
  tl__map active;    /* names in scope now -> (void *)1 */
  tl__vec scope;     /* const char *: active names, in the order defined */
  bool failed;       /* out of memory somewhere */
} tl__printer;

void tl__printer_init(tl__printer *P);
void tl__printer_free(tl__printer *P);

/* Names: `define` gives a node a name unique among the names in scope (its own
 * if free, else with a _1, _2... suffix); scopes end with `pop_scope`. `name_of`
 * returns the node's name, defining it for good if it has none (free variables). */
const char *tl__print_define(tl__printer *P, const void *node, const char *base);
const char *tl__print_name_of(tl__printer *P, const void *node, const char *base);
/* Makes `alias` print with `node`'s name (a buffer's data variable). */
void tl__print_alias(tl__printer *P, const void *alias, const void *node);
size_t tl__print_scope_mark(const tl__printer *P);
void tl__print_pop_scope(tl__printer *P, size_t mark);

/* Expressions. `want` is the dtype the context gives a bare Python literal (so
 * a constant of that dtype prints as a plain literal); NULL means the front end's
 * defaults (int32, float32, bool). */
void tl__print_expr(tl__printer *P, const tl_ir_expr *e, int min_prec, const tl_dtype *want);
/* A constant in constructor form (T.int64(5)), never folded by the front end. */
void tl__print_const_ctor(tl__printer *P, const tl_ir_expr *e);
void tl__print_dtype_str(tl__printer *P, tl_dtype t); /* "float32" with quotes */
void tl__print_str_literal(tl__printer *P, const char *s);
/* A shape tuple: (M, 128) or (N,). */
void tl__print_shape(tl__printer *P, uint32_t n, tl_ir_expr *const *dims);
bool tl__print_is_const(const tl_ir_expr *e);
/* For int32 constants min and extent: prints min + extent (the end of a range,
 * which the front end reads back as the extent) and returns true. */
bool tl__print_const_end(tl__printer *P, const tl_ir_expr *min, const tl_ir_expr *extent);

#endif
