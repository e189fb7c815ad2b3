"""An upstream-style script: run by `python -m tilelang_backend.run` (test_user_api.py)."""
import array
import sys

import tilelang
import tilelang.language as T

N = 256


@tilelang.jit(out_idx=[-1], target="c")
def axpb(M, alpha, beta=1.0, block=64):
    @T.prim_func
    def main(X: T.Tensor((M,), "float32"), Y: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < M:
                    Y[bx * block + i] = X[bx * block + i] * alpha + beta
    return main


if __name__ == "__main__":
    alpha = float(sys.argv[1])
    kernel = axpb(N, alpha)
    x = array.array("f", [i * 0.5 for i in range(N)])
    y = kernel(x)
    assert y.tolist() == [v * alpha + 1.0 for v in x], y.tolist()[:4]
    print("upstream_script: ok", tilelang.__name__, T.__name__, kernel.get_kernel_source() != "")
