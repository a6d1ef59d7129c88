// The results of `msptk check` as data. A ScenarioTask names one scenario folder to check and
// where it sits in the run; a ScenarioOutcome is what checking it found (validate, replay
// against a host, diff the recording with the golden scenario): a status, a one-line reason
// (the first divergence with file:line and path, the skip reason, the infrastructure error),
// the validation findings and the replay and diff reports. A CheckReport is a whole run (or one
// shard of it, or shards merged): the outcomes in corpus order plus what the run was.
//
// Statuses: `pass`, `fail` (a validation error, a divergence, a host that died or timed out),
// `skip` (sdk-tolerance scenarios are validated but not replayed) and `error` (the scenario
// could not be checked at all: unreadable files, a host that could not be spawned). A scenario
// listed in the baseline (baseline.hpp) that fails is an *expected failure* and does not fail
// the run; one that no longer fails is a *stale* baseline entry. Renderers: render.hpp (text),
// junit.hpp, report_json.hpp.
#pragma once

#include "msptk/validator/report.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::check {

enum class Status { pass, fail, skip, error };

std::string_view to_string(Status status);
std::optional<Status> parse_status(std::string_view text);

// One scenario to check.
struct ScenarioTask {
  std::string corpus;         // the corpus folder's name (the JUnit classname)
  std::string scenario;       // the scenario folder's name
  std::filesystem::path dir;  // the scenario folder, as the user's path spelled it
  std::size_t index = 0;      // 0-based position in the whole run, before sharding
  bool in_baseline = false;   // listed in --baseline

  // "corpus/scenario": how output lines, the baseline and reports name the scenario.
  std::string id() const { return corpus + "/" + scenario; }
};

struct ScenarioOutcome {
  std::string corpus, scenario;
  std::string path;         // the scenario folder
  std::size_t index = 0;    // as in ScenarioTask
  Status status = Status::pass;
  std::string reason;       // one line; "" for a pass
  std::string details;      // a multi-line human report (diff text, validation errors); may be ""
  double duration_ms = 0;
  std::vector<Finding> validation;  // every finding of validate_scenario (errors, warnings, notes)
  boost::json::value replay;        // the live replay's result, null when not replayed (docs/check-json.md)
  boost::json::value diff;          // the recording vs the golden scenario (docs/diff-json.md), null when not diffed
  boost::json::value client;        // check --client: the client's run and the canned host's report, null otherwise
  std::string recording;            // the kept recording folder (--keep), "" when not kept
  std::string pending;              // check --update: the candidate left in <scenario>/.pending/, "" when none
  std::optional<Error> update_failure;  // check --update: the candidate could not be stored or removed (stderr, exit 3)
  bool in_baseline = false;
  std::string chaos;                // check --chaos: "split,merge (seed 42)", "" without chaos

  std::string id() const { return corpus + "/" + scenario; }
  bool expected_failure() const { return in_baseline && status == Status::fail; }
  bool stale_baseline() const { return in_baseline && (status == Status::pass || status == Status::skip); }
  // A failure that fails the run (a failure not excused by the baseline).
  bool fails_run() const { return status == Status::fail && !in_baseline; }
  // What a failure is (the JUnit failure's type): "validation" (the golden scenario breaks a
  // rule), "error" (the host died, or ended a pipe, before the session did: replay exit 3), else
  // "divergence" (a frame differs, is missing or extra, or a wait timed out).
  std::string_view failure_cause() const;
};

// The K-th (1-based) of N deterministic slices of a run.
struct Shard {
  std::size_t index = 1;
  std::size_t count = 1;

  std::string str() const;  // "K/N"
  bool operator==(const Shard&) const = default;
};

struct CheckSummary {
  std::size_t scenarios = 0, passed = 0, failed = 0, skipped = 0, errors = 0;
  std::size_t expected_failures = 0;  // failures excused by the baseline (not counted in `failed`)
  std::size_t stale = 0;              // baseline entries whose scenario passes or is skipped now
};

struct CheckReport {
  std::string host;                   // the host the scenarios were replayed against, as text
  std::vector<std::string> corpora;   // the CORPUS arguments
  std::optional<Shard> shard;         // set when this report is one shard of a run
  std::size_t total_scenarios = 0;    // scenarios in the whole run, before sharding
  std::vector<ScenarioOutcome> scenarios;  // in corpus order
  std::vector<std::string> warnings;  // e.g. a baseline entry that names no scenario
  double duration_ms = 0;             // wall time of the run (the longest shard when merged)

  CheckSummary summary() const;
  // 3 when a scenario could not be checked (error), else 1 when a failure is not in the
  // baseline, else 0.
  int exit_code() const;
};

}  // namespace msptk::check
