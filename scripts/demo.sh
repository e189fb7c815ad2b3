#!/bin/sh
# The main job (make demo, after make has built everything): every example kernel
# compiled with tl_compile for the default target (auto: TILELANG_DEFAULT_TARGET,
# else a detected GPU, else c), run on seeded random inputs and checked element by
# element against the reference interpreter. Builds nothing itself.
#   scripts/demo.sh [TLC]          (default: build/bin/tlc)
# Exits nonzero if any example fails to compile, run or match.
set -u
cd "$(dirname "$0")/.."
tlc=${1:-build/bin/tlc}
if [ ! -x "$tlc" ]; then
  echo "demo: $tlc is not built (run 'make demo')" >&2
  exit 2
fi

run() { echo "\$ tlc $*"; "$tlc" "$@"; }

run --version || exit 1
echo
run backends || exit 1
echo

passed=0
failed=""
for f in examples/*.py; do
  name=$(basename "$f" .py)
  # A file with several kernels (flash_decoding.py: split and combine) runs each one.
  funcs=$("$tlc" parse "$f" | sed -n 's/^def \([A-Za-z_0-9]*\)(.*/\1/p')
  ok=1
  if [ "$(echo "$funcs" | wc -l)" -gt 1 ]; then
    for fn in $funcs; do
      run run "$f" --func "$fn" --check || ok=0
      echo
    done
  else
    run run "$f" --check || ok=0
    echo
  fi
  if [ $ok = 1 ]; then
    passed=$((passed + 1))
  else
    failed="$failed $name"
  fi
done

total=$(ls examples/*.py | wc -l)
echo "== demo summary: $passed of $total examples compiled, ran and matched the interpreter =="
if [ -n "$failed" ]; then
  echo "failed:$failed"
  exit 1
fi
