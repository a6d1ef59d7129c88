// serve-fixture's edges: loading (and refusing) the scenario it plays, and the one-line JSON
// report it leaves on stderr.
#include "msptk/playback/serve_fixture.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/validator/validator.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <ostream>

namespace msptk::playback {

namespace fs = std::filesystem;
namespace json = boost::json;

Result<void> require_valid_scenario(const fs::path& dir, const Registry& registry, bool format_only) {
  ValidateOptions options;
  options.registry = registry;
  ScenarioReport report = validate_scenario(dir, options);
  if (!report.problems.empty()) return report.problems.front();
  std::vector<const Finding*> errors;
  for (const Finding& f : report.findings)
    if (f.severity == Severity::error &&
        (!format_only || f.rule.starts_with("file.") || f.rule.starts_with("manifest.")))
      errors.push_back(&f);
  if (!errors.empty()) {
    const Finding& first = *errors.front();
    std::string more = errors.size() > 1 ? fmt::format(" (and {} more; see msptk validate)", errors.size() - 1) : "";
    return Error::malformed(first.file, first.line, first.rule,
                            fmt::format("invalid scenario, not played: {}{}", first.message, more));
  }
  return {};
}

Result<FixtureScript> load_fixture(const fs::path& path, const Registry& registry) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return Error::unreadable(path.string(), "no such scenario folder or transcript file");
  const bool folder = fs::is_directory(status);
  fs::path dir = folder ? path : path.parent_path();
  if (dir.empty()) dir = ".";
  const fs::path transcript = folder ? path / "transcript.ndjson" : path;
  if (!fs::exists(dir / "manifest.json"))
    return Error::malformed((dir / "manifest.json").string(), 0, "manifest.missing",
                            "serve-fixture plays a scenario folder with a manifest.json (frameLimitBytes, normalize)");

  if (auto valid = require_valid_scenario(dir, registry); !valid) return valid.error();

  auto scenario = load_scenario(dir);
  if (!scenario) return scenario.error();
  auto frames = read_transcript(transcript);
  if (!frames) return frames.error();
  FixtureScript script;
  script.scenario = std::move(*scenario);
  script.transcript = transcript.string();
  script.frame_limit = static_cast<std::size_t>(script.scenario.manifest.frame_limit_bytes);
  script.frames = std::move(*frames);
  return script;
}

namespace {

// Bytes from the wire as a JSON string: invalid UTF-8 sequences become U+FFFD.
json::string text_of(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return json::string(bytes);
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    std::size_t n = 1;
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0xC0 && c < 0xE0) n = 2;
    else if (c >= 0xE0 && c < 0xF0) n = 3;
    else if (c >= 0xF0 && c < 0xF8) n = 4;
    if (c < 0x80 || (c >= 0xC0 && i + n <= bytes.size() && is_valid_utf8(bytes.substr(i, n)))) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return json::string(out);
}

json::value value_of(const std::string& compact) {
  auto v = parse_json(compact);
  if (!v) return text_of(compact);
  return std::move(*v);
}

template <class T>
json::value or_null(const std::optional<T>& value) {
  if (!value) return nullptr;
  if constexpr (std::is_same_v<T, std::string>) return text_of(*value);
  else return *value;
}

}  // namespace

void render_report_json(std::ostream& out, const ServeFixtureReport& report) {
  json::object body{{"scenario", report.scenario}, {"transcript", text_of(report.transcript)}};
  if (!report.failure) {
    body["clientFrames"] = report.client_frames;
    body["serverFrames"] = report.server_frames;
    out << json::serialize(json::object{{"serveFixtureComplete", std::move(body)}}) << "\n";
    return;
  }
  const ServeFailure& f = *report.failure;
  json::object failure{{"problem", to_string(f.problem)}};
  for (auto& m : body) failure[m.key()] = m.value();
  failure["transcriptLine"] = or_null(f.transcript_line);
  failure["expectedFrame"] = or_null(f.expected_frame);
  failure["receivedFrame"] = or_null(f.received_frame);
  failure["receivedBytes"] = or_null(f.received_bytes);
  failure["clientFrames"] = report.client_frames;
  failure["serverFrames"] = report.server_frames;
  json::array divergences;
  for (const PathDivergence& d : f.divergences) {
    json::object o{{"path", d.path}};
    if (d.expected) o["expected"] = value_of(*d.expected);
    if (d.actual) o["received"] = value_of(*d.actual);
    o["note"] = d.note;
    divergences.push_back(std::move(o));
  }
  failure["divergences"] = std::move(divergences);
  json::array errors;
  for (const std::string& e : f.errors) errors.push_back(text_of(e));
  failure["errors"] = std::move(errors);
  out << json::serialize(json::object{{"serveFixtureFailure", std::move(failure)}}) << "\n";
}

}  // namespace msptk::playback
