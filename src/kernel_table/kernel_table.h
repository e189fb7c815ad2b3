/* The kernel table layer (docs/architecture.md): the description of a lowered host
 * entry's packed call (include/tilelang/plugin.h's tl_kernel_table: parameters,
 * symbolic dims, launches with their extents as launch expressions) as a value of
 * its own. It sits above ir (it reads data types) and below transform, which makes
 * tables from lowered IR (transform/kernel_table.c), backend, which carries them in
 * artifacts, and runtime, which binds arguments and launches by them.
 *
 * How a table is laid out in memory: every table handed out by the library is ONE
 * block from tl__malloc: the tl_kernel_table header first, then its arrays (params,
 * their dims, syms, launches, their args and launch-expression code) and its
 * strings (entry, param and sym names, launch symbols), every pointer pointing into
 * the same block. So tl_kernel_table_free(t) is tl__free(t), a copy is one
 * allocation, and a table can be handed between threads and components without
 * ownership questions.
 *
 * A producer assembles a table anywhere it likes (stack, arena, a parsed JSON
 * document), with its pointers pointing wherever, and calls tl__kernel_table_pack
 * to get the owned block.
 *
 * Files: table.c (validation, copy, free), pack.c (the one-block layout), json.c
 * (the JSON text), launch_expr.c (evaluating launch expressions). The public
 * functions are declared in include/tilelang/runtime.h. */
#ifndef TL_KERNEL_TABLE_KERNEL_TABLE_H
#define TL_KERNEL_TABLE_KERNEL_TABLE_H

#include "tilelang/base.h"
#include "tilelang/ir.h"

/* A deep copy of `src` in one tl__malloc block (free it with tl__free, which is
 * what tl_kernel_table_free does). Arrays whose count is 0 become NULL; NULL
 * strings become "". TL_EINVAL if an array with a non-zero count is NULL (the
 * message names it); TL_ENOMEM on allocation failure. Thread-safe. */
tl_status tl__kernel_table_pack(const tl_kernel_table *src, tl_kernel_table **out);

/* Deepest evaluation stack a launch expression may need (tl_launch_expr_eval works
 * without allocating, on a stack of this size); deeper programs are malformed. */
#define TL__LAUNCH_EXPR_MAX_DEPTH 32

/* Checks that a table is consistent, so that consumers (bind_args, launch
 * evaluation, the JSON writer, code that indexes a table) never index out of range:
 * a non-empty entry, named parameters with known dtypes, dims referring to existing
 * syms, each sym bound by a parameter dimension that is that sym (or by an integer
 * scalar parameter, dim -1), launch arguments of the right kind and in range,
 * launch programs well formed. TL_EINVAL "invalid kernel table: ..." naming the
 * problem. Thread-safe. */
tl_status tl__kernel_table_validate(const tl_kernel_table *t);

/* True if the program is well formed for nsyms symbolic dims: known ops, sym indices
 * in range, exactly one result, depth at most TL__LAUNCH_EXPR_MAX_DEPTH. */
bool tl__launch_expr_valid(const tl_launch_expr *e, uint32_t nsyms);

#endif
