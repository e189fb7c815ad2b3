#!/bin/sh
# `cmake --install` into a fresh prefix, then import the installed package with the
# build's interpreter and use it: the extension must find the installed library
# through its run path alone (no PYTHONPATH into the build tree, no LD_LIBRARY_PATH).
# Usage: install.sh BUILD_DIR PYTHON SITE_PACKAGES_RELATIVE_DIR
set -eu
build="$1"
python="$2"
site="$3"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cd "$prefix"
env -u PYTHONPATH -u LD_LIBRARY_PATH PYTHONPATH="$prefix/$site" "$python" - "$prefix/$site" <<'PY'
import sys
import tilelang_backend as tb
assert tb.__file__.startswith(sys.argv[1]), tb.__file__
assert tb.Target("nvidia/nvidia-h100").attrs["arch"] == "sm_90a"
try:
    tb.get_backend("nope")
except ValueError as e:
    assert str(e).startswith("Unknown backend 'nope'"), e
print("installed package: ok")
PY
