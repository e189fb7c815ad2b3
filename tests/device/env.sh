# Sourced on the GPU machine (which reaches no package registry): unpacks the
# Debian packages carried in .carry/debs (fetched on the development machine with
# `scripts/fetch-device-debs.sh`) into a private prefix and points the build at it.
# Nothing is unpacked into /.
TL_DEVICE_ROOT=${TL_DEVICE_ROOT:-/opt/tl-deps}
if [ -d .carry/debs ]; then
  mkdir -p "$TL_DEVICE_ROOT"
  for f in .carry/debs/*.deb; do dpkg -x "$f" "$TL_DEVICE_ROOT"; done
  # The packages' pkg-config files name /usr: pointed at the private prefix (rather
  # than PKG_CONFIG_SYSROOT_DIR, which would also rewrite the paths of the project's
  # own installed .pc in the install test).
  for pc in "$TL_DEVICE_ROOT"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc "$TL_DEVICE_ROOT"/usr/share/pkgconfig/*.pc; do
    [ -f "$pc" ] && sed -i -e "s|^prefix=/usr\$|prefix=$TL_DEVICE_ROOT/usr|" \
      -e "s|-L/usr/|-L$TL_DEVICE_ROOT/usr/|g" -e "s|-I/usr/|-I$TL_DEVICE_ROOT/usr/|g" "$pc"
  done
fi
export PKG_CONFIG_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu/pkgconfig:$TL_DEVICE_ROOT/usr/share/pkgconfig"
export CMAKE_PREFIX_PATH="$TL_DEVICE_ROOT/usr"
export CPATH="$TL_DEVICE_ROOT/usr/include${CPATH:+:$CPATH}"
export LIBRARY_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}"
export LD_LIBRARY_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TL_TCC_LIB_PATH="$TL_DEVICE_ROOT/usr/lib/x86_64-linux-gnu/tcc"
# pytest (python3-pytest and what it needs, carried likewise) where the machine's
# interpreter has none.
if ! python3 -c 'import pytest' 2>/dev/null && [ -d "$TL_DEVICE_ROOT/usr/lib/python3/dist-packages" ]; then
  export PYTHONPATH="$TL_DEVICE_ROOT/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
fi
