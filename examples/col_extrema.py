"""Column maxima and minima of a matrix, row blocks racing with T.atomic_max/min.

Each block reduces its block_M rows of a column tile in a fragment
(T.reduce_max / T.reduce_min over dim 0) and folds the result into the global
extrema with one tile T.atomic_max / T.atomic_min: blocks of the same column
tile race for the same elements, as the blocks of a split-K GEMM do. The caller
initialises Mx and Mn (to -inf and +inf for plain extrema). Rows past the end
count as -inf for the maximum and +inf for the minimum; N is a multiple of
block_N. A row block works only where any of its mask entries is set
(T.any_of).
"""
import tilelang
import tilelang.language as T


def col_extrema(M=100, N=96, block_M=16, block_N=32, dtype="float32", threads=128):

    @T.prim_func
    def extrema(A: T.Tensor((M, N), dtype), Mask: T.Tensor((T.ceildiv(M, block_M), 4), "int32"),
                Mx: T.Tensor((N,), dtype), Mn: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            tile = T.alloc_fragment((block_M, block_N), dtype)
            up = T.alloc_fragment((block_M, block_N), dtype)
            hi = T.alloc_fragment((block_N,), dtype)
            lo = T.alloc_fragment((block_N,), dtype)
            if T.any_of(Mask[by, :]):
                T.copy(A[by * block_M, bx * block_N], tile)
                for i, j in T.Parallel(block_M, block_N):
                    up[i, j] = T.if_then_else(by * block_M + i < M, tile[i, j], T.infinity(dtype))
                    tile[i, j] = T.if_then_else(by * block_M + i < M, tile[i, j], -T.infinity(dtype))
                T.reduce_max(tile, hi, dim=0)
                T.reduce_min(up, lo, dim=0)
                T.atomic_max(Mx[bx * block_N], hi)
                T.atomic_min(Mn[bx * block_N], lo)

    return extrema


if __name__ == "__main__":
    import torch

    M, N, block_M = 100, 96, 16
    kernel = tilelang.compile(col_extrema(M, N, block_M))
    a = torch.randn(M, N, device="cuda")
    mask = torch.ones((M + block_M - 1) // block_M, 4, dtype=torch.int32, device="cuda")
    mx = torch.full((N,), float("-inf"), device="cuda")
    mn = torch.full((N,), float("inf"), device="cuda")
    kernel(a, mask, mx, mn)
    torch.testing.assert_close(mx, a.max(dim=0).values)
    torch.testing.assert_close(mn, a.min(dim=0).values)
    print("col_extrema: ok")
