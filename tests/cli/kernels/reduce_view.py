import tilelang.language as T


@T.prim_func
def reduce_view(A: T.Tensor((256,), "float32"), B: T.Tensor((16,), "float32")):
    with T.Kernel(1, threads=32) as _:
        A_local = T.alloc_fragment((256,), "float32")
        B_local = T.alloc_fragment((16,), "float32")
        T.copy(A, A_local)
        A_2d = T.reshape(A_local, [16, 16])
        T.reduce_max(A_2d, B_local, dim=1)
        T.copy(B_local, B)
