"""RMS norm: B[i, j] = A[i, j] * W[j] / sqrt(mean_j A[i, j]^2 + eps).

Each block normalizes blk_m whole rows: it copies them into shared memory with a
slice region (A[bx * blk_m:(bx + 1) * blk_m, :]), sums the squares with
T.reduce_sum and scales by T.rsqrt. With the defaults the last block covers 5
of its 8 rows; the copies clip at the edge.
"""
import tilelang
import tilelang.language as T


def rms_norm(M=45, N=96, blk_m=8, eps=1e-6, dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), W: T.Tensor((N,), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            A_shared = T.alloc_shared((blk_m, N), dtype)
            A_local = T.alloc_fragment((blk_m, N), dtype)
            A_sq = T.alloc_fragment((blk_m, N), dtype)
            A_rms = T.alloc_fragment((blk_m,), dtype)

            T.copy(A[bx * blk_m:(bx + 1) * blk_m, :], A_shared)
            T.copy(A_shared, A_local)
            for i, j in T.Parallel(blk_m, N):
                A_sq[i, j] = A_local[i, j] * A_local[i, j]
            T.reduce_sum(A_sq, A_rms, dim=1)
            for i in T.Parallel(blk_m):
                A_rms[i] = T.rsqrt(A_rms[i] / N + eps)
            for i, j in T.Parallel(blk_m, N):
                A_local[i, j] *= A_rms[i] * W[j]
            T.copy(A_local, B[bx * blk_m:(bx + 1) * blk_m, :])

    return main


if __name__ == "__main__":
    import torch

    kernel = tilelang.compile(rms_norm(), out_idx=[2])
    a = torch.randn(45, 96, device="cuda")
    w = torch.randn(96, device="cuda")
    ref = a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    torch.testing.assert_close(kernel(a, w), ref, rtol=1e-4, atol=1e-4)
    print("rms_norm: ok")
