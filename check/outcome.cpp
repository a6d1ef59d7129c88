#include "msptk/check/outcome.hpp"

#include <fmt/format.h>

namespace msptk::check {

std::string_view to_string(Status status) {
  switch (status) {
    case Status::pass: return "pass";
    case Status::fail: return "fail";
    case Status::skip: return "skip";
    case Status::error: return "error";
  }
  return "error";
}

std::optional<Status> parse_status(std::string_view text) {
  for (Status s : {Status::pass, Status::fail, Status::skip, Status::error})
    if (to_string(s) == text) return s;
  return std::nullopt;
}

std::string_view ScenarioOutcome::failure_cause() const {
  for (const Finding& finding : validation)
    if (finding.severity == Severity::error) return "validation";
  if (const auto* object = replay.if_object())
    if (const auto* code = object->if_contains("exitCode"); code && code->is_int64() && code->as_int64() == 3)
      return "error";
  return "divergence";
}

std::string Shard::str() const { return fmt::format("{}/{}", index, count); }

CheckSummary CheckReport::summary() const {
  CheckSummary s;
  for (const ScenarioOutcome& o : scenarios) {
    ++s.scenarios;
    switch (o.status) {
      case Status::pass: ++s.passed; break;
      case Status::skip: ++s.skipped; break;
      case Status::error: ++s.errors; break;
      case Status::fail: ++(o.in_baseline ? s.expected_failures : s.failed); break;
    }
    if (o.stale_baseline()) ++s.stale;
  }
  return s;
}

int CheckReport::exit_code() const {
  const CheckSummary s = summary();
  if (s.errors) return 3;
  return s.failed ? 1 : 0;
}

}  // namespace msptk::check
