#!/bin/sh
# Installs the build into a scratch prefix and builds a small consumer program
# against it twice: through pkg-config and through CMake's find_package.
set -eu
src="$1"; build="$2"; cc="$3"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -n1 | xargs dirname)
test -x "$prefix/bin/tlc"
"$prefix/bin/tlc" --version
test -f "$prefix/include/tilelang/tilelang.h"

# The installed .pc first; a search path from the environment kept after it (where
# the dependencies' .pc files live outside the default path, as on the GPU machine).
pcpath="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

# pkg-config, shared library.
PKG_CONFIG_PATH="$pcpath" pkg-config --exists tilelang-backend
cflags=$(PKG_CONFIG_PATH="$pcpath" pkg-config --cflags tilelang-backend)
libs=$(PKG_CONFIG_PATH="$pcpath" pkg-config --libs tilelang-backend)
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $cflags "$src/tests/install/consumer/consumer.c" -o "$work/consumer-pc" $libs -Wl,-rpath,"$libdir"
"$work/consumer-pc"

# pkg-config, static library.
slibs=$(PKG_CONFIG_PATH="$pcpath" pkg-config --static --libs tilelang-backend | sed "s|-ltilelang-backend|$libdir/libtilelang-backend.a|")
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $cflags "$src/tests/install/consumer/consumer.c" -o "$work/consumer-static" $slibs
"$work/consumer-static"

# CMake package config.
mkdir -p "$work/cmake-src" "$work/cmake-build"
cp "$src/tests/install/consumer/consumer.c" "$src/tests/install/consumer/CMakeLists.txt" "$work/cmake-src/"
cmake -S "$work/cmake-src" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
"$work/cmake-build/consumer"
# An installed library never searches its build tree for plugins: with the
# installed opencl plugin removed, the build tree's (still there) is not used.
plug="$libdir/tilelang/plugins/libtilelang-opencl.so"
if [ -f "$plug" ] && [ -f "$build/lib/tilelang/plugins/libtilelang-opencl.so" ]; then
  rm -f "$plug"
  "$prefix/bin/tlc" backends >"$work/backends.txt" 2>&1 || true
  if grep -A3 '^opencl' "$work/backends.txt" | grep -q 'opencl *available'; then
    echo "the installed tlc loaded the build tree's opencl plugin"; cat "$work/backends.txt"; exit 1
  fi
fi
echo "install consumer: ok"
