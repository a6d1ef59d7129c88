// replay_scenario against hosts made of pipes and a thread (a PipeHost plays its own script of
// frames the way msptk_fake_host does): pass, carried values, divergence, extra and missing
// frames, timeouts, host death, refusals, and --record.
#include "msptk/differ/diff.hpp"
#include "msptk/playback/replay.hpp"
#include "msptk/playback/replay_render.hpp"
#include "msptk/process/fd_io.hpp"
#include "msptk/transcript/framing.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "pipe_host.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <deque>
#include <fcntl.h>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace msptk {
namespace {

namespace fs = std::filesystem;
using process::ExitStatus;
using test::TempDir;
using Script = std::vector<std::pair<Direction, std::string>>;
constexpr auto C = Direction::client;
constexpr auto S = Direction::server;

// What a scripted host does besides playing its script.
struct Behaviour {
  std::size_t exit_before_server = 0;  // exit (code 1) instead of writing the N-th server frame (1-based)
  std::size_t silent_after_client = 0;  // after the N-th client frame, write nothing more
  std::string extra_at_end;             // bytes written after the script
  bool hang_at_end = false;             // keep stdout open and never exit, until killed
  int exit_code = 0;
};

// A host that plays `script` (its server frames written once the client frames before them
// arrived), then reads its stdin to EOF and exits. The client frames it received are kept in
// `received`.
ExitStatus play_script(const Script& script, const Behaviour& b, std::vector<std::string>& received, int in, int out,
                       int err, const std::atomic<int>& signal) {
  process::write_all(err, "host log line\n");
  LineFramer framer;
  std::deque<std::string> lines;
  char buffer[4096];
  auto next = [&]() -> bool {
    while (lines.empty()) {
      process::IoResult r = process::read_some(in, buffer, sizeof buffer);
      if (r.eof || r.error) return false;
      framer.feed(std::string_view(buffer, r.bytes), [&](const FramedLine& l) { lines.emplace_back(l.bytes); });
    }
    received.push_back(lines.front());
    lines.pop_front();
    return true;
  };
  std::size_t clients = 0, servers = 0;
  bool silent = false;
  for (const auto& [dir, raw] : script) {
    if (dir == C) {
      if (!next()) return ExitStatus{0, 0};
      if (++clients == b.silent_after_client) silent = true;
      continue;
    }
    if (++servers == b.exit_before_server) return ExitStatus{1, 0};
    if (!silent) process::write_all(out, raw + "\n");
  }
  if (!b.extra_at_end.empty()) process::write_all(out, b.extra_at_end);
  if (b.hang_at_end) {
    while (signal != SIGKILL) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return ExitStatus{0, SIGKILL};
  }
  while (next()) {
  }
  return ExitStatus{b.exit_code, 0};
}

std::unique_ptr<process::HostProcess> script_host(Script script, Behaviour behaviour,
                                                  std::shared_ptr<std::vector<std::string>> received) {
  return std::make_unique<test::PipeHost>([=](int in, int out, int err, const std::atomic<int>& signal) {
    return play_script(script, behaviour, *received, in, out, err, signal);
  });
}

const std::string kFingerprint = "sha256:" + std::string(64, 'a');

// The recorded session. Line 3 ends in CR; line 6 has odd spacing (sent as recorded).
Script recorded() {
  return {
      {C, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"0"}}})"},
      {S, R"({"jsonrpc":"2.0","id":1,"result":{"schema":{"version":1,"fingerprint":")" + kFingerprint + R"("}}})"},
      {C, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}\r"},
      {C, R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"commandId":"c1"}})"},
      {S, R"({"jsonrpc":"2.0","id":2,"result":{"session":{"sessionId":"sess-A","title":"x"}}})"},
      {C, R"({"jsonrpc":"2.0", "id":3,"method":"turn/start","params":{"sessionId":"sess-A","commandId":"c2"}})"},
      {S, R"({"jsonrpc":"2.0","id":3,"result":{"status":"accepted"}})"},
      {S, R"({"jsonrpc":"2.0","id":7,"method":"approval/request","params":{"approvalId":"ap1"}})"},
      {C, R"({"jsonrpc":"2.0","id":7,"result":{}})"},
      {S, R"({"jsonrpc":"2.0","method":"turn/completed","params":{"status":"done"}})"},
  };
}

// The same session from a host that mints session id sess-B and server request id 9.
Script minted_differently() {
  Script s = recorded();
  for (auto& [dir, raw] : s) {
    for (std::size_t p; (p = raw.find("sess-A")) != std::string::npos;) raw.replace(p, 6, "sess-B");
    if (raw.find("\"id\":7") != std::string::npos) raw.replace(raw.find("\"id\":7"), 6, "\"id\":9");
  }
  return s;
}

Script with(Script s, std::size_t index, const std::string& from, const std::string& to) {
  std::string& raw = s[index].second;
  raw.replace(raw.find(from), from.size(), to);
  return s;
}

fs::path write_scenario(const fs::path& dir, const Script& script, std::vector<std::string> normalize,
                        std::string provenance = "hand-authored") {
  fs::create_directories(dir);
  Manifest m;
  m.scenario = dir.filename().string();
  m.provenance = std::move(provenance);
  m.fingerprint = kFingerprint;
  m.frame_limit_bytes = 4096;
  m.transports = {"stdio"};
  m.normalize = std::move(normalize);
  m.id_seed = 11;
  m.clock_start_ms = 5;
  EXPECT_TRUE(write_manifest(dir / "manifest.json", m));
  auto writer = TranscriptWriter::create(dir / "transcript.ndjson");
  EXPECT_TRUE(writer);
  for (const auto& [d, raw] : script) EXPECT_TRUE(writer->append(d, raw));
  return dir;
}

const std::vector<std::string> kNormalize = {"id", "params.commandId", "result.session.sessionId"};

struct Outcome {
  Result<ReplayResult> result = Error::usage("not run");
  std::shared_ptr<std::vector<std::string>> received = std::make_shared<std::vector<std::string>>();
  process::SpawnSpec spawned;
  std::string host_stderr;
  ReplayResult& operator*() { return *result; }
  ReplayResult* operator->() { return &*result; }
};

Outcome replay(const fs::path& scenario, const Script& host_script, Behaviour behaviour = {},
           std::function<void(ReplayOptions&)> adjust = {}) {
  Outcome run;
  static const recorder::FixedClock clock(std::chrono::system_clock::time_point(std::chrono::milliseconds(1754590931000)));
  ReplayEnv env;
  env.clock = &clock;
  env.handle_signals = false;
  env.host_stderr = [&run](std::string_view bytes) { run.host_stderr.append(bytes); };
  env.spawn = [&](const process::SpawnSpec& spec) -> Result<std::unique_ptr<process::HostProcess>> {
    run.spawned = spec;
    return script_host(host_script, behaviour, run.received);
  };
  ReplayOptions options;
  options.scenario = scenario;
  options.host_argv = {"muse", "serve", "--limit={frameLimitBytes}", "--seed={idSeed}"};
  options.timeout_ms = 2000;
  if (adjust) adjust(options);
  run.result = replay_scenario(options, env);
  return run;
}

std::vector<std::string> client_lines(const Script& script) {
  std::vector<std::string> out;
  for (const auto& [dir, raw] : script)
    if (dir == C) out.push_back(raw);
  return out;
}

TEST(Replay, PassesWhenTheHostAnswersAsRecordedAndSendsTheRecordedBytes) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Outcome run = replay(s, recorded());
  ASSERT_TRUE(run.result) << run.result.error().render();
  EXPECT_EQ(run->exit_code, 0) << run->problem;
  EXPECT_TRUE(run->problem.empty());
  EXPECT_EQ(run->report.verdict, Verdict::identical);
  EXPECT_EQ(run->report.counts.identical, 5u);
  EXPECT_EQ(run->client_lines_sent, 5u);
  EXPECT_EQ(run->server_frames_received, 5u);
  EXPECT_TRUE(run->carried.empty());
  EXPECT_EQ(*run.received, client_lines(recorded()));  // byte for byte, the CR kept
  EXPECT_EQ(run->host_exit, (ExitStatus{0, 0}));
  EXPECT_FALSE(run->host_killed);
  EXPECT_EQ(run.host_stderr, "host log line\n");
  // The pins, as record passes them.
  EXPECT_EQ(run.spawned.argv, (std::vector<std::string>{"muse", "serve", "--limit=4096", "--seed=11"}));
  EXPECT_EQ(run.spawned.env, (std::vector<std::pair<std::string, std::string>>{
                                 {"MSP_FRAME_LIMIT_BYTES", "4096"}, {"MSP_ID_SEED", "11"}, {"MSP_CLOCK_START_MS", "5"}}));
  std::ostringstream text;
  render_replay_text(text, *run);
  EXPECT_NE(text.str().find("replay passed: 5 server frames checked, 5 client lines sent; the host exited with code 0"),
            std::string::npos)
      << text.str();
}

TEST(Replay, CarriesValuesTheHostMintedDifferentlyIntoLaterClientLines) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  for (MaskMode mode : {MaskMode::unify, MaskMode::erase}) {
    Outcome run = replay(s, minted_differently(), {}, [&](ReplayOptions& o) { o.mask = mode; });
    ASSERT_TRUE(run.result);
    EXPECT_EQ(run->exit_code, 0) << run->problem;
    EXPECT_EQ(run->report.verdict, Verdict::equivalent);
    EXPECT_EQ(*run.received, client_lines(minted_differently()));  // what that host expects, byte for byte
    ASSERT_EQ(run->carried.size(), 2u);
    EXPECT_EQ(run->carried[0].line, 6u);
    EXPECT_EQ(run->carried[0].location, "params.sessionId");
    EXPECT_EQ(run->carried[1].line, 9u);
    EXPECT_EQ(run->carried[1].location, "id");
    EXPECT_EQ(run->carried[1].live, "9");
  }
}

TEST(Replay, AnUndeclaredNewValueDivergesWithItsPath) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), {"id", "params.commandId"});
  Outcome run = replay(s, minted_differently());
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_NE(run->problem.find("transcript.ndjson:5: server response to session/start diverges at "
                              "result.session.sessionId: \"sess-A\" → \"sess-B\""),
            std::string::npos)
      << run->problem;
  ASSERT_EQ(run->report.entries.size(), 1u);
  EXPECT_EQ(run->report.entries[0].kind, EntryKind::divergent);
  EXPECT_EQ(run->report.entries[0].actual_line, 5u);
  EXPECT_EQ(run->client_lines_sent, 3u);  // fails closed: nothing sent after the divergence
}

TEST(Replay, AChangedValueFailsWithThePath) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Outcome run = replay(s, with(recorded(), 6, "accepted", "rejected"));
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_NE(run->problem.find(":7: server response to turn/start diverges at result.status: \"accepted\" → \"rejected\""),
            std::string::npos)
      << run->problem;
  EXPECT_EQ(run->report.verdict, Verdict::divergent);
  EXPECT_EQ(run->report.counts.divergent, 1u);
  EXPECT_EQ(run->report.entries[0].divergences[0].path, "result.status");
}

TEST(Replay, AnExtraFrameAfterTheLastOneFails) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Behaviour b;
  b.extra_at_end = "{\"jsonrpc\":\"2.0\",\"method\":\"session/closed\"}\n";
  Outcome run = replay(s, recorded(), b);
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_EQ(run->report.counts.extra, 1u);
  ASSERT_EQ(run->report.entries.size(), 1u);
  EXPECT_EQ(run->report.entries[0].kind, EntryKind::extra);
  EXPECT_EQ(run->report.entries[0].actual_line, 11u);
  EXPECT_EQ(run->report.entries[0].signature, "server notification session/closed");
  EXPECT_EQ(run->problem, "live session:11: extra server notification session/closed after the transcript's last frame");

  b.extra_at_end = "{\"jsonrpc\":\"2.0\",\"meth";  // an unterminated frame at EOF
  run = replay(s, recorded(), b);
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_NE(run->problem.find("ended with 22 bytes after its last LF"), std::string::npos) << run->problem;
}

TEST(Replay, AFrameThatNeverComesTimesOut) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Behaviour b;
  b.silent_after_client = 3;  // answers nothing after session/start
  const auto start = std::chrono::steady_clock::now();
  Outcome run = replay(s, recorded(), b, [](ReplayOptions& o) { o.timeout_ms = 150; });
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_NE(run->problem.find(":5: timed out after 150 ms waiting for server response to session/start"),
            std::string::npos)
      << run->problem;
  EXPECT_EQ(run->report.counts.missing, 1u);
  EXPECT_EQ(run->report.entries[0].kind, EntryKind::missing);
  EXPECT_EQ(run->report.entries[0].expected_line, 5u);
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(Replay, AHostThatDiesBeforeTheEndIsExit3) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Behaviour b;
  b.exit_before_server = 3;
  Outcome run = replay(s, recorded(), b);
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_NE(run->problem.find(":7: the host exited with code 1 before sending server response to turn/start "
                              "(2 of 5 server frames received)"),
            std::string::npos)
      << run->problem;
  EXPECT_EQ(run->host_exit, (ExitStatus{1, 0}));
  EXPECT_EQ(run->host_stderr_tail, "host log line\n");
}

TEST(Replay, ANonZeroExitAtTheEndIsOnlyAWarning) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Behaviour b;
  b.exit_code = 4;
  Outcome run = replay(s, recorded(), b);
  EXPECT_EQ(run->exit_code, 0);
  ASSERT_EQ(run->report.warnings.size(), 1u);
  EXPECT_EQ(run->report.warnings[0], "the host exited with code 4 at the end");
}

TEST(Replay, AHostThatDoesNotEndAfterEofIsKilledWithAWarning) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Behaviour b;
  b.hang_at_end = true;
  Outcome run = replay(s, recorded(), b, [](ReplayOptions& o) {
    o.timeout_ms = 100;
    o.close_timeout_ms = 100;
  });
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run->exit_code, 0) << run->problem;
  EXPECT_TRUE(run->host_killed);
  EXPECT_EQ(run->host_exit, (ExitStatus{0, SIGKILL}));
  EXPECT_EQ(run->report.warnings,
            (std::vector<std::string>{
                "the host kept its stdout open 100 ms after its stdin's EOF: frames after that were not checked",
                "the host did not exit within 100 ms of its stdin's EOF: msptk sent SIGTERM, then SIGKILL to its "
                "process group"}));
}

TEST(Replay, RefusesSdkToleranceScenariosAndBadInputBeforeSpawning) {
  TempDir tmp;
  Outcome run = replay(write_scenario(tmp / "tol", recorded(), kNormalize, "sdk-tolerance"), recorded());
  ASSERT_FALSE(run.result);
  EXPECT_EQ(run.result.error().kind, ErrorKind::usage);
  EXPECT_NE(run.result.error().message.find("is sdk-tolerance"), std::string::npos);
  EXPECT_TRUE(run.spawned.argv.empty());

  run = replay(tmp / "nowhere", recorded());
  ASSERT_FALSE(run.result);
  EXPECT_EQ(exit_code(run.result.error().kind), 3);

  const fs::path bad = write_scenario(tmp / "bad", recorded(), kNormalize);
  test::write_text(bad / "transcript.ndjson", "{\"dir\":\"client\"}\n");
  run = replay(bad, recorded());
  ASSERT_FALSE(run.result);
  EXPECT_EQ(run.result.error().kind, ErrorKind::malformed);

  run = replay(write_scenario(tmp / "s", recorded(), kNormalize), recorded(), {},
               [](ReplayOptions& o) { o.extra_paths = {"params.unregistered"}; });
  ASSERT_FALSE(run.result);
  EXPECT_EQ(run.result.error().kind, ErrorKind::usage);
  run = replay(tmp / "s", recorded(), {}, [](ReplayOptions& o) { o.timeout_ms = 0; });
  ASSERT_FALSE(run.result);
  EXPECT_EQ(run.result.error().kind, ErrorKind::usage);
}

TEST(Replay, ASpawnFailureIsExit3) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  ReplayEnv env = ReplayEnv::system();
  env.handle_signals = false;
  ReplayOptions options;
  options.scenario = s;
  options.host_argv = {"msptk-no-such-host"};
  options.record_dir = tmp / "out";
  auto result = replay_scenario(options, env);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->problem, "cannot spawn 'msptk-no-such-host': not found in PATH");
  EXPECT_FALSE(result->host_exit);
  EXPECT_FALSE(fs::exists(tmp / "out"));  // nothing left behind
}

TEST(Replay, RecordsWhatReallyHappenedAsAScenario) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Outcome run = replay(s, minted_differently(), {}, [&](ReplayOptions& o) { o.record_dir = tmp / "out"; });
  ASSERT_TRUE(run.result);
  EXPECT_EQ(run->exit_code, 0) << run->problem;
  auto frames = read_transcript(tmp / "out" / "transcript.ndjson");
  ASSERT_TRUE(frames);
  Script got;
  for (const Frame& f : *frames) got.emplace_back(f.dir, f.wire_bytes());
  EXPECT_EQ(got, minted_differently());  // the live session, in wire order
  auto manifest = read_manifest(tmp / "out" / "manifest.json");
  ASSERT_TRUE(manifest);
  EXPECT_TRUE(manifest->problems.empty());
  EXPECT_EQ(manifest->manifest.scenario, "out");
  EXPECT_EQ(manifest->manifest.provenance, "host-generated");
  EXPECT_EQ(manifest->manifest.normalize, kNormalize);
  EXPECT_EQ(manifest->manifest.frame_limit_bytes, 4096);
  const auto& capture = *manifest->manifest.capture;
  EXPECT_EQ(capture.at("recorder").as_string(), "msptk replay");
  EXPECT_EQ(capture.at("status").as_string(), "complete");
  EXPECT_EQ(capture.at("server").at("frames").to_number<std::uint64_t>(), 5u);
  EXPECT_EQ(capture.at("exit").at("code").to_number<int>(), 0);
  EXPECT_EQ(test::read_text(tmp / "out" / "host-stderr.log"), "host log line\n");
  EXPECT_EQ(run->report.actual_file, (tmp / "out" / "transcript.ndjson").string());

  // The recording of an identical run diffs identical with the scenario.
  run = replay(s, recorded(), {}, [&](ReplayOptions& o) { o.record_dir = tmp / "same"; });
  auto files = locate_scenario(tmp / "same");
  ASSERT_TRUE(files);
  auto expected = locate_scenario(s);
  auto diff = diff_scenarios(*expected, *files, DiffOptions{MaskSpec{}});
  ASSERT_TRUE(diff);
  EXPECT_EQ(diff->verdict(), Verdict::identical);

  // OUT must be empty.
  run = replay(s, recorded(), {}, [&](ReplayOptions& o) { o.record_dir = tmp / "same"; });
  ASSERT_FALSE(run.result);
  EXPECT_EQ(run.result.error().kind, ErrorKind::usage);
}

TEST(Replay, TheJsonReportCarriesTheOutcomeAndTheComparison) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  Outcome run = replay(s, minted_differently());
  boost::json::value doc = to_json(*run);
  EXPECT_EQ(doc.at("kind").as_string(), "msptkReplay");
  EXPECT_EQ(doc.at("passed").as_bool(), true);
  EXPECT_TRUE(doc.at("problem").is_null());
  EXPECT_EQ(doc.at("carried").as_array().size(), 2u);
  EXPECT_EQ(doc.at("carried").at(0).at("live").as_string(), "sess-B");
  EXPECT_EQ(doc.at("comparison").at("verdict").as_string(), "equivalent");
  EXPECT_EQ(doc.at("comparison").at("side").as_string(), "server");
  EXPECT_EQ(doc.at("host").at("exit").at("code").to_number<int>(), 0);
}

}  // namespace
}  // namespace msptk

namespace msptk {
namespace {

// The transcript is read as the session walks it: a line that cannot be read (here a caller
// that validated the scenario itself, and a transcript broken at line 5) stops the session
// there with exit 3, naming the file, the line and the rule; the frames before it were played.
TEST(ReplayStream, ALineThatCannotBeReadOnceTheSessionStartedIsExit3) {
  TempDir tmp;
  const fs::path s = write_scenario(tmp / "s", recorded(), kNormalize);
  const std::string text = test::read_text(s / "transcript.ndjson");
  std::size_t cut = 0;
  for (int i = 0; i < 4; ++i) cut = text.find('\n', cut) + 1;
  test::write_text(s / "transcript.ndjson", text.substr(0, cut) + "{\"dir\":\"sideways\",\"raw\":\"{}\"}\n");
  Outcome run = replay(s, recorded(), {}, [](ReplayOptions& o) { o.validated = true; });
  ASSERT_TRUE(run.result) << run.result.error().render();
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_NE(run->problem.find("the transcript could not be read on"), std::string::npos) << run->problem;
  EXPECT_NE(run->problem.find("transcript.ndjson:5"), std::string::npos) << run->problem;
  EXPECT_NE(run->problem.find("file.dir"), std::string::npos) << run->problem;
  EXPECT_EQ(run->client_lines_sent, 3u);
  EXPECT_EQ(run->server_frames_received, 1u);
  EXPECT_EQ(run->server_frames_expected, 1u);
}

}  // namespace
}  // namespace msptk
