import tilelang.language as T


def vector_scale(N=1000, block=128, dtype="float32"):
    if N % block != 0:
        raise ValueError("N must be a multiple of block")

    @T.prim_func
    def main(A: T.Tensor((N,), dtype)):
        with T.Kernel(N // block, threads=block) as bx:
            for i in T.Parallel(block):
                A[bx * block + i] = A[bx * block + i] * 2.0

    return main

