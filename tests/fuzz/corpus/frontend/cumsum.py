"""Inclusive prefix sums along each row (or from the end, with reverse=True).

Each block copies block_M rows into shared memory, scans them in place with
T.cumsum along the second dimension and copies the result out.
"""
import tilelang
import tilelang.language as T


def cumsum(M=24, N=64, block_M=8, reverse=False, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            A_shared = T.alloc_shared((block_M, N), dtype)
            T.copy(A[bx * block_M, 0], A_shared)
            T.cumsum(A_shared, dim=1, reverse=reverse)
            T.copy(A_shared, B[bx * block_M, 0])

    return main


if __name__ == "__main__":
    import torch

    a = torch.randn(24, 64, device="cuda")
    kernel = tilelang.compile(cumsum(), out_idx=[1])
    torch.testing.assert_close(kernel(a), a.cumsum(dim=1), rtol=1e-4, atol=1e-4)
    kernel = tilelang.compile(cumsum(reverse=True), out_idx=[1])
    torch.testing.assert_close(kernel(a), a.flip(1).cumsum(dim=1).flip(1), rtol=1e-4, atol=1e-4)
    print("cumsum: ok")
