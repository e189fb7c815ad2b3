"""S[i] = sum of row i of an M x N matrix: block_M whole rows a block in registers,
reduced by warp shuffles (bench_cuda_bandwidth)."""
import tilelang.language as T


def row_sum(M=1 << 16, N=4096, block_M=4, threads=256, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), S: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            a = T.alloc_fragment((block_M, N), dtype)
            s = T.alloc_fragment((block_M,), dtype)
            T.copy(A[bx * block_M, 0], a)
            T.reduce_sum(a, s, dim=1)
            T.copy(s, S[bx * block_M])

    return main
