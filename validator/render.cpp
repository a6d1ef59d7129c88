#include "msptk/validator/render.hpp"

#include "msptk/transcript/json_io.hpp"

#include <boost/json/value.hpp>

#include <fmt/format.h>

#include <set>

namespace msptk {

namespace json = boost::json;

namespace {

json::object finding_json(const Finding& f) {
  return json::object{{"severity", to_string(f.severity)}, {"file", f.file}, {"line", f.line},
                      {"rule", f.rule},                      {"message", f.message}};
}

json::object problem_json(const Error& e) {
  json::object obj{{"file", e.file}, {"line", e.line}, {"message", e.message}};
  obj["rule"] = e.rule.empty() ? json::value(nullptr) : json::value(e.rule);
  return obj;
}

std::string_view status(const ScenarioReport& scenario) {
  if (!scenario.problems.empty()) return "unreadable";
  return scenario.ok() ? "ok" : "failed";
}

}  // namespace

std::string summary_line(const ValidationSummary& s) {
  return fmt::format("{} scenario{}: {} ok, {} failed ({} error{}, {} warning{})", s.scenarios,
                     s.scenarios == 1 ? "" : "s", s.ok, s.failed, s.errors, s.errors == 1 ? "" : "s", s.warnings,
                     s.warnings == 1 ? "" : "s");
}

std::string schema_line(const ValidationSummary& s) {
  std::string line = fmt::format("schema: {} frame{} schema-checked, {} envelope-only", s.schema_checked,
                                 s.schema_checked == 1 ? "" : "s", s.envelope_only);
  std::string rules;
  for (const auto& [rule, n] : s.rules) {
    static const std::set<std::string, std::less<>> kSchemaRules = {
        "frame.schema", "frame.unknown-enum", "frame.unknown-method", "frame.error-kind", "frame.unknown-error-code",
        "manifest.bundle"};
    if (!kSchemaRules.contains(rule)) continue;
    rules += fmt::format("{}{} {}", rules.empty() ? "" : ", ", rule, n);
  }
  return line + "; " + (rules.empty() ? std::string("no schema findings") : rules);
}

void render_text(const ValidationReport& report, std::ostream& out, std::ostream& err) {
  for (const Error& problem : report.problems) err << "msptk: error: " << problem.render() << "\n";
  for (const ScenarioReport& scenario : report.scenarios) {
    for (const Error& problem : scenario.problems) err << "msptk: error: " << problem.render() << "\n";
    for (const Finding& finding : scenario.findings) out << render(finding) << "\n";
  }
  for (const Finding& finding : report.corpus_findings) out << render(finding) << "\n";
  // A run that found nothing to validate (a bad PATH) says so on stderr only.
  if (!report.scenarios.empty() || report.problems.empty()) {
    const ValidationSummary s = report.summary();
    out << summary_line(s) << "\n";
    if (s.schema) out << schema_line(s) << "\n";
  }
}

void render_json(const ValidationReport& report, std::ostream& out) {
  json::array scenarios;
  for (const ScenarioReport& scenario : report.scenarios) {
    json::array findings, problems;
    for (const Finding& f : scenario.findings) findings.push_back(finding_json(f));
    for (const Error& e : scenario.problems) problems.push_back(problem_json(e));
    scenarios.push_back(json::object{{"scenario", scenario.scenario},
                                     {"path", scenario.path},
                                     {"status", status(scenario)},
                                     {"errors", scenario.count(Severity::error)},
                                     {"warnings", scenario.count(Severity::warning)},
                                     {"notes", scenario.count(Severity::note)},
                                     {"findings", std::move(findings)},
                                     {"problems", std::move(problems)}});
    if (!scenario.bundle.empty()) {
      json::object& entry = scenarios.back().get_object();
      entry["bundle"] = scenario.bundle;
      entry["schemaChecked"] = scenario.schema_checked;
      entry["envelopeOnly"] = scenario.envelope_only;
    }
  }
  json::array corpus, problems;
  for (const Finding& f : report.corpus_findings) corpus.push_back(finding_json(f));
  for (const Error& e : report.problems) problems.push_back(problem_json(e));
  const ValidationSummary s = report.summary();
  json::object rules;
  for (const auto& [rule, n] : s.rules) rules[rule] = n;
  json::object summary{{"scenarios", s.scenarios}, {"ok", s.ok},       {"failed", s.failed},    {"errors", s.errors},
                       {"warnings", s.warnings},   {"notes", s.notes}, {"problems", s.problems}, {"rules", std::move(rules)}};
  if (s.schema) {
    summary["schemaChecked"] = s.schema_checked;
    summary["envelopeOnly"] = s.envelope_only;
  }
  json::object doc{{"formatVersion", 1},
                   {"scenarios", std::move(scenarios)},
                   {"corpusFindings", std::move(corpus)},
                   {"problems", std::move(problems)},
                   {"summary", std::move(summary)},
                   {"exitCode", report.exit_code()}};
  out << pretty(doc);
}

}  // namespace msptk
