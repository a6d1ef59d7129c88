#include "msptk/check/runner.hpp"

#include "msptk/check/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace msptk::check {

namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

ScenarioOutcome run_one(const ScenarioTask& task, ScenarioRunner& runner) {
  const auto start = std::chrono::steady_clock::now();
  ScenarioOutcome outcome;
  try {
    outcome = runner.run(task);
  } catch (const std::exception& e) {
    outcome = ScenarioOutcome{};
    outcome.status = Status::error;
    outcome.reason = fmt::format("internal error: {}", e.what());
  }
  outcome.corpus = task.corpus;
  outcome.scenario = task.scenario;
  outcome.path = task.dir.string();
  outcome.index = task.index;
  outcome.in_baseline = task.in_baseline;
  outcome.duration_ms = elapsed_ms(start);
  return outcome;
}

}  // namespace

std::vector<ScenarioOutcome> run_scenarios(const std::vector<ScenarioTask>& tasks, ScenarioRunner& runner,
                                           unsigned jobs, const RunObserver& observer) {
  const std::size_t total = tasks.size();
  if (observer.on_start) observer.on_start(total);
  std::vector<std::optional<ScenarioOutcome>> slots(total);
  std::vector<bool> running(total, false);
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next = 0, done = 0;

  auto work = [&] {
    for (;;) {
      std::size_t i;
      {
        std::lock_guard lock(mutex);
        if (next >= total) return;
        i = next++;
        running[i] = true;
      }
      ScenarioOutcome outcome = run_one(tasks[i], runner);
      {
        std::lock_guard lock(mutex);
        slots[i] = std::move(outcome);
        running[i] = false;
        ++done;
      }
      changed.notify_all();
    }
  };
  const std::size_t workers = std::min<std::size_t>(std::max(jobs, 1u), total);
  std::vector<std::jthread> pool;
  pool.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);

  // The calling thread reports: progress in completion order, outcomes in run order. A slot,
  // once filled, is never written again, so it is read outside the lock.
  std::size_t reported = 0, seen = 0;
  while (reported < total) {
    std::vector<const ScenarioTask*> still_running;
    std::size_t ready_end = reported;
    std::size_t done_now = 0;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return done > seen; });
      done_now = seen = done;
      while (ready_end < total && slots[ready_end]) ++ready_end;
      for (std::size_t i = 0; i < total; ++i)
        if (running[i]) still_running.push_back(&tasks[i]);
    }
    if (observer.on_progress) observer.on_progress(done_now, total, still_running);
    for (; reported < ready_end; ++reported)
      if (observer.on_result) observer.on_result(*slots[reported]);
  }
  pool.clear();  // joins

  std::vector<ScenarioOutcome> outcomes;
  outcomes.reserve(total);
  for (auto& slot : slots) outcomes.push_back(std::move(*slot));
  return outcomes;
}

Result<CheckReport> run_check(const CheckOptions& options, ScenarioRunner& runner, const RunObserver& observer) {
  const auto start = std::chrono::steady_clock::now();
  auto all = collect_scenarios(options.corpora);
  if (!all) return all.error();
  CheckReport report;
  report.host = options.host;
  for (const auto& corpus : options.corpora) report.corpora.push_back(corpus.string());
  report.shard = options.shard;
  report.total_scenarios = all->size();
  if (options.baseline) {
    for (ScenarioTask& task : *all) task.in_baseline = options.baseline->lists(task);
    report.warnings = options.baseline->unmatched(*all);
  }
  const std::vector<ScenarioTask> tasks = options.shard ? select_shard(*all, *options.shard) : std::move(*all);
  report.scenarios = run_scenarios(tasks, runner, options.jobs, observer);
  report.duration_ms = elapsed_ms(start);
  return report;
}

}  // namespace msptk::check
