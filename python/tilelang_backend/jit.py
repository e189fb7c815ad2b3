"""The user API: ``compile(func, out_idx=...)``, ``@jit`` and the kernel object, with
upstream TileLang's signatures (``tilelang.compile``, ``tilelang.jit``, ``JITKernel``).

A kernel defined in Python is compiled from its own source text: the text of the
file that defines it (the front end reads whole upstream-style files: other
functions, ``__main__`` blocks and Python it does not evaluate are skipped), the
function's name (``tl_ir_parse_options.func``: only that one is elaborated) and, as
bindings (``tlc --param``), the values it closes over, read from the live function:
its globals (ints, floats, bools, strings, dtypes, tuples of those), the parameters
of the factory call that defined it, and the arguments of a ``@jit`` call. Bindings
the front end does not read are dropped (``ignore_unused_params``).
"""

from __future__ import annotations

import inspect
import linecache
import os
import threading
import types
from collections.abc import Mapping
from typing import Any, Callable, Optional, Sequence, Union

from . import _C
from .ir import IRModule
from .prim_func import PrimFunc

__all__ = ["compile", "jit", "JITKernel", "JITImpl", "KernelParam", "disable_cache", "enable_cache",
           "is_cache_enabled"]


def disable_cache() -> None:
    """upstream's ``tilelang.disable_cache()``: the library's kernel cache is skipped
    (TILELANG_DISABLE_CACHE=1) from now on in this process; @jit's in-memory
    per-signature cache still applies."""
    os.environ["TILELANG_DISABLE_CACHE"] = "1"


def enable_cache() -> None:
    os.environ.pop("TILELANG_DISABLE_CACHE", None)


def is_cache_enabled() -> bool:
    return os.environ.get("TILELANG_DISABLE_CACHE", "").lower() not in _TRUE

_TRUE = ("1", "true", "yes", "on")


# ------------------------------------------------------------------ bindings


def _literal(value) -> Optional[str]:
    """The binding text of a value (a Python literal), or None if it has none."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        from .language import dtype

        return str(value) if isinstance(value, dtype) else repr(str(value))
    if isinstance(value, (tuple, list)):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return None


def _code_names(code: types.CodeType, out: set) -> set:
    out.update(code.co_names)
    out.update(code.co_freevars)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, out)
    return out


def _closure_values(func: Callable) -> dict:
    """Globals the function's code names, and its closure cells, with a literal value."""
    values = {}
    g = getattr(func, "__globals__", {})
    for name in _code_names(func.__code__, set()):
        if name in g:
            text = _literal(g[name])
            if text is not None:
                values[name] = text
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        try:
            text = _literal(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
        if text is not None:
            values[name] = text
    return values


def _file_source(func: Callable) -> tuple[str, str]:
    file = func.__code__.co_filename
    lines = linecache.getlines(file, getattr(func, "__globals__", None))
    if not lines:
        raise ValueError(
            f"the source of '{func.__qualname__}' is not available ({file}): define kernels in a file "
            f"(the library's front end compiles them from their source text)"
        )
    return "".join(lines), file


def _parse(func: Callable, name: str, bindings: Mapping[str, str]) -> IRModule:
    source, file = _file_source(func)
    return IRModule.from_script(source, file, params=dict(bindings), func=name, ignore_unused_params=True)


def _prim_func_module(pf: PrimFunc) -> IRModule:
    """The module of a @T.prim_func record: its file, its name (or its factory's)."""
    bindings = _closure_values(pf.func)
    if pf.factory is None:
        return _parse(pf.func, pf.name, bindings)
    if "." in pf.factory:  # a method, or a function nested deeper
        raise ValueError(
            f"prim_func '{pf.name}' is defined inside '{pf.factory}', which is not a module-level function: "
            f"the library compiles kernels defined at the top of a file or in a top-level factory function"
        )
    for k, v in pf.factory_args.items():
        text = _literal(v)
        if text is None:
            raise TypeError(
                f"factory '{pf.factory}' of prim_func '{pf.name}': parameter '{k}' is a {type(v).__name__}; "
                f"the values bound to a kernel are ints, floats, bools, strings, dtypes or tuples of those"
            )
        bindings[k] = text
    return _parse(pf.func, pf.factory, bindings)



# ------------------------------------------------------------------ kernels


class KernelParam:
    """A kernel parameter: ``name``, ``dtype``, ``shape`` (ints and names of symbolic
    dims; None for an expression), ``is_tensor``, ``is_output``."""

    __slots__ = ("name", "dtype", "shape", "is_tensor", "is_output")

    def __init__(self, name, kind, dtype, shape, is_output):
        self.name, self.dtype, self.shape = name, dtype, shape
        self.is_tensor = kind == "tensor"
        self.is_output = is_output

    def is_scalar(self) -> bool:
        return not self.is_tensor

    def __repr__(self) -> str:
        kind = f"Tensor({self.shape!r}, {self.dtype!r})" if self.is_tensor else self.dtype
        return f"KernelParam({self.name}: {kind}{', output' if self.is_output else ''})"


class JITKernel:
    """A compiled kernel (upstream's ``JITKernel``): ``kernel(*inputs)`` allocates the
    ``out_idx`` outputs with the inputs' framework (torch: ``torch.empty`` on their
    device; NumPy; buffer-protocol inputs: ``tilelang_backend.tensor``) and returns
    them (one, or a tuple); ``kernel(*all_params)`` writes into the given outputs and
    returns None."""

    def __init__(self, kernel, params: Sequence[KernelParam], verbose: bool = False):
        self.kernel = kernel  # the library's loaded kernel (_C.Kernel)
        self.params = list(params)
        self.out_idx = [i for i, p in enumerate(self.params) if p.is_output]
        self.verbose = verbose

    def __call__(self, *args, stream=None):
        return self.kernel(*args, stream=stream)

    @property
    def target(self):
        return self.kernel.target

    @property
    def execution_backend(self) -> str:
        return self.kernel.execution_backend

    @property
    def name(self) -> str:
        return self.kernel.name

    def get_kernel_source(self, kernel_only: bool = True) -> str:
        """The generated device code (for a CPU target, the generated C)."""
        src = self.kernel.device_source
        if not src or not kernel_only:
            return src or self.kernel.host_source
        return src

    def get_host_source(self) -> str:
        return self.kernel.host_source

    def get_profiler(self, tensor_supply_type=None):
        from .profiler import Profiler

        return Profiler(self, tensor_supply_type)

    def __repr__(self) -> str:
        return f"<JITKernel {self.name} ({self.target.kind}, {self.execution_backend}) out_idx={self.out_idx}>"


def _no_compile_flags(flags) -> None:
    if flags:
        raise NotImplementedError(
            "compile_flags are not supported: the library's compilers take their flags from the target "
            "(e.g. the cpu backend's C compiler, nvrtc/nvcc from the CUDA target's arch)"
        )


def _dump_sources(kernel: "JITKernel", root: str) -> None:
    """debug_root_path: the generated sources, written as upstream's jit does."""
    os.makedirs(root, exist_ok=True)
    ext = {"cuda": "cu", "hip": "hip", "opencl": "cl"}.get(str(kernel.target.kind), "c")
    for suffix, text in (("", kernel.get_kernel_source()), ("_host", kernel.get_host_source())):
        if text:
            with open(os.path.join(root, f"{kernel.name}{suffix}.{ext}"), "w", encoding="utf-8") as f:
                f.write(text)


def _config_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _build(mod: IRModule, out_idx, target, execution_backend, target_host, pass_configs, verbose,
           disable_cache=False) -> JITKernel:
    fname = mod.functions[0] if len(mod) == 1 else None
    if out_idx is not None:
        sig = mod.signature(fname)
        marked = {i for i, p in enumerate(sig) if p[4]}
        wanted = {i % len(sig) if isinstance(i, int) and -len(sig) <= i < len(sig) else i
                  for i in ([out_idx] if isinstance(out_idx, int) else list(out_idx))}
        if marked and marked != wanted:
            # The source marked other outputs (T.empty, or @tilelang.jit(out_idx=...) read by the front end).
            raise ValueError("Out index conflict: out_idx is specified and prim_func have returned `T.empty` tensors")
        if not marked:
            mod.set_out_idx(fname, out_idx)
    if verbose is None:
        verbose = os.environ.get("TILELANG_VERBOSE", "").lower() in _TRUE
    configs = None if not pass_configs else [f"{k}={_config_text(v)}" for k, v in pass_configs.items()]
    kernel = _C.compile(
        mod,
        fname,
        None if target in (None, "auto") else target,
        target_host,
        None if execution_backend in (None, "auto") else execution_backend,
        configs,
        disable_cache,
    )
    params = [KernelParam(*p) for p in mod.signature(fname)]
    jk = JITKernel(kernel, params, bool(verbose))
    if verbose:
        print(f"tilelang_backend: compiled {kernel.name} for {kernel.target.kind} ({kernel.execution_backend})"
              f"{' from the kernel cache' if kernel.from_cache else ''}")
    return jk


def compile(
    func=None,
    out_idx: Union[Sequence[int], int, None] = None,
    execution_backend="auto",
    target="auto",
    target_host=None,
    verbose: Optional[bool] = None,
    pass_configs: Optional[Mapping[str, Any]] = None,
    compile_flags=None,
    *,
    name: Optional[str] = None,
    params: Optional[Mapping[str, object]] = None,
    disable_cache: bool = False,
):
    """Compile a ``@T.prim_func`` (upstream's ``tilelang.compile``, same parameters in
    the same order) and load it.

    ``func`` is a ``@T.prim_func`` defined in Python (a ``JITKernel`` is returned), or,
    as before, TileLang script text, a path to a script or an ``IRModule`` (a ``Kernel``
    is returned; ``name`` picks its function, ``params`` binds its constants).
    ``target="auto"``/``execution_backend="auto"`` (or None): the library decides
    (TILELANG_DEFAULT_TARGET, detection; TILELANG_EXECUTION_BACKEND, the first
    available one). ``pass_configs`` reach the passes as ``key=value``. ``verbose``
    (None: TILELANG_VERBOSE) prints what was compiled. ``compile_flags`` are not
    supported (the library's compilers take their flags from the target): giving
    them is an error.
    """
    _no_compile_flags(compile_flags)
    if isinstance(func, PrimFunc):
        if params:
            raise TypeError("params bind a script's constants; a prim_func's values are read from the function")
        mod = _prim_func_module(func)
        return _build(mod, out_idx, target, execution_backend, target_host, pass_configs, verbose, disable_cache)
    if isinstance(func, JITImpl):
        raise TypeError(f"'{func.name}' is a @jit function: call it (with its parameters or tensors) to get its kernel")
    from .kernel import compile as compile_script

    if out_idx is not None:
        raise TypeError("out_idx applies to a prim_func; a script's outputs are marked in it (@tilelang.jit(out_idx=...))")
    return compile_script(func, func=name, target=target, target_host=target_host,
                          execution_backend=execution_backend, pass_configs=pass_configs, params=params,
                          disable_cache=disable_cache)


# ------------------------------------------------------------------ @jit


def _is_tensor(v) -> bool:
    if isinstance(v, (bool, int, float, str, bytes, type(None), tuple, list)):
        return False
    return hasattr(v, "__dlpack__") or type(v).__module__.startswith("torch") or _is_buffer(v)


def _is_buffer(v) -> bool:
    try:
        memoryview(v)
        return True
    except TypeError:
        return False


class JITImpl:
    """A ``@jit`` function (upstream's ``JITImpl``).

    Lazy style (a factory returning a ``@T.prim_func``, or a jit function called
    without tensors): ``f(*constants)`` returns the kernel. Eager style (called with
    tensors): ``f(*args)`` compiles for the tensors' shapes and dtypes (binding the
    function's ``T.const`` dims) and runs the kernel, returning its ``T.empty``
    outputs. Kernels are cached in memory per signature (the constants' values, the
    tensors' shapes and dtypes); the library's disk cache also applies.
    """

    def __init__(self, func: Callable, out_idx=None, target=None, target_host=None, execution_backend=None,
                 verbose=None, pass_configs=None, debug_root_path=None, compile_flags=None):
        if isinstance(func, PrimFunc):
            func = func.func
        if "<locals>" in func.__qualname__ or "." in func.__qualname__:
            raise ValueError(
                f"@jit function '{func.__qualname__}' is not a module-level function: the library compiles jit "
                f"functions defined at the top of a file"
            )
        self.func = func
        self.name = func.__name__
        self.out_idx = out_idx
        self.target = target
        self.target_host = target_host
        self.execution_backend = execution_backend
        self.verbose = verbose
        self.pass_configs = pass_configs
        self.debug_root_path = debug_root_path
        _no_compile_flags(compile_flags)
        self.compile_flags = compile_flags
        self.signature = inspect.signature(func)
        try:
            self.func_source = inspect.getsource(func)
        except (OSError, TypeError):
            self.func_source = ""
        self._kernel_cache: dict = {}
        self._lock = threading.Lock()
        self.compiles = 0  # kernels compiled (cache misses), for tests and tools
        self.__wrapped__ = func
        self.__doc__ = func.__doc__

    @property
    def __name__(self) -> str:
        return self.name

    def _key(self, bound: inspect.BoundArguments):
        key = []
        tensors = {}
        for k, v in bound.arguments.items():
            if _is_tensor(v):
                info = _C.tensor_info(v)
                key.append((k, "tensor", info))
                tensors[k] = (v, info)
            else:
                text = _literal(v)
                if text is None:
                    raise TypeError(
                        f"@jit '{self.name}': argument '{k}' is a {type(v).__name__}; arguments are tensors or "
                        f"ints, floats, bools, strings, dtypes and tuples of those"
                    )
                key.append((k, "value", text))
        return tuple(key), tensors

    def _compile(self, bound, tensors) -> JITKernel:
        bindings = _closure_values(self.func)
        for k, v in bound.arguments.items():
            if k not in tensors:
                bindings[k] = _literal(v)
        mod = _parse(self.func, self.name, bindings)
        if tensors:
            # T.const dims: bind each named dim of a tensor parameter to the call's extent.
            g = self.func.__globals__
            from .language import SymbolicVar

            dims = {}
            for pname, kind, _dt, shape, _out in mod.signature(mod.functions[0]):
                if kind != "tensor" or pname not in tensors:
                    continue
                extents = tensors[pname][1][0]
                if len(extents) != len(shape):
                    raise ValueError(
                        f"@jit '{self.name}': '{pname}' has rank {len(extents)}, the kernel's '{pname}' rank {len(shape)}"
                    )
                for d, e in zip(shape, extents):
                    if isinstance(d, str) and not isinstance(g.get(d), SymbolicVar):
                        if dims.setdefault(d, e) != e:
                            raise ValueError(f"@jit '{self.name}': dimension '{d}' is {dims[d]} and {e} in one call")
            if dims:
                bindings.update({k: repr(v) for k, v in dims.items()})
                mod = _parse(self.func, self.name, bindings)
        kernel = _build(mod, self.out_idx, self.target, self.execution_backend, self.target_host, self.pass_configs,
                        self.verbose)
        if self.debug_root_path:
            _dump_sources(kernel, self.debug_root_path)
        return kernel

    def _kernel(self, args, kwargs):
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        key, tensors = self._key(bound)
        with self._lock:
            kernel = self._kernel_cache.get(key)
            if kernel is None:
                kernel = self._compile(bound, tensors)
                self._kernel_cache[key] = kernel
                self.compiles += 1
        return kernel, bound, tensors

    def compile(self, *args, **kwargs) -> JITKernel:
        """The kernel for these arguments (compiled, or from the in-memory cache)."""
        return self._kernel(args, kwargs)[0]

    def get_kernel_source(self, *args, **kwargs) -> str:
        return self.compile(*args, **kwargs).get_kernel_source()

    def __call__(self, *args, **kwargs):
        kernel, bound, tensors = self._kernel(args, kwargs)
        if not tensors:
            return kernel
        inputs = [tensors[p.name][0] for p in kernel.params if not p.is_output and p.name in tensors]
        return kernel(*inputs)

    def __repr__(self) -> str:
        return f"<@jit {self.name} ({len(self._kernel_cache)} kernels)>"


def jit(func=None, *, out_idx=None, target=None, target_host=None, execution_backend=None, verbose=None,
        pass_configs=None, debug_root_path=None, compile_flags=None):
    """``@jit`` / ``@jit(out_idx=[-1], target=..., pass_configs=...)`` (upstream's
    ``tilelang.jit``). ``debug_root_path``: a directory the generated sources of each
    compiled kernel are written to. ``compile_flags`` are not supported (an error)."""
    opts = dict(out_idx=out_idx, target=target, target_host=target_host, execution_backend=execution_backend,
                verbose=verbose, pass_configs=pass_configs, debug_root_path=debug_root_path,
                compile_flags=compile_flags)

    def decorator(f):
        return JITImpl(f, **opts)

    return decorator(func) if func is not None else decorator
