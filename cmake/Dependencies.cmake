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

# Debian ships libtcc only as a static archive of position-dependent (PIE) code, which
# cannot be linked into a shared object. So libtcc goes only to programs that link the
# static library (tlc, the tests, the benchmarks): src/runtime/tcc.c references libtcc
# weakly, the static library's users get the archive and --undefined options that pull
# the needed members in, and the shared library reports `tcc` unavailable.
set(TL_STATIC_DEP_LIBRARIES "")
set(TL_STATIC_LINK_OPTIONS "")
if(LIBTCC_INCLUDE_DIR AND LIBTCC_LIBRARY)
  set(TL_HAVE_LIBTCC ON)
  list(APPEND TL_DEP_INCLUDE_DIRS ${LIBTCC_INCLUDE_DIR})
  set(TL_STATIC_DEP_LIBRARIES ${LIBTCC_LIBRARY})
  foreach(fn tcc_new tcc_delete tcc_set_lib_path tcc_set_error_func tcc_set_output_type tcc_add_file
             tcc_compile_string tcc_relocate tcc_get_symbol)
    list(APPEND TL_STATIC_LINK_OPTIONS "LINKER:--undefined=${fn}")
  endforeach()
  string(APPEND TL_PC_LIBS_PRIVATE " -ltcc")
  # libtcc compiles in memory but links against tcc's runtime library libtcc1.a (and
  # uses the headers next to it): the `tcc` execution backend points libtcc there.
  find_path(LIBTCC1_DIR libtcc1.a
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/tcc /usr/lib/tcc /usr/lib64/tcc /usr/local/lib/tcc
    NO_DEFAULT_PATH)
  if(NOT LIBTCC1_DIR)
    set(LIBTCC1_DIR "")
  endif()
  # Directory-wide, so tests know too.
  add_compile_definitions(TL_HAVE_LIBTCC=1 TL_TCC_LIBDIR="${LIBTCC1_DIR}")
  message(STATUS "libtcc: ${LIBTCC_LIBRARY} (runtime library in '${LIBTCC1_DIR}')")
else()
  set(TL_HAVE_LIBTCC OFF)
  message(STATUS "libtcc: not found (the tcc execution backend is left out)")
endif()
