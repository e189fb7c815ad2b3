import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32)):
    pass
