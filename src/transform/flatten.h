/* Flattening helpers shared by flatten.c (allocated buffers) and
 * split_host_device.c (parameters, which become one-dimensional device kernel
 * parameters). */
#ifndef TL_TRANSFORM_FLATTEN_H
#define TL_TRANSFORM_FLATTEN_H

#include "tilelang/ir.h"

/* The dtype of buf's flat indices: int32 when its element count is a constant
 * below 2^31, else int64 (a symbolic tensor may be larger than int32 can index). */
tl_dtype tl__flat_index_dtype(const tl_ir_buffer *buf);

/* The flat index of element idx[0..ndim) of buf: row-major over its shape, or
 * through its declared strides, in tl__flat_index_dtype(buf). Shape and stride
 * expressions go through the substitution (n vars -> values; n may be 0) first,
 * so a device kernel can use its own copies of symbolic dims. NULL on builder
 * failure. */
tl_ir_expr *tl__flat_index(tl_ir_module *mod, const tl_ir_buffer *buf, tl_ir_expr *const *idx, uint32_t n,
                           tl_ir_var *const *vars, tl_ir_expr *const *values);

/* The number of elements a flattened buf spans: the product of its shape, or
 * 1 + sum((shape[d] - 1) * stride[d]) with declared strides (0 if any extent is 0
 * is not modelled: such a buffer is never accessed). Same substitution. */
tl_ir_expr *tl__flat_extent(tl_ir_module *mod, const tl_ir_buffer *buf, uint32_t n, tl_ir_var *const *vars,
                            tl_ir_expr *const *values);

#endif
