"""Device codegen registry shared by backend packages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional, Union

from . import _C
from .ir import Artifact, IRModule
from .target import Target

DeviceCodegenFunc = Callable[[IRModule, Target], Union[Artifact, str]]
TargetPredicate = Callable[[Target], bool]

__all__ = [
    "DeviceCodegenFunc",
    "TargetPredicate",
    "DeviceCodegen",
    "global_func_device_codegen",
    "register_device_codegen",
    "register_lazy_device_codegen",
    "allowed_device_codegens_for_target",
    "resolve_device_codegen",
]


def global_func_device_codegen(global_func_name: str) -> DeviceCodegenFunc:
    """Create a device codegen callback backed by a global function.

    The global function is called with (module, target) and must return an artifact.
    """
    return _C.global_func_codegen(_C.DEVICE_CODEGEN, global_func_name)


@dataclass(frozen=True)
class DeviceCodegen:
    """Device codegen entry points for one backend target variant.

    ``build(mod, target)`` compiles; ``build_without_compile(mod, target)`` emits
    source only. Each returns an ``Artifact`` (or a str: source whose format is the
    target's kind). ``supports_target`` (None: every target of its kind) narrows it.
    """

    name: str
    build: Optional[DeviceCodegenFunc] = None
    build_without_compile: Optional[DeviceCodegenFunc] = None
    supports_target: Optional[TargetPredicate] = None

    def matches(self, target: Target | str | dict) -> bool:
        """Whether this codegen accepts the target."""
        return _C.component_matches(_C.DEVICE_CODEGEN, self, target)

    def lower(self, mod: IRModule, target: Target | str | dict, *, compile_device: bool) -> Artifact:
        """Run ``build`` (compile_device) or ``build_without_compile``."""
        return _C.device_codegen_lower(self, mod, target, compile_device)


def register_device_codegen(target_kind: str, codegen: DeviceCodegen, *, override: bool = False) -> DeviceCodegen:
    """Register a device codegen entry for a target kind; returns it."""
    _C.register_component(_C.DEVICE_CODEGEN, target_kind, codegen, override)
    return codegen


def _import_path(import_path):
    """The library's import path for ``import_path``.

    A Python module name (``"pkg.backend"``: dotted identifiers, upstream's meaning) is
    imported through the library's ``python:`` import scheme; a plugin library
    (``"dir/libx.so"``, ``"libx.so:init"``), ``"builtin:NAME"`` or any ``"scheme:..."``
    path goes to the library unchanged.
    """
    if (
        isinstance(import_path, str)
        and import_path
        and ":" not in import_path
        and "/" not in import_path
        and not import_path.endswith(".so")
        and all(part.isidentifier() for part in import_path.split("."))
    ):
        return "python:" + import_path
    return import_path


def register_lazy_device_codegen(target_kind: str, import_path: str) -> None:
    """Register a backend module to import when its target kind is first used.

    ``import_path`` is a Python module (``"pkg.backend"``), a plugin library
    (``"path/libx.so"``, ``"path/libx.so:init"``) or a compiled-in backend
    (``"builtin:NAME"``). The first lookup for the kind imports it (once); an import
    error propagates, and the next lookup tries again.
    """
    _C.register_lazy(_C.DEVICE_CODEGEN, target_kind, _import_path(import_path))


def allowed_device_codegens_for_target(target: Target | str | dict) -> list[str]:
    """Return matching device codegen names for a target."""
    return _C.allowed_codegens(_C.DEVICE_CODEGEN, target)


def resolve_device_codegen(target: Target | str | dict) -> DeviceCodegen:
    """Resolve a device codegen entry from a target."""
    return _C.resolve_codegen(_C.DEVICE_CODEGEN, target)
