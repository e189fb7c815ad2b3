#!/bin/sh
# Checks Metal Shading Language with clang's C++14 front end against the stub
# <metal_stdlib> in metal-stub/ (no Metal compiler exists on Linux; the stub erases
# address-space qualifiers, so this covers syntax, names, types and conversions).
# Usage: check_metal.sh CLANGXX FILE... Exit 77 (a skip) without clang++.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cxx=$1; shift
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "skipped: no clang++ ($cxx)"
  exit 77
fi
fail=0
for f in "$@"; do
  if "$cxx" -x c++ -std=c++14 -fsyntax-only -Wall -Werror -Wno-unknown-attributes -Wno-unused-function \
       -I"$here/metal-stub" "$f"; then
    echo "ok $f"
  else
    echo "FAIL $f"; fail=1
  fi
done
exit $fail
