# A @tilelang.jit kernel in upstream's newer style, shape-specialized: the
# T.const dims M and N are bound at compile time (--param M=... N=..., as a call
# with tensors of those shapes binds them), so a fragment can be sized by them
# and derived sizes (nblocks) are plain integers. Decorated for autotuning the
# way upstream's examples are; without a tuner the defaults are the config.
# tlc-args: --param M=48 --param N=80
import itertools

import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


def get_configs():
    return [dict(block_M=b, threads=t) for b, t in itertools.product([16, 32], [64, 128])]


@autotune(configs=get_configs(), warmup=3, rep=20)
@tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_DISABLE_TMA_LOWER: True})
def col_scale(A, block_M: int = 16, threads: int = 128, dtype: str = "float32") -> "T.Tensor":
    M, N = T.const("M, N")
    nblocks = T.ceildiv(M, block_M)

    A: T.Tensor((M, N), dtype)
    B = T.empty((M, N), dtype)

    with T.Kernel(nblocks, threads=threads) as bx:
        colmax = T.alloc_fragment((N,), dtype)
        tile = T.alloc_fragment((block_M, N), dtype)
        T.copy(A[bx * block_M, 0], tile)
        for j in T.Parallel(N):
            colmax[j] = T.float32(2.0)
        for i, j in T.Parallel(block_M, N):
            tile[i, j] = tile[i, j] * colmax[j]
        T.copy(tile, B[bx * block_M, 0])

    return B
