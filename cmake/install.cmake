# Installation and packaging: `cmake --install BUILD --prefix P` installs the ptir command and its man page, one static
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
# `ptir import`, `export` and `tv` (tools/CMakeLists.txt): the executable looks for the module here.
if(TARGET ptir_mlir_module)
  install(TARGETS ptir_mlir_module LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ptir)
endif()
install(EXPORT ptirTargets NAMESPACE ptir:: DESTINATION ${PTIR_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ptirConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ptirConfig.cmake INSTALL_DESTINATION ${PTIR_CMAKE_DIR})
# SameMinorVersion: find_package(ptir 0.5) and find_package(ptir 0.5.0) accept any 0.5.x, never 0.4 or
# 0.6 (a 0.x minor release may change the C++ API). What runs is checked exactly by the plugin loader: a
# plugin built against 0.5.0 loads only into ptir 0.5.0 (patterns/plugin.h).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ptirConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ptirConfig.cmake ${PROJECT_BINARY_DIR}/ptirConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/ptirPlugin.cmake ${PROJECT_SOURCE_DIR}/cmake/ptirEmbedRules.cmake
        DESTINATION ${PTIR_CMAKE_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/docs/embedding.md ${PROJECT_SOURCE_DIR}/docs/ci.md ${PROJECT_SOURCE_DIR}/docs/rules.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/out-of-tree-pattern DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# The Debian copyright file (share/doc/ptir/copyright) and the man page ptir(1), generated at build time
# from `ptir --help`, `ptir COMMAND --help` for every command it lists, and `ptir --version`
# (cmake/ptirManPage.cmake), so it never disagrees with the binary.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
set(PTIR_MAN_PAGE ${PROJECT_BINARY_DIR}/man/ptir.1.gz)
add_custom_command(OUTPUT ${PTIR_MAN_PAGE}
                   COMMAND ${CMAKE_COMMAND} -DPTIR=$<TARGET_FILE:ptir> -DOUT=${PTIR_MAN_PAGE}
                           -P ${PROJECT_SOURCE_DIR}/cmake/ptirManPage.cmake
                   DEPENDS ptir ${PROJECT_SOURCE_DIR}/cmake/ptirManPage.cmake
                   COMMENT "Generating the man page ptir(1) from ptir --help" VERBATIM)
add_custom_target(ptir_man_page ALL DEPENDS ${PTIR_MAN_PAGE})
install(FILES ${PTIR_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

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
