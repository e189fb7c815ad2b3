"""Python detectors in the library's registry, with the built-in ones replaced (by
name, in place: override=True), so that this file's process finds only what its
tests register. A file of its own: the built-in detectors are gone for the rest of
the process."""

import pytest

import tilelang_backend as tb
from tilelang_backend import target as targets

calls = []


def nothing_here():
    calls.append("none")
    return None


@pytest.fixture(autouse=True, scope="module")
def only_python_detectors():
    for name in ("cuda", "cpu"):
        targets.register_target_detector(name, nothing_here, override=True)
    yield


def test_none_falls_through_and_a_str_comes_back_as_it_was():
    targets.register_target_detector("unit-fallback", lambda: "c")
    calls.clear()
    found = targets.auto_detect_target()
    assert found == "c" and type(found) is str  # upstream returns the detector's value
    assert calls == ["none", "none"]  # cuda and cpu ran first, in order
    assert targets.list_target_detectors()[:2] == ("cuda", "cpu")
    assert targets.list_target_detectors()[-1] == "unit-fallback"
    assert tb.determine_target("auto") == tb.Target("c")


def test_a_target_comes_back_as_a_target():
    t = tb.Target({"kind": "c", "model": "found"})
    targets.register_target_detector("unit-fallback", lambda: t, override=True)
    assert targets.auto_detect_target() is t


def test_failures_are_listed_when_nothing_is_found():
    def boom():
        raise RuntimeError("no device here")

    targets.register_target_detector("unit-fallback", boom, override=True)
    with pytest.raises(ValueError) as info:
        targets.auto_detect_target()
    message = str(info.value)
    assert message.startswith("No registered target detector found an available target. Tried: ")
    assert "unit-fallback: " in message and "no device here" in message
    targets.register_target_detector("unit-fallback", lambda: "not a target kind", override=True)
    with pytest.raises(ValueError, match="unit-fallback: .*not a target kind"):
        targets.auto_detect_target()
