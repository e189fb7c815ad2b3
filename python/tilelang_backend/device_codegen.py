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
    return _C.global_func_codegen(0, global_func_name)


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
        return _C.component_matches(0, self, target)

    def lower(self, mod: IRModule, target: Target | str | dict, *, compile_device: bool) -> Artifact:
        """Run ``build`` (compile_device) or ``build_without_compile``."""
        return _C.device_codegen_lower(self, mod, target, compile_device)


def register_device_codegen(target_kind: str, codegen: DeviceCodegen, *, override: bool = False) -> None:
    """Register a device codegen entry for a target kind."""
    _C.register_component(0, target_kind, codegen, override)


def register_lazy_device_codegen(target_kind: str, import_path: str) -> None:
    """Register a backend module to import when its target kind is first used.

    ``import_path`` is a plugin library (``path/libx.so`` or ``path/libx.so:init``) or
    a compiled-in backend (``builtin:NAME``).
    """
    _C.register_lazy(0, target_kind, import_path)


def allowed_device_codegens_for_target(target: Target | str | dict) -> list[str]:
    """Return matching device codegen names for a target."""
    return _C.allowed_codegens(0, target)


def resolve_device_codegen(target: Target | str | dict) -> DeviceCodegen:
    """Resolve a device codegen entry from a target."""
    return _C.resolve_codegen(0, target)
