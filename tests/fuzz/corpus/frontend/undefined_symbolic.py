import tilelang.language as T

N = T.symbolic("N")


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(N):
            A[i] = 0.0
