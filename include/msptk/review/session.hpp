// The review loop of `msptk review` as data: for each candidate (candidates.hpp), show the
// scenario, its verdict and the path-level diff, and ask for a decision — a(ccept), r(eject),
// s(kip), q(uit). Accepting a divergent candidate asks for the three justification members
// (cite, rationale, trackingIssue), asking again while an answer is blank. What accepting would
// not do is shown with the diff: why the candidate cannot be accepted (an incomplete capture,
// another scenario's manifest) and a fingerprint the host reported that differs from the pin.
// Accepting writes exactly the bytes assessed and shown (candidates.hpp). The person is behind
// the Terminal seam: the CLI's real terminal (pager, stdin lines) or a scripted fake in tests.
// The non-interactive decisions (--accept-equivalent, --reject-all) and the listing are here too,
// so every way through review applies the same rules.
#pragma once

#include "msptk/review/candidates.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace msptk::review {

class Terminal {
 public:
  virtual ~Terminal() = default;
  // Shows a block of text (the real terminal pages it when it is longer than the screen).
  virtual void show(const std::string& text) = 0;
  // Writes `prompt` and reads one answer line (without its LF); nullopt at end of input.
  virtual std::optional<std::string> ask(const std::string& prompt) = 0;
};

struct ReviewEntry {
  Candidate candidate;
  std::optional<Verdict> verdict;     // unset when the candidate could not be assessed
  std::string first_difference;       // one line, "" when identical
  std::string decision = "pending";   // "accepted", "rejected", "pending" (skipped or not reached)
  std::string error;                  // assessing or applying failed
  std::optional<Error> failure;       // the same as an Error (the CLI reports it on stderr)
  std::vector<std::string> notes;     // why it cannot be accepted; a fingerprint difference
};

struct ReviewSummary {
  std::vector<ReviewEntry> entries;
  bool quit = false;
  std::size_t count(const std::string& decision) const;
  std::size_t pending() const { return count("pending"); }
};

struct ReviewOptions {
  bool color = false;
  Registry registry = Registry::builtin();
  FolderRewriteSeams rewrite;  // accept's writes and exchange (tests: a full disk, a crash)
};

// The interactive loop.
ReviewSummary run_review(const std::vector<Candidate>& candidates, Terminal& terminal, const ReviewOptions& options);

enum class BulkAction { list, accept_equivalent, reject_all };
// --list / --accept-equivalent (identical and equivalent candidates accepted, divergent ones
// left pending) / --reject-all.
ReviewSummary run_bulk(const std::vector<Candidate>& candidates, BulkAction action, const ReviewOptions& options);

// One line per candidate ("ACCEPTED corpus/scenario: equivalent", "PENDING ...: divergent: first
// difference") and a summary line.
void render_text(std::ostream& out, const ReviewSummary& summary);
// {"candidates":[{id,corpus,scenario,golden,pending,verdict,firstDifference,decision,notes,error}],
//  "accepted":N,"rejected":N,"pending":N,"quit":bool}
boost::json::value to_json(const ReviewSummary& summary);

}  // namespace msptk::review
