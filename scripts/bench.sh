#!/bin/sh
# Runs every benchmark binary built under BUILD/bench and prints their reports.
set -eu
build="$1"
found=0
for b in "$build"/bin/bench_*; do
  [ -x "$b" ] || continue
  found=1
  echo "== $(basename "$b") =="
  "$b"
  echo
done
[ "$found" = 1 ] || echo "no benchmarks built yet"
