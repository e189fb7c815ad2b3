# A kernel file as upstream's examples are: script code at the top level that
# the kernel does not use (seeding, a reference class, a triton baseline, a
# try/except import), and a factory that imports T in its own body.
# tlc-args: --param N=1000
import argparse
import math
import torch
import tilelang
from tilelang.autotuner import *
from .utils import assert_similar  # a relative import, as in a package

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

torch.manual_seed(0)
tilelang.disable_cache()
DEVICE = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
CONFIGS = [{"block": b, "threads": t} for b in (64, 128) for t in (64, 128)]
scale_of = lambda dtype: 2.0 if dtype == "float16" else 0.5
reference = torch.randn(8, 8) @ torch.randn(8, 8)


class Reference(torch.nn.Module):
    def forward(self, x):
        return x * 2 + 1


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in [64, 128]], key=["n"])
@triton.jit
def triton_axpb(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2 + 1, mask=offs < n)


def axpb(N, block=128, dtype="float32"):
    import tilelang.language as T

    a = b = 1.0
    a *= 2

    @T.prim_func
    def main(X: T.Tensor((N,), dtype), Y: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    Y[bx * block + i] = X[bx * block + i] * a + b

    return main


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=4096)
    args = parser.parse_args()
    kernel = tilelang.compile(axpb(args.n), out_idx=[1])
    x = torch.randn(args.n, device=DEVICE)
    torch.testing.assert_close(kernel(x), Reference()(x))


if __name__ == "__main__":
    main()
