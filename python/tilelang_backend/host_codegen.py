"""Host codegen registry shared by backend packages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional, Union

from . import _C
from .device_codegen import _import_path
from .ir import Artifact, IRModule
from .target import Target

HostCodegenFunc = Callable[[IRModule, Target], Union[Artifact, str]]
HostCodegenHookFunc = Callable[[IRModule, Optional[Target], Target], Optional[IRModule]]
TargetPredicate = Callable[[Target], bool]

__all__ = [
    "HostCodegenFunc",
    "HostCodegenHookFunc",
    "TargetPredicate",
    "HostCodegen",
    "HostCodegenHook",
    "global_func_host_codegen",
    "register_host_codegen",
    "register_lazy_host_codegen",
    "register_host_codegen_hook",
    "register_lazy_host_codegen_hooks",
    "allowed_host_codegens_for_target",
    "apply_host_codegen_hooks",
    "resolve_host_codegen",
]


def global_func_host_codegen(global_func_name: str) -> HostCodegenFunc:
    """Create a host codegen callback backed by a global function.

    The global function is called with (module, target_host) and must return an
    artifact.
    """
    return _C.global_func_codegen(_C.HOST_CODEGEN, global_func_name)


@dataclass(frozen=True)
class HostCodegen:
    """Host codegen entry point for one host target variant.

    ``build(mod, target_host)`` returns an ``Artifact`` (or a str: source whose format
    is the host target's kind). ``supports_target`` judges the host target.
    """

    name: str
    build: HostCodegenFunc
    supports_target: Optional[TargetPredicate] = None

    def matches(self, target_host: Target | str | dict) -> bool:
        """Whether this codegen accepts the host target."""
        return _C.component_matches(_C.HOST_CODEGEN, self, target_host)

    def lower(self, mod: IRModule, target_host: Target | str | dict) -> Artifact:
        """Run ``build``."""
        return _C.host_codegen_lower(self, mod, target_host)


@dataclass(frozen=True)
class HostCodegenHook:
    """Device-backend hook applied before host codegen build.

    ``apply(mod, target_host, target)`` updates the module in place and returns it
    (or None). ``supports_target`` judges the device target.
    """

    name: str
    apply: HostCodegenHookFunc
    supports_target: Optional[TargetPredicate] = None

    def matches(self, target: Target | str | dict) -> bool:
        """Whether this hook applies to the device target."""
        return _C.component_matches(_C.HOST_CODEGEN_HOOK, self, target)

    def lower(self, mod: IRModule, target_host: Optional[Target | str | dict], target: Target | str | dict) -> IRModule:
        """Run ``apply`` on ``mod``; returns ``mod``."""
        return _C.hook_lower(self, mod, target_host, target)


def register_host_codegen(target_host_kind: str, codegen: HostCodegen, *, override: bool = False) -> HostCodegen:
    """Register a host codegen entry for a host target kind; returns it."""
    _C.register_component(_C.HOST_CODEGEN, target_host_kind, codegen, override)
    return codegen


def register_lazy_host_codegen(target_host_kind: str, import_path: str) -> None:
    """Register a backend module to import when a host target kind is first used."""
    _C.register_lazy(_C.HOST_CODEGEN, target_host_kind, _import_path(import_path))


def register_host_codegen_hook(target_kind: str, hook: HostCodegenHook, *, override: bool = False) -> HostCodegenHook:
    """Register a device-backend hook for host codegen preparation; returns it."""
    _C.register_component(_C.HOST_CODEGEN_HOOK, target_kind, hook, override)
    return hook


def register_lazy_host_codegen_hooks(target_kind: str, import_path: str) -> None:
    """Register a backend module to import before applying host codegen hooks."""
    _C.register_lazy(_C.HOST_CODEGEN_HOOK, target_kind, _import_path(import_path))


def allowed_host_codegens_for_target(target_host: Target | str | dict) -> list[str]:
    """Return matching host codegen names for a host target."""
    return _C.allowed_codegens(_C.HOST_CODEGEN, target_host)


def apply_host_codegen_hooks(
    mod: IRModule, target_host: Optional[Target | str | dict], target: Optional[Target | str | dict]
) -> IRModule:
    """Apply device-backend host codegen hooks (every matching hook of the target's
    kind, in registration order); no target: the module unchanged. Returns ``mod``."""
    return _C.apply_host_codegen_hooks(mod, target_host, target)


def resolve_host_codegen(target_host: Target | str | dict) -> HostCodegen:
    """Resolve a host codegen entry from a host target."""
    return _C.resolve_codegen(_C.HOST_CODEGEN, target_host)
