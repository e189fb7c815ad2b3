#!/bin/sh
# Kernels written as TileLang's users write them (tests/frontend/*.py, in the style
# of upstream's examples/ and testing/python/language/), each taken through every
# path: parsed and printed (against tests/golden/frontend/<name>.txt), checked, run
# on the CPU against the reference interpreter, and built for CUDA sm_90a through
# NVRTC (and nvcc where present; each skipped with a note when not available).
# A file's line `# tlc-args: ...` gives the arguments for all of them (--func,
# --param, --dim). Regenerate the goldens with scripts/regen-golden.sh frontend.
#   run.sh TLC SOURCE_DIR
set -u
tlc="$1"; src="$2"
dir="$src/tests/frontend"; golden="$src/tests/golden/frontend"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-frontend-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export TILELANG_CACHE_DIR="$tmp/cache"
cuda='{"kind":"cuda","arch":"sm_90a"}'
fail=0; n=0; skipped=""
"$tlc" backends >"$tmp/backends" 2>&1
have() { grep -q "^    $1 *available" "$tmp/backends"; }
for f in "$dir"/*.py; do
  name=$(basename "$f" .py)
  args=$(sed -n 's/^# tlc-args: //p' "$f" | head -n 1)
  n=$((n + 1))
  # shellcheck disable=SC2086
  if ! "$tlc" parse "$f" $args >"$tmp/ir" 2>"$tmp/err"; then
    echo "FAIL: tlc parse $name $args:"; cat "$tmp/err"; fail=1; continue
  fi
  if ! diff -u "$golden/$name.txt" "$tmp/ir"; then echo "FAIL: $name: the printed IR differs from tests/golden/frontend/$name.txt"; fail=1; fi
  # shellcheck disable=SC2086
  "$tlc" check "$f" $args >"$tmp/out" 2>&1 || { echo "FAIL: tlc check $name:"; cat "$tmp/out"; fail=1; }
  # shellcheck disable=SC2086
  if ! "$tlc" run "$f" $args --check --target c >"$tmp/out" 2>&1 || ! grep -q "^check .*: ok" "$tmp/out"; then
    echo "FAIL: tlc run --check --target c $name:"; cat "$tmp/out"; fail=1
  fi
  for eb in nvrtc nvcc; do
    if ! have "$eb"; then skipped="$skipped $name/$eb"; continue; fi
    # shellcheck disable=SC2086
    "$tlc" run "$f" $args --target "$cuda" --execution-backend "$eb" --no-cache >"$tmp/out" 2>&1
    if ! grep -q "execution backend $eb, compiled in" "$tmp/out"; then
      echo "FAIL: $name: building for sm_90a with $eb:"; cat "$tmp/out"; fail=1
    fi
  done
done
echo "$n kernels through parse, golden, check, CPU run --check and sm_90a builds"
[ -z "$skipped" ] || echo "not available here, skipped:$skipped"
exit $fail
