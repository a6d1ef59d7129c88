// The line of a place in a JSON document's text. Boost.JSON keeps no positions, so findings
// and errors about a manifest member ("serverConfig.frameLimitBytes", "normalize[2]") find
// its line with this small structural scanner over the text (strings, objects, arrays;
// scalars skipped). Every verb that names a manifest line uses it, so `validate`, `diff`,
// `replay` and the maintenance verbs point at the same line for the same problem.
#pragma once

#include <cstddef>
#include <string_view>

namespace msptk {

// The 1-based line of the member or element `path` ("serverConfig.frameLimitBytes",
// "source[2].lines", "normalize[0]"; "" is the document). When `path` is absent, the line of
// the deepest part of it that is present (the object a missing member belongs in); 1 when the
// text is not JSON enough to tell. Stack use is bounded by the path's length, not by how deep
// the text nests.
std::size_t line_of_path(std::string_view text, std::string_view path);

// One past the closing quote of the JSON string token whose opening quote is text[quote] (its
// escapes stepped over, not checked); npos when text[quote] is not a quote or the text ends
// first. The token scanners over frame texts (pretty, member_scan, minted_follow, replay_carry)
// all step over strings this way.
std::size_t json_string_end(std::string_view text, std::size_t quote);

// The same as a step of a scanner at `pos`: past the string (true); at the text's end when the
// string does not end, unmoved when text[pos] is not a quote (false).
inline bool skip_json_string(std::string_view text, std::size_t& pos) {
  const std::size_t end = json_string_end(text, pos);
  if (end == std::string_view::npos) {
    if (pos < text.size() && text[pos] == '"') pos = text.size();
    return false;
  }
  pos = end;
  return true;
}

}  // namespace msptk
