// Step 1 of every check runner (replay_runner.cpp, client_runner.cpp): validate the scenario
// into the outcome. An unreadable file makes it an `error`, a validation error a `fail` (the
// first error is the reason, every error a line of the details). Internal to check/.
#pragma once

#include "msptk/check/outcome.hpp"
#include "msptk/validator/validator.hpp"

#include <filesystem>

namespace msptk::check {

// Returns true when the scenario may be played.
inline bool validate_step(const std::filesystem::path& dir, const ValidateOptions& options, ScenarioOutcome& outcome) {
  ScenarioReport report = validate_scenario(dir, options);
  outcome.validation = std::move(report.findings);
  if (!report.problems.empty()) {
    outcome.status = Status::error;
    outcome.reason = report.problems.front().render();
    for (const Error& problem : report.problems) outcome.details += problem.render() + "\n";
    return false;
  }
  for (const Finding& finding : outcome.validation) {
    if (finding.severity != Severity::error) continue;
    if (outcome.status != Status::fail) outcome.reason = render(finding);
    outcome.status = Status::fail;
    outcome.details += render(finding) + "\n";
  }
  return outcome.status != Status::fail;
}

}  // namespace msptk::check
