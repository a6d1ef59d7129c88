# The installable package: `find_package(msptk)` gives msptk::msptk (every module library),
# MSPTK_EXECUTABLE and msptk_add_corpus_tests() (cmake/msptkCorpusTests.cmake), plus a
# pkg-config file, the public headers and the msptk binary. The binary and muse-conformance
# are the component `runtime` (the Debian package msptk); the rest is the default component `dev`
# (msptk-dev: CMAKE_INSTALL_DEFAULT_COMPONENT_NAME in the top CMakeLists.txt).
include(CMakePackageConfigHelpers)

get_property(msptk_modules GLOBAL PROPERTY MSPTK_MODULES)
add_library(msptk_all INTERFACE)
set_target_properties(msptk_all PROPERTIES EXPORT_NAME msptk)
target_link_libraries(msptk_all INTERFACE ${msptk_modules})
add_library(msptk::msptk ALIAS msptk_all)

install(TARGETS ${msptk_modules} msptk_all EXPORT msptkTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS msptk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/msptk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT msptkTargets NAMESPACE msptk:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/msptk)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/msptkConfig.cmake.in
  ${PROJECT_BINARY_DIR}/msptkConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/msptk
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/msptkConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/msptkConfig.cmake ${PROJECT_BINARY_DIR}/msptkConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/msptkCorpusTests.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/msptk)

# pkg-config: link order is the reverse of the dependency order (users first, transcript last).
# The prefix is found from the file's own folder (LIBDIR/pkgconfig may be lib/x86_64-linux-gnu/pkgconfig).
file(RELATIVE_PATH msptk_pc_prefix /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" msptk_pc_prefix "${msptk_pc_prefix}")
set(msptk_pc_libs "")
list(REVERSE msptk_modules)
foreach(module ${msptk_modules})
  string(APPEND msptk_pc_libs " -l${module}")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/msptk.pc.in ${PROJECT_BINARY_DIR}/msptk.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/msptk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# muse-conformance: the same binary under the upstream harness's name (chosen by argv[0]).
install(CODE "execute_process(COMMAND \"${CMAKE_COMMAND}\" -E create_symlink msptk
                \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/muse-conformance\")
              message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/muse-conformance -> msptk\")"
        COMPONENT runtime)
