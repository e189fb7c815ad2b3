#!/bin/sh
# Runs every benchmark binary built under BUILD/bench and prints their reports.
# bench_cpu_kernels compares with NumPy: TL_BENCH_PYTHON names an interpreter with
# NumPy; when unset, a virtual environment BUILD/bench-venv gets NumPy from PyPI
# (pip), once. Without python3 -m venv or network, that benchmark prints ours only.
set -eu
build="$1"
if [ -z "${TL_BENCH_PYTHON:-}" ]; then
  venv="$build/bench-venv"
  if ! "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
    echo "== setting up NumPy for bench_cpu_kernels in $venv (python3 -m venv, pip install numpy) =="
    if python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q numpy; then :; else
      echo "could not install NumPy; bench_cpu_kernels runs without it"
    fi
  fi
  if "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
    TL_BENCH_PYTHON="$(cd "$venv" && pwd)/bin/python"
    export TL_BENCH_PYTHON
  fi
fi
found=0
for b in "$build"/bin/bench_*; do
  [ -x "$b" ] || continue
  found=1
  echo "== $(basename "$b") =="
  "$b"
  echo
done
[ "$found" = 1 ] || echo "no benchmarks built yet"
