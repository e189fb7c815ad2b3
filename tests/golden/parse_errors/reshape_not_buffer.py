import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16,), "float32")):
    with T.Kernel(1) as _:
        x = A[0] * 2
        y = T.reshape(x, (4, 4))
        A[1] = y[0, 0]
