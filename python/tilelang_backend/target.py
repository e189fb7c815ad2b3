"""Targets (tvm.target.Target's surface over the library's tl_target) and upstream's
``tilelang.backend.target``: target detection and normalization.

``Target(spec, host=None)`` parses with the library: a tag ("nvidia/nvidia-h100"), a
JSON object or a dict ({"kind": "cuda", "arch": "sm_90"}), or a bare kind ("c").
Unlike tvm's object identity, ``==`` compares targets structurally (kind, tag, keys,
attributes, host) and ``hash`` agrees with it. ``target.kind`` is a ``TargetKind``
(``.name``; a str of the name as well).

Detectors and normalizers live in the library's registries (the built-in ``cuda``
and ``cpu`` detectors, ``cuda`` and ``hip`` normalizers come first); the ones
registered here run there, in registration order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, Union

from . import _C
from ._C import Target, TargetKind, TileLangError, list_target_kinds, list_target_tags

TargetConfig = dict[str, object]
TargetInput = Union[str, Mapping[str, object], Target]
TargetLike = Union[str, TargetConfig, Target]
TargetDetector = Callable[[], Union[TargetInput, None]]
TargetNormalizer = Callable[[TargetLike], Union[TargetInput, None]]

__all__ = [
    "Target",
    "TargetKind",
    "TargetDetectorSpec",
    "TargetNormalizerSpec",
    "auto_detect_target",
    "determine_target",
    "list_target_detectors",
    "list_target_kinds",
    "list_target_normalizers",
    "list_target_tags",
    "register_target_detector",
    "register_target_normalizer",
]


@dataclass(frozen=True)
class TargetDetectorSpec:
    name: str
    detect: TargetDetector


@dataclass(frozen=True)
class TargetNormalizerSpec:
    name: str
    normalize: TargetNormalizer


def register_target_detector(name: str, detect: TargetDetector, *, override: bool = False) -> TargetDetectorSpec:
    """Register a detector after the existing ones (``override`` replaces one in place)."""
    _C.register_target_detector(name, detect, override)
    return TargetDetectorSpec(name=name, detect=detect)


def register_target_normalizer(
    name: str, normalize: TargetNormalizer, *, override: bool = False
) -> TargetNormalizerSpec:
    """Register a normalizer after the existing ones; it gets a str or a dict."""
    _C.register_target_normalizer(name, normalize, override)
    return TargetNormalizerSpec(name=name, normalize=normalize)


def auto_detect_target() -> TargetInput:
    """What the first detector that finds a target returns (ValueError, listing what
    each detector said, when none does)."""
    return _C.auto_detect_target()


def list_target_detectors() -> tuple[str, ...]:
    return _C.list_target_detectors()


def list_target_normalizers() -> tuple[str, ...]:
    return _C.list_target_normalizers()


def _unsupported(target: object, err: TileLangError | None = None) -> AssertionError:
    """Upstream's AssertionError for a target it cannot use; the library's reason
    follows on its own line."""
    if isinstance(target, dict):
        text = f"Target {target} is not supported. Pass a valid target config dict."
    elif isinstance(target, str) and target.strip():
        text = f"Target {target} is not supported. Pass target options as a dict when the target needs attributes."
    else:
        text = f"Target {target} is not supported"
    if err is not None:
        cause = str(err).partition(" Cause: ")[2]
        if cause:
            text += f"\nCause: {cause}"
    return AssertionError(text)


def _is_unsupported_error(err: TileLangError) -> bool:
    return str(err).startswith("Target ") and " is not supported" in str(err).partition("\n")[0]


def check_target_input(target: object) -> None:
    """AssertionError, as upstream's determine_target raises, for what cannot be a
    target at all."""
    if isinstance(target, Target):
        return
    if isinstance(target, (str, dict)) and (not isinstance(target, str) or target.strip()):
        return
    raise _unsupported(target)


def reraise_unsupported(target: object, err: TileLangError) -> None:
    """Raises upstream's AssertionError if `err` is the library's "Target ... is not
    supported"; returns otherwise."""
    if _is_unsupported_error(err):
        raise _unsupported(target, err) from err


def determine_target(
    target: TargetLike | Literal["auto"] = "auto", return_object: bool = False
) -> str | Mapping[str, object] | Target:
    """Determine and validate the target for compilation (upstream's rules).

    ``"auto"``: ``TILELANG_DEFAULT_TARGET`` if set, else the detectors. Anything else
    goes through the normalizers, else is parsed. The result is a ``Target`` with
    ``return_object=True``; otherwise the input as given (a str stripped) unless a
    normalizer rewrote it, in which case the normalized target. A target that cannot
    be used raises ``AssertionError`` with upstream's text.
    """
    if isinstance(target, str) and target == "auto":
        return _C.determine_target(None)
    check_target_input(target)
    try:
        resolved = _C.determine_target(target)
    except TileLangError as err:
        reraise_unsupported(target, err)
        raise
    if return_object:
        return resolved
    given = target.strip() if isinstance(target, str) else target
    if isinstance(given, Target):
        return given if given == resolved else resolved
    try:
        plain = Target(given)
    except (TileLangError, ValueError):
        return resolved
    return given if plain == resolved else resolved
