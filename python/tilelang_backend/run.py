"""``python -m tilelang_backend.run SCRIPT.py [args]``: runs a script written for
upstream TileLang with ``tilelang`` resolving to this package for that run.

``import tilelang``, ``import tilelang.language as T``, ``from tilelang import jit``
and the other names of ``PROVIDED`` resolve to this package's modules (a meta-path
finder, installed only for the run); importing any other ``tilelang.*`` module
raises ``ModuleNotFoundError`` naming it and what is provided. The script runs as
``__main__`` with ``sys.argv = [SCRIPT, *args]``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import runpy
import sys

#: upstream module -> this package's module
PROVIDED = {
    "tilelang": "tilelang_backend",
    "tilelang.language": "tilelang_backend.language",
    "tilelang.jit": "tilelang_backend.jit",
    "tilelang.profiler": "tilelang_backend.profiler",
    "tilelang.backend": "tilelang_backend",
    "tilelang.backend.module": "tilelang_backend.module",
    "tilelang.backend.device_codegen": "tilelang_backend.device_codegen",
    "tilelang.backend.host_codegen": "tilelang_backend.host_codegen",
    "tilelang.backend.target": "tilelang_backend.target",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class UpstreamAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``tilelang`` and ``tilelang.*`` to this package (see ``PROVIDED``)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tilelang" and not fullname.startswith("tilelang."):
            return None
        ours = PROVIDED.get(fullname)
        if ours is None:
            raise ModuleNotFoundError(
                f"'{fullname}' is a module of upstream TileLang that tilelang_backend does not provide "
                f"(provided: {', '.join(sorted(PROVIDED))})",
                name=fullname,
            )
        return importlib.util.spec_from_loader(fullname, _AliasLoader(ours), is_package=fullname == "tilelang")


def install() -> UpstreamAliasFinder:
    """Makes ``tilelang`` resolve to this package in this process (idempotent).

    The provided modules are entered in ``sys.modules`` at once: had the import
    system loaded ``tilelang.jit`` through the finder, it would have set the module
    as the ``jit`` attribute of ``tilelang`` (this package), hiding the decorator."""
    for f in sys.meta_path:
        if isinstance(f, UpstreamAliasFinder):
            return f
    for alias, ours in PROVIDED.items():
        sys.modules[alias] = importlib.import_module(ours)
    finder = UpstreamAliasFinder()
    sys.meta_path.insert(0, finder)
    return finder


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m tilelang_backend.run SCRIPT.py [args...]\n\n" + __doc__.split("\n\n", 1)[1])
        return 0 if argv else 2
    for name in [m for m in sys.modules if m == "tilelang" or m.startswith("tilelang.")]:
        del sys.modules[name]  # an installed upstream tilelang must not answer for this run
    install()
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
