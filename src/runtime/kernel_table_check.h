/* Consistency checks of kernel tables, so that consumers (bind_args, launch
 * evaluation, the JSON writer, code that indexes a table) never index out of range. */
#ifndef TL_RUNTIME_KERNEL_TABLE_CHECK_H
#define TL_RUNTIME_KERNEL_TABLE_CHECK_H

#include "tilelang/runtime.h"

/* Deepest evaluation stack a launch expression may need (tl_launch_expr_eval works
 * without allocating, on a stack of this size); deeper programs are malformed. */
#define TL__LAUNCH_EXPR_MAX_DEPTH 32

/* Checks that a table is consistent: a non-empty entry, named parameters with known
 * dtypes, dims referring to existing syms, each sym bound by a parameter dimension
 * that is that sym (or by an integer scalar parameter, dim -1), launch arguments of
 * the right kind and in range, launch programs well formed. TL_EINVAL "invalid
 * kernel table: ..." naming the problem. Thread-safe. */
tl_status tl__kernel_table_validate(const tl_kernel_table *t);

/* True if the program is well formed for nsyms symbolic dims: known ops, sym indices
 * in range, exactly one result, depth at most TL__LAUNCH_EXPR_MAX_DEPTH. */
bool tl__launch_expr_valid(const tl_launch_expr *e, uint32_t nsyms);

#endif
