"""Target: parsing through the library, accessors, equality, errors."""

import json

import pytest

import tilelang_backend as tb
from tilelang_backend import Target, TileLangError


def test_parse_forms_agree():
    by_json = Target('{"kind":"cuda","arch":"sm_90"}')
    by_dict = Target({"kind": "cuda", "arch": "sm_90"})
    assert by_json == by_dict
    assert hash(by_json) == hash(by_dict)
    assert by_json.kind == "cuda"
    assert by_json.keys == ("cuda", "gpu")
    assert by_json.attrs["arch"] == "sm_90"
    assert by_json.attrs["thread_warp_size"] == 32
    assert by_json.host is None


def test_bare_kind_and_tag():
    c = Target("c")
    assert c.kind == "c" and c.keys == ("cpu",)
    h100 = Target("nvidia/nvidia-h100")
    assert h100.kind == "cuda" and h100.attrs["arch"] == "sm_90a"


def test_str_parses_back_and_export_is_a_dict():
    t = Target({"kind": "cuda", "arch": "sm_80", "host": "c"})
    assert Target(str(t)) == t
    exported = t.export()
    assert exported["kind"] == "cuda" and exported["host"]["kind"] == "c"
    assert json.loads(t.json(indent=2)) == exported
    assert repr(t).startswith("Target(")


def test_host_attachment():
    t = Target("cuda", host="c")
    assert t.host == Target("c")
    assert t.with_host(None).host is None
    assert t.with_host("llvm").host.kind == "llvm"
    assert t != t.with_host(None)


def test_immutable():
    t = Target("c")
    with pytest.raises(AttributeError):
        t.kind = "cuda"
    with pytest.raises(TypeError):
        t.attrs["x"] = 1


@pytest.mark.parametrize(
    "spec, needle",
    [
        ("cuda -arch=sm_90", 'Equivalent JSON: {"kind":"cuda","arch":"sm_90"}'),
        ("nosuchkind", "nosuchkind"),
        ('{"kind":"cuda","arch":90}', "arch"),
        ('{"kind":"cuda",', "Target creation from string failed"),
        ({"kind": "cuda", "no_such_option": 1}, "no_such_option"),
    ],
)
def test_parse_errors_are_value_errors_with_the_library_message(spec, needle):
    with pytest.raises(ValueError) as info:
        Target(spec)
    assert needle in str(info.value)
    assert isinstance(info.value, TileLangError)
    assert info.value.status == "TL_EINVAL"


def test_wrong_types():
    # tvm's Target raises ValueError for what is not a str or a dict, with these words.
    with pytest.raises(ValueError, match="target has to be a string or dictionary. instead get <class 'int'>"):
        Target(42)
    with pytest.raises(ValueError, match="target host has to be a string or dictionary."):
        Target("c", host=42)
    with pytest.raises(TypeError):
        Target("c").has_key(1)


def test_determine_target_reads_the_environment(monkeypatch):
    monkeypatch.setenv("TILELANG_DEFAULT_TARGET", '{"kind":"vulkan"}')
    assert tb.determine_target("auto").kind == "vulkan"
    monkeypatch.setenv("TILELANG_DEFAULT_TARGET", "{not json")
    with pytest.raises(ValueError, match="JSON"):
        tb.determine_target()


def test_kind_and_tag_lists():
    kinds = tb.target.list_target_kinds()
    assert "cuda" in kinds and "c" in kinds
    assert "nvidia/nvidia-h100" in tb.target.list_target_tags()
