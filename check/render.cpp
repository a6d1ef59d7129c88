#include "msptk/check/render.hpp"

#include "msptk/transcript/display.hpp"
#include <fmt/format.h>

namespace msptk::check {

namespace {

constexpr std::string_view kStale = "stale baseline entry: it no longer fails, remove it from the baseline";

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Cuts a value to `max` characters (not bytes: UTF-8 sequences stay whole).
std::string cut(const std::string& text, std::size_t max = 60) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars++ == max) return text.substr(0, i) + "…";
  }
  return text;
}

std::string value(const std::optional<std::string>& v) { return v ? cut(*v) : "(absent)"; }

std::string describe(const DiffResult& comparison, const DiffEntry& entry) {
  std::string text = entry.expected_line ? fmt::format("{}:{}: ", comparison.expected_file, entry.expected_line)
                                         : fmt::format("{}: ", comparison.expected_file);
  text += fmt::format("{} {}", to_string(entry.kind), entry.signature);
  if (!entry.actual_signature.empty()) text += fmt::format(" (the recording has a {})", entry.actual_signature);
  switch (entry.kind) {
    case EntryKind::missing: text += " (not in the recording)"; break;
    case EntryKind::extra: text += fmt::format(" (recording line {}, not in the golden transcript)", entry.actual_line); break;
    case EntryKind::moved: text += fmt::format(" (at recording line {}: another position)", entry.actual_line); break;
    default: break;
  }
  if (!entry.divergences.empty()) {
    const PathDivergence& d = entry.divergences.front();
    text += fmt::format(" at {}: {} → {}", d.path.empty() ? "(the whole frame)" : d.path, value(d.expected),
                        value(d.actual));
    if (!d.note.empty()) text += fmt::format(" ({})", cut(d.note, 200));
    if (entry.divergences.size() > 1) text += fmt::format(" (+{} more)", entry.divergences.size() - 1);
  }
  return text;
}

}  // namespace

std::optional<std::string> first_divergence(const DiffReport& report) {
  for (const DiffResult& comparison : report.comparisons) {
    for (const DiffEntry& entry : comparison.entries) {
      if (entry.kind == EntryKind::identical || entry.kind == EntryKind::equivalent) continue;
      return describe(comparison, entry);
    }
  }
  return std::nullopt;
}

namespace {

std::string status_line(const ScenarioOutcome& o) {
  const std::string id = o.id();
  switch (o.status) {
    case Status::pass:
      return o.in_baseline ? fmt::format("PASS {} ({})", id, kStale) : fmt::format("PASS {}", id);
    case Status::fail:
      return o.in_baseline ? fmt::format("XFAIL {}: {} (expected: listed in the baseline)", id, o.reason)
                           : fmt::format("FAIL {}: {}", id, o.reason);
    case Status::skip:
      return o.in_baseline ? fmt::format("SKIP {}: {} ({})", id, o.reason, kStale)
                           : fmt::format("SKIP {}: {}", id, o.reason);
    case Status::error: return fmt::format("ERROR {}: {}", id, o.reason);
  }
  return id;
}

}  // namespace

std::string result_line(const ScenarioOutcome& o) {
  // Outcomes quote input (scenario folder names, reasons with manifest values, baseline lines):
  // the line is display text, whoever prints it (the report, the streamed lines, a merge).
  std::string line = status_line(o);
  if (!o.pending.empty()) line += fmt::format(" [candidate: {}]", o.pending);
  if (!o.chaos.empty()) line += fmt::format(" [chaos {}]", o.chaos);
  return display_text(line);
}

std::string summary_line(const CheckSummary& s) {
  std::string line = fmt::format("{} passed, {} failed, {} skipped", s.passed, s.failed, s.skipped);
  if (s.errors) line += ", " + plural(s.errors, "error", "errors");
  if (s.expected_failures) line += ", " + plural(s.expected_failures, "expected failure", "expected failures");
  if (s.stale) line += ", " + plural(s.stale, "stale baseline entry", "stale baseline entries");
  return line;
}

void render_text(std::ostream& out, std::ostream& err, const CheckReport& report) {
  for (const ScenarioOutcome& outcome : report.scenarios) out << result_line(outcome) << "\n";
  for (const std::string& warning : report.warnings) err << "msptk: warning: " << display_text(warning) << "\n";
  out << summary_line(report.summary()) << "\n";
}

}  // namespace msptk::check
