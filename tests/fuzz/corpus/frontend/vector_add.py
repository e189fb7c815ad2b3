"""Vector add: C = A + B for vectors whose length is only known at run time.

The length is a symbolic dimension (T.symbolic): one compiled kernel serves
every N. The grid is derived from N, and the last block masks the elements past
the end of the vectors.
"""
import tilelang
import tilelang.language as T

BLOCK = 256

N = T.symbolic("N")


@T.prim_func
def vector_add(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, BLOCK), threads=BLOCK) as bx:
        for i in T.Parallel(BLOCK):
            idx = bx * BLOCK + i
            if idx < N:
                C[idx] = A[idx] + B[idx]


if __name__ == "__main__":
    import torch

    kernel = tilelang.compile(vector_add, out_idx=[2])
    for n in (1000, 4096):
        a = torch.randn(n, device="cuda")
        b = torch.randn(n, device="cuda")
        torch.testing.assert_close(kernel(a, b), a + b)
    print("vector_add: ok")
