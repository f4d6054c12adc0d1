# Installation and packaging: `cmake --install BUILD --prefix P` installs the ptir command, one static
# library per layer with its public headers (include/ptir/<layer>/...), the exported targets ptir::ir,
# ptir::rewriter, ptir::patterns, ptir::verify, ptir::plugin and ptir::ptir, and ptirConfig.cmake with its
# version file and ptir_add_plugin. `cpack -G DEB` in the build folder makes ptir_<version>_amd64.deb.
include(CMakePackageConfigHelpers)
set(PTIR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ptir)

install(TARGETS ptir ptir_ir ptir_rewriter ptir_patterns ptir_verify ptir_plugin_api EXPORT ptirTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        FILE_SET HEADERS DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ptir)
install(FILES ${PROJECT_BINARY_DIR}/generated/ir/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ptir/ir)
install(EXPORT ptirTargets NAMESPACE ptir:: DESTINATION ${PTIR_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ptirConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ptirConfig.cmake INSTALL_DESTINATION ${PTIR_CMAKE_DIR})
# Exact: a plugin built against ptir 0.5.0 runs only in ptir 0.5.0 (the loader checks it too).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ptirConfigVersion.cmake COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/ptirConfig.cmake ${PROJECT_BINARY_DIR}/ptirConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/ptirPlugin.cmake ${PROJECT_SOURCE_DIR}/cmake/ptirEmbedRules.cmake
        DESTINATION ${PTIR_CMAKE_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/docs/embedding.md ${PROJECT_SOURCE_DIR}/docs/ci.md ${PROJECT_SOURCE_DIR}/docs/rules.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/out-of-tree-pattern DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# The Debian package: everything above under /usr. Depends comes from dpkg-shlibdeps on the ptir binary
# (libz3-4, libstdc++6, libc6, libgcc-s1); building against the headers needs a C++20 compiler and
# CMake, and ptir::verify needs libz3-dev: suggested, not required to run ptir.
set(CPACK_PACKAGE_NAME ptir)
set(CPACK_PACKAGE_VENDOR "ptir")
set(CPACK_PACKAGE_CONTACT "ptir maintainers <ptir@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.24), g++ (>= 12), libz3-dev, pkg-config")
include(CPack)
