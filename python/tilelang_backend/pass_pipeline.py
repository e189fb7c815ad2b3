"""PassPipeline: a backend's lowering pipeline for one target kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from . import _C
from .ir import IRModule
from .target import Target

PassPipelineBody = Callable[[IRModule, Target], Optional[IRModule]]


@dataclass(frozen=True)
class PassPipeline:
    """The lowering pipeline a backend declares for one target kind.

    ``name`` equals the target kind it is declared for (BackendModule checks it).
    ``body(mod, target)`` lowers the module in place and returns it (or None); a
    pipeline of a C-registered backend has a ``CFunction`` body.
    """

    name: str
    body: PassPipelineBody

    def lower(self, mod: IRModule, target: Target | str | dict) -> IRModule:
        """Run the pipeline on ``mod`` (in place) for ``target``; returns ``mod``."""
        return _C.pass_pipeline_lower(self, mod, target)
