// A ValidationReport is the result of `msptk validate` as data: for every scenario (or bare
// transcript) it validated, the findings it made, plus the corpus-level findings (staleness)
// and the infrastructure problems (a path or file that could not be read, a manifest that is
// not JSON) that stopped a scenario from being validated at all. A Finding names a severity,
// a file and 1-based line, the stable id of the rule (see rules.hpp) and a message.
//
// Errors fail a scenario; warnings and notes never do. Renderers (render.hpp) turn a report
// into text or JSON; exit_code() maps it onto the CLI contract.
#pragma once

#include "msptk/transcript/error.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

enum class Severity { error, warning, note };

std::string_view to_string(Severity severity);

struct Finding {
  Severity severity = Severity::error;
  std::string file;
  std::size_t line = 0;  // 1-based; 0 when the finding is about the file as a whole
  std::string rule;      // stable rule id, e.g. "frame.jsonrpc"
  std::string message;
};

// "FILE:LINE: error|warning|note: message [rule]".
std::string render(const Finding& finding);

struct ScenarioReport {
  std::string scenario;  // the scenario id (folder name), or the file name of a bare transcript
  std::string path;      // the folder or file validated, as the user's path spelled it
  std::vector<Finding> findings;
  std::vector<Error> problems;  // infrastructure problems: the scenario could not be validated
  // With a schema bundle: the bundle used, and how many frames were validated against it
  // (schema_checked) or only as JSON-RPC envelopes, the bundle having no schema for them.
  std::string bundle;
  std::size_t schema_checked = 0, envelope_only = 0;

  std::size_t count(Severity severity) const;
  bool ok() const { return problems.empty() && count(Severity::error) == 0; }
};

struct ValidationSummary {
  std::size_t scenarios = 0, ok = 0, failed = 0;
  std::size_t errors = 0, warnings = 0, notes = 0;
  std::size_t problems = 0;  // infrastructure problems (exit 3)
  bool schema = false;       // some scenario was validated against a schema bundle
  std::size_t schema_checked = 0, envelope_only = 0;
  std::map<std::string, std::size_t> rules;  // findings per rule id
};

struct ValidationReport {
  std::vector<ScenarioReport> scenarios;
  std::vector<Finding> corpus_findings;  // about several scenarios at once (corpus.*)
  std::vector<Error> problems;           // not tied to one scenario (a PATH that does not exist)

  ValidationSummary summary() const;

  // 3 when anything could not be read, else 1 when there is an error, else 0.
  int exit_code() const;
};

}  // namespace msptk
