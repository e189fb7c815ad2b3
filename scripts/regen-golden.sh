#!/bin/sh
# Regenerates golden files from the current build, one area at a time:
#   scripts/regen-golden.sh [AREA...]     (no AREA: every area)
# Areas: target. An area is a regen_<area> function below; add yours next to it.
# Uses the tlc of $BUILD (default: build), building it first. Review the diff
# (git diff tests/golden) before committing.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
AREAS="target"

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

ensure_built
[ $# -gt 0 ] || set -- $AREAS
for area in "$@"; do
  case " $AREAS " in
    *" $area "*) "regen_$area" ;;
    *) echo "regen-golden: unknown area '$area' (known: $AREAS)" >&2; exit 2 ;;
  esac
done
