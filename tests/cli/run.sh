#!/bin/sh
# Command-line behaviour of tlc: each case in cases.txt is
#   EXPECTED_STATUS | STREAM-TO-GREP (stdout|stderr|-) | PATTERN | ARGS...
# and passes when tlc exits with the status and the stream contains the pattern.
set -u
tlc="$1"; dir="$2"
fail=0; n=0
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
while IFS='|' read -r status stream pattern args; do
  case "$status" in ''|'#'*) continue;; esac
  status=$(echo "$status" | tr -d ' '); stream=$(echo "$stream" | tr -d ' ')
  pattern=$(echo "$pattern" | sed 's/^ *//; s/ *$//')
  n=$((n + 1))
  # shellcheck disable=SC2086
  eval "set -- $args"
  "$tlc" "$@" >"$out" 2>"$err"; got=$?
  if [ "$got" != "$status" ]; then
    echo "FAIL: tlc $args: exit $got, expected $status"; cat "$err"; fail=1; continue
  fi
  case "$stream" in
    stdout) f="$out";; stderr) f="$err";; *) f="";;
  esac
  if [ -n "$f" ] && ! grep -q -- "$pattern" "$f"; then
    echo "FAIL: tlc $args: $stream lacks '$pattern'"; cat "$f"; fail=1
  fi
done <"$dir/cases.txt"
echo "$n cases"
exit $fail
