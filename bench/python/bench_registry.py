#!/usr/bin/env python3
"""Time per call of list_backends() and get_backend(name) from Python, beside the
same operations written as upstream's tilelang/backend/module.py writes them (a
module-level dict: ``dict(_BACKENDS)`` and ``_BACKENDS[name]`` in a try), over the
same BackendModule objects, in the same run (so a loaded machine slows both alike).

  PYTHONPATH=build/python python3 bench/python/bench_registry.py [--reps 15] [--iters 200000]

Each figure is the median over --reps repetitions of --iters calls.
"""

import argparse
import statistics
import time

import tilelang_backend as tb

_BACKENDS = dict(tb.list_backends())


def upstream_get_backend(name):
    try:
        return _BACKENDS[name]
    except KeyError as err:
        available = ", ".join(sorted(_BACKENDS)) or "<none>"
        raise ValueError(f"Unknown backend {name!r}. Available: {available}") from err


def upstream_list_backends():
    return dict(_BACKENDS)


def per_call(fn, arg, iters, reps):
    samples = []
    for _ in range(reps):
        if arg is None:
            start = time.perf_counter()
            for _ in range(iters):
                fn()
        else:
            start = time.perf_counter()
            for _ in range(iters):
                fn(arg)
        samples.append((time.perf_counter() - start) / iters)
    return statistics.median(samples) * 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--iters", type=int, default=200000)
    args = parser.parse_args()
    tb.get_backend("cuda")
    rows = [
        ("list_backends()", per_call(tb.list_backends, None, args.iters, args.reps),
         per_call(upstream_list_backends, None, args.iters, args.reps)),
        ("get_backend('cuda')", per_call(tb.get_backend, "cuda", args.iters, args.reps),
         per_call(upstream_get_backend, "cuda", args.iters, args.reps)),
    ]
    print(f"{len(_BACKENDS)} backends; median of {args.reps} x {args.iters} calls")
    print(f"{'call':22} {'ours ns':>9} {'upstream-style ns':>18} {'ratio':>6}")
    for name, ours, upstream in rows:
        print(f"{name:22} {ours:9.0f} {upstream:18.0f} {ours / upstream:6.2f}")


if __name__ == "__main__":
    main()
