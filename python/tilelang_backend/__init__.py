"""tilelang_backend: TileLang's backend system (``tilelang.backend``) over the
tilelang-backend C library.

Submodules mirror the seed API: ``module`` (BackendModule, BackendContext,
register_backend, get_backend, list_backends, create_backend_context),
``device_codegen``, ``host_codegen``, plus ``Target``, ``ExecutionBackendSpec``,
``PassPipeline``; and upstream's user API: ``language`` (``T``), ``compile(func,
out_idx=...)`` and ``jit`` (kernels defined in Python, compiled from their source text
by the library's front end), ``tensor`` (buffer-protocol CPU tensors), ``run``
(``python -m tilelang_backend.run script.py``). Every rule is checked by the C library through the
``_C`` extension; errors are ``TileLangError`` (a ``ValueError``) with its message.
"""

from . import _C
from ._C import CFunction, TileLangError
from .execution_backend import ExecutionBackendSpec
from .ir import Artifact, IRModule
from .pass_pipeline import PassPipeline
from .target import Target, determine_target
from . import device_codegen, host_codegen, module, ffi
from .device_codegen import DeviceCodegen
from .host_codegen import HostCodegen, HostCodegenHook
from .kernel import Kernel
from . import language, tensor
from .jit import JITImpl, JITKernel, KernelParam, compile, disable_cache, enable_cache, is_cache_enabled, jit
from .prim_func import PrimFunc
from .profiler import Profiler
from .module import (
    BackendContext,
    BackendModule,
    create_backend_context,
    get_backend,
    list_backends,
    register_backend,
)

_C._install_classes(
    BackendModule=BackendModule,
    PassPipeline=PassPipeline,
    DeviceCodegen=DeviceCodegen,
    HostCodegen=HostCodegen,
    HostCodegenHook=HostCodegenHook,
    ExecutionBackendSpec=ExecutionBackendSpec,
    BackendContext=BackendContext,
)

__version__ = _C.version()

__all__ = [
    "Artifact",
    "BackendContext",
    "BackendModule",
    "CFunction",
    "DeviceCodegen",
    "ExecutionBackendSpec",
    "HostCodegen",
    "HostCodegenHook",
    "IRModule",
    "JITImpl",
    "JITKernel",
    "Kernel",
    "KernelParam",
    "PrimFunc",
    "Profiler",
    "PassPipeline",
    "Target",
    "TileLangError",
    "compile",
    "create_backend_context",
    "determine_target",
    "disable_cache",
    "enable_cache",
    "is_cache_enabled",
    "device_codegen",
    "ffi",
    "get_backend",
    "host_codegen",
    "jit",
    "language",
    "tensor",
    "list_backends",
    "module",
    "register_backend",
]
