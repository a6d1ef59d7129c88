#include "msptk/check/report_json.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/check/plan.hpp"
#include "msptk/transcript/json_io.hpp"

#include "msptk/transcript/writer.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace msptk::check {

namespace json = boost::json;

namespace {

// Report strings are JSON strings: bytes that are not UTF-8 become U+FFFD.
json::value text(std::string_view s) { return json::value(lossy_utf8(s)); }

json::value severity_finding(const Finding& f) {
  return json::object{{"severity", to_string(f.severity)},
                      {"file", text(f.file)},
                      {"line", f.line},
                      {"rule", text(f.rule)},
                      {"message", text(f.message)}};
}

// Reads members of one object of a report, naming the file and the member in errors.
class Members {
 public:
  Members(const json::object& object, const std::string& file, std::string where)
      : object_(object), file_(file), where_(std::move(where)) {}

  Error bad(std::string_view member, std::string_view expected) const {
    std::string path = where_;
    if (!member.empty()) path += (path.empty() ? "" : ".") + std::string(member);
    return Error::malformed(file_, 0, "check.report",
                            fmt::format("not an msptk check report: {} should be {}",
                                        path.empty() ? "the document" : path, expected));
  }
  const json::value* find(std::string_view member) const { return object_.if_contains(member); }

  Result<std::string> string(std::string_view member) const {
    const json::value* v = find(member);
    if (!v || !is_json_string(*v)) return bad(member, "a string");
    return std::string(v->get_string());
  }
  Result<std::string> string_or_null(std::string_view member) const {
    const json::value* v = find(member);
    if (!v || v->is_null()) return std::string();
    return string(member);
  }
  Result<std::size_t> count(std::string_view member) const {
    const json::value* v = find(member);
    if (v && v->is_uint64()) return static_cast<std::size_t>(v->get_uint64());
    if (v && v->is_int64() && v->get_int64() >= 0) return static_cast<std::size_t>(v->get_int64());
    return bad(member, "a non-negative integer");
  }
  Result<double> number(std::string_view member) const {
    const json::value* v = find(member);
    if (!v || !v->is_number()) return bad(member, "a number");
    return v->to_number<double>();
  }
  Result<bool> boolean(std::string_view member) const {
    const json::value* v = find(member);
    if (!v || !v->is_bool()) return bad(member, "true or false");
    return v->get_bool();
  }
  Result<const json::array*> array(std::string_view member) const {
    const json::value* v = find(member);
    if (!v || !v->is_array()) return bad(member, "an array");
    return &v->get_array();
  }
  json::value any(std::string_view member) const {
    const json::value* v = find(member);
    return v ? *v : json::value(nullptr);
  }

 private:
  const json::object& object_;
  const std::string& file_;
  std::string where_;
};

#define MSPTK_TRY(var, expr)           \
  auto var##_result = (expr);          \
  if (!var##_result) return var##_result.error(); \
  auto var = std::move(*var##_result)

Result<Finding> finding_from_json(const json::value& value, const std::string& file, const std::string& where) {
  if (!value.is_object()) return Members(json::object{}, file, where).bad("", "an object");
  Members m(value.get_object(), file, where);
  Finding f;
  MSPTK_TRY(severity, m.string("severity"));
  if (severity == "error") f.severity = Severity::error;
  else if (severity == "warning") f.severity = Severity::warning;
  else if (severity == "note") f.severity = Severity::note;
  else return m.bad("severity", "\"error\", \"warning\" or \"note\"");
  MSPTK_TRY(finding_file, m.string("file"));
  MSPTK_TRY(line, m.count("line"));
  MSPTK_TRY(rule, m.string("rule"));
  MSPTK_TRY(message, m.string("message"));
  f.file = std::move(finding_file), f.line = line, f.rule = std::move(rule), f.message = std::move(message);
  return f;
}

Result<ScenarioOutcome> outcome_from_json(const json::value& value, const std::string& file, const std::string& where) {
  if (!value.is_object()) return Members(json::object{}, file, where).bad("", "an object");
  Members m(value.get_object(), file, where);
  ScenarioOutcome o;
  MSPTK_TRY(corpus, m.string("corpus"));
  MSPTK_TRY(scenario, m.string("scenario"));
  MSPTK_TRY(path, m.string("path"));
  MSPTK_TRY(index, m.count("index"));
  MSPTK_TRY(status_text, m.string("status"));
  auto status = parse_status(status_text);
  if (!status) return m.bad("status", "\"pass\", \"fail\", \"skip\" or \"error\"");
  MSPTK_TRY(in_baseline, m.boolean("inBaseline"));
  MSPTK_TRY(reason, m.string("reason"));
  MSPTK_TRY(details, m.string("details"));
  MSPTK_TRY(duration, m.number("durationMs"));
  MSPTK_TRY(validation, m.array("validation"));
  MSPTK_TRY(recording, m.string_or_null("recording"));
  o.corpus = std::move(corpus), o.scenario = std::move(scenario), o.path = std::move(path), o.index = index;
  o.status = *status, o.in_baseline = in_baseline, o.reason = std::move(reason), o.details = std::move(details);
  o.duration_ms = duration, o.recording = std::move(recording);
  for (std::size_t i = 0; i < validation->size(); ++i) {
    MSPTK_TRY(finding, finding_from_json((*validation)[i], file, fmt::format("{}.validation[{}]", where, i)));
    o.validation.push_back(std::move(finding));
  }
  o.replay = m.any("replay");
  o.diff = m.any("diff");
  o.client = m.any("client");
  if (json::value pending = m.any("pending"); pending.is_string()) o.pending = std::string(pending.get_string());
  return o;
}

}  // namespace

json::value to_json(const ScenarioOutcome& o) {
  json::array validation;
  for (const Finding& f : o.validation) validation.push_back(severity_finding(f));
  json::object out{{"id", text(o.id())},
                      {"corpus", text(o.corpus)},
                      {"scenario", text(o.scenario)},
                      {"path", text(o.path)},
                      {"index", o.index},
                      {"status", to_string(o.status)},
                      {"inBaseline", o.in_baseline},
                      {"reason", text(o.reason)},
                      {"details", text(o.details)},
                      {"durationMs", o.duration_ms},
                      {"validation", std::move(validation)},
                      {"replay", o.replay},
                      {"diff", o.diff},
                      {"recording", o.recording.empty() ? json::value(nullptr) : text(o.recording)},
                      {"pending", o.pending.empty() ? json::value(nullptr) : text(o.pending)}};
  if (!o.client.is_null()) out["client"] = o.client;  // check --client only
  return out;
}

json::value to_json(const CheckReport& report) {
  const CheckSummary s = report.summary();
  json::array corpora, warnings;
  for (const std::string& c : report.corpora) corpora.push_back(text(c));
  for (const std::string& w : report.warnings) warnings.push_back(text(w));
  json::array scenarios;
  for (const ScenarioOutcome& o : report.scenarios) scenarios.push_back(to_json(o));
  return json::object{
      {"kind", "msptkCheck"},
      {"schemaVersion", 1},
      {"host", text(report.host)},
      {"corpora", std::move(corpora)},
      {"shard", report.shard ? json::value(report.shard->str()) : json::value(nullptr)},
      {"totalScenarios", report.total_scenarios},
      {"durationMs", report.duration_ms},
      {"exitCode", report.exit_code()},
      {"summary", json::object{{"scenarios", s.scenarios},
                               {"passed", s.passed},
                               {"failed", s.failed},
                               {"skipped", s.skipped},
                               {"errors", s.errors},
                               {"expectedFailures", s.expected_failures},
                               {"staleBaselineEntries", s.stale}}},
      {"warnings", std::move(warnings)},
      {"scenarios", std::move(scenarios)}};
}

void render_json(std::ostream& out, const CheckReport& report) {
  write_pretty(out, to_json(report));
  out << "\n";
}

Result<CheckReport> report_from_json(const json::value& value, const std::string& file) {
  if (!value.is_object()) return Members(json::object{}, file, "").bad("", "an object");
  Members m(value.get_object(), file, "");
  MSPTK_TRY(kind, m.string("kind"));
  if (kind != "msptkCheck") return m.bad("kind", "\"msptkCheck\"");
  MSPTK_TRY(version, m.count("schemaVersion"));
  if (version != 1) return m.bad("schemaVersion", "1");
  CheckReport report;
  MSPTK_TRY(host, m.string("host"));
  MSPTK_TRY(corpora, m.array("corpora"));
  MSPTK_TRY(shard_text, m.string_or_null("shard"));
  MSPTK_TRY(total, m.count("totalScenarios"));
  MSPTK_TRY(duration, m.number("durationMs"));
  MSPTK_TRY(warnings, m.array("warnings"));
  MSPTK_TRY(scenarios, m.array("scenarios"));
  report.host = std::move(host), report.total_scenarios = total, report.duration_ms = duration;
  if (!shard_text.empty()) {
    auto shard = parse_shard(shard_text);
    if (!shard) return m.bad("shard", "null or \"K/N\"");
    report.shard = *shard;
  }
  for (const json::value& c : *corpora) {
    if (!is_json_string(c)) return m.bad("corpora", "an array of strings");
    report.corpora.emplace_back(c.get_string());
  }
  for (const json::value& w : *warnings) {
    if (!is_json_string(w)) return m.bad("warnings", "an array of strings");
    report.warnings.emplace_back(w.get_string());
  }
  for (std::size_t i = 0; i < scenarios->size(); ++i) {
    MSPTK_TRY(outcome, outcome_from_json((*scenarios)[i], file, fmt::format("scenarios[{}]", i)));
    report.scenarios.push_back(std::move(outcome));
  }
  return report;
}

Result<CheckReport> read_report(const std::filesystem::path& file) {
  auto json = parse_json_file(file);
  if (!json) return json.error();
  return report_from_json(*json, file.string());
}

Result<CheckReport> merge_reports(std::vector<CheckReport> reports, const std::vector<std::string>& files) {
  auto bad = [&](std::size_t i, std::string message) {
    return Error::malformed(i < files.size() ? files[i] : std::string(), 0, "check.merge", std::move(message));
  };
  CheckReport merged;
  if (reports.empty()) return merged;
  const std::size_t shards = std::count_if(reports.begin(), reports.end(), [](const CheckReport& r) { return r.shard.has_value(); });
  if (shards != 0 && shards != reports.size()) {
    std::size_t i = 0;  // the first report that is not like the first one
    while (i < reports.size() && reports[i].shard.has_value() == reports.front().shard.has_value()) ++i;
    return bad(i, "cannot merge a whole run with shards: give either the reports of every shard of one run, "
                  "or reports of whole runs");
  }
  merged.host = reports.front().host;
  merged.corpora = reports.front().corpora;
  std::set<std::string> warnings;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    CheckReport& r = reports[i];
    if (shards) {
      const Shard& first = *reports.front().shard;
      if (r.shard->count != first.count || r.total_scenarios != reports.front().total_scenarios ||
          r.corpora != reports.front().corpora)
        return bad(i, fmt::format("shard {} is not from the same run as shard {} of {} (another shard count, corpus "
                                  "list or number of scenarios)",
                                  r.shard->str(), first.str(), files.empty() ? "" : files.front()));
      for (std::size_t j = 0; j < i; ++j)
        if (reports[j].shard == r.shard) return bad(i, fmt::format("shard {} is given twice (also {})", r.shard->str(), files[j]));
      merged.duration_ms = std::max(merged.duration_ms, r.duration_ms);
    } else {
      if (i > 0) {
        for (const std::string& c : r.corpora) merged.corpora.push_back(c);
        if (r.host != merged.host) merged.host += "; " + r.host;
      }
      merged.duration_ms += r.duration_ms;
    }
    for (std::string& w : r.warnings)
      if (warnings.insert(w).second) merged.warnings.push_back(std::move(w));
    const std::size_t offset = merged.total_scenarios;
    for (ScenarioOutcome& o : r.scenarios) {
      if (!ids.insert(o.path).second) return bad(i, fmt::format("scenario {} ({}) is in two reports", o.id(), o.path));
      if (!shards) o.index += offset;
      merged.scenarios.push_back(std::move(o));
    }
    merged.total_scenarios = shards ? r.total_scenarios : merged.total_scenarios + r.total_scenarios;
  }
  if (shards) {
    const std::size_t count = reports.front().shard->count;
    std::vector<std::string> missing;
    for (std::size_t k = 1; k <= count; ++k)
      if (std::none_of(reports.begin(), reports.end(), [&](const CheckReport& r) { return r.shard->index == k; }))
        missing.push_back(Shard{k, count}.str());
    if (!missing.empty())
      return bad(0, fmt::format("the reports lack shard{} {} of this run", missing.size() == 1 ? "" : "s",
                                fmt::join(missing, ", ")));
    std::stable_sort(merged.scenarios.begin(), merged.scenarios.end(),
                     [](const ScenarioOutcome& a, const ScenarioOutcome& b) { return a.index < b.index; });
    if (merged.scenarios.size() != merged.total_scenarios)
      return bad(0, fmt::format("the shards hold {} scenarios, the run had {}", merged.scenarios.size(),
                                merged.total_scenarios));
  }
  return merged;
}

}  // namespace msptk::check
