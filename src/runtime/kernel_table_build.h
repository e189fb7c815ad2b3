/* Building kernel tables (runtime.h) that own their memory.
 *
 * A table made here keeps every array and string it points to in one arena that
 * tl_kernel_table_free releases, so a builder (the split pass computing the table
 * from a lowered host entry, tl_kernel_table_from_json, tl_kernel_table_copy) fills
 * the public fields directly with memory from tl__kernel_table_alloc/_strdup and
 * never frees anything piecemeal. On failure the builder frees the whole table.
 *
 *     tl_kernel_table *t;
 *     TL__TRY(tl__kernel_table_new(&t));
 *     tl_host_param *params = tl__kernel_table_alloc(t, n * sizeof *params);
 *     t->entry = tl__kernel_table_strdup(t, "vadd");
 *     if (!params || !t->entry) { tl_kernel_table_free(t); return TL_ENOMEM; }
 *     ...
 *     t->params = params; t->nparams = n;
 *     tl_status s = tl__kernel_table_validate(t);   // before handing it on
 */
#ifndef TL_RUNTIME_KERNEL_TABLE_BUILD_H
#define TL_RUNTIME_KERNEL_TABLE_BUILD_H

#include "tilelang/runtime.h"

/* Deepest evaluation stack a launch expression may need (tl_launch_expr_eval works
 * without allocating); tl__kernel_table_validate rejects deeper programs. */
#define TL__LAUNCH_EXPR_MAX_DEPTH 32

/* A new, empty table (all counts 0, entry NULL) owning an arena. Free with
 * tl_kernel_table_free. TL_ENOMEM. */
tl_status tl__kernel_table_new(tl_kernel_table **out);
/* `size` zeroed bytes owned by t (aligned for any type), or NULL with TL_ENOMEM set.
 * size 0 gives a valid non-NULL pointer. */
void *tl__kernel_table_alloc(tl_kernel_table *t, size_t size);
/* A copy of s owned by t, or NULL with TL_ENOMEM set (s NULL gives NULL, no error). */
const char *tl__kernel_table_strdup(tl_kernel_table *t, const char *s);
/* A copy of a launch expression's program owned by t (n == 0: the constant 1). */
tl_status tl__kernel_table_set_expr(tl_kernel_table *t, const tl_lexpr_insn *code, uint32_t n, tl_launch_expr *out);

/* Checks that a table is consistent, so consumers may index without checking: a
 * non-empty entry, named parameters with known dtypes, dims referring to existing
 * syms, each sym bound by a parameter dimension that is that sym (or by a scalar
 * parameter, dim -1), launch arguments of the right kind and in range, launch
 * programs well formed (known ops, sym indices in range, exactly one result, depth
 * at most TL__LAUNCH_EXPR_MAX_DEPTH). TL_EINVAL "invalid kernel table: ..." naming
 * the problem. Works on any table (not only owned ones). Thread-safe. */
tl_status tl__kernel_table_validate(const tl_kernel_table *t);

/* True if the program is well formed for nsyms symbolic dims (see above). */
bool tl__launch_expr_valid(const tl_launch_expr *e, uint32_t nsyms);

#endif
