# Interface targets carrying warnings and sanitizer flags; every msptk target links them.
add_library(msptk_settings INTERFACE)
target_compile_options(msptk_settings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(MSPTK_WERROR)
  target_compile_options(msptk_settings INTERFACE -Werror)
endif()
if(MSPTK_SANITIZE)
  target_compile_options(msptk_settings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(msptk_settings INTERFACE -fsanitize=address,undefined)
endif()
target_include_directories(msptk_settings INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)

# msptk_module(NAME SOURCES... DEPS ...): a static library msptk_NAME with alias msptk::NAME.
function(msptk_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
  add_library(msptk_${name} STATIC ${M_SOURCES})
  add_library(msptk::${name} ALIAS msptk_${name})
  target_link_libraries(msptk_${name} PUBLIC msptk_settings ${M_DEPS})
endfunction()
