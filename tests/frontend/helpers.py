# Helper functions as upstream's kernels use them: a plain `def` that builds an
# expression (a mask, a dequantization step) called inside a T.Parallel body, a
# compile-time helper called by the factory, top-level and factory-local
# @T.macro functions expanded where they are called (buffers, expressions and
# Python constants as arguments), a helper whose locals are read by what it
# returns, keyword-only and *args factory parameters, isinstance() and x.dtype.
# tlc-args: --param M=64 --param N=8
import tilelang
import tilelang.language as T


def is_pow_of_2(n):
    return isinstance(n, int) and n > 0 and (n & (n - 1)) == 0


def align(x, a=16):
    return (x + a - 1) // a * a


def tile_mask(i, j, blk: int):
    """1 where row tile >= column tile, else 0."""
    q = i // blk
    k = j // blk
    return T.if_then_else(q >= k, 1.0, 0.0)


def widen(x):
    # a helper that reads its argument's dtype, as dequantization helpers do
    if x.dtype == T.float32:
        return x
    return T.Cast(T.float32, x)


@T.macro
def scale_rows(buf, rows, cols, factor):
    for i, j in T.Parallel(rows, cols):
        buf[i, j] = buf[i, j] * factor


def masked_scale(M, N, *extra, block=32, dtype="float32"):
    assert is_pow_of_2(block), "block must be a power of two"
    assert len(extra) == 0
    cols = align(N, 8)

    @T.macro
    def load_tile(src, dst, row0):
        for i, j in T.Parallel(block, cols):
            dst[i, j] = src[row0 + i, j]

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block, threads=32) as bx:
            acc = T.alloc_fragment((block, cols), dtype)
            load_tile(A, acc, bx * block)
            for i, j in T.Parallel(block, cols):
                m = tile_mask(i, j, 8)
                acc[i, j] = widen(acc[i, j]) * m * tile_mask(j, i, 4)
            scale_rows(acc, block, cols, 2.0)
            T.copy(acc, B[bx * block, 0])

    return main
