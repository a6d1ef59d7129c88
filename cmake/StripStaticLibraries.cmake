# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS, cmake/Package.cmake): strips the debugging
# information from the static libraries cpack is about to pack (CPACK_STRIP_FILES strips only
# executables). A RelWithDebInfo build's libraries are ten times larger with it, and a user of
# msptk-dev debugs their own code, not msptk's.
# CPACK_MSPTK_STRIP is the toolchain's strip (CMAKE_STRIP), passed on by cmake/Package.cmake.
file(GLOB_RECURSE libraries "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.a")
foreach(library ${libraries})
  if(CPACK_MSPTK_STRIP)
    execute_process(COMMAND ${CPACK_MSPTK_STRIP} --strip-debug ${library} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "strip --strip-debug ${library} failed")
    endif()
  endif()
endforeach()
