import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16,), "float32"), B: T.Tensor((4, 4), "float32")):
    with T.Kernel(1) as _:
        T.copy(T.reshape(A, (4, 4)), B)
