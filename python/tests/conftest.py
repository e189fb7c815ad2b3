"""Shared helpers for the tilelang_backend test suite.

The registries are process-global, so every test names its backends uniquely and
uses target kinds no built-in backend owns (vulkan, nvptx), told apart by the
target's "model" attribute.
"""

import importlib.util
import itertools
import os

import pytest

import tilelang_backend as tb

# torch with a CUDA device: only the GPU machine has one. The CUDA test modules set
# `pytestmark = gpu_marks()`, so each test is collected and reported as skipped elsewhere.
if importlib.util.find_spec("torch") is not None:
    import torch

    HAVE_CUDA = torch.cuda.is_available()
else:
    torch = None
    HAVE_CUDA = False


def gpu_marks():
    """The skip marks of a module that needs torch on a GPU and a cuda backend (asked
    only by such modules: listing the backends loads the lazy ones)."""
    have_backend = any("cuda" in b.target_kinds for b in tb.list_backends().values())
    return [
        pytest.mark.skipif(not HAVE_CUDA, reason="needs torch with a CUDA device (the GPU machine)"),
        pytest.mark.skipif(not have_backend, reason="the library has no backend for target kind cuda"),
    ]

_counter = itertools.count()


def uniq(prefix="t"):
    """A fresh name for a backend, codegen or model."""
    return f"{prefix}_{os.getpid()}_{next(_counter)}"


def model_is(model):
    """A predicate: the target's model attribute equals `model`."""

    def pred(target):
        return target.attrs.get("model") == model

    return pred


def nop_lower(mod, target):
    return None


def src_build(mod, target):
    return f"// built for {target.kind}"


def make_backend(name=None, kind="vulkan", model=None, specs=None, **overrides):
    """A valid BackendModule owning `kind` (for targets whose model is `model`)."""
    name = name or uniq("backend")
    model = model or name
    fields = dict(
        name=name,
        target_kinds=(kind,),
        pipelines={kind: tb.PassPipeline(kind, nop_lower)},
        device_codegens={kind: tb.DeviceCodegen(name + "_cg", build=src_build, build_without_compile=src_build)},
        execution_backends=specs or (tb.ExecutionBackendSpec("src"),),
        supports_target=model_is(model),
    )
    fields.update(overrides)
    return tb.BackendModule(**fields)


def target(kind, model, **attrs):
    return tb.Target({"kind": kind, "model": model, **attrs})


@pytest.fixture
def plugin_path():
    path = os.environ.get("TLPY_TEST_PLUGIN")
    if not path or not os.path.exists(path):
        pytest.skip("TLPY_TEST_PLUGIN (the build's libtlp_good.so) is not set")
    return path
