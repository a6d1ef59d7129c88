// Finds the line of a member in a JSON document's text, so that findings about a manifest
// point at the line that holds the member. Boost.JSON keeps no positions, so this is a small
// structural scanner over the text (strings, objects, arrays; scalars skipped).
#pragma once

#include <cstddef>
#include <string_view>

namespace msptk::detail {

// The 1-based line of the member or element `path` ("serverConfig.frameLimitBytes",
// "source[2].lines", "normalize[0]"; "" is the document). When `path` is absent, the line of
// the deepest part of it that is present (the object a missing member belongs in); 1 when the
// text is not JSON enough to tell.
std::size_t line_of_path(std::string_view text, std::string_view path);

}  // namespace msptk::detail
