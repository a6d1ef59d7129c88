// Regen regenerates one scenario from a live host: the scenario's client side is replayed
// against HOST while the session is recorded (replay_scenario with a recording, its pinned
// configuration and carried values, and `keep_going` so that a divergent host is recorded to
// the end), then the capture is judged against the fixture:
//
// - byte-identical capture (its transcript.ndjson has the fixture's bytes): nothing is
//   written, exit 0;
// - equivalent under the manifest's `normalize` (the differ's verdict identical or
//   equivalent): the captured bytes replace transcript.ndjson and `provenance` becomes
//   `host-generated` (the manifest's other bytes kept, but for `capture`: how the host ran,
//   from the recording, e.g. hermetic and the --env names given), exit 0;
// - divergent: the path-level diff and "host wrong or fixture wrong?"; nothing is rewritten
//   (exit 1) unless the manifest carries a complete `regenerationJustification` (non-empty
//   `cite`, `rationale`, `trackingIssue`; extra members allowed), which then stays in the
//   manifest (the rewrite happens, exit 0); a member that is blank (spaces, tabs) counts as
//   empty (is_blank, manifest.hpp: one rule with review). A command-line flag is never a waiver. A capture
//   cut short (a frame that never came) is never written.
//
// A partial justification fails before anything runs (exit 1, naming the missing member);
// sdk-tolerance scenarios are refused (exit 2); a scenario `validate` rejects is not regenerated
// (exit 3). The rewrite is atomic (transcript/folder_rewrite.hpp): the new folder contents are
// staged beside the scenario and exchanged with it in one rename (renameat2 RENAME_EXCHANGE),
// so an interrupted regen leaves the old scenario whole; a rewrite that fails is returned in
// the result (`write_failure`, exit 3) so the report is still shown. The scenario folder may be
// spelled any way (`DIR/`, `.`, relative, absolute).
#pragma once

#include "msptk/differ/diff.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/playback/replay.hpp"
#include "msptk/transcript/error.hpp"
#include "msptk/transcript/folder_rewrite.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace msptk::maintenance {

enum class RegenOutcome { identical, equivalent, divergent };
std::string_view to_string(RegenOutcome outcome);

struct RegenOptions {
  std::filesystem::path scenario;      // the scenario folder
  std::vector<std::string> host_argv;  // HOST [ARGS...] (placeholders as for replay)
  int timeout_ms = 10000;
  int close_timeout_ms = 5000;            // as replay's --close-timeout-ms
  process::EnvironmentPlan environment;  // --hermetic, --env... (process/host_environment.hpp)
  Registry registry = Registry::builtin();
  // The staged folder's writes and its exchange with the scenario folder
  // (transcript/folder_rewrite.hpp; the seams tests use to fill the disk or interrupt a regen).
  FolderRewriteSeams rewrite;
};

struct RegenResult {
  std::string scenario;                // the manifest's scenario id
  RegenOutcome outcome = RegenOutcome::identical;
  bool rewritten = false;              // transcript.ndjson (and provenance) replaced
  bool justified = false;              // rewritten under the manifest's regenerationJustification
  bool complete_capture = true;        // the whole transcript was walked (ReplayResult::complete; else never written)
  std::optional<Error> write_failure;  // the rewrite failed (exit 3; the scenario is unchanged, the report stands)
  ReplayResult replay;                 // the live run
  std::optional<DiffReport> diff;      // fixture vs capture, when the bytes differ
  std::string provenance_before;
  int exit_code = 0;
};

// Errors: partial justification (conformance, exit 1), sdk-tolerance (usage, exit 2),
// unreadable/invalid scenario, spawn failure or host death, a failed write (exit 3).
Result<RegenResult> regen_scenario(const RegenOptions& options, ReplayEnv& env);
Result<RegenResult> regen_scenario(const RegenOptions& options);

void render_regen_text(const RegenResult& result, std::ostream& out);

}  // namespace msptk::maintenance
