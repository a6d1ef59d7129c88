// Pretty JSON: a JSON text laid out one member or element a line, indented by two spaces a
// level, token by token: strings and numbers are kept byte for byte (escapes as written, an
// exact number's digits, bytes that are not UTF-8 as they are), only whitespace changes, so what
// is shown is what was sent. Each line knows the concrete location (path.hpp's spelling:
// `params.input[0].text`, `result["a.txt"]`, "" for the root) of the value it belongs to, so a
// report can highlight the places a diff names: the lines of the value at P are those whose
// location is within P (location_within). Not a validator: a text that is not JSON enough to lay
// out (unbalanced brackets, a missing quote) gives nullopt and callers show the text as it is.
// Used by `msptk show --frame` and the HTML reports (show, diff, check).
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

struct PrettyLine {
  std::size_t depth = 0;  // indentation level
  std::string text;       // the line without its indentation: `"name": "value",`, `]`, ...
  std::string location;   // the value this line belongs to (a closing bracket: its container's)
};

struct PrettyJson {
  std::vector<PrettyLine> lines;
  bool truncated = false;  // stopped after max_lines
};

// The lines of `text` (one JSON value, outer whitespace allowed), at most `max_lines` of them.
std::optional<PrettyJson> pretty_lines(std::string_view text,
                                       std::size_t max_lines = std::numeric_limits<std::size_t>::max());

// The lines joined, each indented and ended by LF; `text` itself (plus LF) when it cannot be laid out.
std::string pretty_json(std::string_view text);

// The lines of pretty_json one at a time, for a frame of any size or depth (`msptk show --frame`):
// `line(depth, text)` gets each line in order (indent it by 2 × depth), no location is built and
// no line kept, so memory is one line plus a few bytes a level and time linear in the text. A text
// that cannot be laid out, or nested deeper than `max_depth` levels (`[]` is one), gives false
// before any line is passed: callers then show the text as it is.
bool for_each_pretty_line(std::string_view text, std::size_t max_depth,
                          const std::function<void(std::size_t depth, std::string_view text)>& line);

// Whether `location` is `place` or inside it (`place` followed by '.' or '['); "" holds every location.
bool location_within(std::string_view location, std::string_view place);

}  // namespace msptk
