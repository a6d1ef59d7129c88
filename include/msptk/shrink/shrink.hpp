// `msptk shrink` finds a smaller scenario that still fails the same way against a peer: a host
// (the candidate replayed against it) or a client (the client run against serve-fixture of the
// candidate). The scenario's frames are segmented into the handshake and exchanges
// (segment.hpp) and reduced by delta debugging (reduce.hpp); every candidate is written as a
// scenario folder and must pass `validate` before the peer sees it. "The same way" is a
// FailureSignature: the same problem kind and, for a divergence, the same JSON path and the
// same frame (its method signature). The result is written as a scenario folder: the manifest
// copied (renamed after the folder, its source ranges mapped onto the kept lines) with a
// `shrunkFrom` member saying where it came from, and the kept frames. The peer runs behind the
// CandidateRunner seam; unit tests pass a fake.
#pragma once

#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/error.hpp"

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace msptk::shrink {

struct FailureSignature {
  std::string kind;    // divergent, missing, extra, hostDied, timeout; serve-fixture's problems; clientExit
  std::string path;    // a divergence's JSON path ("" otherwise)
  std::string method;  // the frame's signature: "server response tool/run"

  bool operator==(const FailureSignature&) const = default;
  // "divergent at result.value in server response tool/run".
  std::string describe() const;
};

enum class PeerKind { host, client };

struct ShrinkOptions {
  std::filesystem::path scenario;  // the failing scenario folder
  std::filesystem::path out;       // DIR: created (or empty); its name is the shrunk scenario's id
  PeerKind peer = PeerKind::host;
  // The peer's argv (a --host or --client command split into words); {scenario} becomes each
  // candidate's folder. A client is expected to run `msptk serve-fixture --transcript {scenario}`.
  std::vector<std::string> command;
  std::size_t max_runs = 500;  // peer runs at most (the first, on the whole scenario, included)
  int timeout_ms = 10000;      // per run: replay's --timeout-ms, or the client's whole run
  Registry registry = Registry::builtin();
};

struct ShrinkResult {
  int exit_code = 0;  // 0 written, 1 the failure did not reproduce (nothing written), 3 the peer could not run
  std::string problem;                   // why exit 1 or 3
  std::optional<FailureSignature> failure;  // the failure kept
  std::size_t frames_before = 0, frames_after = 0;
  std::size_t units_before = 0, units_after = 0;
  std::size_t handshake_frames = 0;
  std::size_t runs = 0;                // peer runs
  std::size_t invalid_candidates = 0;  // candidates validate refused (never run)
  bool budget_exhausted = false;
  std::string kept_lines;              // the original transcript's lines kept: "1-5,40-44"
  std::filesystem::path out;
};

// Runs the peer on one candidate scenario folder: nullopt when it passed, else its failure; an
// error when the peer could not be run (spawn failure).
class CandidateRunner {
 public:
  virtual ~CandidateRunner() = default;
  virtual Result<std::optional<FailureSignature>> run(const std::filesystem::path& scenario) = 0;
};

// The real runners: replay against the host, or the client with serve-fixture's report read
// back through MSPTK_FIXTURE_REPORT (serve-fixture writes its report line there too).
std::unique_ptr<CandidateRunner> make_runner(const ShrinkOptions& options);

// Errors (before any run): usage (no command, max_runs 0, timeout <= 0, DIR not empty),
// unreadable or invalid scenario.
Result<ShrinkResult> shrink_scenario(const ShrinkOptions& options, CandidateRunner& runner);
Result<ShrinkResult> shrink_scenario(const ShrinkOptions& options);

// "shrunk S: 500 -> 11 frames (handshake 3 + 2 of 124 exchanges), 37 runs; failure kept: ...".
void render_shrink_text(std::ostream& out, const ShrinkResult& result);

// "1-5,40-44" from 1-based lines, increasing.
std::string line_ranges(const std::vector<std::size_t>& lines);

}  // namespace msptk::shrink
