// Fuzz target: the JSON path parser (normalizer/path.hpp) and the mask built on it.
// Input: PATH, then LF and a JSON document to match it against (optional).
// Invariants:
// - parse either fails with a message naming the path or yields a path whose text is the input
//   and which parses again to the same steps;
// - every location for_each_match reports (on either overload, with the same results) is one
//   matches_location accepts;
// - declared in a mask (after adding it to a registry), every matched location of a server
//   notification is masked (the top-level `id` aside, however matched: the role decides about ids).
#include "fuzz_support.hpp"

#include "msptk/normalizer/path.hpp"

#include "msptk/transcript/json_parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace msptk;
  namespace json = boost::json;
  const std::string_view text = fuzz::as_text(data, size);
  const std::size_t lf = text.find('\n');
  const std::string_view path_text = text.substr(0, lf);
  Result<JsonPath> path = JsonPath::parse(path_text);
  if (!path) {
    MSPTK_FUZZ_CHECK(!path.error().message.empty(), "a path error without message");
    return 0;
  }
  MSPTK_FUZZ_CHECK(path->text() == path_text, "the path's text is not its input");
  MSPTK_FUZZ_CHECK(!path->steps().empty(), "a parsed path without steps");
  Result<JsonPath> again = JsonPath::parse(path->text());
  MSPTK_FUZZ_CHECK(again.has_value() && again->steps().size() == path->steps().size(),
                   "a parsed path does not parse again to the same steps");

  if (lf == std::string_view::npos) return 0;
  auto parsed = parse_json(text.substr(lf + 1));
  if (!parsed) return 0;
  json::value& doc = *parsed;

  std::vector<std::string> locations;
  path->for_each_match(static_cast<const json::value&>(doc), [&](const json::value&, const std::string& location) {
    MSPTK_FUZZ_CHECK(path->matches_location(location), "path {} does not match its own match location {}",
                     path->text(), location);
    locations.push_back(location);
  });
  std::vector<std::string> mutable_locations;
  path->for_each_match(doc, [&](json::value&, const std::string& location) { mutable_locations.push_back(location); });
  MSPTK_FUZZ_CHECK(locations == mutable_locations, "the two for_each_match overloads disagree");

  // `id` is the JSON-RPC id, masked by the frame's role rather than by the path (mask.hpp).
  if (path->text() == "id") return 0;
  Registry registry = Registry::builtin();
  if (!registry.add(path->text())) return 0;
  for (MaskMode mode : {MaskMode::unify, MaskMode::erase}) {
    Result<MaskSpec> spec = make_mask_spec(registry, {std::string(path->text())}, "fuzz-manifest.json", 1, {}, mode);
    MSPTK_FUZZ_CHECK(spec.has_value(), "a registered path is refused: {}", spec ? "" : spec.error().render());
    const Masker masker(std::move(*spec));
    const FrameRole role{Direction::server, FrameKind::notification, false};
    // Every step of the path (member, `*`, `[]`) is one step of the location.
    const std::size_t depth = path->steps().size();
    for (const std::string& location : locations) {
      if (location == "id") continue;  // a wildcard's match of the top-level id: the role decides
      const MaskRule rule = masker.rule_for(role, location, depth);
      MSPTK_FUZZ_CHECK(rule.treatment != Treatment::exact, "declared path {} leaves its match {} exact ({})",
                       path->text(), location, to_string(mode));
    }
  }
  return 0;
}
