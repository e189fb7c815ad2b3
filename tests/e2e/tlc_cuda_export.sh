#!/bin/sh
# tlc build --target cuda --execution-backend nvcc, and a C program compiled and
# linked against the exported directory only (no project header, no CUDA header,
# no -lcuda): tests/e2e/cuda_aot_consumer.c. Without a GPU the program checks the
# argument checks and the "no driver" message; with one it runs the kernel.
# Exit 77 (skipped) when nvcc is not available.
# usage: tlc_cuda_export.sh TLC SOURCE_DIR CC
tlc=$1 src=$2 cc=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-cuda-export-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
target='{"kind":"cuda","arch":"sm_90a"}'
if ! "$tlc" backends >"$tmp/backends" 2>&1; then echo "FAIL: tlc backends"; cat "$tmp/backends"; exit 1; fi
if ! "$tlc" build "$src/examples/vector_add.py" -o "$tmp/aot" --target "$target" --execution-backend nvcc \
    >"$tmp/out" 2>&1; then
  if grep -q "requires extra dependencies and is not available" "$tmp/out"; then
    echo "SKIP: execution backend nvcc is not available here:"; cat "$tmp/out"; exit 77
  fi
  echo "FAIL: tlc build:"; cat "$tmp/out"; exit 1
fi
fail=0
for f in libvector_add.so vector_add.h vector_add.cubin vector_add_device.cu vector_add_host.c \
    vector_add.kernel_table.json; do
  [ -s "$tmp/aot/$f" ] || { echo "FAIL: tlc build did not write $f"; fail=1; }
done
head -c 4 "$tmp/aot/vector_add.cubin" | od -An -c | grep -q 'E   L   F' || { echo "FAIL: vector_add.cubin is not an ELF image"; fail=1; }
grep -q "CUDA device memory" "$tmp/aot/vector_add.h" || { echo "FAIL: the header does not say where tensors live"; fail=1; }
# only the exported directory: -I and -L point there and nowhere else
if "$cc" -std=c11 -Wall -Wextra -Werror -I"$tmp/aot" "$src/tests/e2e/cuda_aot_consumer.c" -L"$tmp/aot" \
    -lvector_add -Wl,-rpath,"$tmp/aot" -ldl -o "$tmp/consumer" >"$tmp/out" 2>&1; then
  if ! "$tmp/consumer" >"$tmp/out" 2>&1 || ! grep -q '^ok$' "$tmp/out"; then
    echo "FAIL: the CUDA AOT consumer:"; cat "$tmp/out"; fail=1
  else
    cat "$tmp/out"
  fi
else
  echo "FAIL: compiling the CUDA AOT consumer against the export:"; cat "$tmp/out"; fail=1
fi
# the library needs nothing of this project at run time
if ldd "$tmp/aot/libvector_add.so" | grep -q tilelang; then echo "FAIL: libvector_add.so links the project"; fail=1; fi
exit $fail
