// Running a check: the ScenarioRunner seam and the scheduler around it.
//
// A ScenarioRunner checks one scenario and returns its outcome as data. The real one
// (replay_runner.hpp) validates the scenario, replays its client side against a host and diffs
// the recording; tests use fakes. run_scenarios() drives a runner over the tasks with a pool of
// `jobs` threads: each worker takes the next task in run order, and the calling thread reports
// the outcomes strictly in run order (an outcome is reported as soon as every earlier one has
// been), so the output of `--jobs 4` is the output of `--jobs 1`. All observer callbacks run on
// the calling thread.
//
// run_check() is the whole run: collect the scenarios of the corpora, mark those the baseline
// lists, take the shard, run them, and assemble the CheckReport.
#pragma once

#include "msptk/check/baseline.hpp"
#include "msptk/check/outcome.hpp"
#include "msptk/transcript/error.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace msptk::check {

class ScenarioRunner {
 public:
  virtual ~ScenarioRunner() = default;
  // Checks one scenario. Called concurrently from several threads (each with its own task):
  // implementations must be thread-safe. The scheduler fills in the outcome's identity
  // (corpus, scenario, path, index, in_baseline) and duration from the task; an exception
  // becomes an `error` outcome.
  virtual ScenarioOutcome run(const ScenarioTask& task) = 0;
};

struct RunObserver {
  // Before any task runs: how many there are.
  std::function<void(std::size_t total)> on_start;
  // Each outcome, in run order.
  std::function<void(const ScenarioOutcome& outcome)> on_result;
  // After each completion, in completion order: how many are done, and the tasks still running.
  std::function<void(std::size_t done, std::size_t total, const std::vector<const ScenarioTask*>& running)> on_progress;
};

// Runs every task with `jobs` worker threads (at least 1; never more than there are tasks) and
// returns the outcomes in the order of `tasks`.
std::vector<ScenarioOutcome> run_scenarios(const std::vector<ScenarioTask>& tasks, ScenarioRunner& runner,
                                           unsigned jobs, const RunObserver& observer = {});

struct CheckOptions {
  std::vector<std::filesystem::path> corpora;
  unsigned jobs = 1;
  std::optional<Shard> shard;
  std::optional<Baseline> baseline;
  std::string host;  // how the report names the host
};

// Errors only for problems before any scenario runs (see collect_scenarios).
Result<CheckReport> run_check(const CheckOptions& options, ScenarioRunner& runner, const RunObserver& observer = {});

}  // namespace msptk::check
