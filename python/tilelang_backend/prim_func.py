"""``@T.prim_func`` and ``@T.macro`` as records of a Python function.

Upstream's decorator builds a TVM PrimFunc by running the function; here nothing is
run: the record keeps the function (its file, name, line), and, when it is defined
inside another function (a factory called from Python, ``matmul(1024, ...)``), the
enclosing function's name and the values its parameters had in that call, read from
the live frame. ``compile`` gives the file's source text and these values to the
library's front end (``tl_ir_parse`` with ``func`` and bindings, as ``tlc --func
--param``): the front end runs the factory itself.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any, Callable, Optional

__all__ = ["PrimFunc", "Macro", "prim_func", "macro"]


class PrimFunc:
    """A ``@T.prim_func`` function: what compiling it needs.

    ``func``: the Python function; ``name``: its name; ``file`` and ``line``: where
    it is defined; ``factory``: the name of the top-level function it is nested in
    (None at the top level); ``factory_args``: that function's parameters in the call
    that defined this one (name -> value); ``qualname``.
    """

    __slots__ = ("func", "name", "qualname", "file", "line", "factory", "factory_args", "attrs", "__weakref__")

    def __init__(self, func: Callable, factory_frame=None):
        self.func = func
        self.name = func.__name__
        self.qualname = func.__qualname__
        code = func.__code__
        self.file = code.co_filename
        self.line = code.co_firstlineno
        self.attrs: dict = {}
        self.factory: Optional[str] = None
        self.factory_args: dict = {}
        if "<locals>" in self.qualname:
            self.factory = self.qualname.rsplit(".<locals>.", 1)[0]
            if factory_frame is not None:
                fc = factory_frame.f_code
                nargs = fc.co_argcount + fc.co_kwonlyargcount
                names = fc.co_varnames[:nargs]
                loc = factory_frame.f_locals
                self.factory_args = {n: loc[n] for n in names if n in loc}

    @property
    def __name__(self) -> str:
        return self.name

    @property
    def __wrapped__(self) -> Callable:
        return self.func

    def __call__(self, *args: Any, **kwargs: Any):
        raise TypeError(
            f"prim_func '{self.name}' is not called from Python: compile it (tilelang.compile({self.name}, "
            f"out_idx=...)) and call the kernel"
        )

    def __repr__(self) -> str:
        where = f" in {self.factory}({', '.join(f'{k}={v!r}' for k, v in self.factory_args.items())})" if self.factory else ""
        return f"<PrimFunc {self.name}{where} at {self.file}:{self.line}>"


class Macro:
    """A ``@T.macro`` helper, recorded so that a file defining one imports. The
    library's front end does not expand macros (docs/frontend.md): a kernel that
    calls one fails to compile, naming it."""

    __slots__ = ("func", "name")

    def __init__(self, func: Callable):
        self.func = func
        self.name = func.__name__

    def __call__(self, *args: Any, **kwargs: Any):
        raise RuntimeError(f"T.macro '{self.name}' is not run as Python (and the library's front end does not expand macros)")

    def __repr__(self) -> str:
        return f"<T.macro {self.name}>"


def prim_func(func: Optional[Callable] = None, **kwargs: Any):
    """``@T.prim_func`` (also ``@T.prim_func(...)`` with upstream's keywords, ignored)."""

    def wrap(f: Callable) -> PrimFunc:
        # The frame that evaluated the decorator: the enclosing function's, if any.
        frame = sys._getframe(1)
        return PrimFunc(f, frame if frame.f_code.co_name != "<module>" else None)

    if func is None:
        return wrap
    frame = sys._getframe(1)
    return PrimFunc(func, frame if frame.f_code.co_name != "<module>" else None)


def macro(func: Optional[Callable] = None, **kwargs: Any):
    if func is None:
        return Macro
    return Macro(func)
