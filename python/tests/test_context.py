"""create_backend_context and BackendContext: resolution, messages, frozenness."""

import dataclasses

import pytest

import tilelang_backend as tb
from conftest import make_backend, target, uniq

S = tb.ExecutionBackendSpec


@pytest.fixture
def backend():
    name = uniq()
    specs = (
        S("fast", is_available=lambda: False, enable_device_compile=True),
        S("slow", enable_device_compile=True),
        S("text", enable_device_compile=False),
        S("picky", supports_target=lambda t: t.attrs.get("max_num_threads") == 1),
    )
    bm = make_backend(
        name,
        specs=specs,
        device_codegens={
            "vulkan": tb.DeviceCodegen("cg", build=lambda m, t: "compiled", build_without_compile=lambda m, t: "text")
        },
    )
    return tb.register_backend(bm)


def test_resolution(backend):
    t = target("vulkan", backend.name)
    ctx = tb.create_backend_context(t)
    assert isinstance(ctx, tb.BackendContext)
    assert ctx.module is backend and ctx.name == backend.name
    assert ctx.execution_backend.name == "slow"  # 'auto': the first available
    assert ctx.target.kind == "vulkan" and ctx.target.host == tb.Target("c")
    assert ctx.target_host == tb.Target("c")
    assert tb.create_backend_context(t, target_host="llvm").target_host.kind == "llvm"
    assert tb.create_backend_context(t, execution_backend="TEXT").execution_backend.name == "text"
    # str, dict and Target all work.
    spec = {"kind": "vulkan", "model": backend.name}
    assert tb.create_backend_context(spec).module is backend
    assert tb.create_backend_context(str(t)).module is backend


def test_codegen_device_follows_the_execution_backend(backend):
    t = target("vulkan", backend.name)
    compiled = tb.create_backend_context(t, execution_backend="slow")
    text = tb.create_backend_context(t, execution_backend="text")
    m = tb.IRModule()
    assert compiled.codegen_device(m).source == "compiled"
    assert text.codegen_device(m).source == "text"
    assert text.codegen_device(m, compile_device=True).source == "compiled"
    assert compiled.codegen_device(m, compile_device=False).source == "text"


def test_execution_backend_messages(backend):
    t = target("vulkan", backend.name)
    with pytest.raises(ValueError) as info:
        tb.create_backend_context(t, execution_backend="nvrtc")
    assert str(info.value) == (
        "Invalid execution backend 'nvrtc' for target 'vulkan'. Allowed: fast, slow, text. "
        "Tip: use execution_backend='auto'."
    )
    with pytest.raises(ValueError) as info:
        tb.create_backend_context(t, execution_backend="fast")
    assert str(info.value) == (
        "Execution backend 'fast' requires extra dependencies and is not available now. Try one of: slow, text."
    )
    assert info.value.status == "TL_EUNAVAILABLE"
    none = tb.register_backend(make_backend(specs=(S("never", is_available=lambda: False),)))
    with pytest.raises(ValueError) as info:
        tb.create_backend_context(target("vulkan", none.name))
    assert str(info.value) == "No available execution backend for target 'vulkan'. Allowed: never."


def test_execution_backend_from_the_environment(backend, monkeypatch):
    t = target("vulkan", backend.name)
    monkeypatch.setenv("TILELANG_EXECUTION_BACKEND", "text")
    assert tb.create_backend_context(t, execution_backend=None).execution_backend.name == "text"
    assert tb.create_backend_context(t, execution_backend="slow").execution_backend.name == "slow"


def test_selection_messages(backend):
    with pytest.raises(ValueError) as info:
        tb.create_backend_context(target("vulkan", "nobody-" + uniq()))
    assert str(info.value).startswith("No backend matches target {")
    with pytest.raises(ValueError) as info:
        tb.create_backend_context("opencl")
    assert str(info.value).startswith("No backend registered for target kind 'opencl'. Available: ")
    assert info.value.status == "TL_ENOTFOUND"
    twin = uniq()
    shared = tb.register_backend(make_backend(model=twin))
    tb.register_backend(make_backend(model=twin))
    with pytest.raises(ValueError, match="Multiple backends match target .*: "):
        tb.create_backend_context(target("vulkan", twin))
    assert shared.name in tb.list_backends()


def test_context_is_frozen_and_compares_by_value(backend):
    t = target("vulkan", backend.name)
    a = tb.create_backend_context(t)
    b = tb.create_backend_context(t)
    assert a == b and a is not b
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.target = tb.Target("c")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.execution_backend = backend.execution_backends[2]
    c = dataclasses.replace(a, execution_backend=backend.execution_backends[2])
    assert c.execution_backend.name == "text" and c.codegen_device(tb.IRModule()).source == "text"


def test_direct_construction_is_validated(backend):
    t = target("vulkan", backend.name).with_host("c")
    host = tb.Target("c")
    ok = tb.BackendContext(backend, t, host, backend.execution_backends[1])
    assert ok.name == backend.name
    other = target("vulkan", "someone-else").with_host("c")
    with pytest.raises(ValueError) as info:
        tb.BackendContext(backend, other, host, backend.execution_backends[1])
    assert str(info.value) == f"Backend module '{backend.name}' does not match target {other}"
    with pytest.raises(ValueError) as info:
        tb.BackendContext(backend, t, host, S("undeclared"))
    assert str(info.value) == f"Execution backend 'undeclared' is not declared by backend module '{backend.name}'"
    with pytest.raises(ValueError) as info:
        tb.BackendContext(backend, t, host, backend.execution_backends[3])
    assert str(info.value) == f"Execution backend 'picky' does not match target {t}"


def test_stages_run_the_selected_components():
    name = uniq()
    seen = []

    def lower(mod, t):
        seen.append(("lower", t.kind))
        mod.set_attr("lowered", 1)
        return mod

    def hook(mod, host, t):
        seen.append(("hook", host.kind, t.kind))

    bm = tb.register_backend(
        make_backend(
            name,
            pipelines={"vulkan": tb.PassPipeline("vulkan", lower)},
            specs=(S("full", enable_host_codegen=True),),
            host_codegens={"c": tb.HostCodegen("hc", lambda m, h: tb.Artifact("c", f"lowered={m.get_attr('lowered')}"))},
            host_codegen_hooks={"vulkan": (tb.HostCodegenHook("hk", hook),)},
        )
    )
    ctx = tb.create_backend_context(target("vulkan", name))
    m = tb.IRModule()
    assert ctx.lower(m) is m
    assert ctx.preprocess_host_codegen(m) is m
    assert ctx.codegen_host(m).source == "lowered=1"
    assert seen == [("lower", "vulkan"), ("hook", "c", "vulkan")]
    assert bm.preprocess_host_codegen(m, "c", target("vulkan", name)) is m
    assert len(seen) == 3
