import tilelang
import tilelang.language as T


def matmul(M, N, K, block_M=64, block_N=64, block_K=32, dtype="float16", accum_dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.annotate_layout({A_shared: tilelang.layout.make_swizzled_layout(A_shared), B_shared: T.Layout((block_K, block_N), lambda i, j: (i, j))})
            T.use_swizzle(panel_size=10, enable=True)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3, order=[0, 1, 2], stage=[0, 0, 1], group=[[0], [1], [2]]):
                T.copy(A[by * block_M, k * block_K], A_shared, disable_tma=True)
                T.copy(B[k * block_K, bx * block_N], B_shared, coalesced_width=8)
                T.gemm(A_shared, B_shared, C_local, policy=T.GemmWarpPolicy.FullRow, k_pack=2)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
