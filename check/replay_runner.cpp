#include "msptk/check/replay_runner.hpp"

#include "validate_step.hpp"

#include "msptk/check/render.hpp"
#include "msptk/differ/render.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/playback/replay.hpp"
#include "msptk/review/candidates.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/scenario.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <sstream>
#include <system_error>

namespace msptk::check {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

ScenarioOutcome errored(ScenarioOutcome outcome, const Error& error) {
  outcome.status = Status::error;
  outcome.reason = error.render();
  return outcome;
}

json::value replay_json(const ReplayResult& result) {
  json::value host_exit = nullptr;
  if (result.host_exit) host_exit = json::object{{"code", result.host_exit->code}, {"signal", result.host_exit->signal}};
  return json::object{{"exitCode", result.exit_code},
                      {"problem", result.problem},
                      {"hostExit", std::move(host_exit)},
                      {"stderrTail", result.host_stderr_tail},
                      {"report", msptk::to_json(result.report)}};
}

// The last line of the host's stderr that says something (a host that dies usually says why
// there), shortened to what a FAIL line can carry; "" when it wrote nothing.
std::string last_stderr_line(std::string_view tail) {
  while (!tail.empty()) {
    const auto end = tail.find_last_not_of(" \t\r\n");
    if (end == std::string_view::npos) return "";
    tail = tail.substr(0, end + 1);
    const auto start = tail.find_last_of('\n');
    std::string_view line = tail.substr(start == std::string_view::npos ? 0 : start + 1);
    const auto text = line.find_first_not_of(" \t");
    if (text != std::string_view::npos) {
      line.remove_prefix(text);
      if (line.size() <= 200) return std::string(line);
      std::size_t cut = 197;
      while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // a whole code point
      return std::string(line.substr(0, cut)) + "...";
    }
    tail = tail.substr(0, start == std::string_view::npos ? 0 : start);
  }
  return "";
}

std::string diff_text(const DiffReport& report) {
  std::ostringstream text;
  msptk::render_text(text, report);
  return text.str();
}

}  // namespace

fs::path ReplayRunner::recording_dir(const ScenarioTask& task) const {
  return options_.recordings / task.corpus / task.scenario;
}

ScenarioOutcome ReplayRunner::run(const ScenarioTask& task) {
  ScenarioOutcome outcome;
  if (!validate_step(task.dir, options_.validate, outcome)) return outcome;

  auto golden = load_scenario(task.dir);
  if (!golden) return errored(std::move(outcome), golden.error());
  if (golden->manifest.is_sdk_tolerance()) {
    outcome.status = Status::skip;
    outcome.reason = std::string(kSdkToleranceSkip);
    return outcome;
  }
  auto mask = mask_spec_for(*golden, options_.registry, {}, MaskMode::unify);
  if (!mask) return errored(std::move(outcome), mask.error());

  // Step 2: replay, recording into a fresh folder.
  const fs::path record_dir = recording_dir(task);
  std::error_code ec;
  fs::remove_all(record_dir, ec);
  fs::create_directories(record_dir.parent_path(), ec);
  if (ec) return errored(std::move(outcome), Error::unreadable(record_dir.parent_path().string(), ec.message()));
  struct Cleanup {
    const fs::path& dir;
    bool keep;
    ~Cleanup() {
      std::error_code ignored;
      if (!keep) fs::remove_all(dir, ignored);
    }
  } cleanup{record_dir, options_.keep || options_.keep_until_run_ends};

  ReplayOptions replay;
  replay.scenario = task.dir;
  replay.host_argv = options_.host(task);
  replay.record_dir = record_dir;
  replay.timeout_ms = options_.timeout_ms;
  replay.close_timeout_ms = options_.close_timeout_ms;
  replay.registry = options_.registry;
  replay.validated = true;  // step 1 above
  replay.chaos = options_.chaos;
  if (options_.chaos) outcome.chaos = options_.chaos->label();
  // --update records a candidate the way regen captures: a divergent frame does not stop the
  // recording, so the candidate holds the whole session (a run cut short says so, review refuses it).
  replay.keep_going = options_.update;
  replay.environment = options_.environment;
  if (!replay.environment.keep_dir.empty()) replay.environment.keep_dir /= fs::path(task.corpus) / task.scenario;
  // Several replays run at once: none may own the process's signal handlers (replay's
  // SignalPipe is one per process); SIGPIPE stays ignored for the runner's lifetime.
  ReplayEnv env = ReplayEnv::system();
  env.handle_signals = false;
  auto result = replay_scenario(replay, env);
  if (!result) return errored(std::move(outcome), result.error());
  outcome.replay = replay_json(*result);
  if (options_.keep && fs::exists(record_dir, ec)) outcome.recording = record_dir.string();

  // A host that never ran: nothing was recorded, nothing to diff.
  if (result->exit_code == 3 && !result->host_exit) {
    outcome.status = Status::error;
    outcome.reason = result->problem.empty() ? "the host could not be spawned" : result->problem;
    return outcome;
  }

  // The recording could not be written (a full disk): the verdict cannot be trusted.
  if (result->recording_failure) return errored(std::move(outcome), *result->recording_failure);

  // Cut on purpose (chaos close-after) and the host ended as it must: the cut recording is not
  // the golden session, so it is not diffed.
  if (result->exit_code == 0 && result->chaos && result->chaos->cut_after) {
    outcome.status = Status::pass;
    return outcome;
  }

  // Step 3: the recording against the golden main transcript.
  std::optional<DiffReport> diff;
  if (auto recorded = locate_scenario(record_dir)) {
    ScenarioFiles expected = golden->files;
    expected.legs.clear();
    auto report = diff_scenarios(expected, *recorded, DiffOptions{*mask, Side::both});
    if (!report) return errored(std::move(outcome), report.error());
    outcome.diff = msptk::to_json(*report);
    diff = std::move(*report);
  }

  // --update: keep a recording that is not identical as the review candidate.
  if (options_.update && diff) {
    if (diff->verdict() == Verdict::identical) {
      if (auto discarded = review::discard_candidate(task.dir); !discarded) {
        outcome.update_failure = discarded.error();
        return errored(std::move(outcome), discarded.error());
      }
    } else {
      auto stored = review::store_candidate(task.dir, record_dir,
                                            review::CandidateCapture{result->complete(), result->stop_problem});
      if (!stored) {
        outcome.update_failure = stored.error();
        return errored(std::move(outcome), stored.error());
      }
      outcome.pending = stored->string();
    }
  }

  const bool divergent = diff && diff->verdict() == Verdict::divergent;
  if (result->exit_code == 0 && diff && !divergent) {
    outcome.status = Status::pass;
    return outcome;
  }
  outcome.status = Status::fail;
  if (result->exit_code != 0 && !result->problem.empty()) {
    outcome.reason = result->problem;
    // The host ended before the session did: what it said last on stderr is usually the why.
    if (result->exit_code == 3 && result->host_exit && !result->host_killed)
      if (std::string said = last_stderr_line(result->host_stderr_tail); !said.empty())
        outcome.reason += fmt::format("; the host's stderr ends: {}", display_text(said));
  } else if (divergent) {
    outcome.reason = first_divergence(*diff).value_or("the recording diverges from the golden transcript");
  } else if (!diff) {
    outcome.reason = fmt::format("nothing was recorded in {}", record_dir.string());
  } else {
    outcome.reason = fmt::format("replay failed (exit status {})", result->exit_code);
  }
  if (!result->problem.empty()) outcome.details += "replay: " + result->problem + "\n";
  if (diff) outcome.details += diff_text(*diff);
  return outcome;
}

}  // namespace msptk::check
