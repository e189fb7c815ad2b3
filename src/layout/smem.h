/* Shared-memory layouts as data (docs/layouts.md, "Shared-memory layouts").
 *
 * A 2-D tile of `rows` x `cols` elements of `elem_bytes` each (cols the
 * contiguous dim) is placed in shared memory by an address map
 * (row, col) -> element offset:
 *   LINEAR        row*cols + col
 *   PADDED        row*(cols + pad) + col, pad = 16 bytes of elements when a row
 *                 is a multiple of 32 bytes, else 0 (upstream's
 *                 makeGemmABLayoutPadded)
 *   SWIZZLE_32B/64B/128B
 *                 rows in atoms of 8, columns in 16-byte chunks of
 *                 vec = 16/elem_bytes elements, W = 2/4/8 chunks an atom row:
 *                   s = row%8, c = col/vec, v = col%vec,
 *                   cc = (c%W) ^ (s / (8/W))            (the swizzle)
 *                   offset = ((c/W)*(rows/8) + row/8) * (8*W*vec)
 *                            + (s*W + cc)*vec + v
 *                 i.e. atoms column-block-major, and inside an atom CUTLASS's
 *                 Swizzle<log2 W, 4, 3> on byte offsets: the pattern TMA's
 *                 CU_TENSOR_MAP_SWIZZLE_{32,64,128}B writes and wgmma's
 *                 descriptors read (upstream's quarter/half/full bank layouts).
 * Values are plain structs; constructors refuse tiles their map does not tile. */
#ifndef TL_LAYOUT_SMEM_H
#define TL_LAYOUT_SMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "tilelang/base.h"
#include "tilelang/ir.h"

typedef enum tl__smem_kind {
  TL__SMEM_LINEAR,
  TL__SMEM_PADDED,
  TL__SMEM_SWIZZLE_32B,
  TL__SMEM_SWIZZLE_64B,
  TL__SMEM_SWIZZLE_128B
} tl__smem_kind;

typedef struct tl__smem_layout {
  tl__smem_kind kind;
  int64_t rows, cols, elem_bytes;
  int64_t pitch;       /* elements from one row to the next (LINEAR, PADDED) */
  int64_t vec;         /* elements in a 16-byte chunk (swizzles) */
  int64_t atom_chunks; /* W: 16-byte chunks in an atom row, 2/4/8 (swizzles) */
} tl__smem_layout;

const char *tl__smem_kind_name(tl__smem_kind k);

tl_status tl__smem_linear(int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out);
tl_status tl__smem_padded(int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out);
/* kind one of the swizzles; TL_EINVAL unless rows % 8 == 0, 16 % elem_bytes == 0
 * and cols a multiple of W chunks. */
tl_status tl__smem_swizzle(tl__smem_kind kind, int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out);

/* Upstream's choosers for a gemm operand tile. For mma.sync (sm_80 path,
 * makeGemmABLayout): 128B when cols spans a multiple of 8 chunks, else 64B at 4
 * chunks, else padded (and padded for 8-bit operands that are not K-inner).
 * For wgmma and TMA (makeGemmABLayoutHopper, never padded): when rows % 8 == 0
 * the widest swizzle whose chunks divide cols, else linear when cols is whole
 * chunks; else TL_EINVAL. 64-bit mma operands get the padded layout (upstream
 * has f64-specific swizzles for them, not modelled here); wgmma has no 64-bit
 * operands (TL_EINVAL). */
tl_status tl__smem_choose_mma(int64_t rows, int64_t cols, int64_t elem_bytes, bool k_inner, tl__smem_layout *out);
tl_status tl__smem_choose_wgmma(int64_t rows, int64_t cols, int64_t elem_bytes, tl__smem_layout *out);

/* Elements the tile spans (padding included): the shared buffer's size. */
int64_t tl__smem_span(const tl__smem_layout *L);
/* The element offset of (row, col), 0 <= row < rows, 0 <= col < cols. */
int64_t tl__smem_offset(const tl__smem_layout *L, int64_t row, int64_t col);
/* For a swizzle: B, M, S of the equivalent CUTLASS Swizzle<B,M,S> on byte
 * offsets within an atom (M = 4: 16-byte chunks, S = 3: 8 rows); false otherwise. */
bool tl__smem_swizzle_bits(const tl__smem_layout *L, int *b, int *m, int *s);
bool tl__smem_equal(const tl__smem_layout *a, const tl__smem_layout *b);
/* "swizzle 128B [64, 64] x 2 bytes: Swizzle<3,4,3> on bytes, atoms 8 x 128 bytes"
 * and the like, one line; a fresh string (tl__free), NULL on out of memory. */
char *tl__smem_print(const tl__smem_layout *L);
/* The address map as an int32 expression of `row` and `col` (what flattening a
 * shared access emits). TL_EINVAL for NULL inputs, TL_ENOMEM when a node cannot
 * be built. */
tl_status tl__smem_offset_expr(tl_ir_module *mod, const tl__smem_layout *L, tl_ir_expr *row, tl_ir_expr *col,
                               tl_ir_expr **out);

#endif
