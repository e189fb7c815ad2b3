import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32"), S: T.Tensor((1,), "float32")):
    with T.Kernel(1, threads=1) as bx:
        acc = S[0]
        for i in T.serial(128):
            acc = acc + A[i]
        S[0] = acc
