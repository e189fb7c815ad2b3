#!/bin/sh
# What the kernel cache key covers, process by process (docs/engine.md, "Key"):
# a new process hits the entry another one wrote, running no compiler (a
# compiler that fails every run proves it); every word of $CC separates entries;
# so do the CPU features -march=native resolves to; an unwritable TMPDIR does not
# change the key.
set -u
tlc="$1"; src="$2"; cc="$3"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
export TILELANG_CACHE_DIR="$work/cache"
kernel="$src/examples/vector_add.py"

# run EXPECT ENV... : tlc run with the environment; EXPECT is compiled or loaded.
run() {
  expect="$1"; shift
  if ! env "$@" "$tlc" run "$kernel" --check >"$work/out" 2>"$work/err"; then
    echo "FAIL: $*: tlc run failed"; cat "$work/out" "$work/err"; fail=1; return
  fi
  case "$expect" in
    compiled) pat=", compiled in" ;;
    loaded) pat="loaded from the kernel cache" ;;
  esac
  if ! grep -q "$pat" "$work/out"; then echo "FAIL: $*: expected $expect"; cat "$work/out" "$work/err"; fail=1; fi
}

# A compiler wrapper whose -march=native expansion is chosen by FAKE_CPU.
cat >"$work/fakecc" <<EOS
#!/bin/sh
for a in "\$@"; do
  if [ "\$a" = "-###" ]; then echo "\"cc1\" \"-march=\${FAKE_CPU:-one}\" \"-mfake\"" >&2; exit 0; fi
done
exec "$cc" "\$@"
EOS
chmod 755 "$work/fakecc"
# A compiler that counts its runs.
cat >"$work/countcc" <<EOS
#!/bin/sh
echo run >>"$work/count"
exec "$cc" "\$@"
EOS
chmod 755 "$work/countcc"

run compiled CC="$work/countcc"
: >"$work/count"
run loaded CC="$work/countcc"
[ -s "$work/count" ] && { echo "FAIL: a disk hit in a new process ran the compiler $(wc -l <"$work/count") times"; fail=1; }

# Every word of CC.
run compiled CC="$work/countcc -DTL_KEY_TEST=1"
run loaded CC="$work/countcc -DTL_KEY_TEST=1"
run loaded CC="$work/countcc"

# An unwritable TMPDIR neither fails nor changes the key (the memo answers, and a
# probe falls back to /tmp).
run loaded CC="$work/countcc" TMPDIR=/nonexistent/tmp
rm -rf "$TILELANG_CACHE_DIR"/*/compilers
run loaded CC="$work/countcc" TMPDIR=/nonexistent/tmp

# The CPU -march=native means (the memo of the compiler is removed between runs,
# as on another machine).
run compiled CC="$work/fakecc" FAKE_CPU=one
rm -rf "$TILELANG_CACHE_DIR"/*/compilers
run compiled CC="$work/fakecc" FAKE_CPU=two
rm -rf "$TILELANG_CACHE_DIR"/*/compilers
run loaded CC="$work/fakecc" FAKE_CPU=one

[ $fail = 0 ] && echo "cache key: ok"
exit $fail
