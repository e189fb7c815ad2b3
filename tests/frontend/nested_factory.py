# A factory whose kernel is built by a helper it calls, as upstream's
# block-sparse attention examples write it: @tilelang.jit on the factory, an
# inner `kernel_func(block_M, ...)` that defines @T.macro helpers and the
# @T.prim_func and returns it, and the factory returning kernel_func(...).
# tlc-args: --param M=128 --param N=16
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def row_scale(M, N, dtype="float32"):
    block_M = 32
    scale = 0.5

    def kernel_func(block_M, threads):
        @T.macro
        def scale_tile(src, dst, row0):
            for i, j in T.Parallel(block_M, N):
                dst[i, j] = src[row0 + i, j] * scale

        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
                tile = T.alloc_fragment((block_M, N), dtype)
                scale_tile(A, tile, bx * block_M)
                T.copy(tile, B[bx * block_M, 0])

        assert M % block_M == 0, "M must be a multiple of block_M"
        return main

    return kernel_func(block_M, 64)
