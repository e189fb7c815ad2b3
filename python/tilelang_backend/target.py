"""Targets (tvm.target.Target's surface over the library's tl_target).

``Target(spec, host=None)`` parses with the library: a tag ("nvidia/nvidia-h100"), a
JSON object or a dict ({"kind": "cuda", "arch": "sm_90"}), or a bare kind ("c").
Unlike tvm's object identity, ``==`` compares targets structurally (kind, tag, keys,
attributes, host) and ``hash`` agrees with it.
"""

from ._C import Target, determine_target, list_target_kinds, list_target_tags

__all__ = ["Target", "determine_target", "list_target_kinds", "list_target_tags"]
