# The compile-time Python of a factory, as upstream's kernels write it: a config
# chosen by loops and math, a raise in a branch the values do not take, tvm's
# DataType for bit widths, a lambda, chained assignment, and a kernel launched
# with threads only (one block).
# tlc-args: --param N=1024
import math

import tilelang
import tilelang.language as T
from tilelang import tvm

MAX_BLOCK = 512


def scaled_sum(N, block=None, dtype=T.float16, mode="mean"):
    if block is None:
        block = min(tilelang.math.next_power_of_2(N // 4), MAX_BLOCK)
    elif block > MAX_BLOCK:
        raise ValueError("block too large")
    if mode not in ("sum", "mean"):
        raise NotImplementedError(f"mode {mode}")
    bits = tvm.DataType(dtype).bits
    lanes = 128 // bits
    weights = ()
    for i in range(3):
        weights = weights + (i * 0.5,)
    total = start = 0
    for w in weights:
        total += w
    scale = (lambda x: x / N)(total) if mode == "mean" else total
    assert math.gcd(N, block) == block, f"N={N} must be a multiple of block={block}"

    @T.prim_func
    def kernel(A: T.Tensor((N,), dtype), B: T.Tensor((1,), T.float32)):
        with T.Kernel(threads=block):
            acc = T.alloc_fragment((block,), T.float32)
            s = T.alloc_fragment((1,), T.float32)
            T.clear(acc)
            for k in T.serial(T.ceildiv(N, block)):
                for i in T.Parallel(block):
                    acc[i] += T.Cast(T.float32, A[k * block + i]) * (lanes // lanes)
            T.reduce_sum(acc, s, dim=0)
            B[0] = s[0] * scale + start

    return kernel
