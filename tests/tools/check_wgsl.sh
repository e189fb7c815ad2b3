#!/bin/sh
# Checks WGSL files with naga through wgpu-py (validate_wgsl.py) in the venv made by
# scripts/setup-wgpu.sh. Exit 77 (a skip) when the venv is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
VENV=${TL_WGPU_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/tilelang-backend/wgpu-venv}
if [ ! -x "$VENV/bin/python" ]; then
  echo "skipped: no wgpu venv at $VENV (scripts/setup-wgpu.sh makes it; it needs PyPI)"
  exit 77
fi
# wgpu-native complains about a missing XDG_RUNTIME_DIR; it does not need one.
XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)} exec "$VENV/bin/python" "$here/validate_wgsl.py" "$@"
