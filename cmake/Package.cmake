# What a user installs besides the libraries (cmake/Install.cmake): the man pages, the shell
# completions and the reference pages, all generated from the built binary at build time, and the
# Debian packages (`make package`: CPack's DEB generator over these install rules): msptk, the
# tool, and msptk-dev, the libraries to build against (components runtime and dev).
set(MSPTK_PACKAGE_MAINTAINER "Seed 10260061 maintainers <maintainers@users.noreply.a-seed-10260061.example>"
    CACHE STRING "The Debian packages' Maintainer (the project's maintainers, as its commits name them)")
set(MSPTK_PACKAGE_HOMEPAGE "" CACHE STRING "The Debian packages' Homepage (none is published yet: no field)")
set(msptk_share ${PROJECT_BINARY_DIR}/share)
file(GLOB msptk_verb_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/verbs/*.md)

# Man pages: msptk(1), msptk-VERB(1) per reference page, muse-conformance(1) (docs/man/make-man,
# help2man). Without help2man (a build by hand that skipped scripts/install-deps) there are none.
find_program(MSPTK_HELP2MAN help2man)
if(MSPTK_HELP2MAN)
  add_custom_command(OUTPUT ${msptk_share}/man/man1/msptk.1.gz
                     COMMAND ${PROJECT_SOURCE_DIR}/docs/man/make-man $<TARGET_FILE:msptk> ${PROJECT_SOURCE_DIR}
                             ${msptk_share}/man ${PROJECT_VERSION}
                     DEPENDS msptk ${msptk_verb_pages} ${PROJECT_SOURCE_DIR}/docs/man/make-man
                             ${PROJECT_SOURCE_DIR}/docs/man/md2roff.awk ${PROJECT_SOURCE_DIR}/docs/man/roff-chars.pl ${PROJECT_SOURCE_DIR}/docs/verbs/README.md
                     COMMENT "Man pages (help2man)" VERBATIM)
  add_custom_target(msptk_man ALL DEPENDS ${msptk_share}/man/man1/msptk.1.gz)
  install(DIRECTORY ${msptk_share}/man/man1 DESTINATION ${CMAKE_INSTALL_MANDIR} COMPONENT runtime
          FILES_MATCHING PATTERN "*.1.gz")
else()
  message(STATUS "help2man not found: no man pages (scripts/install-deps installs it)")
endif()

# Shell completions, printed by `msptk completions bash|zsh` from the command line itself.
add_custom_command(OUTPUT ${msptk_share}/bash-completion/completions/msptk ${msptk_share}/zsh/vendor-completions/_msptk
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${msptk_share}/bash-completion/completions
                           ${msptk_share}/zsh/vendor-completions
                   COMMAND sh -c "\"$1\" completions bash >\"$2\" && \"$1\" completions zsh >\"$3\"" sh
                           $<TARGET_FILE:msptk> ${msptk_share}/bash-completion/completions/msptk
                           ${msptk_share}/zsh/vendor-completions/_msptk
                   DEPENDS msptk COMMENT "Shell completions" VERBATIM)
add_custom_target(msptk_completions ALL DEPENDS ${msptk_share}/bash-completion/completions/msptk)
install(FILES ${msptk_share}/bash-completion/completions/msptk
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT runtime)
install(FILES ${msptk_share}/zsh/vendor-completions/_msptk
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT runtime)

# The documentation, laid out as in the source tree so that the README's relative links work in
# /usr/share/doc/msptk: README.md, docs/ (the reference pages, matching.md, the JSON report pages,
# the pictures), and the two pages outside docs/ they link to. Plus the Debian copyright file
# (machine-readable, cmake/copyright) in both packages' folders.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "man" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/corpus/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/corpus COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/bench/RESULTS.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/bench COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/msptk-dev COMPONENT dev)
# Debian's changelog, one entry for this version (dated by the commit, so a rebuild is the same file).
set(msptk_changelog ${PROJECT_BINARY_DIR}/changelog.gz)
add_custom_command(OUTPUT ${msptk_changelog}
                   COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DVERSION=${PROJECT_VERSION}
                           -DMAINTAINER=${MSPTK_PACKAGE_MAINTAINER} -DOUT=${msptk_changelog}
                           -P ${PROJECT_SOURCE_DIR}/cmake/Changelog.cmake
                   DEPENDS ${PROJECT_SOURCE_DIR}/cmake/Changelog.cmake COMMENT "Debian changelog" VERBATIM)
add_custom_target(msptk_changelog ALL DEPENDS ${msptk_changelog})
install(FILES ${msptk_changelog} DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(FILES ${msptk_changelog} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/msptk-dev COMPONENT dev)

# The Debian packages: `make package` (Makefile) = cpack -G DEB in build-release/, after the build.
# cpack then packs what is built rather than building every target first (the tests included).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME msptk)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "msptk maintainers")
set(CPACK_PACKAGE_CONTACT "${MSPTK_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MSPTK_PACKAGE_MAINTAINER}")
if(MSPTK_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${MSPTK_PACKAGE_HOMEPAGE}")
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_STRIP_FILES ON)
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/StripStaticLibraries.cmake)
set(CPACK_MSPTK_STRIP "${CMAKE_STRIP}")
# One package per component: msptk (runtime) and msptk-dev (dev).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME msptk)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION devel)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "record, validate, normalize, diff and replay MSP transcripts
msptk records, validates, normalizes, structurally diffs and plays back
transcripts of MSP (Muse Session Protocol: newline-delimited JSON-RPC 2.0 over
the stdio of a spawned host). It checks a host against a corpus of recorded
scenarios, plays a scenario to a client as a canned host, and includes the
muse-conformance command line, man pages and bash and zsh completions.")
# The runtime libraries the binary links (Boost.JSON, Boost.Filesystem, fmt, libstdc++), found by
# dpkg-shlibdeps; nothing else: the -dev packages are msptk-dev's.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "bash-completion")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME msptk-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DESCRIPTION "MSP transcript libraries of msptk: headers and static libraries
The libraries behind msptk (reading and writing MSP transcripts, the structural
differ, replay against a host, the canned host) for C++20 projects: the public
headers, static libraries, a CMake package (find_package(msptk)), a pkg-config
file and GoogleTest matchers such as EXPECT_TRANSCRIPT_EQUIVALENT.")
# valijson is header-only and compiled into the libraries; the public headers include Boost.JSON
# and fmt and the libraries link Boost.Filesystem, so a project building against them needs those
# -dev packages. The CMake package's helpers run the msptk binary of the same version.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "msptk (= ${PROJECT_VERSION}), libboost-json1.81-dev, libboost-filesystem1.81-dev, libboost1.81-dev, libfmt-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "libgtest-dev, pkg-config")
include(CPack)
