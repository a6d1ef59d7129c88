// Renderers of diff reports. The text renderer writes one block per frame that differs
// (divergent, missing, extra, moved) with both file:line, the frame's signature and one
// `path: expected → actual` line per differing place (plus a note for unification conflicts),
// then the mask accounting, warnings, and as its last line the verdict:
//   divergent: 19 frames (16 identical, 0 equivalent, 1 divergent, 1 missing, 1 extra, 0 moved)
// The JSON renderer writes one document whose schema is docs/diff-json.md.
#pragma once

#include "msptk/differ/diff.hpp"

#include <boost/json/value.hpp>

#include <ostream>
#include <string>

namespace msptk {

struct TextStyle {
  bool color = false;               // ANSI colors
  std::size_t max_value_chars = 160;  // longer values are cut with "…"
};

// "divergent: 19 frames (16 identical, 0 equivalent, 1 divergent, 1 missing, 1 extra, 0 moved)"
std::string summary_line(Verdict verdict, const DiffCounts& counts);

void render_text(std::ostream& out, const DiffReport& report, const TextStyle& style = {});

boost::json::value to_json(const DiffResult& result);
boost::json::value to_json(const DiffReport& report);
void render_json(std::ostream& out, const DiffReport& report);

}  // namespace msptk
