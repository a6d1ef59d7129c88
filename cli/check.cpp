// `msptk check CORPUS...`: validate every scenario, replay its client side against a host (the
// embedded canned host by default, or --host), diff the recording with the golden scenario, and
// print one line per scenario plus a summary; JUnit and JSON reports for CI.
// `msptk check --merge-reports REPORT.json...`: the reports of the shards of one run as one.
#include "chaos_options.hpp"
#include "environment_options.hpp"
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/check/host_command.hpp"
#include "msptk/check/junit.hpp"
#include "msptk/check/plan.hpp"
#include "msptk/check/render.hpp"
#include "msptk/check/render_html.hpp"
#include "msptk/check/replay_runner.hpp"
#include "msptk/check/report_json.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_io.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <sstream>
#include <system_error>

namespace msptk::cli {

namespace {

namespace fs = std::filesystem;

struct CheckCli {
  std::vector<std::string> corpora;
  std::vector<std::string> merge_reports;
  std::string host;
  std::string junit, json, html;
  unsigned jobs = 1;
  std::string shard;
  std::string baseline;
  std::string keep;
  int timeout_ms = 10000;
  int close_timeout_ms = 5000;
  process::EnvironmentOptions environment;
  bool update = false;
  ChaosOptions chaos;
};

// Where the recordings go: --keep DIR (must be new or empty), else a temporary folder removed
// when this object goes away.
class RecordingsFolder {
 public:
  static Result<RecordingsFolder> make(const std::string& keep) {
    RecordingsFolder folder;
    std::error_code ec;
    if (!keep.empty()) {
      folder.path_ = keep;
      if (fs::exists(folder.path_, ec) && (!fs::is_directory(folder.path_, ec) || !fs::is_empty(folder.path_, ec)))
        return Error::usage(fmt::format("--keep {}: not an empty folder (choose a new folder, or empty it first)", keep));
      fs::create_directories(folder.path_, ec);
      if (ec) return Error::unreadable(keep, fmt::format("cannot create folder: {}", ec.message()));
      return folder;
    }
    std::string pattern = (fs::temp_directory_path(ec) / "msptk-check-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      return Error::unreadable(pattern, "cannot create a temporary folder for the recordings");
    folder.path_ = pattern;
    folder.temporary_ = true;
    return folder;
  }
  RecordingsFolder() = default;
  RecordingsFolder(RecordingsFolder&& other) noexcept
      : path_(std::move(other.path_)), temporary_(std::exchange(other.temporary_, false)) {}
  RecordingsFolder& operator=(RecordingsFolder&&) = delete;
  ~RecordingsFolder() {
    std::error_code ec;
    if (temporary_) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool temporary_ = false;
};

// Progress on a terminal's stderr: "[12/41] corpus/a, corpus/b", rewritten in place and erased
// before each result line.
class Progress {
 public:
  Progress(Streams io, bool enabled) : io_(io), enabled_(enabled) {}
  void show(std::size_t done, std::size_t total, const std::vector<const check::ScenarioTask*>& running) {
    if (!enabled_) return;
    std::vector<std::string> names;
    for (const check::ScenarioTask* task : running) names.push_back(task->id());
    std::string line = fmt::format("[{}/{}] {}", done, total, fmt::join(names, ", "));
    // One terminal row, or the \r that rewrites it would not reach its start.
    winsize size{};
    const std::size_t width = ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 4 ? size.ws_col - 1 : 79;
    if (line.size() > width) line = line.substr(0, width - 3) + "...";
    io_.err << "\r\033[K" << line << std::flush;
    shown_ = true;
  }
  void clear() {
    if (!shown_) return;
    io_.err << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  Streams io_;
  bool enabled_;
  bool shown_ = false;
};

Result<void> write_reports(const CheckCli& cli, const check::CheckReport& report) {
  const auto perms = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
  if (!cli.junit.empty()) {
    std::ostringstream xml;
    check::render_junit(xml, report);
    if (auto written = write_file_atomic(cli.junit, xml.str(), perms); !written) return written.error();
  }
  if (!cli.json.empty()) {
    std::ostringstream text;
    check::render_json(text, report);
    if (auto written = write_file_atomic(cli.json, text.str(), perms); !written) return written.error();
  }
  if (!cli.html.empty()) {  // written while the recordings its diffs show still exist
    std::ostringstream page;
    check::render_html(page, report);
    if (auto written = write_file_atomic(cli.html, page.str(), perms); !written) return written.error();
  }
  return {};
}

int finish(const CheckCli& cli, const check::CheckReport& report, Streams io) {
  for (const std::string& warning : report.warnings) io.err << "msptk: warning: " << display_text(warning) << "\n";
  io.out << check::summary_line(report.summary()) << "\n";
  std::size_t pending = 0;
  for (const check::ScenarioOutcome& outcome : report.scenarios) pending += outcome.pending.empty() ? 0 : 1;
  if (pending)
    io.out << fmt::format("{} candidate{} pending review: msptk review {}\n", pending, pending == 1 ? "" : "s",
                          fmt::join(report.corpora, " "));
  io.out << std::flush;
  for (const check::ScenarioOutcome& outcome : report.scenarios)
    if (outcome.update_failure) report_error(io, *outcome.update_failure);  // the report stands; exit 3 (an error)
  if (auto written = write_reports(cli, report); !written) return report_error(io, written.error());
  return report.exit_code();
}

int run_merge(const CheckCli& cli, Streams io) {
  std::vector<check::CheckReport> reports;
  for (const std::string& file : cli.merge_reports) {
    auto report = check::read_report(file);
    if (!report) return report_error(io, report.error());
    reports.push_back(std::move(*report));
  }
  auto merged = check::merge_reports(std::move(reports), cli.merge_reports);
  if (!merged) return report_error(io, merged.error());
  for (const check::ScenarioOutcome& outcome : merged->scenarios) io.out << check::result_line(outcome) << "\n";
  return finish(cli, *merged, io);
}

int usage(Streams io, const std::string& message) {
  io.err << "msptk: error: " << message << "\nRun 'msptk check --help' for usage.\n";
  return 2;
}

int run_check(const CheckCli& cli, Streams io) {
  if (!cli.merge_reports.empty()) {
    if (!cli.corpora.empty()) return usage(io, "--merge-reports takes report files, not CORPUS folders");
    for (const auto& [given, name] : {std::pair{!cli.host.empty(), "--host"}, {cli.jobs != 1, "--jobs"},
                                      {!cli.shard.empty(), "--shard"}, {!cli.baseline.empty(), "--baseline"},
                                      {!cli.keep.empty(), "--keep"}, {cli.timeout_ms != 10000, "--timeout-ms"},
                                      {cli.close_timeout_ms != 5000, "--close-timeout-ms"},
                                      {cli.environment.hermetic, "--hermetic"}, {cli.update, "--update"}, {!cli.environment.env.empty(), "--env"},
                                      {!cli.environment.env_files.empty(), "--env-file"}, {!cli.chaos.spec.empty(), "--chaos"}})
      if (given) return usage(io, fmt::format("{} applies to a run, not to --merge-reports", name));
    return run_merge(cli, io);
  }
  if (cli.corpora.empty())
    return usage(io, "check needs at least one CORPUS (a corpus folder or a scenario folder), or --merge-reports");

  check::CheckOptions options;
  options.corpora.assign(cli.corpora.begin(), cli.corpora.end());
  options.jobs = cli.jobs;
  if (!cli.shard.empty()) {
    auto shard = check::parse_shard(cli.shard);
    if (!shard) return report_error(io, shard.error());
    options.shard = *shard;
  }
  if (!cli.baseline.empty()) {
    auto baseline = check::Baseline::read(cli.baseline);
    if (!baseline) return report_error(io, baseline.error());
    options.baseline = std::move(*baseline);
  }

  // The host: --host split into words (its program must exist), else this binary's serve-fixture.
  check::ReplayRunnerOptions runner_options;
  if (!cli.host.empty()) {
    auto argv = check::split_command(cli.host);
    if (!argv) return report_error(io, argv.error());
    // A host that cannot be found fails the run before any scenario (unless its path depends on
    // the scenario: then each scenario whose host cannot be spawned is an ERROR).
    if (argv->front().find("{scenario}") == std::string::npos)
      if (auto program = process::resolve_program(argv->front()); !program) return report_error(io, program.error());
    options.host = cli.host;
    runner_options.host = [argv = *argv](const check::ScenarioTask& task) { return check::expand_scenario(argv, task.dir); };
  } else {
    auto self = check::self_executable();
    if (!self) return report_error(io, self.error());
    options.host = "embedded canned host (msptk serve-fixture --transcript SCENARIO)";
    runner_options.host = [self = *self](const check::ScenarioTask& task) { return check::canned_host_argv(self, task.dir); };
  }
  auto plan = environment_plan(cli.environment);
  if (!plan) return report_error(io, plan.error());
  if (!plan->keep_dir.empty()) {
    std::error_code ec;
    if (fs::exists(plan->keep_dir, ec) && (!fs::is_directory(plan->keep_dir, ec) || !fs::is_empty(plan->keep_dir, ec)))
      return report_error(io, Error::usage(fmt::format("--keep-env {}: not an empty folder (choose a new folder, or "
                                                       "empty it first)", plan->keep_dir.string())));
  }
  runner_options.environment = std::move(*plan);
  runner_options.update = cli.update;
  auto recordings = RecordingsFolder::make(cli.keep);
  if (!recordings) return report_error(io, recordings.error());
  runner_options.recordings = recordings->path();
  runner_options.keep = !cli.keep.empty();
  runner_options.keep_until_run_ends = !cli.html.empty();
  runner_options.timeout_ms = cli.timeout_ms;
  runner_options.close_timeout_ms = cli.close_timeout_ms;
  auto chaos = chaos_run(cli.chaos, chaos::ChaosRole::client);
  if (!chaos) return report_error(io, chaos.error());
  runner_options.chaos = *chaos;
  check::ReplayRunner runner(std::move(runner_options));

  Progress progress(io, &io.err == &std::cerr && ::isatty(STDERR_FILENO));
  check::RunObserver observer;
  observer.on_result = [&](const check::ScenarioOutcome& outcome) {
    progress.clear();
    io.out << check::result_line(outcome) << "\n" << std::flush;
  };
  observer.on_progress = [&](std::size_t done, std::size_t total, const std::vector<const check::ScenarioTask*>& running) {
    if (done < total) progress.show(done, total, running);
  };
  auto report = check::run_check(options, runner, observer);
  progress.clear();
  if (!report) return report_error(io, report.error());
  return finish(cli, *report, io);
}

}  // namespace

Runner setup_check(CLI::App& app) {
  auto cli = std::make_shared<CheckCli>();
  CLI::App* sub = app.add_subcommand(
      "check", "Validate every scenario of CORPUS, replay it against a host and diff the recording: a CI assertion");
  sub->footer(
      "Each scenario prints one line: PASS, FAIL (with the first divergence as FILE:LINE and path), SKIP\n"
      "(sdk-tolerance scenarios are validated, not replayed), ERROR, or XFAIL (a failure the baseline\n"
      "expects); the last line is `N passed, N failed, N skipped`. Without --host the host is the embedded\n"
      "canned host (`msptk serve-fixture --transcript SCENARIO`), so check runs without any MSP host.\n"
      "--host is split into words like a shell would (quotes respected) but no shell runs; {scenario} in it\n"
      "is the scenario folder, {frameLimitBytes} {idSeed} {clockStartMs} come from its manifest.\n\n"
      "Exit status: 0 every scenario passed (baseline failures allowed), 1 a failure, 2 usage error,\n"
      "3 infrastructure (unreadable corpus or report, a host that cannot be spawned).\n"
      "Example: msptk check corpus/ --host 'muse serve' --jobs 4 --junit check.xml");
  sub->add_option("CORPUS", cli->corpora, "A corpus folder (every subfolder with a manifest.json) or a scenario folder")
      ->type_name("");
  sub->add_option("--host", cli->host, "The host to replay against, as one string: 'muse serve --flag'")
      ->type_name("'CMD ARGS'");
  sub->add_option("--junit", cli->junit, "Also write a JUnit XML report (one testcase per scenario)")
      ->check(file_check())
      ->type_name("FILE");
  sub->add_option("--json", cli->json, "Also write the full per-scenario reports as JSON (docs/check-json.md)")
      ->check(file_check())
      ->type_name("FILE");
  sub->add_option("--html", cli->html,
                  "Also write one self-contained HTML page: a row per scenario, failures first and expanded to their "
                  "diff (the frames side by side, the differing places highlighted), validation findings, the host's stderr tail")
      ->check(file_check())
      ->type_name("FILE");
  sub->add_option("--jobs", cli->jobs, "Check N scenarios at a time; the output stays in corpus order")
      ->check(number_check(1, 1024))
      ->type_name("N");
  sub->add_option("--shard", cli->shard, "Check only the K-th of N deterministic slices of the scenarios (e.g. 2/4)")
      ->type_name("K/N");
  sub->add_option("--baseline", cli->baseline,
                  "Scenarios expected to fail, one id per line (# comments): they do not fail the run")
      ->check(file_check())
      ->type_name("FILE");
  sub->add_option("--keep", cli->keep, "Keep every recording in DIR/<corpus>/<scenario>/ (DIR must be new or empty)")
      ->check(folder_check())
      ->type_name("DIR");
  sub->add_option("--timeout-ms", cli->timeout_ms, "How long replay waits for each expected server frame")
      ->check(number_check(1, 86400000))
      ->default_val(10000)
      ->type_name("T");
  sub->add_flag("--update", cli->update,
               "Keep every recording that is not identical to its golden scenario as <scenario>/.pending/ for "
               "msptk review");
  sub->add_option("--close-timeout-ms", cli->close_timeout_ms,
                  "How long a host may take to exit once stopped before SIGTERM, then SIGKILL, go to its process group")
      ->check(number_check(1, 86400000))
      ->default_val(5000)
      ->type_name("T");
  add_environment_options(*sub, cli->environment);
  add_chaos_options(*sub, cli->chaos);
  sub->add_option("--merge-reports", cli->merge_reports,
                  "Merge the --json reports of the shards of a run (then only --junit, --json and --html apply)")
      ->check(file_check())
      ->type_name("REPORT.json");
  return [cli](Streams io) { return run_check(*cli, io); };
}

}  // namespace msptk::cli
