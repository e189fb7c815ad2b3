import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), B: T.Tensor((32, 32), "float32")):
    with T.Kernel(1) as _:
        A_reshaped = T.reshape(A, [32, 33])
        T.copy(A_reshaped, B)
