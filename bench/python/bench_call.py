#!/usr/bin/env python3
"""Host time per kernel call from Python with torch CUDA tensors.

Compiles examples/vector_add.py for the current GPU and measures, in one run:

  python   kernel(a, b, c) from Python (tilelang_backend, DLPack/torch fast path,
           torch's current stream)
  python+alloc  kernel(a, b) with the output allocated per call (only for kernels with
           T.empty outputs; vector_add has none, so --kernel must name one)
  C        tl_kernel_call in a C loop (tilelang_backend._C.time_calls: the same
           kernel and arguments, converted once)
  raw      cuLaunchKernel in a C loop on the same device code (raw_launch.c, built
           here with cc; NVRTC + driver through dlopen)
  torch    torch.add(a, b, out=c): torch's own launch of the same operation

With --cpu (any machine): the same on the CPU with NumPy arrays and target c, against
numpy.add(a, b, out=c) (no raw-launch figure).

Each figure is the median over --reps repetitions of --iters back-to-back calls
(host time only: the GPU is synchronised after each repetition, outside the timed
loop). Run standalone on the GPU machine:

  PYTHONPATH=build/python python3 bench/python/bench_call.py [--n 4096] [--iters 2000] [--reps 15]

(an interpreter with torch; the extension must be built for that interpreter:
`cmake -DPython3_EXECUTABLE=$(which python3) ...`).
"""

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def median_ns(fn, iters, reps, sync):
    samples = []
    for _ in range(reps):
        sync()
        t0 = time.perf_counter_ns()
        fn(iters)
        t1 = time.perf_counter_ns()
        sync()
        samples.append((t1 - t0) / iters)
    return statistics.median(samples)


def eval_postfix(code, syms):
    """A kernel-table launch expression (postfix) with the symbolic dims' values."""
    if not code:
        return 1
    stack = []
    ops = {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "floordiv": lambda a, b: a // b,
        "floormod": lambda a, b: a % b,
        "min": min,
        "max": max,
    }
    for x in code:
        if isinstance(x, dict):
            stack.append(syms[x["sym"]])
        elif isinstance(x, str):
            b, a = stack.pop(), stack.pop()
            stack.append(ops[x](a, b))
        else:
            stack.append(x)
    return stack[-1]


def build_raw_helper():
    out = os.path.join(tempfile.mkdtemp(prefix="tlbench-"), "raw_launch.so")
    cc = os.environ.get("CC", "cc")
    subprocess.check_call([cc, "-O2", "-shared", "-fPIC", os.path.join(HERE, "raw_launch.c"), "-o", out, "-ldl"])
    lib = ctypes.CDLL(out)
    lib.tlbench_raw_launch.restype = ctypes.c_longlong
    lib.tlbench_error.restype = ctypes.c_char_p
    return lib


def raw_launch_ns(kernel, tensors, scalars_by_sym, iters, reps, sync, stream, arch):
    """cuLaunchKernel on the kernel's own device source, with its table's launch."""
    table = kernel.kernel_table
    if len(table["launches"]) != 1:
        raise RuntimeError("raw launch: only single-launch kernels")
    launch = table["launches"][0]
    syms = [scalars_by_sym[s["name"]] for s in table["syms"]]
    grid = (ctypes.c_uint * 3)(*[eval_postfix(e, syms) for e in launch["grid"]])
    block = (ctypes.c_uint * 3)(*[eval_postfix(e, syms) for e in launch["block"]])
    shared = eval_postfix(launch["dyn_shared_bytes"], syms) if launch["dyn_shared_bytes"] else 0
    blob, sizes = b"", []
    for arg in launch["args"]:
        if arg["kind"] == "tensor":
            blob += ctypes.c_uint64(tensors[arg["index"]].data_ptr()).value.to_bytes(8, "little")
            sizes.append(8)
        elif arg["kind"] == "sym":
            value = syms[arg["index"]]
            size = 8 if arg["dtype"].endswith("64") else 4
            blob += int(value).to_bytes(size, "little", signed=True)
            sizes.append(size)
        else:
            raise RuntimeError("raw launch: kernels with scalar parameters are not supported here")
    lib = build_raw_helper()
    src = kernel.device_source.encode()
    csizes = (ctypes.c_int * len(sizes))(*sizes)

    def run(n):
        """ns of n launches, timed inside the helper (its NVRTC compile and module
        load, done on every call, stay outside the figure)."""
        r = lib.tlbench_raw_launch(src, launch["symbol"].encode(), arch.encode(), grid, block, shared, blob, csizes,
                                   len(sizes), n, ctypes.c_void_p(stream))
        if r < 0:
            raise RuntimeError("raw launch: " + lib.tlbench_error().decode())
        return r

    run(10)
    samples = []
    for _ in range(reps):
        sync()
        samples.append(run(iters) / iters)
        sync()
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", default=os.path.join(ROOT, "examples", "vector_add.py"))
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--execution-backend", default="auto")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--cpu", action="store_true", help="NumPy arrays, target c, against numpy.add")
    args = ap.parse_args()

    sys.path.insert(0, os.path.join(ROOT, "build", "python"))
    import tilelang_backend as tb

    if args.cpu:
        return main_cpu(args, tb)
    import torch

    if not torch.cuda.is_available():
        sys.exit("bench_call: needs a CUDA device and torch with CUDA")
    dev = torch.device("cuda")
    a = torch.randn(args.n, device=dev)
    b = torch.randn(args.n, device=dev)
    c = torch.empty_like(a)
    kernel = tb.compile(args.kernel, execution_backend=args.execution_backend)
    kernel(a, b, c)
    torch.testing.assert_close(c, a + b)
    sync = torch.cuda.synchronize
    stream = torch.cuda.current_stream().cuda_stream

    def py_loop(n):
        for _ in range(n):
            kernel(a, b, c)

    def torch_loop(n):
        for _ in range(n):
            torch.add(a, b, out=c)

    def c_loop(n):
        tb._C.time_calls(kernel, n, a, b, c, stream=stream)

    for f in (py_loop, torch_loop, c_loop):
        f(200)
    results = {
        "python": median_ns(py_loop, args.iters, args.reps, sync),
        "C": median_ns(c_loop, args.iters, args.reps, sync),
        "torch": median_ns(torch_loop, args.iters, args.reps, sync),
    }
    if kernel.outputs:
        inputs = [a, b][: len(kernel.params) - len(kernel.outputs)]

        def alloc_loop(n):
            for _ in range(n):
                kernel(*inputs)

        results["python+alloc"] = median_ns(alloc_loop, args.iters, args.reps, sync)
    try:
        arch = kernel.target.attrs.get("arch", "sm_90")
        syms = {s["name"]: args.n for s in kernel.kernel_table["syms"]}
        results["raw"] = raw_launch_ns(kernel, [a, b, c], syms, args.iters, args.reps, sync, stream, arch)
    except Exception as e:  # reported, the others still stand
        results["raw"] = None
        print(f"bench_call: raw cuLaunchKernel not measured: {e}", file=sys.stderr)

    info = {
        "date": time.strftime("%Y-%m-%d"),
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "kernel": os.path.relpath(args.kernel, ROOT),
        "execution_backend": kernel.execution_backend,
        "n": args.n,
        "iters": args.iters,
        "reps": args.reps,
        "us_per_call": {k: (None if v is None else round(v / 1000, 3)) for k, v in results.items()},
    }
    if args.json:
        print(json.dumps(info, indent=2))
        return
    print(f"{info['date']} {info['device']} torch {info['torch']} {info['kernel']} n={args.n} "
          f"({kernel.execution_backend}), median of {args.reps} x {args.iters} calls")
    for k in ("raw", "C", "python", "python+alloc", "torch"):
        if k in results:
            v = results[k]
            print(f"  {k:13s} {'-' if v is None else f'{v / 1000:8.2f} us'}")


def main_cpu(args, tb):
    import platform

    import numpy as np

    a = np.random.rand(args.n).astype(np.float32)
    b = np.random.rand(args.n).astype(np.float32)
    c = np.empty_like(a)
    kernel = tb.compile(args.kernel, target="c", execution_backend=args.execution_backend)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)

    def nothing():
        pass

    def py_loop(n):
        for _ in range(n):
            kernel(a, b, c)

    def numpy_loop(n):
        for _ in range(n):
            np.add(a, b, out=c)

    def c_loop(n):
        tb._C.time_calls(kernel, n, a, b, c)

    for f in (py_loop, numpy_loop, c_loop):
        f(200)
    results = {
        "python": median_ns(py_loop, args.iters, args.reps, nothing),
        "C": median_ns(c_loop, args.iters, args.reps, nothing),
        "numpy": median_ns(numpy_loop, args.iters, args.reps, nothing),
    }
    print(f"{time.strftime('%Y-%m-%d')} {platform.processor() or platform.machine()} "
          f"{os.path.relpath(args.kernel, ROOT)} n={args.n} ({kernel.execution_backend}), "
          f"median of {args.reps} x {args.iters} calls")
    for k, v in results.items():
        print(f"  {k:13s} {v / 1000:8.2f} us")


if __name__ == "__main__":
    main()
