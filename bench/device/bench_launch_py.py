"""Host time per launch of a trivial kernel from Python frameworks, on the same
machine as bench_cuda_launch (run by tests/device/bench.sh): torch (an in-place
add on a one-element tensor), CuPy (a RawKernel with an empty body) and Triton (a
@triton.jit kernel that does nothing). Each sample is the mean host time of a
batch of launches, the GPU drained between batches; the median is reported as
RESULT lines. A framework that is missing is reported as missing, not guessed."""
import statistics
import sys
import time

BATCHES, PER_BATCH = 400, 100


def per_launch_us(launch, sync):
    for _ in range(50):
        launch()
    sync()
    samples = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(PER_BATCH):
            launch()
        samples.append((time.perf_counter() - t0) / PER_BATCH * 1e6)
        sync()
    return statistics.median(samples)


def report(key, value):
    print(f"RESULT launch_py.{key} {value:.6g} us", flush=True)


def bench_torch():
    import torch
    x = torch.zeros(1, device="cuda")
    us = per_launch_us(lambda: x.add_(1.0), torch.cuda.synchronize)
    print(f"  torch {torch.__version__}: x.add_(1) on one element  {us:.3f} us")
    report("torch", us)


def bench_cupy():
    import cupy
    k = cupy.RawKernel(r'extern "C" __global__ void empty(float *x) {}', "empty")
    x = cupy.zeros(1, dtype=cupy.float32)
    us = per_launch_us(lambda: k((1,), (32,), (x,)), cupy.cuda.Device().synchronize)
    print(f"  cupy {cupy.__version__}: RawKernel, empty body  {us:.3f} us")
    report("cupy", us)


def bench_triton():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def empty(x_ptr):
        pass

    x = torch.zeros(1, device="cuda")
    us = per_launch_us(lambda: empty[(1,)](x), torch.cuda.synchronize)
    print(f"  triton {triton.__version__}: @triton.jit, empty body  {us:.3f} us")
    report("triton", us)


if __name__ == "__main__":
    print(f"host time per launch of a trivial kernel (median of {BATCHES} batches of {PER_BATCH}):")
    status = 0
    for name, fn in (("torch", bench_torch), ("cupy", bench_cupy), ("triton", bench_triton)):
        try:
            fn()
        except Exception as e:  # a framework missing or failing: say so, go on
            print(f"  {name}: not measured ({type(e).__name__}: {e})")
            status = 1
    sys.exit(status)
