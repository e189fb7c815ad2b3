"""ExecutionBackendSpec: what a backend declares about a shared execution backend."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from . import _C
from .target import Target

TargetPredicate = Callable[[Target], bool]


@dataclass(frozen=True)
class ExecutionBackendSpec:
    """A shared execution backend as one backend declares it.

    ``name`` is lowercase (requests are lowered before comparing);
    ``is_available()`` is asked on every resolution (the default,
    ``_C.always_available``, is a C function that returns True, as upstream's);
    ``supports_target(target)`` (None: every target) filters by target;
    ``enable_host_codegen``: the library generates the host side;
    ``enable_device_compile``: device codegen compiles (``build``) rather than only
    emitting source (``build_without_compile``);
    ``unavailable_reason()`` optionally says why it is unavailable.
    """

    name: str
    is_available: Callable[[], bool] = _C.always_available
    supports_target: Optional[TargetPredicate] = None
    enable_host_codegen: bool = False
    enable_device_compile: bool = False
    unavailable_reason: Optional[Callable[[], Optional[str]]] = None

    def matches(self, target: Target | str | dict) -> bool:
        """Whether this execution backend accepts the target."""
        return _C.component_matches(_C.EXECUTION_BACKEND_SPEC, self, target)

    def available(self) -> bool:
        """Whether this execution backend can be used now."""
        return _C.spec_is_available(self)

    def why_unavailable(self) -> Optional[str]:
        """The declared reason it is unavailable, or None."""
        return _C.spec_unavailable_reason(self)
