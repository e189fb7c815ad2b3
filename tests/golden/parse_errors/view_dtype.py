import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16, 16), "float16"), B: T.Tensor((16, 32), "uint8")):
    with T.Kernel(1) as _:
        A_bytes = T.view(A, (16, 32), dtype="uint8")
        T.copy(A_bytes, B)
