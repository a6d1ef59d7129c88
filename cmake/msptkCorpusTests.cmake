# msptk_add_corpus_tests: one CTest test per scenario of a corpus, for a host or a client.
#
#   msptk_add_corpus_tests(<prefix>
#       CORPUS <dir>...                     corpus folders (or scenario folders)
#       [HOST "<cmd args>" | CLIENT "<cmd args>"]
#                                           the host replayed against (default: the embedded canned
#                                           host), or the client run against the canned host
#                                           ({host}, {scenario}, $MSPTK_CANNED_HOST as in
#                                           `msptk check --client`)
#       [LABELS <label>...]                 added to each test's labels (always: msptk-corpus and
#                                           the corpus name)
#       [TIMEOUT <seconds>]                 each test's CTest timeout (default 60)
#       [CHECK_ARGS <arg>...]               more options of `msptk check` (--keep-going, --chaos ...)
#       [MSPTK <path>])                     the msptk binary (default: the package's, MSPTK_EXECUTABLE)
#
# The scenarios are those `msptk check --list --format json` lists at configure time (a new
# scenario folder needs a re-configure); each test is `msptk check <scenario folder> ...` named
# <prefix>/<corpus>/<scenario>. A scenario the run skips (sdk-tolerance, in host mode) is
# reported by CTest as skipped.
function(msptk_add_corpus_tests prefix)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "HOST;CLIENT;TIMEOUT;MSPTK" "CORPUS;LABELS;CHECK_ARGS")
  if(NOT arg_CORPUS)
    message(FATAL_ERROR "msptk_add_corpus_tests(${prefix}): CORPUS <dir>... is required")
  endif()
  if(arg_HOST AND arg_CLIENT)
    message(FATAL_ERROR "msptk_add_corpus_tests(${prefix}): HOST and CLIENT exclude each other")
  endif()
  set(msptk "${arg_MSPTK}")
  if(NOT msptk)
    set(msptk "${MSPTK_EXECUTABLE}")
  endif()
  if(NOT msptk)
    message(FATAL_ERROR "msptk_add_corpus_tests(${prefix}): no msptk binary (MSPTK <path>, or find_package(msptk))")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  set(peer "")
  if(arg_HOST)
    set(peer --host "${arg_HOST}")
  elseif(arg_CLIENT)
    set(peer --client "${arg_CLIENT}")
  endif()
  execute_process(COMMAND "${msptk}" check --list ${arg_CORPUS} ${peer} --format json
                  OUTPUT_VARIABLE listing ERROR_VARIABLE listing_error RESULT_VARIABLE listing_result)
  if(NOT listing_result EQUAL 0)
    message(FATAL_ERROR "msptk_add_corpus_tests(${prefix}): msptk check --list failed: ${listing_error}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${arg_CORPUS})
  string(JSON count LENGTH "${listing}" scenarios)
  if(count EQUAL 0)
    return()
  endif()
  math(EXPR last "${count} - 1")
  foreach(k RANGE ${last})
    string(JSON id GET "${listing}" scenarios ${k} id)
    string(JSON corpus GET "${listing}" scenarios ${k} corpus)
    string(JSON folder GET "${listing}" scenarios ${k} folder)
    set(name "${prefix}/${id}")
    add_test(NAME "${name}" COMMAND "${msptk}" check "${folder}" ${peer} ${arg_CHECK_ARGS})
    set_tests_properties("${name}" PROPERTIES
      LABELS "msptk-corpus;${corpus};${arg_LABELS}"
      TIMEOUT ${arg_TIMEOUT}
      SKIP_REGULAR_EXPRESSION "(^|\n)SKIP ")
  endforeach()
endfunction()
