#!/bin/sh
# The Python virtual environment that checks generated WGSL: wgpu (wgpu-py, which
# bundles wgpu-native and with it naga, the WGSL front end and validator of
# Firefox's WebGPU). Debian has no WGSL validator, so this one comes from PyPI into
# a venv of the project's own; it runs on Mesa's lavapipe Vulkan driver (Debian's
# mesa-vulkan-drivers, installed by setup-deps.sh). Used by tests/tools/check_wgsl.sh.
#   TL_WGPU_VENV   where the venv lives (default ~/.cache/tilelang-backend/wgpu-venv)
# Does nothing when the venv already has the pinned wgpu.
set -eu
VENV=${TL_WGPU_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tilelang-backend/wgpu-venv}
WGPU_VERSION=0.32.0
if [ -x "$VENV/bin/python" ] &&
   [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("wgpu"))' 2>/dev/null)" = "$WGPU_VERSION" ]; then
  echo "setup-wgpu: $VENV has wgpu $WGPU_VERSION"
  exit 0
fi
mkdir -p "$(dirname "$VENV")"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "wgpu==$WGPU_VERSION"
echo "setup-wgpu: installed wgpu $WGPU_VERSION into $VENV"
