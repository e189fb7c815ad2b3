"""Elementwise add of two matrices, tile by tile through shared memory.

TileLang's elementwise example, with each block staging its tiles of A and B in
shared memory (T.copy) and adding them into a register fragment. The default
sizes are not multiples of the tile: the blocks of the last row and column copy
partial tiles, which T.copy clips at the matrices' edges.
"""
import tilelang
import tilelang.language as T


def elementwise_add(M=100, N=120, block_M=32, block_N=32, in_dtype="float32", out_dtype="float32", threads=128):

    @T.prim_func
    def elem_add(A: T.Tensor((M, N), in_dtype), B: T.Tensor((M, N), in_dtype), C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), in_dtype)
            B_shared = T.alloc_shared((block_M, block_N), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), out_dtype)

            T.copy(A[by * block_M, bx * block_N], A_shared)
            T.copy(B[by * block_M, bx * block_N], B_shared)
            for local_y, local_x in T.Parallel(block_M, block_N):
                C_local[local_y, local_x] = A_shared[local_y, local_x] + B_shared[local_y, local_x]
            T.copy(C_local, C[by * block_M, bx * block_N])

    return elem_add


if __name__ == "__main__":
    import torch

    M, N = 100, 120
    kernel = tilelang.compile(elementwise_add(M, N), out_idx=[2])
    a = torch.randn(M, N, device="cuda")
    b = torch.randn(M, N, device="cuda")
    torch.testing.assert_close(kernel(a, b), a + b)
    print("elementwise_add: ok")
