#!/bin/sh
# Installs the Debian packages the build and tests need, if any are missing.
# Does nothing when all are present. Without root (or password-less sudo) or
# without apt-get, it prints the command to run and exits 1.
set -eu

PACKAGES="
cmake make gcc pkg-config
libjansson-dev libcmocka-dev libxxhash-dev libdlpack-dev
libtcc-dev tcc
clang libclang-rt-14-dev
opencl-headers ocl-icd-libopencl1 ocl-icd-opencl-dev pocl-opencl-icd
python3-dev python3-numpy python3-pytest
"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "setup-deps: all build dependencies are present"
  exit 0
fi

echo "setup-deps: missing:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-deps: apt-get is not available; install these packages (Debian names):$missing" >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo -n"
else
  echo "setup-deps: not root and no password-less sudo; run as root:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
echo "setup-deps: installed:$missing"
