# What a user installs besides the libraries (cmake/Install.cmake): the man pages, the shell
# completions and the reference pages, all generated from the built binary at build time, and the
# Debian package (`make package`: CPack's DEB generator over these install rules).
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
  install(DIRECTORY ${msptk_share}/man/man1 DESTINATION ${CMAKE_INSTALL_MANDIR} FILES_MATCHING PATTERN "*.1.gz")
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
install(FILES ${msptk_share}/bash-completion/completions/msptk DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${msptk_share}/zsh/vendor-completions/_msptk DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)

# The reference pages and the README, for `SEE ALSO` and a machine without a browser.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "man" EXCLUDE)

# The Debian package: `make package` (Makefile) = cpack -G DEB in build-release/, after the build.
# cpack then packs what is built rather than building every target first (the tests included).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME msptk)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "msptk maintainers <msptk@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "record, validate, normalize, diff and replay MSP transcripts")
set(CPACK_PACKAGE_DESCRIPTION "msptk records, validates, normalizes, structurally diffs and plays back transcripts of MSP\n(Muse Session Protocol: newline-delimited JSON-RPC 2.0 over a host's stdio). It includes the\nmuse-conformance drop-in, GoogleTest matchers, a CMake package and a pkg-config file.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://example.invalid/msptk")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Runtime libraries of the binary found by dpkg-shlibdeps (Boost.JSON, Boost.Filesystem, fmt,
# libstdc++); the headers and the CMake package need the -dev packages a consumer builds with.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# valijson is header-only and compiled into msptk (no runtime package to depend on); the public
# headers include Boost.JSON and Boost.System and the libraries link Boost.Filesystem, so a
# project building against the package wants their -dev packages.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libboost-json1.81-dev, libboost-filesystem1.81-dev, libboost1.81-dev")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, libgtest-dev")
set(CPACK_STRIP_FILES ON)
include(CPack)
