# A tiled GEMM with the scheduling hints upstream's examples carry: a swizzled
# layout annotation, block rasterization, a pipeline schedule, TMA and warp-policy
# options. None changes the result; each is recorded on the function
# (T.func_attr "tl.hint.*", see docs/frontend.md) and the kernel runs as written.
# tlc-args: --param M=128 --param N=96 --param K=64
import tilelang
import tilelang.language as T
from tilelang.layout import make_swizzled_layout


@tilelang.jit(out_idx=[-1], pass_configs={tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True})
def matmul(M, N, K, block_M=64, block_N=32, block_K=32, dtype=T.float16, accum_dtype=T.float32, swizzle=True):
    @T.prim_func
    def gemm_kernel(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.annotate_layout({
                A_shared: make_swizzled_layout(A_shared),
                B_shared: T.Layout((block_N, block_K), lambda i, j: (i, j)),
            })
            T.use_swizzle(panel_size=4, enable=swizzle)
            T.disable_warp_group_reg_alloc()
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2, order=[0, 1, 2], stage=[0, 0, 1]):
                T.copy(A[by * block_M, k * block_K], A_shared, disable_tma=True)
                T.copy(B[bx * block_N, k * block_K], B_shared, eviction_policy="evict_first")
                T.gemm(A_shared, B_shared, C_local, transpose_B=True, policy=T.GemmWarpPolicy.FullRow, k_pack=1)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_kernel
