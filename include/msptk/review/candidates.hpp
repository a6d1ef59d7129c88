// A review candidate is a new recording of a scenario waiting for a person's decision: a
// scenario folder kept beside the golden one as `<scenario>/.pending/` (transcript.ndjson,
// manifest.json, host-stderr.log) by `msptk check --update`. `msptk review` finds the
// candidates, assesses each against its golden scenario (the differ's verdict under the golden
// manifest's normalize list) and applies the decision:
//
// - accept an identical or equivalent candidate: the golden transcript.ndjson is replaced by the
//   candidate's (write to a temporary file, rename), the golden manifest gets provenance
//   `host-generated` and the candidate's `capture` (atomically rewritten), the candidate goes;
// - accept a divergent candidate: the same, and the manifest's `regenerationJustification`
//   gets the three members given (`cite`, `rationale`, `trackingIssue`, each non-empty);
// - reject: the candidate folder is deleted.
// Validation, corpus listing and check never treat a `.pending` folder as a scenario.
#pragma once

#include "msptk/differ/diff.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/error.hpp"
#include "msptk/transcript/manifest.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace msptk::review {

inline constexpr const char* kPendingFolder = ".pending";

// `<scenario>/.pending`.
std::filesystem::path pending_dir(const std::filesystem::path& scenario);

// Keeps the recording folder `recording` as the candidate of `scenario` (replacing an older
// one): copied to a temporary folder inside `scenario`, then renamed to `.pending`.
Result<std::filesystem::path> store_candidate(const std::filesystem::path& scenario,
                                              const std::filesystem::path& recording);
// Removes the candidate of `scenario`, if any. True when there was one.
Result<bool> discard_candidate(const std::filesystem::path& scenario);

struct Candidate {
  std::string corpus;           // the corpus folder's name
  std::string scenario;         // the scenario folder's name
  std::filesystem::path golden; // the scenario folder
  std::filesystem::path pending;

  std::string id() const { return corpus + "/" + scenario; }
};

// The candidates under each path: a corpus folder (its scenarios) or a scenario folder, in
// order, each scenario once. Unreadable paths are errors.
Result<std::vector<Candidate>> find_candidates(const std::vector<std::filesystem::path>& paths);

struct Assessment {
  Verdict verdict = Verdict::identical;
  DiffReport diff;  // golden (expected) vs candidate (actual), main transcripts
};

// Diffs the candidate against its golden scenario.
Result<Assessment> assess(const Candidate& candidate, const Registry& registry = Registry::builtin());

struct Justification {
  std::string cite, rationale, tracking_issue;
};

// Accepts the candidate (see above). A divergent verdict needs `justification` with three
// non-empty members (a usage error otherwise, nothing changed).
Result<void> accept(const Candidate& candidate, Verdict verdict, const Justification* justification = nullptr);
// Deletes the candidate.
Result<void> reject(const Candidate& candidate);

}  // namespace msptk::review
