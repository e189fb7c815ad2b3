"""Kernels in upstream TileLang's style, imported by test_user_api.py (as
`tilelang_backend`) and run by upstream_script.py through `tilelang_backend.run`."""
import tilelang
import tilelang.language as T

BLOCK = 64
N = T.symbolic("N")


@T.prim_func
def vadd(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32), C: T.Tensor((N,), T.float32)):
    with T.Kernel(T.ceildiv(N, BLOCK), threads=BLOCK) as bx:
        for i in T.Parallel(BLOCK):
            if bx * BLOCK + i < N:
                C[bx * BLOCK + i] = A[bx * BLOCK + i] + B[bx * BLOCK + i]


def scale(M, factor, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M,), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(1, threads=M) as bx:
            for i in T.Parallel(M):
                B[i] = A[i] * factor
    return main


@tilelang.jit(out_idx=[-1])
def jscale(M, factor=2.0):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=M) as bx:
            for i in T.Parallel(M):
                B[i] = A[i] * factor
    return main


@tilelang.jit
def eager_add(A, B, block=32):
    M = T.const("M")
    A: T.Tensor((M,), "float32")
    B: T.Tensor((M,), "float32")
    C = T.empty((M,), "float32")
    with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
        for i in T.Parallel(block):
            if bx * block + i < M:
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]
    return C




def needs_cell(M):
    local = M * 2

    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=M) as bx:
            for i in T.Parallel(M):
                B[i] = A[i] + local
    return main


def bad_kernel(M):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=M) as bx:
            for i in T.Parallel(M):
                A[i] = undefined_name
    return main
