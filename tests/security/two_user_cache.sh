#!/bin/sh
# The kernel cache and plugins against a second local user (docs/engine.md,
# "Security"). Needs root: it creates a victim and an attacker with useradd, in one
# group, and runs tlc as each (runuser). Without root it exits 77 (skipped) saying so.
#
#   1. The victim's cache in a group scratch directory without the sticky bit, while
#      the attacker keeps renaming the victim's tree away and planting a tree whose
#      kernel.so runs a constructor: every run refuses the cache (a warning naming
#      the directory), computes the right result, and the constructor never runs.
#   2. TILELANG_CACHE_DIR naming a link the attacker planted in /tmp-like sticky
#      space: refused ("a symbolic link owned by another user").
#   3. The victim's cache in a sticky directory: used (the second run is a disk hit),
#      and the attacker cannot rename it.
#   4. A plugin in a world-writable directory: refused before it is opened.
set -u
tlc="$1"; src="$2"; plugin="$3"
if [ "$(id -u)" != 0 ]; then
  echo "two_user_cache: skipped: needs root (creates two users with useradd and runs tlc as each)"
  exit 77
fi
for tool in useradd userdel groupadd groupdel runuser; do
  if ! command -v "$tool" >/dev/null 2>&1; then echo "two_user_cache: skipped: no $tool"; exit 77; fi
done

tag=$$
group="tlg$tag"; victim="tlv$tag"; attacker="tla$tag"
work=$(mktemp -d /tmp/tl-two-user-XXXXXX)
chmod 755 "$work"
apid=""
cleanup() {
  if [ -n "$apid" ]; then touch "$work/stop"; wait "$apid" 2>/dev/null; fi
  userdel "$victim" 2>/dev/null; userdel "$attacker" 2>/dev/null; groupdel "$group" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
groupadd "$group"
useradd -M -N -g "$group" -d "$work" -s /bin/sh "$victim"
useradd -M -N -g "$group" -d "$work" -s /bin/sh "$attacker"
fail=0

# The kernel and tlc must be readable by both users.
cp "$src/examples/vector_add.py" "$work/kernel.py"
chmod 644 "$work/kernel.py"

as() { u="$1"; shift; runuser -u "$u" -- env HOME="$work" TMPDIR="$work/tmp-$u" "$@"; }
mkdir -p "$work/tmp-$victim" "$work/tmp-$attacker"
chown "$victim" "$work/tmp-$victim"; chown "$attacker" "$work/tmp-$attacker"
chmod 700 "$work/tmp-$victim" "$work/tmp-$attacker"

# The attacker's code: a constructor that leaves a mark.
mark="$work/PWNED"
cat >"$work/evil.c" <<EOF
#include <stdio.h>
__attribute__((constructor)) static void evil(void) { FILE *f = fopen("$mark", "w"); if (f) fclose(f); }
EOF
cc -shared -fPIC -o "$work/evil.so" "$work/evil.c"
chmod 755 "$work/evil.so"

run_victim() { # CACHE_DIR OUT ERR
  as "$victim" TILELANG_CACHE_DIR="$1" "$tlc" run "$work/kernel.py" --check >"$2" 2>"$3"
}

# ---- 1. a group scratch directory without the sticky bit
scratch="$work/group"
mkdir "$scratch"; chgrp "$group" "$scratch"; chmod 2775 "$scratch"
# The attacker's tree: its own cache for the same kernel, with kernel.so replaced.
as "$attacker" TILELANG_CACHE_DIR="$work/tmp-$attacker/cache" "$tlc" run "$work/kernel.py" >/dev/null 2>&1
as "$attacker" sh -c "cp -a '$work/tmp-$attacker/cache' '$scratch/evil' &&
  find '$scratch/evil' -name kernel.so -exec cp -f '$work/evil.so' {} \\;"
stop="$work/stop"
as "$attacker" sh -c "while [ ! -e '$stop' ]; do
  mv '$scratch/cache' '$scratch/stolen.\$\$' 2>/dev/null; cp -a '$scratch/evil' '$scratch/cache.new' 2>/dev/null &&
  mv -T '$scratch/cache.new' '$scratch/cache' 2>/dev/null; done" </dev/null >/dev/null 2>&1 &
apid=$!
i=0
while [ $i -lt 8 ]; do
  i=$((i + 1))
  if ! run_victim "$scratch/cache" "$work/out" "$work/err"; then
    echo "FAIL 1: victim run $i failed"; cat "$work/out" "$work/err"; fail=1; break
  fi
  if ! grep -q "check C: ok" "$work/out"; then echo "FAIL 1: run $i: no 'check C: ok'"; cat "$work/out"; fail=1; break; fi
  if ! grep -q "the kernel cache is not used there" "$work/err"; then
    echo "FAIL 1: run $i did not refuse the cache"; cat "$work/err"; fail=1; break
  fi
done
touch "$stop"; wait "$apid" 2>/dev/null; apid=""
grep -q "writable by group or others and not sticky" "$work/err" || { echo "FAIL 1: the warning does not say why"; cat "$work/err"; fail=1; }
[ -e "$mark" ] && { echo "FAIL 1: the attacker's constructor ran in the victim's process"; fail=1; }

# ---- 2. a root link planted by the attacker
sticky="$work/sticky"
mkdir "$sticky"; chmod 1777 "$sticky"
as "$attacker" sh -c "mkdir -m 700 '$sticky/attacker-dir' && ln -s '$sticky/attacker-dir' '$sticky/link'"
run_victim "$sticky/link" "$work/out" "$work/err" || { echo "FAIL 2: victim run failed"; cat "$work/err"; fail=1; }
grep -q "a symbolic link owned by another user" "$work/err" || { echo "FAIL 2: the planted link was not refused"; cat "$work/err"; fail=1; }

# ---- 3. a sticky directory: the cache is used and cannot be renamed by others
run_victim "$sticky/victim-cache" "$work/out" "$work/err" || { echo "FAIL 3: first run failed"; cat "$work/err"; fail=1; }
run_victim "$sticky/victim-cache" "$work/out" "$work/err" || { echo "FAIL 3: second run failed"; cat "$work/err"; fail=1; }
grep -q "loaded from the kernel cache" "$work/out" || { echo "FAIL 3: the second run was not a disk hit"; cat "$work/out" "$work/err"; fail=1; }
if as "$attacker" mv "$sticky/victim-cache" "$sticky/gone" 2>/dev/null; then echo "FAIL 3: the attacker renamed the victim's cache"; fail=1; fi

# ---- 4. a plugin in a world-writable directory
ww="$work/ww"
mkdir "$ww"; chmod 777 "$ww"
cp "$plugin" "$ww/libplugin.so"; chmod 755 "$ww/libplugin.so"
if as "$victim" TL_PLUGIN_PATH="$ww/libplugin.so" "$tlc" backends >"$work/out" 2>"$work/err"; then
  echo "FAIL 4: a plugin in a world-writable directory was loaded"; fail=1
fi
grep -q "writable by group or others and not sticky" "$work/err" || { echo "FAIL 4: the refusal does not say why"; cat "$work/err"; fail=1; }

[ -e "$mark" ] && { echo "FAIL: the attacker's constructor ran"; fail=1; }
[ $fail = 0 ] && echo "two_user_cache: ok"
exit $fail
