# Several factories in one file, as upstream's language tests have them: each
# runs only when called. --func picks one; the others' parameters (some without
# defaults) are not needed, and neither is what their bodies use.
# tlc-args: --func row_max_program --param M=64 --param N=96
import tilelang
import tilelang.language as T


def row_sum_program(M, N, block_M, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            A_frag = T.alloc_fragment((block_M, N), dtype)
            S = T.alloc_fragment((block_M,), dtype)
            T.copy(A[bx * block_M, 0], A_frag)
            T.reduce_sum(A_frag, S, dim=1)
            T.copy(S, B[bx * block_M])

    return main


def row_max_program(M, N, block_M=16, dtype="float32"):
    @T.prim_func
    def kernel(A: T.Tensor((M, N), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            A_frag = T.alloc_fragment((block_M, N), dtype)
            S = T.alloc_fragment((block_M,), dtype)
            T.copy(A[bx * block_M, 0], A_frag)
            T.reduce_max(A_frag, S, dim=1)
            T.copy(S, B[bx * block_M])

    return kernel


def run_row_max(M, N):
    program = row_max_program(M, N)
    kernel = tilelang.compile(program, out_idx=[1])
    return kernel


def test_row_max():
    run_row_max(128, 256)


if __name__ == "__main__":
    tilelang.testing.main()
