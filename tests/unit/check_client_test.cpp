// check --client's runner (client_runner.hpp) behind a fake ClientLauncher that writes the log a
// canned host would, and check --list (listing.hpp).
#include "msptk/check/client_runner.hpp"
#include "msptk/check/host_command.hpp"
#include "msptk/check/listing.hpp"
#include "msptk/check/plan.hpp"

#include "test_support.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <mutex>

namespace msptk::check {
namespace {

namespace fs = std::filesystem;

// Runs `play` on each launch: it appends the canned host's log lines and says how the client ended.
class FakeLauncher final : public ClientLauncher {
 public:
  using Play = std::function<ClientRun(const ClientLaunch&, std::ofstream& log)>;
  explicit FakeLauncher(Play play) : play_(std::move(play)) {}
  ClientRun run(const ClientLaunch& launch) override {
    std::lock_guard lock(mutex_);
    launches.push_back(launch);
    std::ofstream log(launch.report_log, std::ios::app);
    return play_(launch, log);
  }
  std::vector<ClientLaunch> launches;

 private:
  Play play_;
  std::mutex mutex_;
};

ClientRun exited(int code, std::string stderr_tail = {}) {
  ClientRun run;
  run.exit = process::ExitStatus{code, 0};
  run.stderr_tail = std::move(stderr_tail);
  return run;
}

constexpr const char* kStart = "{\"kind\":\"serveFixtureStart\",\"pid\":42}\n";
constexpr const char* kComplete = "{\"kind\":\"serveFixtureComplete\",\"scenario\":\"s\",\"clientFrames\":3,\"serverFrames\":4}\n";

struct Fixture {
  test::TempDir work;
  ScenarioTask task;
  Fixture() {
    task.corpus = "corpus";
    task.scenario = "handshake-request-before-initialize";
    task.dir = test::source_dir() / "corpus" / task.scenario;
  }
  ScenarioOutcome run(FakeLauncher::Play play, ClientRunnerOptions options = {},
                      std::vector<ClientLaunch>* launches = nullptr) {
    if (options.client.empty()) options.client = {"my-client", "--host-command", "{host}", "--scenario", "{scenario}"};
    options.self = "/opt/msptk";
    options.work = work.path();
    auto launcher = std::make_shared<FakeLauncher>(std::move(play));
    ClientRunner runner(std::move(options), launcher);
    ScenarioOutcome outcome = runner.run(task);
    if (launches) *launches = launcher->launches;
    return outcome;
  }
};

TEST(CheckClient, PassesWhenTheSessionCompletesAndTheClientExitsZero) {
  Fixture f;
  std::vector<ClientLaunch> launches;
  ScenarioOutcome outcome = f.run(
      [](const ClientLaunch&, std::ofstream& log) {
        log << kStart << kComplete;
        return exited(0);
      },
      {}, &launches);
  EXPECT_EQ(outcome.status, Status::pass) << outcome.reason;
  ASSERT_EQ(launches.size(), 1u);
  const ClientLaunch& launch = launches[0];
  // {host} is one word, the same line as MSPTK_CANNED_HOST; it splits back into the canned host's argv.
  ASSERT_EQ(launch.argv.size(), 5u);
  ASSERT_EQ(launch.variables.size(), 1u);
  EXPECT_EQ(launch.variables[0].first, kCannedHostVariable);
  EXPECT_EQ(launch.argv[2], launch.variables[0].second);
  EXPECT_EQ(launch.argv[4], f.task.dir.string());
  auto host = split_command(launch.argv[2]);
  ASSERT_TRUE(host);
  const std::vector<std::string> expected = {"/opt/msptk", "serve-fixture", "--transcript", f.task.dir.string(),
                                             "--report-to", launch.report_log.string()};
  EXPECT_EQ(*host, expected);
  EXPECT_EQ(outcome.client.at("hostStarts").to_number<std::size_t>(), 1u);
  EXPECT_FALSE(fs::exists(launch.report_log)) << "the log is msptk's and goes once read";
}

TEST(CheckClient, TheCannedHostGetsTheRunsOptionsAndRecordsWithKeep) {
  Fixture f;
  ClientRunnerOptions options;
  options.keep_going = options.follow_minted = true;
  options.chaos = {"--chaos", "split", "--chaos-seed", "7"};
  options.keep = f.work.path() / "kept";
  std::vector<ClientLaunch> launches;
  f.run([](const ClientLaunch&, std::ofstream& log) { return log << kStart << kComplete, exited(0); }, options, &launches);
  ASSERT_EQ(launches.size(), 1u);
  auto host = split_command(launches[0].variables[0].second);
  ASSERT_TRUE(host);
  const std::string joined = fmt::format("{}", fmt::join(*host, " "));
  EXPECT_TRUE(joined.starts_with("/opt/msptk record --out " + (options.keep / "corpus" / f.task.scenario).string() +
                                 " -- /opt/msptk serve-fixture"))
      << joined;
  EXPECT_TRUE(joined.ends_with("--keep-going --follow-minted --chaos split --chaos-seed 7")) << joined;
}

TEST(CheckClient, AFailureNamesTheFirstDivergenceFileLineAndPath) {
  Fixture f;
  ScenarioOutcome outcome = f.run([](const ClientLaunch&, std::ofstream& log) {
    log << kStart
        << R"({"kind":"serveFixtureFailure","problem":"frameDivergence","transcript":"corpus/s/transcript.ndjson",)"
           R"("transcriptLine":6,"errors":["client frame 4 (input line 4) does not match corpus/s/transcript.ndjson:6"],)"
           R"("divergences":[{"path":"params.workspaceRoot","expected":"/a","received":"/b","note":""}]})"
        << "\n";
    return exited(1, "client: host failed\n");
  });
  EXPECT_EQ(outcome.status, Status::fail);
  EXPECT_EQ(outcome.reason,
            "corpus/s/transcript.ndjson:6: client frame 4 (input line 4) does not match corpus/s/transcript.ndjson:6, "
            "at params.workspaceRoot: /a → /b");
  EXPECT_NE(outcome.details.find("client: host failed"), std::string::npos) << outcome.details;
}

TEST(CheckClient, KeepGoingListsEveryDifferentFrame) {
  Fixture f;
  ScenarioOutcome outcome = f.run([](const ClientLaunch&, std::ofstream& log) {
    log << kStart
        << R"({"kind":"serveFixtureFailure","problem":"frameDivergence","transcript":"t.ndjson","transcriptLine":4,)"
           R"("errors":["first"],"divergences":[{"path":"params.a","expected":"1","received":"2","note":""}],)"
           R"("frames":[{"outcome":"divergent","transcriptLine":4,"inputLine":4,"signature":"client request x",)"
           R"("divergences":[{"path":"params.a","expected":"1","received":"2","note":""}]},)"
           R"({"outcome":"divergent","transcriptLine":9,"inputLine":9,"signature":"client request y",)"
           R"("divergences":[{"path":"params.b","expected":"3","received":"4","note":""}]},)"
           R"({"outcome":"missing","transcriptLine":12,"inputLine":null,"signature":"client request z"}]})"
        << "\n";
    return exited(1);
  });
  EXPECT_EQ(outcome.status, Status::fail);
  EXPECT_NE(outcome.details.find("divergent t.ndjson:4 client request x\n    at params.a: 1 → 2"), std::string::npos)
      << outcome.details;
  EXPECT_NE(outcome.details.find("divergent t.ndjson:9 client request y\n    at params.b: 3 → 4"), std::string::npos);
  EXPECT_NE(outcome.details.find("missing t.ndjson:12 client request z"), std::string::npos);
}

TEST(CheckClient, AClientThatFailsAfterTheSessionFailsWithItsStderrTail) {
  Fixture f;
  ScenarioOutcome outcome =
      f.run([](const ClientLaunch&, std::ofstream& log) { return log << kStart << kComplete, exited(3, "panic: oops\n"); });
  EXPECT_EQ(outcome.status, Status::fail);
  EXPECT_EQ(outcome.reason, "the client exited 3 after the session completed");
  EXPECT_NE(outcome.details.find("panic: oops"), std::string::npos);
}

TEST(CheckClient, NeverStartedStartedTwiceHungOrUnspawnableAreErrors) {
  Fixture f;
  ScenarioOutcome never = f.run([](const ClientLaunch&, std::ofstream&) { return exited(0); });
  EXPECT_EQ(never.status, Status::error);
  EXPECT_TRUE(never.reason.starts_with("the client exited 0 without starting the canned host")) << never.reason;

  ScenarioOutcome twice = f.run([](const ClientLaunch&, std::ofstream& log) {
    return log << kStart << kComplete << kStart << kComplete, exited(0);
  });
  EXPECT_EQ(twice.status, Status::error);
  EXPECT_EQ(twice.reason, "the client started the canned host 2 times (one session per scenario)");

  ScenarioOutcome hung = f.run([](const ClientLaunch&, std::ofstream& log) {
    ClientRun run = exited(0);
    run.exit = process::ExitStatus{0, 15};
    run.timed_out = true;
    return log << kStart, run;
  });
  EXPECT_EQ(hung.status, Status::error);
  EXPECT_TRUE(hung.reason.starts_with("the client did not finish within 10000 ms")) << hung.reason;

  ScenarioOutcome unspawnable = f.run([](const ClientLaunch&, std::ofstream&) {
    ClientRun run;
    Error error;
    error.kind = ErrorKind::spawn;
    error.message = "cannot spawn 'my-client': not found in PATH";
    run.spawn_failure = error;
    return run;
  });
  EXPECT_EQ(unspawnable.status, Status::error);
  EXPECT_NE(unspawnable.reason.find("not found in PATH"), std::string::npos);
}

TEST(CheckClient, AHostStoppedBeforeItsReportFails) {
  Fixture f;
  ScenarioOutcome outcome = f.run([](const ClientLaunch&, std::ofstream& log) { return log << kStart, exited(0); });
  EXPECT_EQ(outcome.status, Status::fail);
  EXPECT_TRUE(outcome.reason.starts_with("the canned host ended without its report")) << outcome.reason;
}

TEST(CheckClient, SdkToleranceScenariosArePlayed) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  Fixture f;
  f.task.corpus = "transcripts";
  f.task.scenario = "tolerance-unknown-item-kind";
  f.task.dir = test::shared_transcripts() / f.task.scenario;
  ScenarioOutcome outcome = f.run([](const ClientLaunch&, std::ofstream& log) { return log << kStart << kComplete, exited(0); });
  EXPECT_EQ(outcome.status, Status::pass) << outcome.reason;
}

TEST(CheckClient, ShellQuoteSplitsBackIntoTheSameWords) {
  const std::vector<std::string> words = {"/a b/msptk", "it's", "", "$HOME", "\"q\"", "back\\slash"};
  auto back = split_command(shell_quote(words));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, words);
  EXPECT_EQ(expand_host({"x", "--h={host}"}, "'a' 'b'"), (std::vector<std::string>{"x", "--h='a' 'b'"}));
}

TEST(CheckList, HostModeSkipsSdkToleranceClientModePlaysEverything) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  CheckOptions options;
  options.corpora = {test::shared_transcripts(), test::source_dir() / "corpus"};
  auto host = list_scenarios(options, RunMode::host);
  auto client = list_scenarios(options, RunMode::client);
  ASSERT_TRUE(host && client);
  ASSERT_EQ(host->size(), client->size());
  std::size_t skipped = 0;
  for (std::size_t i = 0; i < host->size(); ++i) {
    EXPECT_EQ((*host)[i].task.id(), (*client)[i].task.id());
    EXPECT_FALSE((*host)[i].provenance.empty()) << (*host)[i].task.id();
    EXPECT_TRUE((*client)[i].skip.empty());
    EXPECT_EQ(!(*host)[i].skip.empty(), (*host)[i].provenance == "sdk-tolerance");
    skipped += (*host)[i].skip.empty() ? 0 : 1;
  }
  EXPECT_GE(skipped, 2u);
  const boost::json::value json = list_to_json(*client, RunMode::client);
  EXPECT_EQ(json.at("mode"), "client");
  EXPECT_EQ(json.at("scenarios").as_array().size(), client->size());
  EXPECT_TRUE(json.at("scenarios").as_array()[0].at("skip").is_null());

  options.shard = Shard{2, 3};
  auto shard = list_scenarios(options, RunMode::host);
  ASSERT_TRUE(shard);
  EXPECT_EQ(shard->size(), select_shard(*collect_scenarios(options.corpora), Shard{2, 3}).size());
}

}  // namespace
}  // namespace msptk::check
