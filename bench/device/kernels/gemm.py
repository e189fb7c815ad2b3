"""C = A @ B in float16 with float32 accumulation, upstream's tiles: 128 x 128 of C
a block (128 threads: by the default Square warp policy 2 x 2 warps of 64 x 64),
K in steps of 32 through shared memory in 3 stages (bench_cuda_gemm). On sm_80 and later T.gemm runs on the tensor
cores (ldmatrix + mma.sync) and T.Pipelined is a cp.async software pipeline."""
import tilelang.language as T


def matmul(M=4096, N=4096, K=4096, block_M=128, block_N=128, block_K=32, threads=128, num_stages=3,
           dtype="float16", accum_dtype="float", policy=0):

    @T.prim_func
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, policy=policy)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm
