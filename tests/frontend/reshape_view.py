"""T.reshape and T.view: another shape over the same storage (upstream's
testing/python/language/test_tilelang_language_reshape.py), of a global
parameter, of shared memory (writes through the view land in the source) and of
a fragment. T.reduce_* of a view runs on the interpreter and the c target; the
GPU lowering refuses a view as a tile operation's operand (tests/cli)."""
import tilelang.language as T

# tlc-args: --func reshape_view --param N=256 --param M=16


def reshape_view(N, M):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N // M, M), "float32"), C: T.Tensor((N,), "float32"),
             D: T.Tensor((N // M,), "float32")):
        with T.Kernel(1, threads=32) as _:
            A2 = T.reshape(A, [N // M, M])
            S = T.alloc_shared((N // M, M), "float32")
            T.copy(A2, S)
            S1 = T.view(S, (N,), dtype="float32")
            for i in T.Parallel(N):
                S1[i] = S1[i] * 2.0
            T.copy(S, B)
            F = T.alloc_fragment((N,), "float32")
            T.copy(A, F)
            F2 = T.reshape(F, (N // M, M))
            for i, j in T.Parallel(N // M, M):
                F2[i, j] = F2[i, j] + j
            T.copy(F, C)
            R = T.alloc_fragment((N // M,), "float32")
            for i in T.Parallel(N // M):
                R[i] = F2[i, 0] - F2[i, M - 1]
            T.copy(R, D)

    return main
