"""torch on the operations and sizes of bench_cuda_bandwidth and bench_cuda_gemm
(run by tests/device/bench.sh): copy, vector add and row sum of float32 (2^LG
elements, rows of 4096), and a float16 GEMM (cuBLAS, tensor cores). GPU time from
CUDA events, the median of rounds of several calls; RESULT lines with GB/s and
TFLOP/s."""
import statistics
import sys

import torch


def time_ms(fn, rounds=15, reps=5):
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(rounds):
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        e.synchronize()
        samples.append(s.elapsed_time(e) / reps)
    return statistics.median(samples)


def main():
    lg = int(sys.argv[1]) if len(sys.argv) > 1 else 28
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    n = 1 << lg
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = torch.empty(n, device="cuda")
    print(f"torch {torch.__version__}, float32, {n} elements:")
    for name, fn, nbytes in (
        ("copy", lambda: c.copy_(a), 8 * n),
        ("vector_add", lambda: torch.add(a, b, out=c), 12 * n),
        ("row_sum", lambda: torch.sum(a.view(n // 4096, 4096), dim=1, out=c[: n // 4096]), 4 * n + 4 * (n // 4096)),
    ):
        ms = time_ms(fn)
        gbs = nbytes / (ms * 1e-3) / 1e9
        print(f"  {name:11s} {ms:9.3f} ms  {gbs:8.1f} GB/s")
        print(f"RESULT torch.bandwidth.{name} {gbs:.6g} GB/s", flush=True)
    del a, b, c
    x = torch.rand(size, size, device="cuda", dtype=torch.float16)
    y = torch.rand(size, size, device="cuda", dtype=torch.float16)
    ms = time_ms(lambda: x @ y, rounds=7, reps=3)
    tflops = 2 * size**3 / (ms * 1e-3) / 1e12
    print(f"  gemm float16 {size}^3: {ms:.3f} ms, {tflops:.1f} TFLOP/s")
    print(f"RESULT torch.gemm.tflops {tflops:.6g} TFLOP/s", flush=True)


if __name__ == "__main__":
    main()
