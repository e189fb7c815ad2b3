import math
import tilelang
import tilelang.language as T
from tilelang import tvm

MAX_BLOCK = 512


def pick_block(n):
    return n


def scaled_sum(N, block=None, dtype=T.float16, mode="sum"):
    if block is None:
        block = min(tilelang.math.next_power_of_2(N // 4), MAX_BLOCK)
    elif block > MAX_BLOCK:
        raise ValueError("block too large")
    if mode not in ("sum", "mean"):
        raise NotImplementedError(f"mode {mode}")
    bits = tvm.DataType(dtype).bits
    vec = 128 // bits
    weights = ()
    for i in range(3):
        weights = weights + (i * 0.5,)
    total = 0
    for w in weights:
        total += w
    scale = (lambda x: x / N)(total) if mode == "mean" else total
    assert math.gcd(N, block) == block, f"N={N} must be a multiple of block={block}"

    @T.prim_func
    def kernel(A: T.Tensor((N,), dtype), B: T.Tensor((1,), "float32")):
        with T.Kernel(threads=block):
            acc = T.alloc_fragment((block,), "float32")
            s = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            for k in T.serial(T.ceildiv(N, block)):
                for i in T.Parallel(block):
                    acc[i] += T.Cast("float32", A[k * block + i])
            T.reduce_sum(acc, s, dim=0)
            B[0] = s[0] * scale + vec * 0

    return kernel
