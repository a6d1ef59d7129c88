# Writes OUT, the gzipped Debian changelog of the packages: one entry for VERSION by MAINTAINER,
# dated by the commit the build is made from (so rebuilding the same commit gives the same file;
# the current time outside a git checkout). The project's history is its git log and its docs.
# cmake -DSOURCE_DIR=.. -DVERSION=.. -DMAINTAINER=.. -DOUT=.. -P Changelog.cmake
set(date "")
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} log -1 --format=%aD
                  OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(date STREQUAL "")
  string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()
get_filename_component(dir ${OUT} DIRECTORY)
set(text "msptk (${VERSION}) unstable; urgency=medium\n\n  * msptk ${VERSION}: see /usr/share/doc/msptk/README.md.\n\n -- ${MAINTAINER}  ${date}\n")
file(WRITE ${dir}/changelog "${text}")
execute_process(COMMAND gzip -9nf ${dir}/changelog RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${dir}/changelog failed")
endif()
