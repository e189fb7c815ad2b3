import tilelang.language as T


@T.prim_func
def shifted(A: T.Tensor((16, 16), "float32"), B: T.Tensor((16, 16), "float32")):
    with T.Kernel(1, threads=32) as bx:
        for i, j in T.Parallel(16, 16):
            B[i, j] = A[i, j + 1]
