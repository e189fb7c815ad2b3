"""Row sums: S[i] = sum over j of A[i, j].

Each block loads block_M rows into shared memory, moves them into a register
fragment and reduces along the second dimension with T.reduce_sum. With the
default sizes the last block holds only 6 of its 16 rows: T.copy reads zeros
past the end and drops the rows it would write past it.
"""
import tilelang
import tilelang.language as T


def row_sum(M=70, N=64, block_M=16, dtype="float32", accum_dtype="float32"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), S: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            A_shared = T.alloc_shared((block_M, N), dtype)
            A_local = T.alloc_fragment((block_M, N), accum_dtype)
            S_local = T.alloc_fragment((block_M,), accum_dtype)

            T.copy(A[bx * block_M, 0], A_shared)
            T.copy(A_shared, A_local)
            T.reduce_sum(A_local, S_local, dim=1)
            T.copy(S_local, S[bx * block_M])

    return main


if __name__ == "__main__":
    import torch

    kernel = tilelang.compile(row_sum(), out_idx=[1])
    a = torch.randn(70, 64, device="cuda")
    torch.testing.assert_close(kernel(a), a.sum(dim=1), rtol=1e-4, atol=1e-4)
    print("row_sum: ok")
