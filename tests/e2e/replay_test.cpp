// End-to-end tests of `msptk replay` with real processes:
//   msptk replay --transcript S --record R -- msptk_fake_host --transcript T --report H
// The fake host plays T's server lines, each after the client frames before it arrived, and
// reports whether every client frame it got had T's bytes. With T = S's transcript the replay
// must pass and R must diff identical with S; the negative tests give the host a variant T
// (built in a temp folder) or a fault option.
#include "e2e_support.hpp"

#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

namespace msptk::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using test::TempDir;

std::vector<std::string> replay_argv(const fs::path& scenario, const std::vector<std::string>& options,
                                     const std::vector<std::string>& host) {
  std::vector<std::string> argv = {msptk_bin(), "replay", "--transcript", scenario.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), host.begin(), host.end());
  return argv;
}

std::vector<std::string> fake_host(const fs::path& transcript, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {fake_host_bin(), "--transcript", transcript.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

bool is_sdk_tolerance(const fs::path& scenario) {
  auto m = read_manifest(scenario / "manifest.json");
  return m && m->manifest.is_sdk_tolerance();
}

// Every playable scenario: the public corpus (when present) and the project's corpus/.
std::vector<fs::path> playable_scenarios() {
  std::vector<fs::path> out;
  for (const fs::path& s : test::corpus_scenarios())
    if (!is_sdk_tolerance(s)) out.push_back(s);
  for (const auto& e : fs::directory_iterator(test::source_dir() / "corpus"))
    if (e.is_directory() && fs::exists(e.path() / "manifest.json")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// `msptk diff S R`: identical. Legs files are not replayed; diff lists them as not compared.
void expect_recording_identical(const fs::path& scenario, const fs::path& recording) {
  CommandRun diff = run_command({msptk_bin(), "diff", scenario.string(), recording.string(), "--format", "json"});
  json::value doc = json::parse(diff.out);
  const json::array& comparisons = doc.at("comparisons").as_array();
  ASSERT_FALSE(comparisons.empty()) << diff.out;
  EXPECT_EQ(comparisons[0].at("verdict").as_string(), "identical") << scenario << "\n" << diff.out;
  std::size_t legs = 0;
  for (const auto& e : fs::directory_iterator(scenario))
    if (e.path().string().ends_with("-legs.ndjson")) ++legs;
  EXPECT_EQ(doc.at("unpairedLegs").as_array().size(), legs) << scenario;
  EXPECT_EQ(diff.exit.code, 0) << scenario << "\n" << diff.out;
  EXPECT_EQ(doc.at("verdict").as_string(), "identical") << scenario;
}

TEST(ReplayE2E, EveryPlayableCorpusScenarioPassesAndRecordsIdentically) {
  TempDir tmp;
  const auto scenarios = playable_scenarios();
  ASSERT_GE(scenarios.size(), 6u);
  for (const fs::path& s : scenarios) {
    SCOPED_TRACE(s.string());
    const fs::path r = tmp / ("r-" + s.filename().string());
    const fs::path report = tmp / ("h-" + s.filename().string() + ".json");
    CommandRun run = run_command(replay_argv(s, {"--record", r.string()},
                                             fake_host(s / "transcript.ndjson", {"--report", report.string()})));
    EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("replay passed"), std::string::npos) << run.out;
    EXPECT_TRUE(read_json_object(report).at("mismatch").is_null());  // the host got the recorded client bytes
    expect_recording_identical(s, r);
  }
}

// replay and record composed: msptk replay -- msptk record --out R2 -- msptk_fake_host. The
// recorder in between is transparent, so the replay passes and R2 is the scenario again.
TEST(ReplayE2E, EveryPlayableCorpusScenarioReplaysThroughRecord) {
  TempDir tmp;
  for (const fs::path& s : playable_scenarios()) {
    SCOPED_TRACE(s.string());
    const fs::path r2 = tmp / ("r2-" + s.filename().string());
    std::vector<std::string> host = {msptk_bin(), "record", "--out", r2.string(), "--"};
    for (const std::string& arg : fake_host(s / "transcript.ndjson")) host.push_back(arg);
    CommandRun run = run_command(replay_argv(s, {}, host));
    EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
    expect_recording_identical(s, r2);
  }
}

// The issue's done-when, the three verbs composed, on every playable scenario:
//   msptk replay --transcript S --record R -- msptk serve-fixture --transcript S
//   msptk replay --transcript S -- msptk record --out R2 -- msptk serve-fixture --transcript S
// both pass, and R and R2 diff identical with S (legs files aside: they are not replayed).
TEST(ReplayE2E, ReplayAgainstServeFixturePassesAndRecordsIdentically) {
  TempDir tmp;
  for (const fs::path& s : playable_scenarios()) {
    SCOPED_TRACE(s.string());
    const std::vector<std::string> fixture = {msptk_bin(), "serve-fixture", "--transcript", s.string()};
    const fs::path r = tmp / ("r-" + s.filename().string());
    CommandRun run = run_command(replay_argv(s, {"--record", r.string()}, fixture));
    EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
    expect_recording_identical(s, r);
    EXPECT_NE(test::read_text(r / "host-stderr.log").find("\"kind\":\"serveFixtureComplete\""), std::string::npos);

    const fs::path r2 = tmp / ("r2-" + s.filename().string());
    std::vector<std::string> recorded_fixture = {msptk_bin(), "record", "--out", r2.string(), "--"};
    recorded_fixture.insert(recorded_fixture.end(), fixture.begin(), fixture.end());
    run = run_command(replay_argv(s, {}, recorded_fixture));
    EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
    expect_recording_identical(s, r2);
  }
}

// A small session of our own for the negative tests.
std::vector<WireFrame> session() {
  return {
      {Direction::client, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"0"}}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"fake"}}})"},
      {Direction::client, R"({"jsonrpc":"2.0","method":"initialized"})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"commandId":"c1"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":2,"result":{"session":{"sessionId":"sess-A","status":"idle"}}})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":3,"method":"turn/start","params":{"sessionId":"sess-A","commandId":"c2"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":3,"result":{"status":"accepted"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","method":"turn/completed","params":{"terminal":"completed"}})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":4,"method":"session/resume","params":{"sessionId":"sess-A","commandId":"c3"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":4,"result":{"status":"resumed"}})"},
  };
}

const std::vector<std::string> kNormalize = {"id", "params.commandId", "result.session.sessionId"};

fs::path write_scenario(const fs::path& dir, const std::vector<WireFrame>& frames,
                        const std::string& provenance = "hand-authored",
                        const std::vector<std::string>& normalize = kNormalize) {
  fs::create_directories(dir);
  Manifest m;
  m.scenario = dir.filename().string();
  m.provenance = provenance;
  m.fingerprint = "sha256:" + std::string(64, 'a');
  m.transports = {"stdio"};
  m.normalize = normalize;
  EXPECT_TRUE(write_manifest(dir / "manifest.json", m));
  write_transcript(dir / "transcript.ndjson", frames);
  return dir;
}

std::vector<WireFrame> replaced(std::vector<WireFrame> frames, const std::string& from, const std::string& to) {
  for (auto& [dir, raw] : frames)
    for (std::size_t p = raw.find(from); p != std::string::npos; p = raw.find(from, p + to.size()))
      raw.replace(p, from.size(), to);
  return frames;
}

TEST(ReplayE2E, AHostThatDiesMidReplayIsExit3) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", session());
  CommandRun run = run_command(replay_argv(s, {}, fake_host(s / "transcript.ndjson", {"--die-mid-frame", "2"})));
  EXPECT_EQ(run.exit.code, 3) << run.out << run.err;
  EXPECT_NE(run.out.find("the host was killed by SIGKILL before sending server response to session/start "
                         "(1 of 5 server frames received; its stdout ended inside a frame, "),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("missing server response to session/start"), std::string::npos) << run.out;
}

TEST(ReplayE2E, AHostThatSendsAnExtraFrameFails) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", session());
  auto more = session();
  more.emplace_back(Direction::server, R"({"jsonrpc":"2.0","method":"session/closed","params":{}})");
  write_transcript(tmp / "host.ndjson", more);
  CommandRun run = run_command(replay_argv(s, {}, fake_host(tmp / "host.ndjson")));
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("extra server notification session/closed\n  expected (none)\n  actual   live session:11"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("replay failed: live session:11: extra server notification session/closed after the "
                         "transcript's last frame"),
            std::string::npos)
      << run.out;
}

TEST(ReplayE2E, AChangedServerValueFailsWithThePath) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", session());
  write_transcript(tmp / "host.ndjson", replaced(session(), "\"accepted\"", "\"rejected\""));
  CommandRun run = run_command(replay_argv(s, {"--format", "json"}, fake_host(tmp / "host.ndjson")));
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  json::value doc = json::parse(run.out);
  EXPECT_EQ(doc.at("passed").as_bool(), false);
  EXPECT_NE(std::string(doc.at("problem").as_string()).find(":7: server response to turn/start diverges at result.status"),
            std::string::npos)
      << run.out;
  const json::value& frame = doc.at("comparison").at("frames").at(0);
  EXPECT_EQ(frame.at("outcome").as_string(), "divergent");
  EXPECT_EQ(frame.at("divergences").at(0).at("path").as_string(), "result.status");
}

TEST(ReplayE2E, AHostThatNeverAnswersTimesOut) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", session());
  const auto start = std::chrono::steady_clock::now();
  CommandRun run = run_command(
      replay_argv(s, {"--timeout-ms", "300"}, fake_host(s / "transcript.ndjson", {"--delay-ms", "5000"})));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  EXPECT_EQ(run.exit.code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("replay failed: " + (s / "transcript.ndjson").string() +
                         ":2: timed out after 300 ms waiting for server response to initialize"),
            std::string::npos)
      << run.out;
}

// `cat` echoes a 10 MiB client frame while replay is still writing it: replay must keep reading
// the host's stdout while it writes, or both would block on full pipes.
TEST(ReplayE2E, ATenMebibyteFrameEchoedWhileItIsWrittenDoesNotDeadlock) {
  TempDir tmp;
  const std::string big = R"({"jsonrpc":"2.0","method":"big","params":{"blob":")" + std::string(10 << 20, 'A') + "\"}}";
  const fs::path s = write_scenario(tmp / "s", {{Direction::client, big}, {Direction::server, big}});
  CommandRun run = run_command(replay_argv(s, {"--record", (tmp / "r").string()}, {"cat"}));
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  EXPECT_EQ(read_wire_frames(tmp / "r" / "transcript.ndjson"),
            (std::vector<WireFrame>{{Direction::client, big}, {Direction::server, big}}));
}

TEST(ReplayE2E, SdkToleranceScenariosAreRefused) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "tolerance", session(), "sdk-tolerance");
  CommandRun run = run_command(replay_argv(s, {}, fake_host(s / "transcript.ndjson")));
  EXPECT_EQ(run.exit.code, 2);
  EXPECT_NE(run.err.find("is sdk-tolerance: it holds shapes a real host cannot emit"), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(ReplayE2E, AHostMintingAnotherSessionIdPassesUnderUnify) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", session());
  // The host mints sess-B and expects its later client frames to carry it.
  write_transcript(tmp / "host.ndjson", replaced(session(), "sess-A", "sess-B"));
  const fs::path report = tmp / "host.json";
  CommandRun run = run_command(
      replay_argv(s, {"--record", (tmp / "r").string()}, fake_host(tmp / "host.ndjson", {"--report", report.string()})));
  EXPECT_EQ(run.exit.code, 0) << run.out << run.err;
  EXPECT_TRUE(read_json_object(report).at("mismatch").is_null()) << test::read_text(report);
  EXPECT_NE(run.out.find(":6 params.sessionId: \"sess-A\" → \"sess-B\" (learned in server frames' "
                         "result.session.sessionId)"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(":9 params.sessionId: \"sess-A\" → \"sess-B\""), std::string::npos) << run.out;
  EXPECT_EQ(read_wire_frames(tmp / "r" / "transcript.ndjson"), replaced(session(), "sess-A", "sess-B"));
  // The recording's server side is equivalent to the scenario's under its normalize list (its
  // client side is not: diff holds echoed values exact unless params.sessionId is declared).
  CommandRun diff = run_command({msptk_bin(), "diff", s.string(), (tmp / "r").string(), "--side", "server"});
  EXPECT_EQ(diff.exit.code, 0) << diff.out;
  EXPECT_NE(diff.out.find("equivalent: 5 frames"), std::string::npos) << diff.out;

  // Under erase the values are not compared, and still learned and carried.
  CommandRun erase = run_command(replay_argv(s, {"--mask", "erase"}, fake_host(tmp / "host.ndjson")));
  EXPECT_EQ(erase.exit.code, 0) << erase.out;

  // Without the declaration the new id is a divergence, and nothing is carried.
  const fs::path exact = write_scenario(tmp / "exact", session(), "hand-authored", {"id", "params.commandId"});
  CommandRun strict = run_command(replay_argv(exact, {}, fake_host(tmp / "host.ndjson")));
  EXPECT_EQ(strict.exit.code, 1) << strict.out;
  EXPECT_NE(strict.out.find("result.session.sessionId: \"sess-A\" → \"sess-B\""), std::string::npos) << strict.out;
}

}  // namespace
}  // namespace msptk::e2e
