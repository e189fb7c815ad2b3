import tilelang.language as T

BLOCKS = {b: b for b in (64, 128)}


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            A[i] = A[i] * BLOCKS[0]
