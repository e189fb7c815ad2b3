#!/bin/sh
# Generated C for two examples, device and host, against tests/golden/codegen/
# (regenerate with scripts/regen-golden.sh codegen_examples and review the diff).
#   golden_codegen.sh TLC SOURCE_DIR
set -u
tlc="$1"; src="$2"
golden="$src/tests/golden/codegen"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0; n=0
for ex in vector_add gemm; do
  for part in device host; do
    flag=""; [ "$part" = host ] && flag="--host"
    n=$((n + 1))
    # shellcheck disable=SC2086
    if ! "$tlc" source "$src/examples/$ex.py" --target c --execution-backend native $flag >"$out"; then
      echo "FAIL: tlc source $ex $flag"; fail=1; continue
    fi
    if ! diff -u "$golden/$ex.$part.c" "$out"; then
      echo "FAIL: $ex $part source differs from tests/golden/codegen/$ex.$part.c"; fail=1
    fi
  done
done
echo "$n golden sources compared"
exit $fail
