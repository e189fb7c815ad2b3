"""``tilelang_backend.language``: upstream's ``tilelang.language``, used as ``T``.

Kernels are never run as Python here: ``@T.prim_func`` records the function (its
source file, line, the values it closes over) and ``compile`` hands the source text
to the library's front end, which reads the DSL itself. What Python does evaluate
when a kernel file is imported is therefore small: decorators, the annotations of a
``def`` line (``A: T.Tensor((M, K), T.float16)``), dtypes and module-level
``T.symbolic``/``T.dynamic`` dimensions. Those are defined here as plain records.
Any other ``T.name`` is a placeholder whose call raises, naming the kernel-only
operation: it means something only inside a kernel body, which the library reads.
"""

from __future__ import annotations

import builtins as _b
import sys
from typing import Any

from .prim_func import Macro, PrimFunc, macro, prim_func

__all__ = ["prim_func", "macro", "PrimFunc", "Macro", "dtype", "symbolic", "dynamic", "const", "Tensor", "Buffer",
           "ceildiv", "SymbolicVar"]


class dtype(str):
    """A dtype (``T.float16``): a str subclass equal to its name, as the front end's."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"T.{self}" if self.isidentifier() else f"T.dtype({str(self)!r})"

    @property
    def bits(self) -> int:
        if self == "bool":
            return 8
        digits = "".join(c for c in self if c.isdigit())
        return _b.int(digits) if digits else 32


_DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16", "float8_e4m3", "float8_e5m2",
    "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
)
for _n in _DTYPES:
    globals()[_n] = dtype(_n)
#: upstream's aliases
float = globals()["float32"]  # noqa: A001  (T.float is float32, as upstream)
double = globals()["float64"]
half = globals()["float16"]
int = globals()["int32"]  # noqa: A001
long = globals()["int64"]
__all__ += list(_DTYPES) + ["float", "double", "half", "int", "long"]



class _Expr:
    """An expression of symbolic dims built while Python evaluates an annotation
    (``T.Tensor((N * 2,), ...)``); the front end reads the source, so it is kept only to
    be shown."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _op(self, other, op, rev=False):
        o = other.text if isinstance(other, _Expr) else repr(other)
        return _Expr(f"({o} {op} {self.text})" if rev else f"({self.text} {op} {o})")

    def __add__(self, o): return self._op(o, "+")
    def __radd__(self, o): return self._op(o, "+", True)
    def __sub__(self, o): return self._op(o, "-")
    def __rsub__(self, o): return self._op(o, "-", True)
    def __mul__(self, o): return self._op(o, "*")
    def __rmul__(self, o): return self._op(o, "*", True)
    def __floordiv__(self, o): return self._op(o, "//")
    def __rfloordiv__(self, o): return self._op(o, "//", True)
    def __mod__(self, o): return self._op(o, "%")
    def __rmod__(self, o): return self._op(o, "%", True)


class SymbolicVar(_Expr):
    """A run-time dimension (``T.symbolic("N")``, ``T.dynamic("N")``)."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype: str = "int32"):
        super().__init__(name)
        self.name = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"T.symbolic({self.name!r})"


def symbolic(name: str, dtype: str = "int32") -> SymbolicVar:
    return SymbolicVar(name, dtype)


dynamic = symbolic


def const(names: str, dtype: str = "int32"):
    """``M, N = T.const("M, N")`` (a @jit function's specialized dims); outside a jit
    body (which the library reads) it only names them."""
    parts = [p for p in names.replace(",", " ").split() if p]
    syms = tuple(SymbolicVar(p, dtype) for p in parts)
    return syms[0] if len(syms) == 1 else syms


def ceildiv(a, b):
    if isinstance(a, _b.int) and isinstance(b, _b.int):
        return -(-a // b)
    return _Expr(f"T.ceildiv({a!r}, {b!r})")


class TensorType:
    """``T.Tensor(shape, dtype)`` / ``T.Tensor[shape, dtype]`` as an annotation value."""

    __slots__ = ("shape", "dtype", "kind")

    def __init__(self, shape, dtype_="float32", kind="Tensor"):
        self.shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
        self.dtype = dtype(str(dtype_))
        self.kind = kind

    def __repr__(self) -> str:
        return f"T.{self.kind}({self.shape!r}, {str(self.dtype)!r})"


class _TensorCtor:
    __slots__ = ("kind",)

    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self, shape, dtype="float32", *args, **kwargs) -> TensorType:
        return TensorType(shape, dtype, self.kind)

    def __getitem__(self, key) -> TensorType:
        if isinstance(key, tuple) and len(key) == 2 and not isinstance(key[1], (_b.int, _Expr)):
            return TensorType(key[0], key[1], self.kind)
        return TensorType(key, "float32", self.kind)

    def __repr__(self) -> str:
        return f"T.{self.kind}"


Tensor = _TensorCtor("Tensor")
Buffer = _TensorCtor("Buffer")
StridedTensor = _TensorCtor("StridedTensor")


class _KernelOnly:
    """``T.gemm``, ``T.Kernel``, ``T.copy``, ...: read by the library's front end inside
    kernel bodies; Python never runs them."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any):
        raise RuntimeError(
            f"T.{self.name} is part of a kernel body: it is read by the library's front end when the "
            f"@T.prim_func is compiled (tilelang.compile / @tilelang.jit), not run as Python"
        )

    def __getattr__(self, attr: str) -> "_KernelOnly":
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _KernelOnly(f"{self.name}.{attr}")

    def __getitem__(self, key):
        return self

    def __repr__(self) -> str:
        return f"T.{self.name}"


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    op = _KernelOnly(name)
    setattr(sys.modules[__name__], name, op)
    return op
