"""BackendModule validation (upstream __post_init__'s rules, checked by the C library
on construction) and the value semantics of the frozen dataclasses."""

import dataclasses

import pytest

import tilelang_backend as tb
from conftest import make_backend, nop_lower, src_build, uniq

P = tb.PassPipeline
D = tb.DeviceCodegen
S = tb.ExecutionBackendSpec


def base(**overrides):
    fields = dict(
        name="vb",
        target_kinds=("vulkan",),
        pipelines={"vulkan": P("vulkan", nop_lower)},
        device_codegens={"vulkan": D("vk", build=src_build)},
        execution_backends=(S("src"),),
    )
    fields.update(overrides)
    return fields


def hook(name="h"):
    return tb.HostCodegenHook(name, lambda mod, host, target: None)


RULES = [
    (dict(name=""), "BackendModule.name must not be empty"),
    (dict(target_kinds=()), "BackendModule 'vb' must own at least one non-empty target kind"),
    (dict(target_kinds=("vulkan", "")), "BackendModule 'vb' must own at least one non-empty target kind"),
    (dict(target_kinds=("vulkan", "vulkan")), "BackendModule 'vb' target kinds must be unique"),
    (dict(pipelines={}), "BackendModule 'vb' must define exactly one pipeline for every target kind"),
    (
        dict(pipelines={"vulkan": P("vulkan", nop_lower), "nvptx": P("nvptx", nop_lower)}),
        "BackendModule 'vb' must define exactly one pipeline for every target kind",
    ),
    (
        dict(pipelines={"vulkan": P("cuda", nop_lower)}),
        "BackendModule 'vb' pipeline 'cuda' does not match target kind 'vulkan'",
    ),
    (dict(device_codegens={}), "BackendModule 'vb' must define device codegen for every target kind"),
    (
        dict(host_codegen_hooks={"nvptx": (hook(),), "cuda": (hook(),)}),
        "BackendModule 'vb' host codegen hook targets are not owned by this backend: ['cuda', 'nvptx']",
    ),
    (dict(host_codegen_hooks={"vulkan": ()}), "BackendModule 'vb' host codegen hook lists must not be empty"),
    (dict(execution_backends=()), "BackendModule 'vb' must define at least one execution backend"),
    (
        dict(execution_backends=(S("a"), S("b"), S("a"))),
        "BackendModule 'vb' execution backend names must be unique: ['a', 'b', 'a']",
    ),
    (
        dict(execution_backends=(S("a", enable_host_codegen=True),)),
        "BackendModule 'vb' enables host codegen but defines no host codegen targets",
    ),
    (dict(callbacks={"": lambda: None}), "BackendModule 'vb' callback names must not be empty"),
]


@pytest.mark.parametrize("overrides, message", RULES)
def test_each_rule_with_upstream_message(overrides, message):
    with pytest.raises(ValueError) as info:
        tb.BackendModule(**base(**overrides))
    assert str(info.value) == message
    assert info.value.status == "TL_EINVAL"


def test_rules_are_checked_in_upstream_order():
    # Both the name and the kinds are wrong: the name is reported.
    with pytest.raises(ValueError, match="name must not be empty"):
        tb.BackendModule(**base(name="", target_kinds=()))
    # Kinds and pipelines are wrong: the kinds are reported.
    with pytest.raises(ValueError, match="target kinds must be unique"):
        tb.BackendModule(**base(target_kinds=("vulkan", "vulkan"), pipelines={}))


def test_a_valid_manifest_with_every_field():
    bm = tb.BackendModule(
        **base(
            host_codegens={"c": tb.HostCodegen("c", lambda mod, host: "host")},
            host_codegen_hooks={"vulkan": (hook("a"), hook("b"))},
            callbacks={uniq("cb"): lambda: 1},
            supports_target=lambda t: True,
            execution_backends=(S("a", enable_host_codegen=True), S("b")),
        )
    )
    assert bm.target_kinds == ("vulkan",)
    assert len(bm.host_codegen_hooks["vulkan"]) == 2


def test_wrong_field_types_are_type_errors():
    with pytest.raises(TypeError):
        tb.BackendModule(**base(target_kinds="vulkan"))
    with pytest.raises(TypeError):
        tb.BackendModule(**base(pipelines={"vulkan": "not a pipeline"}))
    with pytest.raises(TypeError):
        tb.BackendModule(**base(execution_backends=("src",)))
    with pytest.raises(TypeError):
        tb.BackendModule(**base(supports_target=42))
    with pytest.raises(TypeError):
        tb.BackendModule(**base(name=3))


def test_frozen_dataclasses():
    bm = make_backend()
    with pytest.raises(dataclasses.FrozenInstanceError):
        bm.name = "other"
    with pytest.raises(AttributeError):
        bm.target_kinds = ("nvptx",)
    for obj in (P("vulkan", nop_lower), D("x"), S("s"), tb.HostCodegen("c", src_build), hook()):
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.name = "y"


def test_replace_revalidates():
    bm = make_backend()
    renamed = dataclasses.replace(bm, name=uniq("renamed"))
    assert renamed.name != bm.name and renamed.pipelines == bm.pipelines
    with pytest.raises(ValueError, match="must define at least one execution backend"):
        dataclasses.replace(bm, execution_backends=())


def test_equality_is_by_value():
    assert P("vulkan", nop_lower) == P("vulkan", nop_lower)
    assert P("vulkan", nop_lower) != P("nvptx", nop_lower)
    assert S("a", enable_device_compile=True) == S("a", enable_device_compile=True)
    assert hash(S("a")) == hash(S("a"))
    a = tb.BackendModule(**base())
    b = tb.BackendModule(**base())
    assert a == b and a is not b
    assert a != tb.BackendModule(**base(name="other"))


def test_defaults_follow_the_seed():
    bm = tb.BackendModule(**base())
    assert bm.supports_target is None
    assert dict(bm.host_codegens) == {} and dict(bm.host_codegen_hooks) == {} and dict(bm.callbacks) == {}
    d = D("x")
    assert d.build is None and d.build_without_compile is None and d.supports_target is None
    h = tb.HostCodegen("c", src_build)
    assert h.supports_target is None
