"""Row checksums by XOR in the @tilelang.jit style, over column tiles.

Each block folds block_M rows, walking the columns in tiles of block_N with a
running T.reduce_bitxor (clear=False) into a fragment cleared first. Past the
end of a row, T.copy fills the last tile with zeros, and a zero leaves an XOR
unchanged.
"""
import tilelang
import tilelang.language as T


@tilelang.jit
def row_xor(A, block_M: int = 8, block_N: int = 32):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), "int32")
    out = T.empty((M,), "int32")

    with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
        tile = T.alloc_fragment((block_M, block_N), "int32")
        row = T.alloc_fragment((block_M,), "int32")
        T.clear(row)
        for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=2):
            T.copy(A[bx * block_M, k * block_N], tile)
            T.reduce_bitxor(tile, row, dim=1, clear=False)
        T.copy(row, out[bx * block_M])

    return out


if __name__ == "__main__":
    import functools

    import torch

    a = torch.randint(-(2**31), 2**31 - 1, (20, 50), dtype=torch.int32, device="cuda")
    torch.testing.assert_close(row_xor(a), functools.reduce(torch.bitwise_xor, a.unbind(1)))
    print("row_xor: ok")
