#!/bin/sh
# tlc's compiling commands end to end:
#   run --check (native, tcc), --bench, symbolic dims, the kernel cache across
#   invocations; build (a C program compiled against the header and linked with the
#   library); lower; source.
#   tlc_e2e.sh TLC SOURCE_DIR CC
set -u
tlc="$1"; src="$2"; cc="$3"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TILELANG_CACHE_DIR="$tmp/cache"
fail=0; n=0

# expect STATUS PATTERN ARGS...: tlc exits with STATUS and its stdout+stderr matches PATTERN.
expect() {
  status="$1"; pattern="$2"; shift 2
  n=$((n + 1))
  "$tlc" "$@" >"$tmp/out" 2>&1; got=$?
  if [ "$got" != "$status" ] || ! grep -q -- "$pattern" "$tmp/out"; then
    echo "FAIL: tlc $* (exit $got, expected $status; looking for '$pattern'):"; cat "$tmp/out"; fail=1
  fi
}

ex="$src/examples"
expect 0 "check C: ok (1000 elements" run "$ex/vector_add.py" --check --target c --execution-backend native
expect 0 "loaded from the kernel cache" run "$ex/vector_add.py" --check --target c --execution-backend native --dim N=77
expect 0 "check C: ok (77 elements" run "$ex/vector_add.py" --check --target c --execution-backend native --dim N=77
expect 0 "compiled in" run "$ex/vector_add.py" --check --no-cache --target c --execution-backend native
expect 0 "check Y: ok" run "$ex/softmax.py" --check --param M=20 --param N=33 --seed 7
expect 0 "bench: 5 calls, median" run "$ex/row_sum.py" --bench 5
if "$tlc" context --target c --execution-backend tcc >/dev/null 2>&1; then
  expect 0 "execution backend tcc" run "$ex/gemm.py" --check --target c --execution-backend tcc
fi
expect 0 "pass" run "$ex/vector_add.py" --time-passes --target c
expect 1 "the module has no function\|has no function 'nope'" run "$ex/vector_add.py" --func nope
expect 1 "Invalid execution backend 'nvrtc'" run "$ex/vector_add.py" --target c --execution-backend nvrtc
expect 2 "unknown option '--frobnicate'" run "$ex/vector_add.py" --frobnicate
expect 2 "--bench needs" run "$ex/vector_add.py" --bench 0
expect 2 "missing -o DIR" build "$ex/vector_add.py"

expect 0 "vector_add_kernel" lower "$ex/vector_add.py" --target c
expect 0 "vector_add_kernel" source "$ex/vector_add.py" --target c
expect 0 "int32_t vector_add(" source "$ex/vector_add.py" --target c --host
expect 1 "" lower "$ex/does_not_exist.py"

# Ahead of time: a C program against the exported header and library.
expect 0 "exported to" build "$ex/vector_add.py" -o "$tmp/aot" --target c --execution-backend native
for f in libvector_add.so vector_add.h vector_add_device.c vector_add_host.c vector_add.kernel_table.json; do
  n=$((n + 1))
  [ -f "$tmp/aot/$f" ] || { echo "FAIL: tlc build did not write $f"; fail=1; }
done
n=$((n + 1))
if "$cc" -std=c11 -Wall -Wextra -Werror -I"$tmp/aot" "$src/tests/e2e/aot_consumer.c" -L"$tmp/aot" -lvector_add \
    -Wl,-rpath,"$tmp/aot" -o "$tmp/consumer" >"$tmp/out" 2>&1; then
  if ! "$tmp/consumer" >"$tmp/out" 2>&1 || ! grep -q '^ok$' "$tmp/out"; then
    echo "FAIL: the AOT consumer:"; cat "$tmp/out"; fail=1
  fi
else
  echo "FAIL: compiling the AOT consumer:"; cat "$tmp/out"; fail=1
fi
expect 1 "does not produce a shared library" build "$ex/vector_add.py" -o "$tmp/aot2" --target c --execution-backend source

echo "$n checks"
exit $fail
