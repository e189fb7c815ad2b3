#!/bin/sh
# Fetches (here, where Debian's registry is reachable) the packages the build needs
# on the GPU machine, into .carry/debs (ignored by git; named in the device tool's
# `carry`). tests/device/env.sh unpacks them there.
set -eu
cd "$(dirname "$0")/.."
mkdir -p .carry/debs
cd .carry/debs
apt-get download libjansson-dev libjansson4 libcmocka-dev libcmocka0 libxxhash-dev libxxhash0 \
  libdlpack-dev libtcc-dev tcc python3-pytest python3-pluggy python3-iniconfig python3-packaging 2>/dev/null
ls
