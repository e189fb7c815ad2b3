/* The kernel table of a lowered host entry (src/kernel_table/kernel_table.h): what a
 * runtime needs to check arguments and launch device kernels without host code. */
#ifndef TL_TRANSFORM_KERNEL_TABLE_H
#define TL_TRANSFORM_KERNEL_TABLE_H

#include "tilelang/runtime.h" /* tl_kernel_table_free */

/* Builds the table of host entry `entry` (a TL_CALLCONV_PACKED function of mod,
 * after split_host_device; make_packed_api's LETs are understood):
 *   - params: each parameter's kind, dtype and dims (constants, or the index of
 *     the symbolic dim that is the whole dimension);
 *   - syms: the symbolic dims in order of first mention as a whole dimension of a
 *     parameter (param, dim), or scalar parameters that shapes mention (dim -1);
 *   - launches: each TL_STMT_LAUNCH in execution order, arguments mapped to
 *     tensor / scalar parameters and symbolic dims, grid, block and dynamic shared
 *     memory compiled to postfix launch expressions over the symbolic dims
 *     (dynamic shared memory absent: the constant 0).
 * *out is one tl__malloc block (src/kernel_table/kernel_table.h; free it with
 * tl_kernel_table_free). TL_EINVAL if entry is missing or not a host entry;
 * TL_EUNSUPPORTED (naming the parameter) for what a table cannot describe: a
 * dimension that is an expression of symbolic dims, declared strides, a launch
 * argument or extent that is not built from parameters and symbolic dims. */
tl_status tl__kernel_table_from_module(const tl_ir_module *mod, const char *entry, tl_kernel_table **out);

#endif
