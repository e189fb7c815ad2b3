"""The IR module and generated code as Python objects (tvm.IRModule's place).

``IRModule`` wraps the library's ``tl_ir_module``; ``Artifact`` wraps ``tl_artifact``
(what device and host codegens produce). A module handed to a Python pipeline,
codegen or hook is lent for the duration of that call only.
"""

from ._C import Artifact, IRModule

__all__ = ["IRModule", "Artifact"]
