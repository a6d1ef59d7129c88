// The rule catalogue of `msptk validate`: every rule id the validator can print, its group
// (the part before the dot: file, frame, session, manifest, corpus), the severity it is
// reported with, and a one-line statement of the rule. Ids are stable: scripts and baselines
// match on them. `msptk validate --list-rules` prints this table, and a test asserts that the
// golden suite holds a broken fixture for every entry.
#pragma once

#include "msptk/validator/report.hpp"

#include <span>
#include <string_view>

namespace msptk {

struct RuleInfo {
  std::string_view id;
  std::string_view severity;  // "error", "warning", "note/warning" (tolerance-dependent)
  std::string_view statement;
};

std::span<const RuleInfo> rule_catalogue();

// The catalogue entry of `id`, or nullptr when the validator has no such rule.
const RuleInfo* find_rule(std::string_view id);

}  // namespace msptk
