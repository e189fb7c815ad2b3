# Installed layout: the libraries, public headers, tlc, a pkg-config file and a
# CMake package config (find_package(tilelang-backend)).
include(CMakePackageConfigHelpers)

install(TARGETS tilelang-backend tilelang-backend-static tlc
  EXPORT tilelang-backend-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilelang DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

configure_file(${PROJECT_SOURCE_DIR}/cmake/tilelang-backend.pc.in
  ${PROJECT_BINARY_DIR}/tilelang-backend.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tilelang-backend.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(TL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilelang-backend)
install(EXPORT tilelang-backend-targets NAMESPACE tilelang:: DESTINATION ${TL_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilelang-backendConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilelang-backendConfig.cmake INSTALL_DESTINATION ${TL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilelang-backendConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilelang-backendConfig.cmake
  ${PROJECT_BINARY_DIR}/tilelang-backendConfigVersion.cmake DESTINATION ${TL_CMAKE_DIR})
