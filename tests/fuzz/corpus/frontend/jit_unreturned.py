import tilelang
import tilelang.language as T


@tilelang.jit
def double(A):
    N = T.const("N")
    A: T.Tensor((N,), "float32")
    B = T.empty((N,), "float32")
    with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
        for i in T.Parallel(128):
            A[bx * 128 + i] *= 2.0
