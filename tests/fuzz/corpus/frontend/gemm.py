"""The classic tiled GEMM: C = A @ B.

A factory whose block sizes are parameters with defaults. Each block owns a
block_M x block_N tile of C, accumulated in a float32 register fragment while
T.Pipelined walks K in steps of block_K, staging tiles of A and B in shared
memory for T.gemm. No default size is a multiple of its tile, so the edge tiles
rely on T.copy's clipping (zeros read past K contribute nothing).
"""
import tilelang
import tilelang.language as T


def matmul(M=96, N=80, K=72, block_M=32, block_N=32, block_K=32, dtype="float16", accum_dtype="float"):

    @T.prim_func
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm


if __name__ == "__main__":
    import torch

    kernel = tilelang.compile(matmul(), out_idx=[2])
    a = torch.randn(96, 72, device="cuda", dtype=torch.float16)
    b = torch.randn(72, 80, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(kernel(a, b), a @ b, rtol=1e-2, atol=1e-2)
    print("gemm: ok")
