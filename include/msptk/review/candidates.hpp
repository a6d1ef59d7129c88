// A review candidate is a new recording of a scenario waiting for a person's decision: a
// scenario folder kept beside the golden one as `<scenario>/.pending/` (transcript.ndjson,
// manifest.json, host-stderr.log, and candidate.json: whether the recording is complete) by
// `msptk check --update`. `msptk review` finds the candidates, assesses each against its golden
// scenario (the differ's verdict under the golden manifest's normalize list, the bytes it read
// kept in the Assessment) and applies the decision:
//
// - accept an identical or equivalent candidate: the golden folder is rewritten as a whole
//   (transcript/folder_rewrite.hpp: staged beside it, exchanged in one renameat2), so it is
//   always entirely old or entirely new: its transcript.ndjson becomes the assessed bytes, its
//   manifest gets provenance `host-generated` and the candidate's `capture`, and the candidate
//   goes in the same exchange. Every other member of the golden manifest is kept — the
//   `fingerprint` pin included (the pin belongs to staleness/repin; a candidate whose host
//   reported another value is shown as a fingerprint difference, not a transcript change);
// - accept a divergent candidate: the same, and the manifest's `regenerationJustification`
//   gets the three members given (`cite`, `rationale`, `trackingIssue`; blank is empty, one
//   rule with regen: is_blank in manifest.hpp);
// - reject: the candidate folder is deleted.
// Accept refuses (nothing changed) a candidate whose bytes on disk are no longer those assessed
// (golden or candidate replaced while the prompt waited), a capture that is incomplete (the
// replay stopped before the transcript's end: it lacks the frames after that point) or that does
// not say it is complete (left by an older check --update), and a candidate whose manifest names
// another scenario. Validation, corpus listing and check never treat a `.pending` folder as a
// scenario.
#pragma once

#include "msptk/differ/diff.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/error.hpp"
#include "msptk/transcript/folder_rewrite.hpp"
#include "msptk/transcript/manifest.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace msptk::review {

inline constexpr const char* kPendingFolder = ".pending";
inline constexpr const char* kCandidateRecord = "candidate.json";  // {"complete":bool,"problem":"..."}

// `<scenario>/.pending`.
std::filesystem::path pending_dir(const std::filesystem::path& scenario);

// What the recorder of a candidate says about it: complete when the replay walked the whole
// transcript (ReplayResult::complete), else why it stopped.
struct CandidateCapture {
  bool complete = false;
  std::string problem;
};

// Keeps the recording folder `recording` as the candidate of `scenario` (replacing an older
// one) with its candidate.json: copied to a temporary folder inside `scenario`, then renamed to
// `.pending`.
Result<std::filesystem::path> store_candidate(const std::filesystem::path& scenario,
                                              const std::filesystem::path& recording, const CandidateCapture& capture);
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

struct FingerprintChange {
  std::string golden;     // the golden manifest's pin (kept by accept)
  std::string candidate;  // what the candidate's manifest says the host reported
};

struct Assessment {
  Verdict verdict = Verdict::identical;
  DiffReport diff;  // golden (expected) vs candidate (actual), main transcripts
  // The bytes assessed: the candidate's transcript and manifest (what accept writes, no other),
  // and a digest of the golden's (accept refuses when either side changed since).
  std::string transcript;
  std::optional<std::string> manifest;  // nullopt when the candidate has none
  std::string golden_digest;
  // Why accepting is refused whatever the verdict (incomplete capture, another scenario).
  std::optional<std::string> refusal;
  std::optional<FingerprintChange> fingerprint;  // set when the candidate's value differs from the pin
};

// Diffs the candidate against its golden scenario, keeping the bytes it read. Errors when a
// side cannot be read or changed while it was being read.
Result<Assessment> assess(const Candidate& candidate, const Registry& registry = Registry::builtin());

// The three members written to regenerationJustification.
using Justification = RegenerationJustification;

// Accepts the candidate as assessed (see above). A divergent verdict needs `justification`
// with three members that are not blank (a usage error otherwise, nothing changed); a refusal,
// or bytes on disk that are not those assessed, is an error (nothing changed). `seams`: the
// rewrite's writes and exchange (tests fill the disk or interrupt it).
Result<void> accept(const Candidate& candidate, const Assessment& assessment,
                    const Justification* justification = nullptr, const FolderRewriteSeams& seams = {});
// Deletes the candidate.
Result<void> reject(const Candidate& candidate);

}  // namespace msptk::review
