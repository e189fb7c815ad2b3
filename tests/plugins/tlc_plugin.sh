#!/bin/sh
# tlc with a backend plugin from TL_PLUGIN_PATH (the test plugin libtlp_good.so):
# `tlc backends` lists it, `tlc context` resolves it (text and JSON), and a broken
# plugin path fails with the loader's reason.
set -u
tlc="$1"; plugin="$2"
fail=0
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# expect STATUS STREAM PATTERN -- ARGS...   (runs tlc with $TL_PLUGIN_PATH as set)
expect() {
  status="$1"; stream="$2"; pattern="$3"; shift 4
  "$tlc" "$@" >"$out" 2>"$err"; got=$?
  if [ "$got" != "$status" ]; then
    echo "FAIL: TL_PLUGIN_PATH=$TL_PLUGIN_PATH tlc $*: exit $got, expected $status"; cat "$out" "$err"; fail=1; return
  fi
  if [ "$stream" = stdout ]; then f="$out"; else f="$err"; fi
  if ! grep -q -- "$pattern" "$f"; then
    echo "FAIL: tlc $*: $stream lacks '$pattern'"; cat "$f"; fail=1
  fi
}

TL_PLUGIN_PATH="$plugin"; export TL_PLUGIN_PATH
expect 0 stdout '^tlp_good$' -- backends
expect 0 stdout 'target kinds: nvptx (with a target predicate)' -- backends
expect 0 stdout 'tlp_source *available' -- backends
expect 0 stdout '"name": "tlp_source"' -- backends --json
expect 0 stdout '^backend: *tlp_good$' -- context --target '{"kind":"nvptx","model":"tlp_good"}'
expect 0 stdout 'execution backend: tlp_source (host codegen: yes, device compile: no)' -- context --target '{"kind":"nvptx","model":"tlp_good"}'
expect 0 stdout '"backend": "tlp_good"' -- context --target '{"kind":"nvptx","model":"tlp_good"}' --json
expect 0 stdout '"kind": "llvm"' -- context --target '{"kind":"nvptx","model":"tlp_good"}' --target-host llvm --json
expect 1 stderr 'tlc: No backend matches target {"kind":"nvptx"' -- context --target nvptx
expect 1 stderr "Invalid execution backend 'bogus' for target 'nvptx'. Allowed: tlp_source. Tip: use execution_backend='auto'." -- context --target '{"kind":"nvptx","model":"tlp_good"}' --execution-backend bogus

TL_PLUGIN_PATH="$plugin.missing"; export TL_PLUGIN_PATH
expect 1 stderr "tlc: while loading TL_PLUGIN_PATH: Cannot load plugin '$plugin.missing'" -- backends
expect 1 stderr "Cannot load plugin '$plugin.missing'" -- context --target nvptx
[ "$fail" = 0 ] && echo "tlc with a plugin: ok"
exit $fail
