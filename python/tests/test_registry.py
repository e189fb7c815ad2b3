"""register_backend / get_backend / list_backends: idempotent and conflicting
registration, shared target kinds, identity, and backends registered from C."""

import pytest

import tilelang_backend as tb
from conftest import make_backend, model_is, nop_lower, src_build, target, uniq


def test_register_returns_the_module_and_get_backend_finds_it():
    bm = make_backend()
    assert tb.register_backend(bm) is bm
    assert tb.get_backend(bm.name) is bm
    assert tb.get_backend(bm.name) is tb.get_backend(bm.name)
    assert tb.list_backends()[bm.name] is bm


def test_registering_an_equal_declaration_again_returns_the_registered_one():
    name = uniq()
    pred = model_is(name)
    pipe = tb.PassPipeline("vulkan", nop_lower)
    first = make_backend(name, supports_target=pred, pipelines={"vulkan": pipe})
    second = make_backend(name, supports_target=pred, pipelines={"vulkan": tb.PassPipeline("vulkan", nop_lower)})
    assert first == second
    assert tb.register_backend(first) is first
    assert tb.register_backend(second) is first
    assert tb.register_backend(first) is first


def test_a_different_declaration_under_the_same_name_conflicts():
    bm = make_backend()
    tb.register_backend(bm)
    other = make_backend(bm.name, specs=(tb.ExecutionBackendSpec("other"),))
    with pytest.raises(ValueError) as info:
        tb.register_backend(other)
    assert str(info.value) == f"Backend '{bm.name}' is already registered with a different declaration"
    assert info.value.status == "TL_EEXIST"
    assert tb.get_backend(bm.name) is bm


def test_backends_sharing_a_kind_need_predicates():
    a = make_backend(kind="nvptx")
    tb.register_backend(a)
    no_pred = make_backend(kind="nvptx", supports_target=None)
    with pytest.raises(ValueError) as info:
        tb.register_backend(no_pred)
    assert str(info.value) == "Backends sharing target kind 'nvptx' must define supports_target predicates"
    with pytest.raises(ValueError, match="Unknown backend"):
        tb.get_backend(no_pred.name)  # the failed registration left nothing behind
    b = make_backend(kind="nvptx")
    tb.register_backend(b)
    assert tb.create_backend_context(target("nvptx", a.name)).module is a
    assert tb.create_backend_context(target("nvptx", b.name)).module is b


def test_get_backend_unknown_lists_the_available_ones_sorted():
    with pytest.raises(ValueError) as info:
        tb.get_backend("no-such-backend")
    msg = str(info.value)
    assert msg.startswith("Unknown backend 'no-such-backend'. Available: ")
    names = msg.split("Available: ")[1].split(", ")
    assert names == sorted(names)
    assert info.value.status == "TL_ENOTFOUND"


def test_list_backends_is_a_copy_in_registration_order():
    a, b = make_backend(), make_backend()
    tb.register_backend(a)
    tb.register_backend(b)
    listed = tb.list_backends()
    order = list(listed)
    assert order.index(a.name) < order.index(b.name)
    listed.clear()
    assert a.name in tb.list_backends()


def test_failed_registration_leaves_registries_unchanged():
    kind_owner = make_backend(kind="vulkan")
    tb.register_backend(kind_owner)
    bad = make_backend(kind="vulkan", supports_target=None, callbacks={uniq("cb"): lambda: 1})
    with pytest.raises(ValueError):
        tb.register_backend(bad)
    assert bad.name not in tb.list_backends()
    assert not set(bad.callbacks) & set(tb.ffi.list_global_funcs())


def test_callbacks_become_global_functions():
    name = uniq("cb")
    bm = make_backend(callbacks={name: lambda a, b: a * b})
    tb.register_backend(bm)
    assert name in tb.ffi.list_global_funcs()
    assert tb.ffi.call_global_func(name, 6, 7) == 42
    assert tb.ffi.get_global_func(name) is bm.callbacks[name]


def test_methods_of_a_registered_module():
    name = uniq()
    art_cg = tb.DeviceCodegen("cg", build=lambda m, t: tb.Artifact("spirv", "compiled"),
                              build_without_compile=lambda m, t: "text")
    specs = (tb.ExecutionBackendSpec("gone", is_available=lambda: False), tb.ExecutionBackendSpec("here"))
    bm = make_backend(name, specs=specs, device_codegens={"vulkan": art_cg},
                      host_codegens={"c": tb.HostCodegen("hc", lambda m, h: "host")})
    t = target("vulkan", name)
    assert bm.matches(t) and not bm.matches(target("vulkan", "someone-else"))
    assert bm.get_pipeline(t) == bm.pipelines["vulkan"]
    assert bm.get_device_codegen(t) == art_cg
    assert bm.codegen_device(tb.IRModule(), t, compile_device=True).source == "compiled"
    text = bm.codegen_device(tb.IRModule(), t, compile_device=False)
    assert (text.format, text.source) == ("vulkan", "text")
    assert bm.get_host_codegen(tb.Target("c")).name == "hc"
    assert bm.codegen_host(tb.IRModule(), "c").source == "host"
    assert bm.allowed_execution_backends(t) == ("gone", "here")
    assert bm.allowed_execution_backends(t, include_unavailable=False) == ("here",)
    assert bm.resolve_execution_backend(None, t).name == "here"
    assert bm.resolve_execution_backend("AUTO", t) == specs[1]
    m = tb.IRModule()
    assert bm.lower(m, t) is m
    with pytest.raises(ValueError) as info:
        bm.get_pipeline(target("vulkan", "someone-else"))
    assert str(info.value).startswith(f"Backend '{name}' does not match target ")
    with pytest.raises(ValueError, match=f"Backend '{name}' has no host codegen matching target"):
        bm.get_host_codegen("llvm")


def test_c_registered_backend_visible_from_python(plugin_path):
    # The plugin registers the C backend "tlp_good" (kind nvptx, model tlp_good).
    tb.device_codegen.register_lazy_device_codegen("nvptx", plugin_path)
    t = target("nvptx", "tlp_good")
    assert "tlp_good" in tb.device_codegen.allowed_device_codegens_for_target(t)
    bm = tb.get_backend("tlp_good")
    assert bm is tb.get_backend("tlp_good") is tb.list_backends()["tlp_good"]
    assert bm.target_kinds == ("nvptx",)
    assert isinstance(bm.pipelines["nvptx"].body, tb.CFunction)
    assert isinstance(bm.supports_target, tb.CFunction)
    assert bm.supports_target(t) and not bm.supports_target(target("nvptx", "other"))
    assert bm.matches(t)
    # Its C codegen, called through the Python object.
    art = bm.codegen_device(tb.IRModule(), t, compile_device=True)
    assert art.format == "ptx" and "tlp_good device code" in art.source
    host = bm.codegen_host(tb.IRModule(), "c")
    assert host.format == "so" and host.binary == b"\x7fELF"
    # Its callbacks are CFunctions reachable as global functions.
    assert tb.ffi.call_global_func("tlp_good.init_count") >= 1
    assert bm.callbacks["tlp_good.init_count"]() >= 1
    # A context resolved by the library picks it.
    ctx = tb.create_backend_context(t)
    assert ctx.module is bm and ctx.name == "tlp_good"
    assert ctx.execution_backend == bm.execution_backends[0]
    # Re-registering the wrapper (or an equal declaration built from its parts) is idempotent.
    assert tb.register_backend(bm) is bm
    import dataclasses

    assert tb.register_backend(dataclasses.replace(bm)) is bm


def test_python_registered_backend_visible_from_c():
    # The library's own resolution (create_backend_context, resolve_device_codegen)
    # sees a backend registered from Python, and its callbacks are C global functions.
    name = uniq()
    cb = uniq("cb")
    bm = make_backend(name, callbacks={cb: lambda: "from python"})
    tb.register_backend(bm)
    t = target("vulkan", name)
    assert tb.device_codegen.resolve_device_codegen(t) == bm.device_codegens["vulkan"]
    assert tb.create_backend_context(t).module is bm
    assert tb.ffi.call_global_func(cb) == "from python"


def test_built_in_backends_are_visible():
    # The library's compiled-in backends are registered from C on first use.
    cpu = tb.get_backend("cpu")
    assert cpu is tb.list_backends()["cpu"]
    assert cpu.target_kinds == ("c",)
    assert isinstance(cpu.pipelines["c"].body, tb.CFunction)
    assert cpu.allowed_execution_backends("c")[0] == "native"
    ctx = tb.create_backend_context("c")
    assert ctx.module is cpu and ctx.name == "cpu"
    assert ctx.execution_backend in cpu.execution_backends
    assert tb.register_backend(cpu) is cpu
