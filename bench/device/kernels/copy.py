"""B = A through registers, 4096 floats a block: each of the 256 threads moves
16 floats as four 16-byte loads and stores (bench_cuda_bandwidth)."""
import tilelang.language as T


def copy(N=1 << 28, block=4096, threads=256, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=threads) as bx:
            a = T.alloc_fragment((block,), dtype)
            T.copy(A[bx * block], a)
            T.copy(a, B[bx * block])

    return main
