import tilelang.language as T


def factory(n=128):
    class Config:
        block = 64

    @T.prim_func
    def main(A: T.Tensor((n,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            T.clear(A)

    return main
