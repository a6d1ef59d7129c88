// The real ScenarioRunner of `msptk check`: for one scenario,
//   1. validate it (validate_scenario): an error fails the scenario, an unreadable file makes
//      it an `error`; sdk-tolerance scenarios stop here and are skipped (a real host cannot
//      emit their shapes);
//   2. replay its client side against the host (replay_scenario), recording what happens into
//      RECORDINGS/<corpus>/<scenario>;
//   3. diff the recording with the golden scenario under the golden manifest's normalize list
//      (diff_scenarios; the main transcript only: *-legs.ndjson captures are not connections
//      of their own that replay could drive, validation covers them).
// The scenario passes when the replay passed and the diff is not divergent. A host that could
// not be spawned makes the scenario an `error`; a host that died, timed out or diverged fails it.
//
// Thread-safe: run() keeps no state between calls, so the scheduler may call it from several
// threads at once; each call spawns its own host. Replays run without their own signal
// handling (SIGINT/SIGTERM keep their default: msptk stops, and each host's guard process kills
// the host's process group, see host_process.hpp), and a ReplayRunner keeps SIGPIPE ignored for as long as it
// lives, so that concurrent replays cannot restore its default under one another.
#pragma once

#include "msptk/chaos/spec.hpp"
#include "msptk/check/runner.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/process/host_environment.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/validator/validator.hpp"

#include <filesystem>
#include <optional>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::check {

// Why a replay run skips an sdk-tolerance scenario (check --list says it too).
inline constexpr std::string_view kSdkToleranceSkip =
    "sdk-tolerance scenario: validated, not replayed (it carries shapes a real host cannot emit)";

struct ReplayRunnerOptions {
  // The host's argv for one scenario (see host_command.hpp).
  std::function<std::vector<std::string>(const ScenarioTask&)> host;
  std::filesystem::path recordings;  // RECORDINGS: must exist; scenario folders are created in it
  bool keep = false;                 // keep each recording (else it is removed once diffed)
  // Leave each recording in RECORDINGS for the rest of the run without naming it in the outcome
  // (check --html: the page shows recorded frames; the temporary RECORDINGS goes at the end).
  bool keep_until_run_ends = false;
  int timeout_ms = 10000;            // replay: per wait for the next expected server frame
  int close_timeout_ms = 5000;       // replay: a stopped host's time to exit before SIGTERM, then SIGKILL
  ValidateOptions validate;
  Registry registry = Registry::builtin();
  // The hosts' environment; with --hermetic --keep-env DIR each host's folders go to
  // DIR/<corpus>/<scenario>/.
  process::EnvironmentPlan environment;
  // check --update: a recording that is not identical to the golden scenario is kept as the
  // review candidate <scenario>/.pending/ (review/candidates.hpp) with whether it is complete;
  // an identical one removes an old candidate and leaves nothing behind. The replay then runs
  // with keep_going (a divergent frame does not stop the recording), as regen's does.
  bool update = false;
  // check --chaos: every replay runs under this chaos (the same seed for each scenario, so a
  // failing one reproduces with `msptk replay --chaos SPEC --chaos-seed S`); a run cut on
  // purpose (close-after) passes when the host ended, without a diff of the cut recording.
  std::optional<chaos::ChaosRun> chaos;
};

class ReplayRunner final : public ScenarioRunner {
 public:
  explicit ReplayRunner(ReplayRunnerOptions options) : options_(std::move(options)) {}
  ScenarioOutcome run(const ScenarioTask& task) override;

  // Where the recording of `task` goes.
  std::filesystem::path recording_dir(const ScenarioTask& task) const;

 private:
  ReplayRunnerOptions options_;
  process::SigpipeIgnored sigpipe_;
};

}  // namespace msptk::check
