#!/bin/sh
# Runs one fuzz target: run.sh BINARY FUZZ_DIR NAME OUT_DIR [libFuzzer options...]
# Seeds come from FUZZ_DIR/corpus/NAME (read only); inputs the run finds go to a
# fresh OUT_DIR, so every run starts from the same seeds. FUZZ_DIR/fuzz_NAME.dict
# is used when present. A fixed -seed keeps ctest runs reproducible.
set -eu
bin=$1 dir=$2 name=$3 out=$4
shift 4
rm -rf "$out"
mkdir -p "$out"
dict=""
[ -f "$dir/fuzz_$name.dict" ] && dict="-dict=$dir/fuzz_$name.dict"
# Crashing inputs are kept next to OUT_DIR (which the next run wipes).
# shellcheck disable=SC2086
exec "$bin" -seed=1 -max_len=4096 -timeout=10 -artifact_prefix="$(dirname "$out")/$name-" $dict "$@" "$out" \
  "$dir/corpus/$name"
