import tilelang.language as T


@T.macro
def zero_rows(buf, rows):
    for i in T.serial(rows):
        buf[i] = undefined_value


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        zero_rows(A, 128)
