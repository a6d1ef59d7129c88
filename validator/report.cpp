#include "msptk/validator/report.hpp"

#include <fmt/format.h>

namespace msptk {

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
  }
  return "error";
}

std::string render(const Finding& finding) {
  std::string where = finding.file;
  if (finding.line > 0) where += fmt::format(":{}", finding.line);
  return fmt::format("{}: {}: {} [{}]", where, to_string(finding.severity), finding.message, finding.rule);
}

std::size_t ScenarioReport::count(Severity severity) const {
  std::size_t n = 0;
  for (const Finding& f : findings)
    if (f.severity == severity) ++n;
  return n;
}

ValidationSummary ValidationReport::summary() const {
  ValidationSummary s;
  auto tally = [&s](const Finding& f) {
    ++s.rules[f.rule];
    switch (f.severity) {
      case Severity::error: ++s.errors; break;
      case Severity::warning: ++s.warnings; break;
      case Severity::note: ++s.notes; break;
    }
  };
  for (const ScenarioReport& scenario : scenarios) {
    ++s.scenarios;
    (scenario.ok() ? s.ok : s.failed) += 1;
    for (const Finding& f : scenario.findings) tally(f);
    s.problems += scenario.problems.size();
    s.schema = s.schema || !scenario.bundle.empty();
    s.schema_checked += scenario.schema_checked;
    s.envelope_only += scenario.envelope_only;
  }
  for (const Finding& f : corpus_findings) tally(f);
  s.problems += problems.size();
  return s;
}

int ValidationReport::exit_code() const {
  ValidationSummary s = summary();
  if (s.problems > 0) return 3;
  return s.errors > 0 ? 1 : 0;
}

}  // namespace msptk
