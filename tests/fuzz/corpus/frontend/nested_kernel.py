import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        with T.Kernel(2, threads=64) as by:
            T.clear(A)
