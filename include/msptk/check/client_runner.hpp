// The ScenarioRunner of `msptk check --client 'CMD ARGS'`: a client checked against the corpus.
// For one scenario,
//   1. validate it (as the replay runner does; sdk-tolerance scenarios are played: they exist
//      for clients);
//   2. run the client command once, telling it the canned host to spawn where it spawns
//      `muse serve`: `{host}` in its words and the variable MSPTK_CANNED_HOST hold the canned
//      host's command line as one shell-quoted word, `{scenario}` the scenario folder. The
//      canned host is `msptk serve-fixture --transcript SCENARIO --report-to LOG` (with
//      --keep-going, --follow-minted, --chaos as asked; behind `msptk record --out KEEP/...`
//      with --keep), so its log goes to a file msptk owns, never into the client's stderr;
//   3. read the log: one `serveFixtureStart` line per host the client started, then the report.
// Verdicts: PASS when the canned host reports the session complete (or cut on purpose by chaos
// close-after) and the client exits 0; FAIL with the canned host's first divergence as
// FILE:LINE and path (with keep_going every difference in the details), or "the client exited
// N after the session completed" with the tail of its stderr; ERROR when the client could not
// be spawned, never started the host, started it more than once, or did not finish within the
// timeout (its process group is then stopped as replay stops a host: SIGTERM, SIGKILL).
//
// The client's process is behind the ClientLauncher seam (unit tests pass a fake that writes
// the log a canned host would); the real one spawns it with process::spawn_host in a process
// group of its own, with the run's environment plan (--hermetic, --env...).
// Thread-safe as ReplayRunner is: run() keeps no state between calls.
#pragma once

#include "msptk/check/runner.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/process/host_environment.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/validator/validator.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace msptk::check {

// The variable that holds the canned host's command line in the client's environment.
inline constexpr const char* kCannedHostVariable = "MSPTK_CANNED_HOST";

// One run of the client command.
struct ClientLaunch {
  std::vector<std::string> argv;        // {host} and {scenario} expanded
  process::EnvVars variables;           // added to the client's environment (MSPTK_CANNED_HOST)
  std::filesystem::path keep_env_dir;   // --hermetic --keep-env: this client's folders; "" otherwise
  std::filesystem::path report_log;     // the canned host's --report-to file
  int timeout_ms = 10000;               // the whole run
  int close_timeout_ms = 5000;          // once stopped: the time before SIGTERM, then SIGKILL
};

// How the client's run ended.
struct ClientRun {
  std::optional<Error> spawn_failure;      // the client could not be started
  std::optional<process::ExitStatus> exit;  // set unless spawn_failure
  bool timed_out = false;                  // it was still running at the timeout and was stopped
  std::string stderr_tail;                 // the last kStderrTailBytes bytes of its stderr
};

inline constexpr std::size_t kClientStderrTailBytes = 4096;

class ClientLauncher {
 public:
  virtual ~ClientLauncher() = default;
  // Runs the client to its end (or stops it at the timeout). Called concurrently.
  virtual ClientRun run(const ClientLaunch& launch) = 0;
};

// The real launcher: process::spawn_host with `environment` applied, stdout drained, stderr's
// tail kept, the StopLadder at the timeout; returns once the client's group is empty.
std::unique_ptr<ClientLauncher> system_client_launcher(process::EnvironmentPlan environment);

struct ClientRunnerOptions {
  std::vector<std::string> client;          // the --client command split into words
  std::filesystem::path self;               // the msptk binary the canned host runs
  std::filesystem::path work;               // a folder for the report logs (must exist)
  std::filesystem::path keep;               // --keep DIR: each session recorded in DIR/<corpus>/<scenario>; "" not kept
  bool keep_going = false;                  // the canned host's --keep-going
  bool follow_minted = false;               // the canned host's --follow-minted
  std::vector<std::string> chaos;           // the canned host's chaos options ("--chaos", SPEC, "--chaos-seed", S)
  std::string chaos_label;                  // "split,merge (seed 42)" for the outcome, "" without chaos
  int timeout_ms = 10000;
  int close_timeout_ms = 5000;
  std::filesystem::path keep_env;           // --keep-env DIR (each client's folders in DIR/<corpus>/<scenario>)
  std::filesystem::path registry;           // --registry FILE, passed on to the canned host; "" none
  ValidateOptions validate;                 // its registry: the built-in one extended by --registry
};

class ClientRunner final : public ScenarioRunner {
 public:
  ClientRunner(ClientRunnerOptions options, std::shared_ptr<ClientLauncher> launcher)
      : options_(std::move(options)), launcher_(std::move(launcher)) {}
  ScenarioOutcome run(const ScenarioTask& task) override;

  // The canned host's argv for `task` (report log `log`).
  std::vector<std::string> host_argv(const ScenarioTask& task, const std::filesystem::path& log) const;

 private:
  ClientRunnerOptions options_;
  std::shared_ptr<ClientLauncher> launcher_;
  process::SigpipeIgnored sigpipe_;
};

}  // namespace msptk::check
