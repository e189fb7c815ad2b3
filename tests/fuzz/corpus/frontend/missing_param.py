import tilelang
import tilelang.language as T


def vector_scale(N, block=128, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                A[bx * block + i] *= 2.0

    return main
