import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_shared((64, 64), "float16")
        T.copy(A, S, B)
