// `msptk check --client` end to end: the scripted client (fake_client.cpp) run against the canned
// host over both corpora, a v2 that sends two requests differently, the kept sessions compared
// by `diff --side client`, and clients that crash, hang, never start the host or start it twice.
#include "e2e_support.hpp"
#include "leak_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> corpora() {
  std::vector<std::string> out{(test::source_dir() / "corpus").string()};
  if (fs::is_directory(test::shared_transcripts())) out.push_back(test::shared_transcripts().string());
  return out;
}

std::size_t scenario_count(const std::vector<std::string>& dirs) {
  std::size_t n = 0;
  for (const auto& dir : dirs)
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "manifest.json")) ++n;
  return n;
}

CommandRun check(const std::vector<std::string>& paths, const std::string& client, std::vector<std::string> args = {}) {
  std::vector<std::string> argv{msptk_bin(), "check"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  argv.insert(argv.end(), {"--client", client});
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, std::chrono::seconds(120));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The scripted client playing the golden transcript's client lines, spawning the canned host
// through a shell from the {host} word.
std::string scripted_client(const std::string& transcript = "{scenario}/transcript.ndjson") {
  return fmt::format("'{}' --transcript '{}' -- sh -c {{host}}", fake_client_bin(), transcript);
}

// Replaces the one occurrence of `from` in `text`.
void change(std::string& text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " in " << text;
  text.replace(at, from.size(), to);
}

TEST(CheckClientE2E, AScriptedClientPassesBothCorporaOneTestcaseEach) {
  const auto paths = corpora();
  const std::size_t total = scenario_count(paths);
  test::TempDir tmp;
  CommandRun run = check(paths, scripted_client(), {"--jobs", "2", "--junit", (tmp / "check.xml").string()});
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  const auto out = lines(run.out);
  ASSERT_EQ(out.size(), total + 1) << run.out;
  EXPECT_EQ(out.back(), fmt::format("{} passed, 0 failed, 0 skipped", total));  // sdk-tolerance scenarios are played
  EXPECT_EQ(run.err, "");  // the canned host's report goes to msptk's file, not to the client's stderr
  const std::string xml = test::read_text(tmp / "check.xml");
  EXPECT_EQ(count_of(xml, "<testcase "), total) << xml;
}

TEST(CheckClientE2E, TheHostIsAlsoInTheEnvironment) {
  const std::string client = fmt::format("sh -c 'exec \"$0\" --transcript \"$1\" -- sh -c \"$MSPTK_CANNED_HOST\"' '{}' "
                                         "'{{scenario}}/transcript.ndjson'",
                                         fake_client_bin());
  CommandRun run = check({(test::source_dir() / "corpus").string()}, client);
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  EXPECT_EQ(lines(run.out).back(), fmt::format("{} passed, 0 failed, 0 skipped", scenario_count({(test::source_dir() / "corpus").string()})));
}

TEST(CheckClientE2E, AV2ThatChangesTwoRequestsFailsWithBothPathsAndTheKeptSessionsDiff) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  test::TempDir tmp;
  const fs::path scenario = tmp / "corpus" / "text-run-single-turn";
  fs::create_directories(scenario.parent_path());
  fs::copy(test::shared_transcripts() / "text-run-single-turn", scenario, fs::copy_options::recursive);
  std::vector<WireFrame> frames = read_wire_frames(scenario / "transcript.ndjson");
  change(frames.at(3).second, "/home/me/src/proj", "/home/me/src/other");
  change(frames.at(6).second, "Run the agent test suite and summarize failures", "Run only the unit tests");
  write_transcript(tmp / "v2.ndjson", frames);

  CommandRun v1 = check({scenario.string()}, scripted_client(), {"--keep", (tmp / "v1").string()});
  EXPECT_EQ(v1.exit.code, 0) << v1.out << v1.err;
  CommandRun v2 = check({scenario.string()}, scripted_client((tmp / "v2.ndjson").string()),
                        {"--keep-going", "--keep", (tmp / "v2").string(), "--json", (tmp / "v2.json").string()});
  EXPECT_EQ(v2.exit.code, 1) << v2.out << v2.err;
  EXPECT_NE(v2.out.find("FAIL corpus/text-run-single-turn: "), std::string::npos) << v2.out;
  EXPECT_NE(v2.out.find("transcript.ndjson:4: "), std::string::npos) << v2.out;
  EXPECT_NE(v2.out.find("params.workspaceRoot"), std::string::npos) << v2.out;
  const auto report = read_json_object(tmp / "v2.json");
  const std::string details(report.at("scenarios").as_array()[0].at("details").as_string());
  EXPECT_NE(details.find("divergent "), std::string::npos) << details;
  EXPECT_NE(details.find("at params.workspaceRoot: /home/me/src/proj → /home/me/src/other"), std::string::npos) << details;
  EXPECT_NE(details.find("at params.input[0].text: "), std::string::npos) << details;

  CommandRun diff = run_command({msptk_bin(), "diff", (tmp / "v1" / "corpus" / "text-run-single-turn").string(),
                                 (tmp / "v2" / "corpus" / "text-run-single-turn").string(), "--side", "client"});
  EXPECT_EQ(diff.exit.code, 1) << diff.out << diff.err;
  EXPECT_NE(diff.out.find("params.workspaceRoot"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("params.input[0].text"), std::string::npos) << diff.out;
}

// One scenario of corpus/ copied alone; each misbehaving client is run against it.
struct CheckClientMisbehaving : ::testing::Test {
  test::TempDir tmp;
  fs::path scenario;
  void SetUp() override {
    scenario = tmp / "corpus" / "handshake-request-before-initialize";
    fs::create_directories(scenario.parent_path());
    fs::copy(test::source_dir() / "corpus" / "handshake-request-before-initialize", scenario,
             fs::copy_options::recursive);
  }
  // `script` runs under sh with $FAKE and $T (the golden transcript) set.
  CommandRun run(const std::string& script, std::vector<std::string> args = {}) {
    const std::string client = fmt::format("sh -c '{}' '{}' '{}'", script, fake_client_bin(),
                                           (scenario / "transcript.ndjson").string());
    return check({scenario.string()}, client, std::move(args));
  }
};

constexpr const char* kPlay = "FAKE=$0; T=$1; \"$FAKE\" --transcript \"$T\" -- sh -c \"$MSPTK_CANNED_HOST\"";

TEST_F(CheckClientMisbehaving, AClientThatNeverStartsTheHostIsAnError) {
  CommandRun r = run("echo no host for me >&2; exit 0");
  EXPECT_EQ(r.exit.code, 3) << r.out;
  EXPECT_NE(r.out.find("ERROR corpus/handshake-request-before-initialize: the client exited 0 without starting the "
                       "canned host (it is given as {host} and $MSPTK_CANNED_HOST)"),
            std::string::npos)
      << r.out;
}

TEST_F(CheckClientMisbehaving, AClientThatStartsTheHostTwiceIsAnError) {
  CommandRun r = run(fmt::format("{}; {}", kPlay, "\"$FAKE\" --transcript \"$T\" -- sh -c \"$MSPTK_CANNED_HOST\""));
  EXPECT_EQ(r.exit.code, 3) << r.out;
  EXPECT_NE(r.out.find("the client started the canned host 2 times (one session per scenario)"), std::string::npos)
      << r.out;
}

TEST_F(CheckClientMisbehaving, AClientThatCrashesAfterTheSessionFailsWithItsStderr) {
  CommandRun r = run(fmt::format("{}; echo segfault in cleanup >&2; kill -SEGV $$", kPlay));
  EXPECT_EQ(r.exit.code, 1) << r.out;
  EXPECT_NE(r.out.find(": the client was killed by signal 11 after the session completed"), std::string::npos) << r.out;
  CommandRun junit = run(fmt::format("{}; exit 4", kPlay), {"--junit", (tmp / "j.xml").string()});
  EXPECT_NE(junit.out.find(": the client exited 4 after the session completed"), std::string::npos) << junit.out;
}

TEST_F(CheckClientMisbehaving, AClientThatCrashesMidSessionFailsWithTheHostsReport) {
  CommandRun r = run("sh -c \"$MSPTK_CANNED_HOST\" </dev/null >/dev/null; kill -SEGV $$");
  EXPECT_EQ(r.exit.code, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL corpus/handshake-request-before-initialize: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("clientEof"), std::string::npos) << r.out;
}

TEST_F(CheckClientMisbehaving, AHungClientIsStoppedWithItsGroupAndLeavesNothing) {
  const std::string marker = unique_marker();
  CommandRun r = run(fmt::format("sh -c \"$MSPTK_CANNED_HOST\" </dev/null >/dev/null & sleep {}; exit 0", marker),
                     {"--timeout-ms", "1000", "--close-timeout-ms", "300"});
  EXPECT_EQ(r.exit.code, 3) << r.out;
  EXPECT_NE(r.out.find("the client did not finish within 1000 ms: its process group was stopped"), std::string::npos)
      << r.out;
  EXPECT_TRUE(processes_with(marker).empty());
}

}  // namespace
}  // namespace msptk::e2e
