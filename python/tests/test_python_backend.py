"""A backend written entirely in Python (pipeline, codegens, hooks, callbacks,
predicates, availability), registered and used end to end through the library; how
Python exceptions cross the C boundary."""

import threading

import pytest

import tilelang_backend as tb
from conftest import target, uniq

S = tb.ExecutionBackendSpec


class ToyBackend:
    """A complete backend for vulkan targets whose model is its name."""

    def __init__(self):
        self.name = uniq("toy")
        self.events = []
        self.available = True
        self.kept_modules = []

    def supports(self, t):
        return t.attrs.get("model") == self.name

    def lower(self, mod, t):
        self.events.append("lower")
        self.kept_modules.append(mod)
        mod.set_attr("toy.lowered_for", t.kind)
        mod.set_attr("toy.passes", 3)
        return mod

    def build(self, mod, t):
        self.events.append("build")
        return tb.Artifact("spirv", f"// {mod.get_attr('toy.lowered_for')} x{mod.get_attr('toy.passes')}", b"\x03\x02\x23\x07")

    def build_source(self, mod, t):
        self.events.append("build_source")
        return f"// source for {t.attrs['model']}"

    def host_build(self, mod, host):
        self.events.append("host")
        return tb.Artifact("c", f"/* host {host.kind}, hooked={mod.get_attr('toy.hooked', 0)} */")

    def hook(self, mod, host, t):
        self.events.append("hook")
        mod.set_attr("toy.hooked", 1)

    def manifest(self):
        return tb.BackendModule(
            name=self.name,
            target_kinds=("vulkan",),
            pipelines={"vulkan": tb.PassPipeline("vulkan", self.lower)},
            device_codegens={
                "vulkan": tb.DeviceCodegen(self.name, build=self.build, build_without_compile=self.build_source)
            },
            execution_backends=(
                S("toyrt", is_available=lambda: self.available, enable_host_codegen=True, enable_device_compile=True,
                  unavailable_reason=lambda: "the toy runtime is switched off"),
                S("toysrc"),
            ),
            supports_target=self.supports,
            host_codegens={"c": tb.HostCodegen("toyhost", self.host_build)},
            host_codegen_hooks={"vulkan": (tb.HostCodegenHook("toyhook", self.hook),)},
            callbacks={f"{self.name}.compile": lambda src: tb.Artifact("spirv-bin", src.upper())},
        )


def test_end_to_end():
    toy = ToyBackend()
    bm = tb.register_backend(toy.manifest())
    t = target("vulkan", toy.name)
    ctx = tb.create_backend_context(t)
    assert ctx.module is bm and ctx.execution_backend.name == "toyrt"
    mod = tb.IRModule()
    ctx.lower(mod)
    device = ctx.codegen_device(mod)  # toyrt compiles
    assert (device.format, device.source, device.binary) == ("spirv", "// vulkan x3", b"\x03\x02\x23\x07")
    if ctx.execution_backend.enable_host_codegen:
        ctx.preprocess_host_codegen(mod)
        host = ctx.codegen_host(mod)
    assert host.source == "/* host c, hooked=1 */"
    assert toy.events == ["lower", "build", "hook", "host"]
    # The callback is a global function the C side can call.
    out = tb.ffi.call_global_func(f"{toy.name}.compile", "kernel")
    assert (out.format, out.source) == ("spirv-bin", "KERNEL")
    # Availability is asked on every resolution.
    toy.available = False
    ctx2 = tb.create_backend_context(t)
    assert ctx2.execution_backend.name == "toysrc"
    assert ctx2.codegen_device(tb.IRModule()).source == f"// source for {toy.name}"
    assert bm.execution_backends[0].why_unavailable() == "the toy runtime is switched off"
    assert not bm.execution_backends[0].available()
    with pytest.raises(ValueError, match="'toyrt' requires extra dependencies"):
        tb.create_backend_context(t, execution_backend="toyrt")


def test_lent_modules_are_invalid_after_the_call():
    toy = ToyBackend()
    tb.register_backend(toy.manifest())
    ctx = tb.create_backend_context(target("vulkan", toy.name))
    mod = tb.IRModule()
    ctx.lower(mod)
    lent = toy.kept_modules[0]
    assert lent is not mod and not lent.valid
    with pytest.raises(ValueError, match="no longer valid"):
        lent.get_attr("toy.passes")
    assert mod.get_attr("toy.passes") == 3  # the caller's module was lowered in place


def test_exceptions_in_callbacks_become_errors_with_their_message():
    name = uniq("raising")

    def lower(mod, t):
        raise ValueError("pipeline refused the module")

    def build(mod, t):
        raise NotImplementedError("no device code today")

    def bad_result(mod, t):
        return 42

    bm = tb.register_backend(
        tb.BackendModule(
            name=name,
            target_kinds=("vulkan",),
            pipelines={"vulkan": tb.PassPipeline("vulkan", lower)},
            device_codegens={"vulkan": tb.DeviceCodegen("r", build=build, build_without_compile=bad_result)},
            execution_backends=(S("x", enable_device_compile=True),),
            supports_target=lambda t: t.attrs.get("model") == name,
            callbacks={f"{name}.cb": lambda: 1 / 0},
        )
    )
    ctx = tb.create_backend_context(target("vulkan", name))
    # A Python component's exception reaches the caller unchanged (type, message), as
    # upstream's; the library's own failures are TileLangError.
    with pytest.raises(ValueError) as info:
        ctx.lower(tb.IRModule())
    assert type(info.value) is ValueError and str(info.value) == "pipeline refused the module"
    with pytest.raises(NotImplementedError) as info:
        ctx.codegen_device(tb.IRModule())
    assert str(info.value) == "no device code today"
    with pytest.raises(TypeError) as info:
        ctx.codegen_device(tb.IRModule(), compile_device=False)
    assert "must return an Artifact or a str, not int" in str(info.value)
    with pytest.raises(ZeroDivisionError):
        tb.ffi.call_global_func(f"{name}.cb")
    assert bm.name == name


def test_pipeline_must_work_in_place():
    name = uniq("inplace")
    bm = tb.register_backend(
        tb.BackendModule(
            name=name,
            target_kinds=("vulkan",),
            pipelines={"vulkan": tb.PassPipeline("vulkan", lambda mod, t: tb.IRModule())},
            device_codegens={"vulkan": tb.DeviceCodegen("d", build=lambda m, t: "")},
            execution_backends=(S("x"),),
            supports_target=lambda t: t.attrs.get("model") == name,
        )
    )
    with pytest.raises(TypeError, match="in place"):
        bm.lower(tb.IRModule(), target("vulkan", name))


def test_predicate_exceptions_propagate():
    name = uniq("pred")

    def pred(t):
        if t.attrs.get("model") == "explode":
            raise RuntimeError("predicate exploded")
        return t.attrs.get("model") == name

    bm = tb.register_backend(
        tb.BackendModule(
            name=name,
            target_kinds=("vulkan",),
            pipelines={"vulkan": tb.PassPipeline("vulkan", lambda m, t: None)},
            device_codegens={"vulkan": tb.DeviceCodegen("d", build=lambda m, t: "")},
            execution_backends=(S("x"),),
            supports_target=pred,
        )
    )
    with pytest.raises(RuntimeError, match="predicate exploded"):
        bm.matches(target("vulkan", "explode"))
    with pytest.raises(RuntimeError, match="predicate exploded"):
        tb.create_backend_context(target("vulkan", "explode"))
    assert bm.matches(target("vulkan", name))


def test_threads_share_the_registry():
    toy = ToyBackend()
    tb.register_backend(toy.manifest())
    t = target("vulkan", toy.name)
    errors = []

    def work():
        try:
            for _ in range(50):
                ctx = tb.create_backend_context(t)
                m = tb.IRModule()
                ctx.lower(m)
                assert ctx.codegen_device(m).source == "// vulkan x3"
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert toy.events.count("lower") == 200


def test_components_reused_across_backends_keep_identity():
    shared = tb.PassPipeline("nvptx", lambda m, t: None)
    a = tb.register_backend(
        tb.BackendModule(
            name=uniq("sa"),
            target_kinds=("nvptx",),
            pipelines={"nvptx": shared},
            device_codegens={"nvptx": tb.DeviceCodegen("d", build=lambda m, t: "")},
            execution_backends=(S("x"),),
            supports_target=lambda t: t.attrs.get("model") == "sa",
        )
    )
    b = tb.register_backend(
        tb.BackendModule(
            name=uniq("sb"),
            target_kinds=("nvptx",),
            pipelines={"nvptx": shared},
            device_codegens={"nvptx": tb.DeviceCodegen("d", build=lambda m, t: "")},
            execution_backends=(S("x"),),
            supports_target=lambda t: t.attrs.get("model") == "sb",
        )
    )
    assert a.get_pipeline(target("nvptx", "sa")) is shared
    assert b.get_pipeline(target("nvptx", "sb")) is shared
