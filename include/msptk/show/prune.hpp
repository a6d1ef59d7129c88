// A frame's text cut to what show looks at: its envelope (classify) and the one-line summary
// (summary.hpp), so a frame of tens of millions of values is summarized from a text of a few
// KiB rather than from a DOM many times the frame's size. The top-level object keeps every member
// whole (jsonrpc, id, method: classify's), and so does a top-level `error` object (its code and
// message); anything else is kept in document order until kPruneBudget values are written — the
// summary reads at most 64 values depth-first, each under at most 8 containers, so it never
// reaches a value the budget drops — each string cut to kPruneStringUnits characters (an escape
// is one; a surrogate pair never split). Member names are kept as written.
// Only for a text already checked to be one valid JSON value (parse_json_top gives the verdict):
// the result is then valid JSON with the same envelope and summary.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace msptk::show {

inline constexpr std::size_t kPruneBudget = 1024;
inline constexpr std::size_t kPruneStringUnits = 128;

// Writes the pruned `text` into `out` (cleared first).
void prune_for_summary(std::string_view text, std::string& out);

}  // namespace msptk::show
