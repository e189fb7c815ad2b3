"""Backend module registration and per-compilation context resolution.

Every rule (validation, registration, resolution) is the C library's: the
dataclasses below hold fields, and their ``__post_init__`` and methods call into
``tilelang_backend._C``. Errors are ``TileLangError`` (a ``ValueError``) with the
library's message, upstream's wording.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Optional, Union

from . import _C
from ._C import TileLangError
from .device_codegen import DeviceCodegen
from .execution_backend import ExecutionBackendSpec
from .host_codegen import HostCodegen, HostCodegenHook
from .ir import Artifact, IRModule
from .pass_pipeline import PassPipeline
from .target import Target, check_target_input, reraise_unsupported

BackendCallback = Callable[..., Any]
TargetPredicate = Callable[[Target], bool]
TargetLike = Union[str, "dict[str, object]", Target]

__all__ = [
    "BackendCallback",
    "TargetPredicate",
    "BackendModule",
    "BackendContext",
    "register_backend",
    "get_backend",
    "list_backends",
    "create_backend_context",
]


@dataclass(frozen=True)
class BackendModule:
    """Complete Python registration manifest for one TileLang backend.

    Validated on construction by the library (upstream's rules, in upstream's
    order). A backend registered from C (built-in or plugin) appears as a
    BackendModule whose callables are ``CFunction`` objects.
    """

    name: str
    target_kinds: tuple[str, ...]
    pipelines: Mapping[str, PassPipeline]
    device_codegens: Mapping[str, DeviceCodegen]
    execution_backends: tuple[ExecutionBackendSpec, ...]
    supports_target: Optional[TargetPredicate] = None
    host_codegens: Mapping[str, HostCodegen] = field(default_factory=dict)
    host_codegen_hooks: Mapping[str, tuple[HostCodegenHook, ...]] = field(default_factory=dict)
    callbacks: Mapping[str, BackendCallback] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # As upstream: the mappings become read-only copies and the sequences tuples,
        # so a registered backend cannot be changed behind the registry's back.
        freeze = object.__setattr__
        for name in ("target_kinds", "execution_backends"):
            value = getattr(self, name)
            if isinstance(value, list):
                freeze(self, name, tuple(value))
        for name in ("pipelines", "device_codegens", "host_codegens", "callbacks"):
            value = getattr(self, name)
            if isinstance(value, Mapping):
                freeze(self, name, MappingProxyType(dict(value)))
        hooks = self.host_codegen_hooks
        if isinstance(hooks, Mapping):
            freeze(self, "host_codegen_hooks", MappingProxyType(
                {kind: tuple(v) if isinstance(v, (list, tuple)) else v for kind, v in hooks.items()}))
        _C.backend_module_init(self)

    def matches(self, target: TargetLike) -> bool:
        """Return whether this backend module owns the target."""
        return _C.module_matches(self, target)

    def get_pipeline(self, target: TargetLike) -> PassPipeline:
        """Return the lowering pipeline declared for the target."""
        return _C.module_get(_C.PASS_PIPELINE, self, target)

    def lower(self, mod: IRModule, target: TargetLike) -> IRModule:
        """Run this backend's lowering pipeline for the target."""
        return _C.module_lower(self, mod, target)

    def get_device_codegen(self, target: TargetLike) -> DeviceCodegen:
        """Return the device codegen declared for the target."""
        return _C.module_get(_C.DEVICE_CODEGEN, self, target)

    def codegen_device(self, mod: IRModule, target: TargetLike, *, compile_device: bool) -> Artifact:
        """Generate device code for the target."""
        return _C.module_codegen_device(self, mod, target, compile_device)

    def get_host_codegen(self, target_host: TargetLike) -> HostCodegen:
        """Return the host codegen declared for the host target."""
        return _C.module_get(_C.HOST_CODEGEN, self, target_host)

    def codegen_host(self, mod: IRModule, target_host: TargetLike) -> Artifact:
        """Generate host code for the host target."""
        return _C.module_codegen_host(self, mod, target_host)

    def preprocess_host_codegen(self, mod: IRModule, target_host: Optional[TargetLike], target: TargetLike) -> IRModule:
        """Apply backend hooks before host code generation."""
        return _C.module_preprocess_host_codegen(self, mod, target_host, target)

    def allowed_execution_backends(self, target: TargetLike, *, include_unavailable: bool = True) -> tuple[str, ...]:
        """Return execution backend names supported by the target."""
        return _C.module_allowed_execution_backends(self, target, include_unavailable)

    def resolve_execution_backend(self, requested: Optional[str], target: TargetLike) -> ExecutionBackendSpec:
        """Resolve an execution backend policy for the target (a request that is not
        a str is compared as its str, as upstream)."""
        if requested is not None and not isinstance(requested, str):
            requested = str(requested)
        try:
            return _C.module_resolve_execution_backend(self, requested, target)
        except TileLangError as err:
            name_upstream_execution_backend(err, requested, self, target)
            raise


@dataclass(frozen=True)
class BackendContext:
    """Resolved backend state shared by every stage of one compilation.

    Validated on construction by the library; ``create_backend_context`` is the
    usual way to get one.
    """

    module: BackendModule
    target: Target
    target_host: Target
    execution_backend: ExecutionBackendSpec

    def __post_init__(self) -> None:
        _C.context_init(self)

    @property
    def name(self) -> str:
        """Return the selected backend module name."""
        return _C.context_name(self)

    def lower(self, mod: IRModule) -> IRModule:
        """Run the selected backend's lowering pipeline."""
        return _C.context_lower(self, mod)

    def codegen_device(self, mod: IRModule, *, compile_device: Optional[bool] = None) -> Artifact:
        """Generate device code using the selected execution policy by default."""
        return _C.context_codegen_device(self, mod, compile_device)

    def preprocess_host_codegen(self, mod: IRModule) -> IRModule:
        """Apply selected-backend hooks before host code generation."""
        return _C.context_preprocess_host_codegen(self, mod)

    def codegen_host(self, mod: IRModule) -> Artifact:
        """Generate host code for the resolved host target."""
        return _C.context_codegen_host(self, mod)


def register_backend(backend: BackendModule) -> BackendModule:
    """Validate and register every component declared by a backend manifest.

    Registering an equal declaration again returns the registered module.
    """
    return _C.register_backend(backend)


# get_backend(name) and list_backends() are the extension's functions themselves (no
# Python frame on the way: they are called on every resolution in upstream code).
get_backend = _C.get_backend
list_backends = _C.list_backends


def create_backend_context(
    target: TargetLike = "auto",
    target_host: Optional[TargetLike] = None,
    execution_backend: Optional[str] = "auto",
) -> BackendContext:
    """Resolve user inputs into the immutable context for one compilation."""
    if not (isinstance(target, str) and target == "auto"):
        check_target_input(target)
    if execution_backend is not None and not isinstance(execution_backend, str):
        execution_backend = str(execution_backend)
    try:
        return _C.create_backend_context(target, target_host, execution_backend)
    except TileLangError as err:
        reraise_unsupported(target, err)
        name_upstream_execution_backend(err, execution_backend, None, target)
        raise


# Upstream TileLang's execution backends, which this library does not have, and
# what each one is there: the error for one names ours and the closest.
UPSTREAM_EXECUTION_BACKENDS = {
    "tvm_ffi": "TVM FFI's compiled host wrapper",
    "cython": "a Cython-compiled host wrapper",
    "torch": "PyTorch's Metal (MPS) runtime",
    "cutedsl": "NVIDIA CuTe DSL",
}


def name_upstream_execution_backend(
    err: TileLangError, requested: Optional[str], module: Optional[BackendModule], target: TargetLike
) -> None:
    """Raises a TileLangError that names this library's execution backends and the
    closest equivalent (the one 'auto' prefers) when `err` is the library's "Invalid
    execution backend" for one of upstream's names (asked for, or set in
    TILELANG_EXECUTION_BACKEND)."""
    message = str(err)
    if not message.startswith("Invalid execution backend"):
        return
    name = requested if requested is not None else os.environ.get("TILELANG_EXECUTION_BACKEND")
    name = (name or "").strip().lower()
    if name not in UPSTREAM_EXECUTION_BACKENDS:
        return
    try:
        resolved = _C.determine_target(target)
        if module is None:
            module = next(m for m in list_backends().values() if m.matches(resolved))
        ours = module.allowed_execution_backends(resolved)
        available = module.allowed_execution_backends(resolved, include_unavailable=False)
    except Exception:  # the original error stands
        return
    if not ours:
        return
    closest = (available or ours)[0]
    new = TileLangError(
        f"{message}\n'{name}' is an execution backend of upstream TileLang ({UPSTREAM_EXECUTION_BACKENDS[name]}); "
        f"tilelang-backend's for this target are {', '.join(ours)}, and the closest equivalent is "
        f"'{closest}' (what execution_backend='auto' picks)."
    )
    new.status = err.status
    raise new from None
