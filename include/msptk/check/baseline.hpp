// A Baseline lists the scenarios a check run expects to fail (`--baseline FILE`), so a
// project can adopt `msptk check` before its host passes everything and then shrink the list.
//
// Format: UTF-8 text, one entry per line. An entry is a scenario id, `corpus/scenario` (the
// name `msptk check` prints) or a bare `scenario` (that scenario in any corpus). `#` starts a
// comment (at the start of a line or after a space); blank lines are ignored; leading and
// trailing spaces are trimmed. Example:
//
//   # host bugs we know about
//   transcripts/goal-edit-busy-steer   # tracked in #123
//   pending-command-ack-reject
//
// A listed scenario that fails is an expected failure; one that passes (or is skipped) is a
// stale entry; an entry naming no scenario of the run is reported as a warning.
#pragma once

#include "msptk/check/outcome.hpp"
#include "msptk/transcript/error.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::check {

class Baseline {
 public:
  struct Entry {
    std::string id;        // "corpus/scenario" or "scenario"
    std::size_t line = 0;  // 1-based line in the file
  };

  // Parses the text of a baseline file; a malformed entry (spaces inside, more than one '/',
  // an empty part) is a `malformed` error naming FILE:LINE (rule baseline.entry).
  static Result<Baseline> parse(std::string_view text, const std::string& file);
  static Result<Baseline> read(const std::filesystem::path& file);

  bool lists(const ScenarioTask& task) const;
  // "FILE:LINE: baseline entry "x" names no scenario of this run" for every entry that
  // matches none of `tasks`.
  std::vector<std::string> unmatched(const std::vector<ScenarioTask>& tasks) const;

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::string file_;
  std::vector<Entry> entries_;
};

}  // namespace msptk::check
