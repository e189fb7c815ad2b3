"""Shared helpers for the tilelang_backend test suite.

The registries are process-global, so every test names its backends uniquely and
uses target kinds no built-in backend owns (vulkan, nvptx), told apart by the
target's "model" attribute.
"""

import itertools
import os

import pytest

import tilelang_backend as tb

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
