#!/bin/sh
# Checks HIP device code with clang's HIP front end and AMDGPU back end: each file
# is compiled to gfx90a (wave64) and gfx1030 (wave32; clang 14 predates gfx11) assembly against the stub
# headers in hip-stub/ (ROCm's names and signatures, not ROCm's headers; nothing is
# linked). Usage: check_hip.sh CLANG FILE... Exit 77 (a skip) without clang.
set -u
here=$(cd "$(dirname "$0")" && pwd)
clang=$1; shift
if ! command -v "$clang" >/dev/null 2>&1; then
  echo "skipped: no clang ($clang)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
for f in "$@"; do
  for arch in gfx90a gfx1030; do
    if "$clang" -x hip --cuda-gpu-arch=$arch -nogpulib -nogpuinc --cuda-device-only -S -Werror -Wno-unused-function \
         -I"$here/hip-stub" -o "$out/k.s" "$f" 2>"$out/err"; then
      echo "ok $f ($arch: $(grep -c '^[[:space:]]*[sv]_' "$out/k.s") instructions)"
    else
      echo "FAIL $f ($arch):"; cat "$out/err"; fail=1
    fi
  done
done
exit $fail
