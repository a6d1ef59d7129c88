#include "msptk/differ/render.hpp"
#include "render_parts.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/transcript/json_io.hpp"

#include <boost/json/serialize.hpp>

namespace msptk {

namespace json = boost::json;

namespace {

json::object counts_json(const DiffCounts& c) {
  return json::object{{"frames", c.frames()},         {"identical", c.identical}, {"equivalent", c.equivalent},
                      {"divergent", c.divergent},     {"missing", c.missing},     {"extra", c.extra},
                      {"moved", c.moved}};
}

json::value location(const std::string& file, std::size_t line) {
  if (line == 0) return nullptr;
  return json::object{{"file", file}, {"line", line}};
}

json::value parsed(const std::string& text) {
  auto v = parse_json(text);
  return v ? std::move(*v) : json::value(json::string(text));
}

}  // namespace

json::value render_parts::frame_json(const DiffResult& r, const DiffEntry& e) {
  json::array divergences;
  for (const PathDivergence& d : e.divergences) {
    json::object o{{"path", d.path}};
    if (d.expected) o["expected"] = parsed(*d.expected);
    if (d.actual) o["actual"] = parsed(*d.actual);
    if (!d.note.empty()) o["note"] = d.note;
    divergences.push_back(std::move(o));
  }
  json::object f{{"outcome", to_string(e.kind)},
                 {"signature", e.signature},
                 {"expected", location(r.expected_file, e.expected_line)},
                 {"actual", location(r.actual_file, e.actual_line)},
                 {"divergences", std::move(divergences)}};
  if (!e.actual_signature.empty()) f["actualSignature"] = e.actual_signature;
  return f;
}

json::value to_json(const DiffResult& r) {
  json::array frames;
  for (const DiffEntry& e : r.entries) frames.push_back(render_parts::frame_json(r, e));
  json::array paths;
  for (const MaskUse& m : r.masks) paths.push_back(json::object{{"path", m.path}, {"covered", m.covered}, {"differed", m.differed}});
  json::array warnings;
  for (const std::string& w : r.warnings) warnings.push_back(json::string(w));
  json::object mask{{"mode", to_string(r.mode)}, {"paths", std::move(paths)}};
  if (!r.client_info.empty()) {
    json::array unified;
    for (const PathDivergence& c : r.client_info)
      unified.push_back(json::object{{"path", c.path}, {"expected", parsed(*c.expected)}, {"actual", parsed(*c.actual)}});
    mask["clientInfo"] = std::move(unified);
  }
  return json::object{{"expected", r.expected_file},
                      {"actual", r.actual_file},
                      {"side", to_string(r.side)},
                      {"verdict", to_string(r.verdict)},
                      {"counts", counts_json(r.counts)},
                      {"byteIdentical", r.byte_identical},
                      {"mask", std::move(mask)},
                      {"warnings", std::move(warnings)},
                      {"frames", std::move(frames)}};
}

json::value to_json(const DiffReport& report) {
  json::array comparisons;
  for (const DiffResult& r : report.comparisons) comparisons.push_back(to_json(r));
  json::array unpaired;
  for (const UnpairedFile& u : report.unpaired)
    unpaired.push_back(json::object{{"side", u.in_expected ? "expected" : "actual"}, {"file", u.file}});
  return json::object{{"kind", "msptkDiff"},
                      {"schemaVersion", 1},
                      {"verdict", to_string(report.verdict())},
                      {"counts", counts_json(report.total())},
                      {"comparisons", std::move(comparisons)},
                      {"unpairedLegs", std::move(unpaired)}};
}

void render_json(std::ostream& out, const DiffReport& report) { out << pretty(to_json(report)) << "\n"; }

}  // namespace msptk
