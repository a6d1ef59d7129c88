// The text form of a check run: one line per scenario, in run order,
//   PASS corpus/scenario
//   FAIL corpus/scenario: <first divergence: FILE:LINE: what, at which path>
//   SKIP corpus/scenario: <reason>
//   ERROR corpus/scenario: <what could not be done>
//   XFAIL corpus/scenario: <reason> (expected: listed in the baseline)
//   PASS corpus/scenario (stale baseline entry: it passes now, remove it from the baseline)
// then, as the last line, the summary:
//   N passed, N failed, N skipped[, N errors][, N expected failures][, N stale baseline entries]
// Also the one-line description of a diff's first divergence that FAIL lines and JUnit
// failure messages use.
#pragma once

#include "msptk/check/outcome.hpp"
#include "msptk/differ/diff.hpp"

#include <optional>
#include <ostream>
#include <string>

namespace msptk::check {

// One scenario's line, as display text (transcript/display.hpp: control bytes escaped).
std::string result_line(const ScenarioOutcome& outcome);
std::string summary_line(const CheckSummary& summary);

// Every result line, then the warnings (as "msptk: warning: …" to `err`) and the summary line.
void render_text(std::ostream& out, std::ostream& err, const CheckReport& report);

// "GOLDEN:LINE: divergent server response to turn/start at result.status: "accepted" → "rejected""
// for the first frame of `report` that is neither identical nor equivalent; nullopt when there
// is none. Long values are cut.
std::optional<std::string> first_divergence(const DiffReport& report);

}  // namespace msptk::check
