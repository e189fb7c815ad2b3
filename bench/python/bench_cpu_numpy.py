#!/usr/bin/env python3
"""The NumPy side of bench/bench_cpu_kernels.c (run by it, not alone).

Reads the inputs the C benchmark wrote (DATA_DIR/<case>.<i>.bin, raw float32 or
float16) and times NumPy on the same arrays, printing one line per case,
"result <case> <median ns per call>", after a description of the NumPy build.
Each case runs as many timed batches as the C side; a batch holds as many calls
as make it last at least a millisecond (bench.h's method). vector_add under load
runs while two child processes spin, as on the C side.
"""
import multiprocessing
import os
import sys
import time

import numpy as np


def have(data_dir, name):
    return os.path.exists(os.path.join(data_dir, "%s.0.bin" % name))


def load(data_dir, name, i, shape, dtype):
    return np.fromfile(os.path.join(data_dir, "%s.%d.bin" % (name, i)), dtype=dtype).reshape(shape)


def timed(fn, samples):
    batch = 1
    while True:  # calibrate (and warm up)
        t0 = time.perf_counter_ns()
        for _ in range(batch):
            fn()
        if time.perf_counter_ns() - t0 > 1e6 or batch >= 1 << 28:
            break
        batch *= 2
    per = []
    for _ in range(samples):
        t0 = time.perf_counter_ns()
        for _ in range(batch):
            fn()
        per.append((time.perf_counter_ns() - t0) / batch)
    per.sort()
    return per[len(per) // 2], per[0], per[len(per) * 9 // 10]


def spin():
    x = 0
    while True:
        x += 1


def main():
    d = sys.argv[1]
    override = int(sys.argv[2]) if len(sys.argv) > 2 else 0  # the C side's --samples
    f32, f16 = np.float32, np.float16
    cfg = np.show_config(mode="dicts") if "mode" in np.show_config.__code__.co_varnames else None
    blas = cfg["Build Dependencies"]["blas"] if cfg else {}
    print("numpy %s, BLAS %s %s" % (np.__version__, blas.get("name", "?"), blas.get("version", "")))
    cases = []

    def gemm(name, n, dt, samples):
        if not have(d, name):
            return
        a, b = load(d, name, 0, (n, n), dt), load(d, name, 1, (n, n), dt)
        if dt == f16:  # float16 in, float32 accumulation: NumPy's float32 BLAS on the same values
            a, b = a.astype(f32), b.astype(f32)
        c = np.empty((n, n), f32)
        cases.append((name, lambda: np.matmul(a, b, out=c), samples, False))

    gemm("gemm_f32_512", 512, f32, 11)
    gemm("gemm_f32_512_tiles64", 512, f32, 11)
    gemm("gemm_f32_1024", 1024, f32, 11)
    gemm("gemm_f32_1024_tiles64", 1024, f32, 11)
    gemm("gemm_f32_1024_tiles32", 1024, f32, 11)
    gemm("gemm_f32_2048", 2048, f32, 5)
    gemm("gemm_f16_1024", 1024, f16, 11)

    if have(d, "softmax_4096"):
        x = load(d, "softmax_4096", 0, (4096, 4096), f32)

        def softmax():
            e = np.exp(x - x.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        cases.append(("softmax_4096", softmax, 11, False))
    if have(d, "rms_norm_4096"):
        a = load(d, "rms_norm_4096", 0, (4096, 4096), f32)
        w = load(d, "rms_norm_4096", 1, (4096,), f32)

        def rms_norm():
            return a * (1.0 / np.sqrt(np.mean(a * a, axis=1, keepdims=True) + 1e-6)) * w

        cases.append(("rms_norm_4096", rms_norm, 11, False))
    for name, loaded in (("vector_add_1000", False), ("vector_add_1000_loaded", True)):
        if not have(d, name):
            continue
        va, vb = load(d, name, 0, (1000,), f32), load(d, name, 1, (1000,), f32)
        vc = np.empty(1000, f32)
        cases.append((name, lambda va=va, vb=vb, vc=vc: np.add(va, vb, out=vc), 101, loaded))

    for name, fn, samples, loaded in cases:
        samples = override or samples
        procs = []
        if loaded:
            procs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(2)]
            for p in procs:
                p.start()
        try:
            med, lo, p90 = timed(fn, samples)
        finally:
            for p in procs:
                p.kill()
                p.join()
        print("%-52s %10.1f %10.1f %10.1f" % (name, med, lo, p90))
        print("result %s %.1f" % (name, med), flush=True)


if __name__ == "__main__":
    main()
