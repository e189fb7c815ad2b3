import tilelang.language as T


@T.macro
def fill(buf, v):
    for i in T.serial(4):
        buf[i] = v


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A[0] = fill(A, 1.0) + 1.0
