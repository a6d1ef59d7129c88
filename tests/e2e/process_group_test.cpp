// Issue 10, defect 1: a host's children never outlive msptk. Each host here is a shell that
// starts a marked `sleep` and waits for it (the shape of a real server with workers); after
// msptk exits no process with the marker may be alive: on a replay or check timeout, on a
// SIGTERM to record (forwarded to the host's group), when the host ignores SIGTERM (SIGKILL
// after --close-timeout-ms), when the host exits and leaves its child running, and when msptk
// itself is killed with SIGKILL (its guard process kills the group).
#include "e2e_support.hpp"
#include "leak_check.hpp"

#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

#include <thread>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

fs::path scenario() { return test::source_dir() / "corpus" / "handshake-request-before-initialize"; }

// A host whose child keeps running: `sh -c 'sleep MARK & wait'` (with `prelude` first).
std::vector<std::string> child_keeping_host(const std::string& marker, const std::string& prelude = "") {
  return {"/bin/sh", "-c", fmt::format("{}sleep {} & wait", prelude, marker)};
}

// The manifest parses with no problem (the sessions here are not valid MSP: validate's session
// rules do not apply; the fault tests validate whole sessions).
void expect_manifest_readable(const fs::path& dir) {
  auto manifest = read_manifest(dir / "manifest.json");
  ASSERT_TRUE(manifest) << manifest.error().render();
  for (const auto& p : manifest->problems) ADD_FAILURE() << "manifest problem: " << p.member << ": " << p.message;
}

struct Marked : ::testing::Test {
  std::string marker = unique_marker();
  ~Marked() override { kill_marked(marker); }
};

using ProcessGroupE2E = Marked;

TEST_F(ProcessGroupE2E, ReplayTimeoutLeavesNoProcessBehind) {
  std::vector<std::string> argv{msptk_bin(), "replay", "--transcript", scenario().string(), "--timeout-ms", "300",
                                "--close-timeout-ms", "300", "--"};
  for (auto& a : child_keeping_host(marker)) argv.push_back(a);
  const auto start = std::chrono::steady_clock::now();
  CommandRun run = run_command(argv, std::chrono::seconds(20));
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("timed out after 300 ms"), std::string::npos) << run.out;
  EXPECT_EQ(processes_left(marker), std::vector<int>{});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(ProcessGroupE2E, ReplayKillsAHostThatIgnoresSigtermAfterTheCloseTimeout) {
  test::TempDir tmp;
  std::vector<std::string> argv{msptk_bin(), "replay", "--transcript", scenario().string(), "--timeout-ms", "200",
                                "--close-timeout-ms", "300", "--record", (tmp / "out").string(), "--"};
  for (auto& a : child_keeping_host(marker, "trap '' TERM; ")) argv.push_back(a);
  CommandRun run = run_command(argv, std::chrono::seconds(20));
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  EXPECT_EQ(processes_left(marker), std::vector<int>{});
  const boost::json::object manifest = read_json_object(tmp / "out" / "manifest.json");
  const boost::json::object& capture = manifest.at("capture").as_object();
  EXPECT_EQ(capture.at("hostDidNotExit"), true);
  EXPECT_EQ(capture.at("stopSignals"), (boost::json::array{"SIGTERM", "SIGKILL"}));
  EXPECT_EQ(capture.at("exit").as_object().at("signalName"), "SIGKILL");
  expect_manifest_readable(tmp / "out");
}

TEST_F(ProcessGroupE2E, CheckTimeoutLeavesNoProcessBehind) {
  const std::string host = fmt::format("/bin/sh -c 'sleep {} & wait'", marker);
  CommandRun run = run_command({msptk_bin(), "check", scenario().string(), "--host", host, "--timeout-ms", "300",
                                "--close-timeout-ms", "300", "--jobs", "2"},
                               std::chrono::seconds(20));
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  EXPECT_EQ(processes_left(marker), std::vector<int>{});
}

// msptk record with its stdin and stdout as pipes (the test is the client).
std::unique_ptr<process::HostProcess> start_record(const fs::path& out, const std::vector<std::string>& host,
                                                   std::vector<std::string> options = {}) {
  std::vector<std::string> argv{msptk_bin(), "record", "--out", out.string(), "--fingerprint",
                                "sha256:" + std::string(64, 'a')};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), host.begin(), host.end());
  process::SpawnSpec spec;
  spec.argv = argv;
  auto child = process::spawn_host(spec);
  EXPECT_TRUE(child) << child.error().render();
  return child ? std::move(*child) : nullptr;
}

// Waits until the marked `sleep` runs (the host got as far as starting its child).
void await_marked(const std::string& marker) {
  for (int i = 0; i < 500 && processes_with(marker, "sleep").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(processes_with(marker, "sleep").empty()) << "the host never started its child";
}

// Blocks until msptk ends, at most `limit`.
std::optional<process::ExitStatus> wait_for(process::HostProcess& p, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (auto e = p.try_wait()) return e;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::nullopt;
}

TEST_F(ProcessGroupE2E, RecordForwardsSigtermToTheWholeGroup) {
  test::TempDir tmp;
  auto rec = start_record(tmp / "rec", child_keeping_host(marker));
  ASSERT_TRUE(rec);
  await_marked(marker);
  ::kill(rec->pid(), SIGTERM);
  auto exit = wait_for(*rec, std::chrono::seconds(5));
  ASSERT_TRUE(exit) << "record did not end after SIGTERM";
  EXPECT_EQ(exit->code, 128 + SIGTERM);  // the host's status, as a shell reports it
  EXPECT_EQ(processes_left(marker), std::vector<int>{});
  const boost::json::object capture = read_json_object(tmp / "rec" / "manifest.json").at("capture").as_object();
  EXPECT_EQ(capture.at("signalsForwarded"), (boost::json::array{"SIGTERM"}));
  EXPECT_EQ(capture.at("hostDidNotExit"), false);
  EXPECT_EQ(capture.at("status"), "complete");
}

TEST_F(ProcessGroupE2E, RecordKillsAGroupThatIgnoresSigterm) {
  test::TempDir tmp;
  auto rec = start_record(tmp / "rec", child_keeping_host(marker, "trap '' TERM; "), {"--close-timeout-ms", "300"});
  ASSERT_TRUE(rec);
  await_marked(marker);
  ::kill(rec->pid(), SIGTERM);
  auto exit = wait_for(*rec, std::chrono::seconds(5));
  ASSERT_TRUE(exit) << "record did not end after SIGTERM";
  EXPECT_EQ(exit->code, 128 + SIGKILL);
  EXPECT_EQ(processes_left(marker), std::vector<int>{});
  const boost::json::object capture = read_json_object(tmp / "rec" / "manifest.json").at("capture").as_object();
  EXPECT_EQ(capture.at("hostDidNotExit"), true);
  EXPECT_EQ(capture.at("stopSignals"), (boost::json::array{"SIGKILL"}));  // SIGTERM was the forwarded one
  EXPECT_EQ(capture.at("closeTimeoutMs"), 300);
  expect_manifest_readable(tmp / "rec");
}

TEST_F(ProcessGroupE2E, RecordEndsAHostThatDoesNotExitAfterItsStdinClosed) {
  test::TempDir tmp;
  auto rec = start_record(tmp / "rec", child_keeping_host(marker), {"--close-timeout-ms", "200"});
  ASSERT_TRUE(rec);
  await_marked(marker);
  rec->close_stdin();  // the client is done; the host does not read, so it never notices
  auto exit = wait_for(*rec, std::chrono::seconds(5));
  ASSERT_TRUE(exit) << "record did not end after its client's EOF";
  EXPECT_EQ(exit->code, 128 + SIGTERM);
  EXPECT_EQ(processes_left(marker), std::vector<int>{});
  const boost::json::object capture = read_json_object(tmp / "rec" / "manifest.json").at("capture").as_object();
  EXPECT_EQ(capture.at("hostDidNotExit"), true);
  EXPECT_EQ(capture.at("stopSignals"), (boost::json::array{"SIGTERM"}));
}

TEST_F(ProcessGroupE2E, RecordStopsWhatAnExitedHostLeftRunning) {
  test::TempDir tmp;
  auto rec = start_record(tmp / "rec", {"/bin/sh", "-c", fmt::format("sleep {} & exit 0", marker)});
  ASSERT_TRUE(rec);
  rec->close_stdin();
  auto exit = wait_for(*rec, std::chrono::seconds(5));
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->code, 0);
  EXPECT_EQ(processes_left(marker), std::vector<int>{});
  const boost::json::object capture = read_json_object(tmp / "rec" / "manifest.json").at("capture").as_object();
  EXPECT_EQ(capture.at("hostDidNotExit"), false);
  EXPECT_EQ(capture.at("groupOutlivedHost"), true);
}

TEST_F(ProcessGroupE2E, SigkillToRecordStillEndsTheHostsGroup) {
  test::TempDir tmp;
  auto rec = start_record(tmp / "rec", child_keeping_host(marker));
  ASSERT_TRUE(rec);
  await_marked(marker);
  ::kill(rec->pid(), SIGKILL);
  (void)rec->wait();
  EXPECT_EQ(processes_left(marker, std::chrono::seconds(3)), std::vector<int>{});
}

}  // namespace
}  // namespace msptk::e2e
