import tilelang.language as T


@T.prim_func
def huge_tile(A: T.Tensor((2048, 2048), "float32"), B: T.Tensor((2048, 2048), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((2048, 2048), "float32")
        T.copy(A, A_shared)
        T.copy(A_shared, B)
