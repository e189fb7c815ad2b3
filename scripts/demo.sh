#!/bin/sh
# The main job: tlc on this machine. Later stages extend this to compiling and
# running the example kernels.
set -eu
tlc="$1"
run() { echo "\$ tlc $*"; "$tlc" "$@"; echo; }
run --version
run --help
run target --determine auto
run target --pretty nvidia/nvidia-h100
