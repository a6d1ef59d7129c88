// The JUnit XML form of a check run (`--junit FILE`), the format CI systems (GitHub Actions
// test reporters, GitLab, Jenkins) read:
//
//   <testsuites name="msptk check" tests= failures= errors= skipped= time=>
//     <testsuite name="CORPUS" ...>                       one per corpus, in run order
//       <testcase classname="CORPUS" name="SCENARIO" time="SECONDS">
//         <failure message="FIRST DIVERGENCE" type="divergence">DETAILS</failure>   fail
//         <error message="WHAT" type="infrastructure">DETAILS</error>               error
//         <skipped message="REASON"/>                                               skip
//         <skipped message="expected failure (baseline): REASON"/>                  baseline failure
//         <system-out>stale baseline entry: …</system-out>                          stale entry
//
// Text is escaped for XML 1.0: the five markup characters, line breaks and tabs in attributes
// as character references, characters XML cannot carry (other control characters, invalid
// UTF-8) as U+FFFD.
#pragma once

#include "msptk/check/outcome.hpp"

#include <ostream>
#include <string>
#include <string_view>

namespace msptk::check {

// Escapes text for an XML attribute value (attribute = true) or element content.
std::string xml_escape(std::string_view text, bool attribute = true);

void render_junit(std::ostream& out, const CheckReport& report);

}  // namespace msptk::check
