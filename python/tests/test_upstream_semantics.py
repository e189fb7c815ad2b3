"""The backend package's behaviour where upstream's (tilelang 0.1.15, side by side)
differed from ours before: each rule with upstream's types and words."""

import os
import types

import pytest

import tilelang_backend as tb
from tilelang_backend import target as targets
from conftest import make_backend, model_is, target, uniq


# Unusable targets: AssertionError with upstream's text; the library's cause follows.
@pytest.mark.parametrize(
    "spec,first_line",
    [
        ({"kind": "cuda", "arch": "compute_90"},
         "Target {'kind': 'cuda', 'arch': 'compute_90'} is not supported. Pass a valid target config dict."),
        ("nonsense",
         "Target nonsense is not supported. Pass target options as a dict when the target needs attributes."),
        (123, "Target 123 is not supported"),
        ("  ", "Target    is not supported"),
    ],
)
def test_unusable_targets_raise_upstreams_assertion(spec, first_line):
    for call in (lambda: tb.determine_target(spec), lambda: tb.create_backend_context(spec)):
        with pytest.raises(AssertionError) as info:
            call()
        lines = str(info.value).split("\n")
        assert lines[0] == first_line
        assert lines[1:] == [] or lines[1].startswith("Cause: ")


def test_unusable_target_keeps_the_librarys_cause():
    with pytest.raises(AssertionError) as info:
        tb.determine_target({"kind": "cuda", "arch": "compute_90"})
    assert "Cause: CUDA target gets an invalid CUDA arch" in str(info.value)
    assert isinstance(info.value.__cause__, tb.TileLangError)


def test_determine_target_returns_the_input_unless_asked_for_an_object():
    assert tb.determine_target("c") == "c"
    assert tb.determine_target("  c ") == "c"
    spec = {"kind": "c", "model": "m"}
    assert tb.determine_target(spec) is spec
    t = tb.Target("c")
    assert tb.determine_target(t) is t
    assert tb.determine_target("c", True) == tb.Target("c")
    assert isinstance(tb.determine_target(spec, return_object=True), tb.Target)


def test_a_normalizer_rewrite_is_returned_normalized():
    name = uniq("norm")
    seen = []

    def normalize(spec):
        seen.append(spec)
        if isinstance(spec, dict) and spec.get("model") == name:
            return {"kind": "c", "model": name + "-normalized"}
        return None

    spec = targets.register_target_normalizer(name, normalize)
    assert spec.name == name and spec.normalize is normalize
    assert name in targets.list_target_normalizers()
    out = tb.determine_target({"kind": "c", "model": name})
    assert isinstance(out, tb.Target) and out.attrs["model"] == name + "-normalized"
    assert {"kind": "c", "model": name} in seen  # a JSON spec reaches Python as a dict
    assert tb.determine_target("c") == "c"  # not its: unchanged


def test_detectors_over_the_librarys_registry():
    assert targets.list_target_detectors()[:2] == ("cuda", "cpu")
    name = uniq("det")
    spec = targets.register_target_detector(name, lambda: None)
    assert isinstance(spec, targets.TargetDetectorSpec) and spec.name == name
    assert targets.list_target_detectors()[-1] == name
    with pytest.raises(ValueError, match="is already registered"):
        targets.register_target_detector(name, lambda: "c")
    targets.register_target_detector(name, lambda: "c", override=True)
    assert targets.list_target_detectors()[-1] == name  # replaced in place
    # The built-in cpu detector finds the host first here.
    found = targets.auto_detect_target()
    assert isinstance(found, (str, tb.Target))


def test_exceptions_of_python_components_reach_the_caller_unchanged():
    name = uniq("exc")

    class Refused(Exception):
        pass

    def lower(mod, t):
        raise Refused("refused")

    bm = tb.register_backend(make_backend(name, pipelines={"vulkan": tb.PassPipeline("vulkan", lower)}))
    with pytest.raises(Refused, match="^refused$"):
        bm.lower(tb.IRModule(), target("vulkan", name))
    with pytest.raises(Refused):
        tb.create_backend_context(target("vulkan", name)).lower(tb.IRModule())


def test_is_available_is_always_callable():
    spec = tb.ExecutionBackendSpec("x")
    assert spec.is_available() is True
    assert spec.is_available is tb._C.always_available
    assert spec.available()
    for module in tb.list_backends().values():
        for s in module.execution_backends:
            assert callable(s.is_available) and isinstance(s.is_available(), bool)
    # The default round-trips: a Python spec built from a C one is equal to it.
    source = tb.get_backend("webgpu").execution_backends[0]
    assert tb.ExecutionBackendSpec(source.name, source.is_available, source.supports_target,
                                   source.enable_host_codegen, source.enable_device_compile,
                                   source.unavailable_reason).available() == source.available()


def test_registered_manifests_are_read_only():
    bm = tb.register_backend(make_backend(uniq("ro"), callbacks={uniq("cb"): lambda: None}))
    for name in ("pipelines", "device_codegens", "host_codegens", "host_codegen_hooks", "callbacks"):
        mapping = getattr(bm, name)
        assert isinstance(mapping, types.MappingProxyType), name
        with pytest.raises(TypeError):
            mapping["x"] = None
    assert isinstance(bm.target_kinds, tuple) and isinstance(bm.execution_backends, tuple)
    with pytest.raises(AttributeError):
        bm.name = "other"
    cuda = tb.get_backend("cuda")
    assert isinstance(cuda.pipelines, types.MappingProxyType)
    for hooks in cuda.host_codegen_hooks.values():
        assert isinstance(hooks, tuple)


def test_hook_lists_become_tuples():
    kind = "vulkan"
    hook = tb.HostCodegenHook(uniq("h"), lambda m, h, t: None)
    bm = make_backend(uniq("hooks"), host_codegen_hooks={kind: [hook]})
    assert bm.host_codegen_hooks[kind] == (hook,)


def test_register_functions_return_the_component():
    model = uniq("ret")
    cg = tb.DeviceCodegen(uniq("d"), build=lambda m, t: "", supports_target=model_is(model))
    assert tb.device_codegen.register_device_codegen("nvptx", cg) is cg
    hc = tb.HostCodegen(uniq("h"), build=lambda m, t: "", supports_target=model_is(model))
    assert tb.host_codegen.register_host_codegen("nvptx", hc) is hc
    hook = tb.HostCodegenHook(uniq("k"), lambda m, h, t: None, supports_target=model_is(model))
    assert tb.host_codegen.register_host_codegen_hook("nvptx", hook) is hook


def test_non_str_arguments_raise_what_upstream_raises():
    cpu = tb.get_backend("cpu")
    with pytest.raises(ValueError, match="Invalid execution backend '5'"):
        cpu.resolve_execution_backend(5, tb.Target("c"))
    with pytest.raises(ValueError, match="target has to be a string or dictionary"):
        tb.Target(123)


def test_target_kind_has_a_name():
    t = tb.Target("c")
    assert t.kind.name == "c" and type(t.kind.name) is str
    assert str(t.kind) == "c" and t.kind == "c"
    assert isinstance(t.kind, tb.target.TargetKind)
    assert t.kind is tb.Target("c").kind  # one object per kind


@pytest.mark.parametrize("name", ["tvm_ffi", "cython", "torch", "cutedsl"])
def test_upstream_execution_backend_names_get_ours_and_the_closest(name, monkeypatch):
    with pytest.raises(ValueError) as info:
        tb.create_backend_context("c", None, name)
    message = str(info.value)
    assert message.startswith(f"Invalid execution backend '{name}' for target 'c'.")
    assert f"'{name}' is an execution backend of upstream TileLang" in message
    assert "tilelang-backend's for this target are native, tcc, source" in message
    assert "the closest equivalent is 'native'" in message
    with pytest.raises(ValueError, match="closest equivalent is 'native'"):
        tb.get_backend("cpu").resolve_execution_backend(name.upper(), tb.Target("c"))
    monkeypatch.setenv("TILELANG_EXECUTION_BACKEND", name)
    with pytest.raises(ValueError, match=f"'{name}' is an execution backend of upstream TileLang"):
        tb.create_backend_context("c", execution_backend=None)


def test_other_invalid_execution_backends_keep_the_librarys_message():
    with pytest.raises(ValueError) as info:
        tb.create_backend_context("c", None, "nope")
    assert "upstream" not in str(info.value)
    assert os.environ.get("TILELANG_EXECUTION_BACKEND") is None


def test_a_lazily_loaded_backend_is_found_by_name_in_a_fresh_process():
    # opencl is registered lazily (a plugin): get_backend finds it before anything
    # listed the backends or made a context for its kind.
    import subprocess
    import sys

    code = "import tilelang_backend as tb; print(tb.get_backend('opencl').name, 'opencl' in tb.list_backends())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["opencl", "True"]


def test_list_backends_sees_a_registration_made_after_it_listed():
    before = tb.list_backends()
    bm = tb.register_backend(make_backend(uniq("later")))
    after = tb.list_backends()
    assert bm.name not in before and after[bm.name] is bm
    assert list(after)[: len(before)] == list(before)
    after.clear()
    assert tb.list_backends()[bm.name] is bm  # a copy each time
