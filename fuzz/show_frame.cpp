// Fuzz target: show's frame printer (`msptk show --frame N`, normalizer/pretty.hpp's
// for_each_pretty_line) and the pruned text show summarizes a large frame from
// (show/prune.hpp). The input is the JSON text of one frame. Invariants, for valid UTF-8 input:
// - for_each_pretty_line passes no line at all or lays the whole text out: the lines joined
//   (indented) are pretty_json's text exactly; with no line it returns false, and then pretty_json
//   gives the text as it is (it cannot be laid out) or the text is deeper than the limit;
// - a depth limit of D lays out what has at most D levels and refuses what has more;
// - when parse_json_top accepts the text, its pruned text parses, and classify and the summary
//   of the pruned text are those of the whole text.
#include "fuzz_support.hpp"

#include "msptk/normalizer/pretty.hpp"
#include "msptk/show/prune.hpp"
#include "msptk/show/summary.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/writer.hpp"

#include <algorithm>
#include <limits>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace msptk;
  const std::string_view text = fuzz::as_text(data, size);
  if (!is_valid_utf8(text)) return 0;

  constexpr std::size_t kDepth = 16;
  std::string joined;
  std::size_t lines = 0, deepest = 0;
  const bool laid = for_each_pretty_line(text, kDepth, [&](std::size_t depth, std::string_view line) {
    joined.append(2 * depth, ' ');
    joined += line;
    joined += '\n';
    ++lines;
    deepest = std::max(deepest, depth);
  });
  MSPTK_FUZZ_CHECK(laid || lines == 0, "{} lines passed before a failure", lines);
  const std::string whole = pretty_json(text);
  if (laid) {
    MSPTK_FUZZ_CHECK(joined == whole, "the lines differ from pretty_json:\n{}\n---\n{}", joined.substr(0, 500),
                     whole.substr(0, 500));
    MSPTK_FUZZ_CHECK(deepest < kDepth, "a line at depth {} within a limit of {}", deepest, kDepth);
  } else if (whole != std::string(text) + "\n") {
    // pretty_json laid it out: only the depth limit can have refused it.
    std::size_t max_depth = 0;
    const bool laid_any = for_each_pretty_line(text, std::numeric_limits<std::size_t>::max(),
                                               [&](std::size_t d, std::string_view) { max_depth = std::max(max_depth, d); });
    MSPTK_FUZZ_CHECK(laid_any, "pretty_json lays out a text for_each_pretty_line refuses without a limit");
    MSPTK_FUZZ_CHECK(max_depth >= kDepth - 1, "refused at depth {} within a limit of {}", max_depth, kDepth);
  }

  static JsonArena arena;
  ArenaScope scope(arena);
  auto top = parse_json_top(text, scope.storage(), ParseLimits{.utf8_known = true});
  if (!top) return 0;
  auto full = parse_json(text, scope.storage(), ParseLimits{.utf8_known = true});
  MSPTK_FUZZ_CHECK(full.has_value(), "parse_json_top accepts what parse_json refuses");
  static std::string pruned;
  show::prune_for_summary(text, pruned);
  auto cut = parse_json(pruned, scope.storage(), ParseLimits{.utf8_known = true});
  MSPTK_FUZZ_CHECK(cut.has_value(), "the pruned text does not parse ({}): {}", cut ? "" : cut.error().describe(),
                   pruned.substr(0, 300));
  const Envelope a = classify(*full), b = classify(*cut);
  MSPTK_FUZZ_CHECK(a.kind == b.kind && a.method == b.method && a.is_error == b.is_error && a.problem == b.problem,
                   "the pruned text is a {} ({}), the whole one a {} ({})", to_string(b.kind), b.problem,
                   to_string(a.kind), a.problem);
  const std::string sa = show::summarize(*full, a), sb = show::summarize(*cut, b);
  MSPTK_FUZZ_CHECK(sa == sb, "summaries differ:\n{}\n{}", sa, sb);
  return 0;
}
