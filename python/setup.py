"""Builds tilelang_backend._C (python/src/*.c) against an installed tilelang-backend.

The C library is found, in this order:
  TILELANG_BACKEND_PREFIX=<prefix>   an install prefix (`make install PREFIX=<prefix>`):
                                     <prefix>/include and <prefix>/lib (or lib64, lib/<multiarch>)
  pkg-config tilelang-backend        (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a non-standard prefix)
The extension records the library's directory as its run path, so no LD_LIBRARY_PATH
is needed afterwards. `make install` installs the package itself; this file serves
`pip install ./python` (for a virtual environment).
"""

import glob
import os
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def from_prefix(prefix):
    include = os.path.join(prefix, "include")
    if not os.path.exists(os.path.join(include, "tilelang", "tilelang.h")):
        raise SystemExit(f"TILELANG_BACKEND_PREFIX={prefix}: no include/tilelang/tilelang.h there")
    for sub in ("lib", "lib64", *glob.glob(os.path.join(prefix, "lib", "*-linux-gnu"))):
        libdir = os.path.join(prefix, sub)
        if glob.glob(os.path.join(libdir, "libtilelang-backend.so*")):
            return [include], [libdir], []
    raise SystemExit(f"TILELANG_BACKEND_PREFIX={prefix}: no libtilelang-backend.so under lib/")


def from_pkg_config():
    try:
        cflags = subprocess.check_output(["pkg-config", "--cflags", "tilelang-backend"], text=True)
        libs = subprocess.check_output(["pkg-config", "--libs-only-L", "tilelang-backend"], text=True)
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit(
            "tilelang-backend not found: install the C library (`make install PREFIX=...`) and set "
            "TILELANG_BACKEND_PREFIX to that prefix, or make `pkg-config tilelang-backend` find it"
        )
    includes = [f[2:] for f in shlex.split(cflags) if f.startswith("-I")]
    libdirs = [f[2:] for f in shlex.split(libs) if f.startswith("-L")]
    return includes, libdirs, []


prefix = os.environ.get("TILELANG_BACKEND_PREFIX")
include_dirs, library_dirs, _ = from_prefix(prefix) if prefix else from_pkg_config()

sources = sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "src", "*.c")))

setup(
    ext_modules=[
        Extension(
            "tilelang_backend._C",
            sources=sources,
            include_dirs=[os.path.join(HERE, "src"), *include_dirs],
            library_dirs=library_dirs,
            runtime_library_dirs=library_dirs,
            libraries=["tilelang-backend"],
            extra_compile_args=["-std=c11", "-fvisibility=hidden"],
        )
    ],
)
