# Build dependencies, all from Debian packages (scripts/setup-deps.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)

find_path(XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
find_path(DLPACK_INCLUDE_DIR dlpack/dlpack.h REQUIRED)

# libtcc is optional at build time: without it the `tcc` execution backend is not built.
find_path(LIBTCC_INCLUDE_DIR libtcc.h)
find_library(LIBTCC_LIBRARY NAMES libtcc.a tcc)

set(TL_DEP_INCLUDE_DIRS ${XXHASH_INCLUDE_DIR} ${DLPACK_INCLUDE_DIR})
set(TL_DEP_LIBRARIES PkgConfig::JANSSON Threads::Threads ${CMAKE_DL_LIBS} m)
set(TL_PC_REQUIRES_PRIVATE "jansson")
set(TL_PC_LIBS_PRIVATE "-lpthread -ldl -lm")

if(LIBTCC_INCLUDE_DIR AND LIBTCC_LIBRARY)
  set(TL_HAVE_LIBTCC ON)
  list(APPEND TL_DEP_INCLUDE_DIRS ${LIBTCC_INCLUDE_DIR})
  list(APPEND TL_DEP_LIBRARIES ${LIBTCC_LIBRARY})
  string(APPEND TL_PC_LIBS_PRIVATE " -ltcc")
  message(STATUS "libtcc: ${LIBTCC_LIBRARY}")
else()
  set(TL_HAVE_LIBTCC OFF)
  message(STATUS "libtcc: not found (the tcc execution backend is left out)")
endif()
