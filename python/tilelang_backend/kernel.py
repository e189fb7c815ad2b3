"""compile(...): a TileLang function to a loaded, callable Kernel (tl_compile)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Optional, Union

from . import _C
from .ir import IRModule
from .target import Target

Kernel = _C.Kernel

__all__ = ["compile", "Kernel"]


def _module(source_or_path, params) -> IRModule:
    if isinstance(source_or_path, IRModule):
        if params:
            raise TypeError("params bind constants while parsing; pass them to IRModule.from_script instead")
        return source_or_path
    if isinstance(source_or_path, os.PathLike):
        return IRModule.from_file(source_or_path, params=params)
    if not isinstance(source_or_path, str):
        raise TypeError(f"expected TileLang script text, a path or an IRModule, not {type(source_or_path).__name__}")
    if "\n" not in source_or_path and os.path.isfile(source_or_path):
        return IRModule.from_file(source_or_path, params=params)
    return IRModule.from_script(source_or_path, params=params)


def _config_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def compile(
    source_or_path: Union[str, "os.PathLike[str]", IRModule],
    func: Optional[str] = None,
    target: Union[str, dict, Target] = "auto",
    target_host: Union[str, dict, Target, None] = None,
    execution_backend: Optional[str] = "auto",
    pass_configs: Optional[Mapping[str, object]] = None,
    params: Optional[Mapping[str, object]] = None,
    disable_cache: bool = False,
) -> Kernel:
    """Compile function ``func`` (None: the only one) of TileLang script text, a script
    file or an IRModule, and load it.

    ``target="auto"`` and ``execution_backend="auto"`` let the library decide
    (TILELANG_DEFAULT_TARGET / detection; TILELANG_EXECUTION_BACKEND / the first
    available one). ``params`` binds module-level constants while parsing;
    ``pass_configs`` are given to the passes as ``key=value``. Returns a callable
    ``Kernel``: ``kernel(*args, stream=None)``.
    """
    mod = _module(source_or_path, params)
    configs = None if pass_configs is None else [f"{k}={_config_text(v)}" for k, v in pass_configs.items()]
    return _C.compile(
        mod,
        func,
        None if target in (None, "auto") else target,
        target_host,
        None if execution_backend in (None, "auto") else execution_backend,
        configs,
        disable_cache,
    )
