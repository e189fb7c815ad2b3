"""``kernel.get_profiler()``: upstream's Profiler (``do_bench``, ``assert_allclose``).

Inputs are made for the kernel's input parameters (``input_tensors`` overrides):
torch tensors on the target's device when torch is installed, else NumPy arrays,
else buffer-protocol tensors (``tilelang_backend.tensor``), filled with
reproducible pseudo-random values (uniform in [-1, 1); integers in [-2, 2], unsigned
and bool in [0, 2] / [0, 1]; ``TensorSupplyType.Zero``/``One``: constants).
``do_bench`` times with CUDA events when torch's CUDA is in use, else with
``time.perf_counter``; warmup and rep are in milliseconds as upstream's (the number
of runs is derived from a first estimate), and the result is milliseconds.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Callable, Optional, Sequence

from . import tensor as _tensor

__all__ = ["Profiler", "TensorSupplyType"]


class TensorSupplyType:
    Auto = "auto"
    Integer = "integer"
    Uniform = "uniform"
    Normal = "normal"
    Randn = "randn"
    Zero = "zero"
    One = "one"


def _torch():
    try:
        import torch  # noqa: PLC0415

        return torch
    except ImportError:
        return None


def _numpy():
    try:
        import numpy  # noqa: PLC0415

        return numpy
    except ImportError:
        return None


def _flat(x) -> list:
    """A tensor's values as a flat list of Python numbers."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch
        return x.detach().float().cpu().reshape(-1).tolist()
    if hasattr(x, "ravel") and hasattr(x, "tolist"):  # NumPy
        return x.astype("float64").ravel().tolist() if hasattr(x, "astype") else x.ravel().tolist()
    if isinstance(x, (int, float)):
        return [x]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(item)]
    mv = memoryview(x)
    return mv.cast("B").cast(mv.format.lstrip("@=<")).tolist() if mv.ndim != 1 else mv.tolist()


class Profiler:
    def __init__(self, kernel, tensor_supply_type=None):
        self.kernel = kernel
        self.supply = tensor_supply_type or TensorSupplyType.Auto
        self._rng = random.Random(0)

    # -------------------------------------------------------------- inputs

    def _value(self, dtype: str):
        kind = self.supply
        if kind == TensorSupplyType.Zero:
            return 0
        if kind == TensorSupplyType.One:
            return 1
        if dtype.startswith(("int", "uint")) or dtype == "bool" or kind == TensorSupplyType.Integer:
            return self._rng.randint(0, 1) if dtype == "bool" or dtype.startswith("uint") else self._rng.randint(-2, 2)
        return self._rng.uniform(-1.0, 1.0)

    def _make(self, p):
        if any(not isinstance(d, int) for d in p.shape):
            raise ValueError(
                f"parameter '{p.name}' has symbolic dims {p.shape}: pass input_tensors= (the profiler cannot choose them)"
            )
        integer = p.dtype.startswith(("int", "uint")) or p.dtype == "bool" or self.supply == TensorSupplyType.Integer
        constant = {TensorSupplyType.Zero: 0, TensorSupplyType.One: 1}.get(self.supply)
        low = 0 if p.dtype == "bool" or p.dtype.startswith("uint") else -2
        high = 1 if p.dtype == "bool" else 2
        torch = _torch()
        device_type = self.kernel.target.device_type
        if torch is not None:
            dev = "cuda" if device_type == 2 else "cpu"
            dt = getattr(torch, p.dtype)
            gen = torch.Generator(device=dev).manual_seed(0)
            if constant is not None:
                return torch.full(p.shape, constant, dtype=dt, device=dev)
            if integer:
                return torch.randint(low, high + 1, p.shape, generator=gen, device=dev).to(dt)
            return (torch.rand(p.shape, generator=gen, device=dev) * 2 - 1).to(dt)
        if device_type != 1:
            raise RuntimeError(f"inputs for a {self.kernel.target.kind} kernel need torch (not installed)")
        np = _numpy()
        if np is not None:
            rng = np.random.default_rng(0)
            if constant is not None:
                return np.full(p.shape, constant, dtype=p.dtype)
            if integer:
                return rng.integers(low, high + 1, p.shape).astype(p.dtype)
            return rng.uniform(-1.0, 1.0, p.shape).astype(p.dtype)
        values = [self._value(p.dtype) for _ in range(math.prod(p.shape))]
        return _tensor.from_list(values, p.dtype, p.shape)

    def _get_inputs(self, with_output: bool = False):
        return [self._make(p) for p in self.kernel.params if with_output or not p.is_output]

    # -------------------------------------------------------------- checks

    def assert_allclose(self, reference_program: Callable, input_tensors: Optional[Sequence] = None, atol: float = 1e-2,
                        rtol: float = 1e-2, max_mismatched_ratio: float = 0.01):
        """Runs the kernel and ``reference_program`` on the same inputs and checks every
        output: at most ``max_mismatched_ratio`` of the elements may differ by more
        than ``atol + rtol * |ref|``."""
        ins = list(input_tensors) if input_tensors is not None else self._get_inputs()
        outs = self.kernel(*ins)
        if outs is None:
            outs = ()
        outs = outs if isinstance(outs, tuple) else (outs,)
        refs = reference_program(*ins)
        # A tuple (or a list of tensors) is several outputs; a list of numbers is one.
        several = isinstance(refs, tuple) or (isinstance(refs, list) and refs and not isinstance(refs[0], (int, float, list)))
        refs = refs if several else (refs,)
        if len(refs) != len(outs):
            raise AssertionError(f"the reference returned {len(refs)} outputs, the kernel {len(outs)}")
        for k, (out, ref) in enumerate(zip(outs, refs)):
            a, b = _flat(out), _flat(ref)
            if len(a) != len(b):
                raise AssertionError(f"output {k}: {len(a)} elements, the reference {len(b)}")
            bad = [i for i, (x, y) in enumerate(zip(a, b)) if not abs(x - y) <= atol + rtol * abs(y)]
            if len(bad) > max_mismatched_ratio * len(a):
                i = bad[0]
                raise AssertionError(
                    f"output {k}: {len(bad)} of {len(a)} elements differ beyond atol={atol}, rtol={rtol} "
                    f"(ratio {len(bad) / max(1, len(a)):.4f} > {max_mismatched_ratio}); first at flat index {i}: "
                    f"{a[i]} vs reference {b[i]}"
                )

    # -------------------------------------------------------------- timing

    def _cuda_events(self):
        torch = _torch()
        if torch is None or self.kernel.target.device_type != 2 or not torch.cuda.is_available():
            return None
        return torch

    def do_bench(self, func: Optional[Callable] = None, warmup: float = 25, rep: float = 100, n_warmup: int = 1,
                 n_repeat: int = 1, input_tensors: Optional[Sequence] = None, backend: str = "event",
                 quantiles=None, return_mode: str = "mean"):
        """Milliseconds per run of ``func`` (default: the kernel on generated inputs)."""
        if func is None:
            ins = list(input_tensors) if input_tensors is not None else self._get_inputs()

            def func():
                return self.kernel(*ins)

        torch = self._cuda_events()
        sync = torch.cuda.synchronize if torch else (lambda: None)
        func()
        sync()
        # Estimate, then derive the counts from warmup/rep (ms), as upstream.
        t0 = time.perf_counter()
        for _ in range(5):
            func()
        sync()
        est = max((time.perf_counter() - t0) * 1e3 / 5, 1e-6)
        n_w = max(n_warmup, int(warmup / est))
        n_r = max(n_repeat, int(rep / est))
        for _ in range(n_w):
            func()
        sync()
        times = []
        if torch is not None:
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_r)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_r)]
            for s, e in zip(starts, ends):
                s.record()
                func()
                e.record()
            torch.cuda.synchronize()
            times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
        else:
            for _ in range(n_r):
                t = time.perf_counter()
                func()
                times.append((time.perf_counter() - t) * 1e3)
        if quantiles is not None:
            qs = statistics.quantiles(times, n=100, method="inclusive") if len(times) > 1 else [times[0]] * 99
            return [times[0] if q <= 0 else max(times) if q >= 1 else qs[int(q * 100) - 1] for q in quantiles]
        if return_mode == "min":
            return min(times)
        if return_mode == "max":
            return max(times)
        if return_mode == "median":
            return statistics.median(times)
        return statistics.fmean(times)
