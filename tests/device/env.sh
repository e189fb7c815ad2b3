# Sourced on the GPU machine (which reaches no package registry): unpacks the
# Debian packages carried in .carry/debs (fetched on the development machine with
# `scripts/fetch-device-debs.sh`) into a private prefix and points the build at it.
# Nothing is unpacked into /.
TL_DEVICE_ROOT=${TL_DEVICE_ROOT:-/opt/tl-deps}
if [ -d .carry/debs ]; then
  mkdir -p "$TL_DEVICE_ROOT"
  for f in .carry/debs/*.deb; do dpkg -x "$f" "$TL_DEVICE_ROOT"; done
fi
export PKG_CONFIG_SYSROOT_DIR="$TL_DEVICE_ROOT"
export PKG_CONFIG_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$TL_DEVICE_ROOT/usr/share/pkgconfig"
export CMAKE_PREFIX_PATH="$TL_DEVICE_ROOT/usr"
export CPATH="$TL_DEVICE_ROOT/usr/include${CPATH:+:$CPATH}"
export LIBRARY_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TL_TCC_LIB_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu/tcc"
