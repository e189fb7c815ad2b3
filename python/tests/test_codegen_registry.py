"""The device and host codegen registries: registration conflicts and override,
resolution, lazy imports, global-function codegens, host codegen hooks."""

import pytest

import tilelang_backend as tb
from tilelang_backend import device_codegen as dc
from tilelang_backend import host_codegen as hc
from conftest import model_is, target, uniq


def test_register_resolve_conflict_override():
    model = uniq("m")
    t = target("vulkan", model)
    first = tb.DeviceCodegen(uniq("cg"), build=lambda m, t: "first", supports_target=model_is(model))
    dc.register_device_codegen("vulkan", first)
    assert dc.resolve_device_codegen(t) == first
    assert dc.allowed_device_codegens_for_target(t) == [first.name]
    again = tb.DeviceCodegen(first.name, build=lambda m, t: "second", supports_target=model_is(model))
    with pytest.raises(ValueError) as info:
        dc.register_device_codegen("vulkan", again)
    assert str(info.value) == f"Device codegen '{first.name}' is already registered for target kind 'vulkan'"
    assert info.value.status == "TL_EEXIST"
    dc.register_device_codegen("vulkan", again, override=True)
    resolved = dc.resolve_device_codegen(t)
    assert resolved == again
    assert resolved.lower(tb.IRModule(), t, compile_device=True).source == "second"


def test_resolution_failures_and_modes():
    t = target("vulkan", uniq("nobody"))
    with pytest.raises(ValueError) as info:
        dc.resolve_device_codegen(t)
    assert str(info.value).startswith("No device codegen registered for target 'vulkan'. Available: ")
    assert info.value.status == "TL_ENOTFOUND"
    source_only = tb.DeviceCodegen("so", build_without_compile=lambda m, t: "text")
    assert source_only.matches(t)
    with pytest.raises(ValueError) as info:
        source_only.lower(tb.IRModule(), t, compile_device=True)
    assert str(info.value) == "Device codegen 'so' for target 'vulkan' does not support lowering with compilation"
    assert info.value.status == "TL_EUNSUPPORTED"
    compile_only = tb.DeviceCodegen("co", build=lambda m, t: "bin")
    with pytest.raises(ValueError, match="does not support lowering without compilation"):
        compile_only.lower(tb.IRModule(), t, compile_device=False)


def test_predicates_narrow_matching():
    model = uniq("m")
    cg = tb.DeviceCodegen("p", build=lambda m, t: "", supports_target=model_is(model))
    assert cg.matches(target("vulkan", model))
    assert not cg.matches(target("vulkan", "other"))


def test_lazy_device_codegen_imports_on_first_use(plugin_path):
    # Before the lazy registration's first lookup the plugin's codegen is absent;
    # the lookup imports it (once), after which the alternative init's codegen is there.
    t = target("nvptx", "tlp_alt")
    dc.register_lazy_device_codegen("nvptx", plugin_path + ":tlp_alt_init")
    assert dc.allowed_device_codegens_for_target(t) == ["tlp_alt"]
    count = tb.ffi.call_global_func("tlp_good.alt_init_count")
    assert count >= 1
    assert dc.resolve_device_codegen(t).name == "tlp_alt"
    assert tb.ffi.call_global_func("tlp_good.alt_init_count") == count  # imported once


def test_lazy_import_failure_propagates_and_is_retried():
    kind = "webgpu"
    hc.register_lazy_host_codegen(kind, "/nonexistent/libnothing.so")
    with pytest.raises(ValueError) as info:
        hc.resolve_host_codegen(kind)
    assert "Cannot load plugin '/nonexistent/libnothing.so'" in str(info.value)
    assert info.value.status == "TL_EUNAVAILABLE"
    with pytest.raises(ValueError, match="Cannot load plugin"):
        hc.allowed_host_codegens_for_target(kind)
    with pytest.raises(ValueError, match="import path must not be empty"):
        dc.register_lazy_device_codegen("vulkan", "")


def test_global_func_codegens():
    name = uniq("target.build")
    tb.ffi.register_global_func(name, lambda mod, t: tb.Artifact("spirv", f"global {t.kind}"))
    fn = dc.global_func_device_codegen(name)
    assert isinstance(fn, tb.CFunction)
    assert fn is dc.global_func_device_codegen(name)
    cg = tb.DeviceCodegen("g", build=fn)
    assert cg.lower(tb.IRModule(), "vulkan", compile_device=True).source == "global vulkan"
    host = tb.HostCodegen("gh", hc.global_func_host_codegen(name))
    assert host.lower(tb.IRModule(), "c").source == "global c"
    missing = tb.DeviceCodegen("m", build=dc.global_func_device_codegen(uniq("absent")))
    with pytest.raises(ValueError):
        missing.lower(tb.IRModule(), "vulkan", compile_device=True)


def test_global_function_registration():
    name = uniq("fn")
    tb.ffi.register_global_func(name, lambda *a: list(a) and a[0])
    with pytest.raises(ValueError, match="already registered"):
        tb.ffi.register_global_func(name, lambda: None)
    tb.ffi.register_global_func(name, lambda x: x * 2, override=True)
    assert tb.ffi.call_global_func(name, 21) == 42
    assert tb.ffi.call_global_func(name, "ab") == "abab"
    assert tb.ffi.call_global_func(name, b"x") == b"xx"
    with pytest.raises(ValueError, match="Global function"):
        tb.ffi.get_global_func(uniq("absent"))


def test_host_codegens():
    model = uniq("hostmodel")
    host_t = tb.Target({"kind": "llvm", "model": model})
    cg = tb.HostCodegen(uniq("hcg"), lambda m, h: "host code", supports_target=model_is(model))
    hc.register_host_codegen("llvm", cg)
    assert hc.resolve_host_codegen(host_t) == cg
    assert cg.name in hc.allowed_host_codegens_for_target(host_t)
    with pytest.raises(ValueError, match=f"Host codegen '{cg.name}' is already registered for target kind 'llvm'"):
        hc.register_host_codegen("llvm", cg)
    art = cg.lower(tb.IRModule(), host_t)
    assert (art.format, art.source) == ("llvm", "host code")
    with pytest.raises(ValueError, match="No host codegen registered for target host 'llvm'"):
        hc.resolve_host_codegen(tb.Target({"kind": "llvm", "model": "nobody"}))


def test_host_codegen_hooks_run_in_order():
    model = uniq("hooks")
    t = target("nvptx", model)
    trace = []

    def hook(tag):
        def apply(mod, host, target):
            trace.append((tag, host.kind if host else None, target.kind))
            mod.set_attr("last_hook", tag)

        return tb.HostCodegenHook(uniq(tag), apply, supports_target=model_is(model))

    first, second = hook("a"), hook("b")
    hc.register_host_codegen_hook("nvptx", first)
    hc.register_host_codegen_hook("nvptx", second)
    with pytest.raises(ValueError, match="Host codegen hook .* is already registered for target kind 'nvptx'"):
        hc.register_host_codegen_hook("nvptx", first)
    m = tb.IRModule()
    assert hc.apply_host_codegen_hooks(m, "c", t) is m
    assert trace == [("a", "c", "nvptx"), ("b", "c", "nvptx")]
    assert m.get_attr("last_hook") == "b"
    assert hc.apply_host_codegen_hooks(m, "c", None) is m  # no target: nothing
    assert len(trace) == 2
    assert first.matches(t) and not first.matches(target("nvptx", "other"))
    first.lower(m, None, t)
    assert trace[-1] == ("a", None, "nvptx")


def test_failing_hook_stops_the_chain():
    model = uniq("failing")
    t = target("nvptx", model)

    def boom(mod, host, target):
        raise RuntimeError("hook exploded")

    hc.register_host_codegen_hook("nvptx", tb.HostCodegenHook(uniq("f"), boom, supports_target=model_is(model)))
    ran = []
    hc.register_host_codegen_hook(
        "nvptx", tb.HostCodegenHook(uniq("after"), lambda m, h, t: ran.append(1), supports_target=model_is(model))
    )
    # The hook's exception reaches the caller unchanged, as upstream's would.
    with pytest.raises(RuntimeError) as info:
        hc.apply_host_codegen_hooks(tb.IRModule(), "c", t)
    assert str(info.value) == "hook exploded"
    assert ran == []


def test_lazy_python_module_import(tmp_path, monkeypatch):
    # Upstream's meaning: the import path names a Python module that registers the
    # components when imported; the library imports it on the kind's first lookup.
    model = uniq("lazy")
    modname = uniq("tlpy_lazy_backend")
    (tmp_path / f"{modname}.py").write_text(
        "import tilelang_backend as tb\n"
        "from tilelang_backend import device_codegen as dc\n"
        "IMPORTS = globals().get('IMPORTS', 0) + 1\n"
        f"dc.register_device_codegen('vulkan', tb.DeviceCodegen('{model}', build=lambda m, t: 'lazy code',\n"
        f"    supports_target=lambda t: t.attrs.get('model') == '{model}'))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import sys

    dc.register_lazy_device_codegen("vulkan", modname)
    assert modname not in sys.modules
    t = tb.Target({"kind": "vulkan", "model": model})
    assert dc.resolve_device_codegen(t).name == model
    assert sys.modules[modname].IMPORTS == 1
    assert dc.allowed_device_codegens_for_target(t) == [model]
    assert sys.modules[modname].IMPORTS == 1


def test_lazy_python_module_import_error_propagates(tmp_path, monkeypatch):
    modname = uniq("tlpy_broken_backend")
    (tmp_path / f"{modname}.py").write_text("raise ImportError('backend needs a GPU driver')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    hc.register_lazy_host_codegen_hooks("nvptx", modname)
    with pytest.raises(ImportError) as info:
        hc.apply_host_codegen_hooks(tb.IRModule(), "c", tb.Target("nvptx"))
    assert str(info.value) == "backend needs a GPU driver"
    # Where it happened is the library's message, kept as a note.
    assert info.value.__notes__ == [
        f"tilelang-backend: while importing 'python:{modname}': ImportError: backend needs a GPU driver"
    ]
    (tmp_path / f"{modname}.py").write_text("LOADED = True\n")
    import importlib

    importlib.invalidate_caches()
    m = tb.IRModule()
    assert hc.apply_host_codegen_hooks(m, "c", tb.Target("nvptx")) is m  # retried, now imports
    import sys

    assert sys.modules[modname].LOADED
