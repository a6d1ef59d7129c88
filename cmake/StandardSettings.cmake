# Build settings shared by every msptk target.
#
# msptk_warnings carries warnings and sanitizer flags: linked PRIVATE, so they never reach a
# user's project through the installed package.
add_library(msptk_warnings INTERFACE)
target_compile_options(msptk_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(MSPTK_WERROR)
  target_compile_options(msptk_warnings INTERFACE -Werror)
endif()
# Undefined behaviour is an error, not a note on stderr: -fno-sanitize-recover makes it abort,
# so a test (or a fuzz run) that hits it fails.
if(MSPTK_SANITIZE)
  target_compile_options(msptk_warnings INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=undefined
                         -fno-omit-frame-pointer)
  target_link_options(msptk_warnings INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=undefined)
endif()
# Fuzzing (clang): every library gets libFuzzer's coverage instrumentation and the sanitizers
# of MSPTK_FUZZ_SANITIZERS (ASan + UBSan; preset fuzz-fast: UBSan and libstdc++'s assertions
# only, several times the executions a second, its corpus replayed under ASan afterwards); the
# fuzz targets add -fsanitize=fuzzer (libFuzzer's main) at link time (fuzz/CMakeLists.txt).
set(MSPTK_FUZZ_SANITIZERS "address,undefined" CACHE STRING "Sanitizers of the fuzz build")
if(MSPTK_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MSPTK_FUZZ needs clang (libFuzzer): cmake --preset fuzz")
  endif()
  target_compile_options(msptk_warnings INTERFACE -fsanitize=fuzzer-no-link,${MSPTK_FUZZ_SANITIZERS}
                         -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(msptk_warnings INTERFACE -fsanitize=${MSPTK_FUZZ_SANITIZERS} -fno-sanitize-recover=undefined)
  if(NOT MSPTK_FUZZ_SANITIZERS MATCHES "address")
    target_compile_definitions(msptk_warnings INTERFACE _GLIBCXX_ASSERTIONS)
  endif()
endif()

# msptk_module(NAME SOURCES ... DEPS ...): the static library msptk_NAME (alias msptk::NAME),
# with the public headers of include/, installed and exported as part of msptk::msptk.
function(msptk_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
  add_library(msptk_${name} STATIC ${M_SOURCES})
  add_library(msptk::${name} ALIAS msptk_${name})
  set_target_properties(msptk_${name} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  target_compile_features(msptk_${name} PUBLIC cxx_std_20)
  target_include_directories(msptk_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(msptk_${name} PUBLIC ${M_DEPS} PRIVATE $<BUILD_INTERFACE:msptk_warnings>)
  set_property(GLOBAL APPEND PROPERTY MSPTK_MODULES msptk_${name})
endfunction()
