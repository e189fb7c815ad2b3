"""An empty-bodied kernel: one tensor parameter, one block of 32 threads, nothing
to do. What its launch costs is the launch path alone (bench_cuda_launch)."""
import tilelang.language as T


@T.prim_func
def empty(A: T.Tensor((1,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        pass
