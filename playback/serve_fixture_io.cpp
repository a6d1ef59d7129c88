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
  // The file is read as it is played (serve_fixture); that it can be opened is said now.
  if (auto readable = TranscriptReader::open(transcript); !readable) return readable.error();
  FixtureScript script;
  script.scenario = std::move(*scenario);
  script.transcript = transcript.string();
  script.frame_limit = static_cast<std::size_t>(script.scenario.manifest.frame_limit_bytes);
  script.stream = true;
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

// The first `limit` bytes of `bytes`, cut before a UTF-8 sequence rather than inside one.
std::string_view quoted_prefix(std::string_view bytes, std::size_t limit) {
  if (bytes.size() <= limit) return bytes;
  std::size_t cut = limit;
  for (int back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(bytes[cut]) & 0xC0) == 0x80; ++back) --cut;
  return bytes.substr(0, cut);
}

// A frame quoted in the report: at most kReportQuoteBytes bytes; `omitted` names the member
// that counts the bytes left out (only written when some were).
void put_frame(json::object& o, std::string_view member, const std::optional<std::string>& frame,
               std::string_view omitted) {
  if (!frame) {
    o[member] = nullptr;
    return;
  }
  const std::string_view quoted = quoted_prefix(*frame, kReportQuoteBytes);
  o[member] = text_of(quoted);
  if (quoted.size() < frame->size()) o[omitted] = frame->size() - quoted.size();
}

// A divergence value (canonical JSON text): the JSON value itself, or, when its text is over
// kReportQuoteBytes, a string of the first bytes of that text and the count left out.
void put_value(json::object& o, std::string_view member, const std::string& compact, std::string_view omitted) {
  if (compact.size() > kReportQuoteBytes) {
    const std::string_view quoted = quoted_prefix(compact, kReportQuoteBytes);
    o[member] = text_of(quoted);
    o[omitted] = compact.size() - quoted.size();
    return;
  }
  auto v = parse_json(compact);
  o[member] = v ? std::move(*v) : json::value(text_of(compact));
}

template <class T>
json::value or_null(const std::optional<T>& value) {
  if (!value) return nullptr;
  return *value;
}

}  // namespace

namespace {

json::array divergences_json(const std::vector<PathDivergence>& list) {
  json::array out;
  for (std::size_t i = 0; i < list.size() && i < kReportDivergences; ++i) {
    const PathDivergence& d = list[i];
    json::object one{{"path", text_of(quoted_prefix(d.path, kReportQuoteBytes))}};
    if (d.expected) put_value(one, "expected", *d.expected, "expectedOmittedBytes");
    if (d.actual) put_value(one, "received", *d.actual, "receivedOmittedBytes");
    one["note"] = text_of(quoted_prefix(d.note, kReportQuoteBytes));
    out.push_back(std::move(one));
  }
  return out;
}

// The members --keep-going and --follow-minted add, after the upstream ones.
void put_followed(json::object& o, const ServeFixtureReport& report) {
  if (const std::optional<KeepGoingReport>& k = report.keep_going) {
    o["divergentFrames"] = k->divergent;
    o["missingFrames"] = k->missing;
    o["extraFrames"] = k->extra;
    o["skippedServerFrames"] = k->skipped_server_frames;
    json::array frames;
    for (const ScriptDifference& d : k->differences) {
      json::object one{{"outcome", to_string(d.outcome)},
                       {"transcriptLine", or_null(d.transcript_line)},
                       {"inputLine", or_null(d.input_line)},
                       {"signature", text_of(d.signature)}};
      if (d.received_frame) {
        const std::string_view quoted = quoted_prefix(*d.received_frame, kReportQuoteBytes);
        one["receivedFrame"] = text_of(quoted);
        one["receivedBytes"] = or_null(d.received_bytes);
        if (d.received_bytes && *d.received_bytes > quoted.size())
          one["receivedFrameOmittedBytes"] = *d.received_bytes - quoted.size();
      }
      if (d.outcome == ScriptOutcome::divergent) {
        one["divergences"] = divergences_json(d.divergences);
        if (d.divergences_omitted > 0) one["divergencesOmitted"] = d.divergences_omitted;
      }
      frames.push_back(std::move(one));
    }
    o["frames"] = std::move(frames);
    const std::size_t total = k->divergent + k->missing + k->extra;
    if (total > k->differences.size()) o["framesOmitted"] = total - k->differences.size();
    o["clientInfo"] = divergences_json(k->client_info);
  }
  if (report.substitutions) o["substitutions"] = *report.substitutions;
}

void put_chaos(json::object& o, const ServeFixtureReport& report) {
  if (!report.chaos) return;
  json::object c{{"spec", text_of(report.chaos->spec)}, {"seed", report.chaos->seed}};
  if (report.failure) c["inForce"] = text_of(report.chaos->in_force);
  o["chaos"] = std::move(c);
}

}  // namespace

void render_report_json(std::ostream& out, const ServeFixtureReport& report) {
  json::object o;
  if (!report.failure) {
    o["kind"] = report.cut ? "serveFixtureCut" : "serveFixtureComplete";
    o["scenario"] = text_of(report.scenario);
    o["transcript"] = text_of(report.transcript);
    o["clientFrames"] = report.client_frames;
    o["serverFrames"] = report.server_frames;
    if (report.cut) o["cutAtLine"] = or_null(report.cut->transcript_line);
    put_followed(o, report);
    put_chaos(o, report);
    out << serialize_json(o) << "\n";
    return;
  }
  const ServeFailure& f = *report.failure;
  o["kind"] = "serveFixtureFailure";
  o["problem"] = to_string(f.problem);
  o["scenario"] = text_of(report.scenario);
  o["transcript"] = text_of(report.transcript);
  o["transcriptLine"] = or_null(f.transcript_line);
  put_frame(o, "expectedFrame", f.expected_frame, "expectedFrameOmittedBytes");
  put_frame(o, "receivedFrame", f.received_frame, "receivedFrameOmittedBytes");
  o["receivedBytes"] = or_null(f.received_bytes);
  o["clientFrames"] = report.client_frames;
  o["serverFrames"] = report.server_frames;
  o["divergences"] = divergences_json(f.divergences);
  if (f.divergences.size() > kReportDivergences) o["divergencesOmitted"] = f.divergences.size() - kReportDivergences;
  json::array errors;
  for (const std::string& e : f.errors) errors.push_back(text_of(quoted_prefix(e, kReportQuoteBytes)));
  o["errors"] = std::move(errors);
  put_followed(o, report);
  put_chaos(o, report);
  out << serialize_json(o) << "\n";
}

}  // namespace msptk::playback
