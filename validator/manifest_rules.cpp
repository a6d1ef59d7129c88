#include "manifest_rules.hpp"

#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/path.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <fmt/format.h>

namespace msptk::detail {

namespace json = boost::json;

void check_manifest(const ManifestContext& ctx, std::vector<Finding>& out) {
  auto add = [&](std::string_view member, std::string rule, std::string message) {
    out.push_back(Finding{Severity::error, ctx.file, line_of_path(ctx.text, member), std::move(rule), std::move(message)});
  };
  for (const ManifestProblem& problem : ctx.parse->problems) add(problem.member, problem.rule, problem.message);

  const json::object* obj = ctx.json->if_object();
  if (!obj) return;
  const Manifest& manifest = ctx.parse->manifest;
  if (const json::value* scenario = obj->if_contains("scenario"); scenario && is_json_string(*scenario)) {
    // A scenario id names a folder and starts report lines: a control character in it (a
    // newline splits a line, an escape colours a terminal) is refused, even when the folder
    // is named the same.
    if (const long c = first_control_character(manifest.scenario); c >= 0)
      add("scenario", "manifest.scenario",
          fmt::format("scenario \"{}\" holds a control character ({}): a scenario id names a folder and starts report "
                      "lines",
                      manifest.scenario, c < 0x80 ? fmt::format("0x{:02x}", c) : fmt::format("U+{:04X}", c)));
    else if (manifest.scenario != ctx.folder_name)
      add("scenario", "manifest.scenario",
          fmt::format("scenario \"{}\" differs from the folder name \"{}\"", manifest.scenario, ctx.folder_name));
  }
  if (const json::value* normalize = obj->if_contains("normalize"); normalize && normalize->is_array()) {
    const json::array& paths = normalize->get_array();
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (!paths[i].is_string()) continue;  // manifest.type, reported above
      const std::string member = fmt::format("normalize[{}]", i);
      if (auto refused = refuse_normalize_entry(*ctx.registry, paths[i].get_string()))
        add(member, std::move(refused->rule), std::move(refused->message));
    }
  }
  const json::value* source = obj->if_contains("source");
  if (ctx.transcript_lines && source && source->is_array()) {
    // parse_manifest keeps one SourceRange per object entry, in order.
    std::size_t k = 0;
    const json::array& entries = source->get_array();
    for (std::size_t i = 0; i < entries.size() && k < manifest.source.size(); ++i) {
      if (!entries[i].is_object()) continue;
      const SourceRange& range = manifest.source[k++];
      if (range.last > *ctx.transcript_lines) {
        add(fmt::format("source[{}].lines", i), "manifest.source-range",
            fmt::format("source[{}].lines \"{}\" reaches line {}, but the transcript has {} lines", i, range.lines,
                        range.last, *ctx.transcript_lines));
      }
    }
  }
}

}  // namespace msptk::detail
