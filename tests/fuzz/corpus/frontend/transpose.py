"""Matrix transpose in the @tilelang.jit style.

The shape comes from the input tensor (M, N = T.const("M, N")), the output is
allocated by T.empty and returned. Each block copies a tile into shared memory,
transposes it there and writes it to the mirrored position of B.
"""
import tilelang
import tilelang.language as T


@tilelang.jit
def transpose(A, block_M: int = 32, block_N: int = 32, dtype: str = "float32"):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), dtype)
    B = T.empty((N, M), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        tile = T.alloc_shared((block_M, block_N), dtype)
        tile_t = T.alloc_shared((block_N, block_M), dtype)
        T.copy(A[by * block_M, bx * block_N], tile)
        for i, j in T.Parallel(block_N, block_M):
            tile_t[i, j] = tile[j, i]
        T.copy(tile_t, B[bx * block_N, by * block_M])

    return B


if __name__ == "__main__":
    import torch

    a = torch.randn(70, 45, device="cuda")
    torch.testing.assert_close(transpose(a), a.T.contiguous())
    print("transpose: ok")
