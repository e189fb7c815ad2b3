#!/bin/sh
# Regenerates golden files from the current build, one area at a time:
#   scripts/regen-golden.sh [AREA...]     (no AREA: every area)
# Areas: target, ir, parse_errors, codegen_examples, gpu_lowered, gpu_codegen, cuda, layouts.
# An area is a regen_<area> function below; add yours next to it.
# Uses the tlc of $BUILD (default: build), building it first. Review the diff
# (git diff tests/golden) before committing.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
AREAS="target ir parse_errors codegen_examples gpu_lowered gpu_codegen cuda layouts"

tlc() { "$BUILD/bin/tlc" "$@"; }

ensure_built() {
  [ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" --target tlc >/dev/null
}

# tests/golden/target/targets.golden: "== SPEC" lines, each followed by the text
# of `tlc target SPEC`; the host's llvm triple becomes @HOST_TRIPLE@.
regen_target() {
  f=tests/golden/target/targets.golden
  triple=$(tlc target llvm | sed -n 's/.*"mtriple":"\([^"]*\)".*/\1/p')
  tmp=$(mktemp)
  awk '/^== /{exit} {print}' "$f" >"$tmp"
  grep '^== ' "$f" | sed 's/^== //' | while IFS= read -r spec; do
    printf '== %s\n' "$spec" >>"$tmp"
    tlc target -- "$spec" | sed "s|\"mtriple\":\"$triple\"|\"mtriple\":\"@HOST_TRIPLE@\"|g" >>"$tmp"
  done
  mv "$tmp" "$f"
  echo "regenerated $f ($(grep -c '^== ' "$f") entries)"
}

# tests/golden/ir/<example>.txt: `tlc parse examples/<example>.py` (default constants).
regen_ir() {
  mkdir -p tests/golden/ir
  rm -f tests/golden/ir/*.txt
  n=0
  for f in examples/*.py; do
    name=$(basename "$f" .py)
    tlc parse "$f" >"tests/golden/ir/$name.txt"
    n=$((n + 1))
  done
  echo "regenerated tests/golden/ir ($n examples)"
}

# tests/golden/parse_errors/<case>.err: the error of parsing <case>.py, as the
# library reports it (file name as given, without tlc's "tlc: " prefix).
regen_parse_errors() {
  dir=tests/golden/parse_errors
  tlc_abs=$(cd "$BUILD/bin" && pwd)/tlc
  n=0
  for f in "$dir"/*.py; do
    name=$(basename "$f" .py)
    if (cd "$dir" && "$tlc_abs" parse "$name.py" >/dev/null 2>"$name.err.tmp"); then
      rm -f "$dir/$name.err.tmp"
      echo "regen-golden: $f parses without error" >&2
      exit 1
    fi
    sed '1s/^tlc: //' "$dir/$name.err.tmp" >"$dir/$name.err"
    rm -f "$dir/$name.err.tmp"
    n=$((n + 1))
  done
  echo "regenerated $dir ($n cases)"
}

# tests/golden/codegen/<example>.<device|host>.c: `tlc source` of two examples for
# target c with the native execution backend (device source, and --host).
regen_codegen_examples() {
  d=tests/golden/codegen
  mkdir -p "$d"
  for ex in vector_add gemm; do
    tlc source "examples/$ex.py" --target c --execution-backend native >"$d/$ex.device.c"
    tlc source "examples/$ex.py" --target c --execution-backend native --host >"$d/$ex.host.c"
  done
  echo "regenerated $d/{vector_add,gemm}.{device,host}.c"
}

# tests/golden/gpu_lowered/<example>.txt: examples lowered by the shared GPU
# passes for {"kind":"cuda","arch":"sm_90"}, printed (test_gpu_lower writes them).
regen_gpu_lowered() {
  cmake --build "$BUILD" --target test_gpu_lower >/dev/null
  mkdir -p tests/golden/gpu_lowered
  TL_REGEN_GOLDEN=1 "$BUILD/bin/test_gpu_lower" >/dev/null 2>&1 || echo "regen-golden: test_gpu_lower failed (the files were still written)" >&2
  echo "regenerated tests/golden/gpu_lowered ($(ls tests/golden/gpu_lowered | wc -l) files)"
}

# tests/golden/{hip,metal,wgsl}/<example>.<ext>: the device code of every example
# (default constants) for hip (gfx90a), metal and webgpu (test_codegen_gpu writes them).
regen_gpu_codegen() {
  cmake --build "$BUILD" --target test_codegen_gpu >/dev/null
  mkdir -p tests/golden/hip tests/golden/metal tests/golden/wgsl
  TL_REGEN_GOLDEN=1 "$BUILD/bin/test_codegen_gpu" >/dev/null 2>&1 || echo "regen-golden: test_codegen_gpu failed (the files were still written)" >&2
  echo "regenerated tests/golden/{hip,metal,wgsl} ($(ls tests/golden/hip tests/golden/metal tests/golden/wgsl | grep -c '\.') files)"
}

# tests/golden/cuda/*.cu (the CUDA of three examples) and tests/golden/cuda_resources.txt
# (ptxas' registers, spills, stack and shared memory of every example's kernels,
# compiled by NVRTC for sm_90a; the file names the NVRTC that made it): written by
# test_codegen_cuda. Without NVRTC only the .cu files are written.
regen_cuda() {
  cmake --build "$BUILD" --target test_codegen_cuda >/dev/null
  mkdir -p tests/golden/cuda
  TL_REGEN_GOLDEN=1 "$BUILD/bin/test_codegen_cuda" >/dev/null 2>&1 || echo "regen-golden: test_codegen_cuda failed (the files were still written)" >&2
  echo "regenerated tests/golden/cuda ($(ls tests/golden/cuda | wc -l) files) and tests/golden/cuda_resources.txt"
}

# tests/golden/layouts/layouts.txt: printed fragment and shared layouts (test_layout_print writes it).
regen_layouts() {
  cmake --build "$BUILD" --target test_layout_print >/dev/null
  mkdir -p tests/golden/layouts
  TL_REGEN_GOLDEN=1 "$BUILD/bin/test_layout_print" >/dev/null 2>&1 || echo "regen-golden: test_layout_print failed (the file was still written)" >&2
  echo "regenerated tests/golden/layouts/layouts.txt ($(grep -c '^== ' tests/golden/layouts/layouts.txt) layouts)"
}

ensure_built
[ $# -gt 0 ] || set -- $AREAS
for area in "$@"; do
  case " $AREAS " in
    *" $area "*) "regen_$area" ;;
    *) echo "regen-golden: unknown area '$area' (known: $AREAS)" >&2; exit 2 ;;
  esac
done
