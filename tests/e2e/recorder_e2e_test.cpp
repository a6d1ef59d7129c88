// End-to-end tests of `msptk record` with real processes:
//   msptk_fake_client --transcript T -- msptk record --out DIR -- msptk_fake_host --transcript T
// The client plays T's client lines, the host its server lines; each waits for the other's
// frame before going on, so the recorded order is T's order. Each test checks that the bytes
// each side received equal the bytes the other side wrote (checksums from the peers' reports),
// that DIR/transcript.ndjson holds exactly the frames that passed, and that the manifest parses
// without problems.
#include "e2e_support.hpp"

#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/sha256.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

namespace msptk::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using test::TempDir;

const std::string kFingerprint = "sha256:" + std::string(64, 'a');        // the host's initialize result
const std::string kOptionFingerprint = "sha256:" + std::string(64, 'b');  // --fingerprint by default

std::vector<WireFrame> handshake_session() {
  return {
      {Direction::client, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"0"}}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"fake"},"schema":{"version":1,"fingerprint":")" +
                              kFingerprint + R"("}}})"},
      {Direction::client, R"({"jsonrpc":"2.0","method":"initialized"})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"commandId":"c1"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","method":"session/started","params":{"session":{"sessionId":"s1"}}})"},
      {Direction::server, R"({"id":2,"jsonrpc":"2.0","result":{"session":{"sessionId":"s1","title":"h\u00e9llo \u2603"}}})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":"b9","method":"turn/start","params":{"sessionId":"s1"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":"b9","result":{"status":"accepted"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","method":"turn/completed","params":{"sessionId":"s1"}})"},
  };
}

struct Session {
  CommandRun run;                   // the fake client's run (its exit status is the recorder's)
  json::object client, host;        // the peers' reports
  std::vector<WireFrame> recorded;  // DIR/transcript.ndjson
  ManifestParse manifest;
  fs::path dir;
};

// Extra arguments for each of the three programs.
struct Options {
  std::vector<std::string> client_args, record_args, host_args;
  bool expect_host_report = true;

  Options& client(std::vector<std::string> args) { client_args = std::move(args); return *this; }
  Options& record(std::vector<std::string> args) { record_args = std::move(args); return *this; }
  Options& host(std::vector<std::string> args) { host_args = std::move(args); return *this; }
  Options& no_host_report() { expect_host_report = false; return *this; }
};

Session record_session(const TempDir& tmp, const std::vector<WireFrame>& script, const Options& options = {}) {
  Session s;
  const fs::path transcript = tmp / "script.ndjson";
  write_transcript(transcript, script);
  s.dir = tmp / "scenario";
  std::vector<std::string> argv = {fake_client_bin(), "--transcript", transcript.string(), "--report",
                                   (tmp / "client.json").string()};
  argv.insert(argv.end(), options.client_args.begin(), options.client_args.end());
  argv.insert(argv.end(), {"--", msptk_bin(), "record", "--out", s.dir.string()});
  argv.insert(argv.end(), options.record_args.begin(), options.record_args.end());
  if (std::find(options.record_args.begin(), options.record_args.end(), "--fingerprint") == options.record_args.end())
    argv.insert(argv.end(), {"--fingerprint", kOptionFingerprint});
  argv.insert(argv.end(), {"--", fake_host_bin(), "--transcript", transcript.string(), "--report",
                           (tmp / "host.json").string()});
  argv.insert(argv.end(), options.host_args.begin(), options.host_args.end());
  s.run = run_command(argv);
  s.client = read_json_object(tmp / "client.json");
  if (options.expect_host_report) s.host = read_json_object(tmp / "host.json");
  s.recorded = read_wire_frames(s.dir / "transcript.ndjson");
  auto manifest = read_manifest(s.dir / "manifest.json");
  EXPECT_TRUE(manifest) << (manifest ? "" : manifest.error().render());
  if (manifest) s.manifest = std::move(*manifest);
  return s;
}

const json::object& capture(const Session& s) { return *s.manifest.manifest.capture; }

void expect_manifest_clean(const Session& s) {
  for (const auto& p : s.manifest.problems) ADD_FAILURE() << "manifest problem: " << p.member << ": " << p.message;
  ASSERT_TRUE(s.manifest.manifest.capture.has_value());
  EXPECT_EQ(capture(s).at("status"), "complete");
}

// What each side received equals what the other side wrote.
void expect_bytes_transparent(const Session& s) {
  EXPECT_EQ(s.client.at("sent"), s.host.at("received")) << "client -> host";
  EXPECT_EQ(s.host.at("sent"), s.client.at("received")) << "host -> client";
  EXPECT_TRUE(s.client.at("mismatch").is_null()) << s.client.at("mismatch");
  EXPECT_TRUE(s.host.at("mismatch").is_null()) << s.host.at("mismatch");
}

std::vector<std::string> flags(const Session& s) {
  std::vector<std::string> out;
  for (const auto& f : capture(s).at("flagged").as_array())
    out.push_back(fmt::format("{}:{}:{}", f.at("line").as_int64(), std::string(f.at("dir").as_string()),
                              std::string(f.at("reason").as_string())));
  return out;
}

TEST(RecorderE2E, RecordsAScriptedSessionExactly) {
  TempDir tmp;
  Session s = record_session(tmp, handshake_session(),
                             Options()
                                 .record({"--id-seed", "42", "--normalize", "id"})
                                 .host({"--exit-code", "5", "--stderr", "host says hi\n", "--seed={idSeed}/{frameLimitBytes}"}));
  EXPECT_EQ(s.run.exit.code, 5) << s.run.err;
  EXPECT_EQ(s.run.err, "host says hi\n");
  expect_bytes_transparent(s);
  EXPECT_EQ(s.recorded, handshake_session());
  expect_manifest_clean(s);
  const Manifest& m = s.manifest.manifest;
  EXPECT_EQ(m.scenario, "scenario");
  EXPECT_EQ(m.provenance, "host-generated");
  EXPECT_EQ(m.fingerprint, kFingerprint);  // the host's announcement wins over --fingerprint
  EXPECT_EQ(m.id_seed, 42);
  EXPECT_EQ(m.frame_limit_bytes, 10485760);
  EXPECT_EQ(m.transports, std::vector<std::string>{"stdio"});
  EXPECT_EQ(m.normalize, std::vector<std::string>{"id"});
  EXPECT_EQ(capture(s).at("fingerprintSource"), "initialize");
  EXPECT_EQ(capture(s).at("exit"), (json::object{{"code", 5}}));
  EXPECT_EQ(capture(s).at("client").at("frames"), 4);
  EXPECT_EQ(capture(s).at("server").at("frames"), 5);
  EXPECT_EQ(capture(s).at("client").at("bytes"), s.client.at("sent").at("bytes"));
  EXPECT_EQ(capture(s).at("server").at("bytes"), s.host.at("sent").at("bytes"));
  EXPECT_EQ(capture(s).at("hostStderrBytes"), 13);
  EXPECT_TRUE(capture(s).at("flagged").as_array().empty());
  // The host got the pinned values in its environment and its arguments.
  EXPECT_EQ(s.host.at("env"), (json::object{{"MSP_FRAME_LIMIT_BYTES", "10485760"},
                                            {"MSP_ID_SEED", "42"},
                                            {"MSP_CLOCK_START_MS", "1754590931000"}}));
  EXPECT_EQ(s.host.at("argv").as_array().back(), "--seed=42/10485760");
  // Private: DIR 0700, files 0600; the host's stderr kept.
  EXPECT_EQ(fs::status(s.dir).permissions(), fs::perms::owner_all);
  for (const char* name : {"transcript.ndjson", "manifest.json", "host-stderr.log"})
    EXPECT_EQ(fs::status(s.dir / name).permissions(), fs::perms::owner_read | fs::perms::owner_write) << name;
  EXPECT_EQ(test::read_text(s.dir / "host-stderr.log"), "host says hi\n");
}

TEST(RecorderE2E, HostKilledMidFrameLosesNoCompletedFrame) {
  TempDir tmp;
  const auto script = handshake_session();
  Session s = record_session(tmp, script, Options().host({"--die-mid-frame", "3"}));
  EXPECT_EQ(s.run.exit.code, 128 + SIGKILL);
  // Everything before the third server frame passed and was recorded.
  const std::vector<WireFrame> expected(script.begin(), script.begin() + 5);
  EXPECT_EQ(s.recorded, expected);
  expect_bytes_transparent(s);
  EXPECT_TRUE(s.client.at("truncated").as_bool());
  // The half frame reached the client and is kept in the manifest.
  const std::string half = (script[5].second + "\n").substr(0, (script[5].second.size() + 1) / 2);
  EXPECT_EQ(s.client.at("unterminated"), json::value(half));
  expect_manifest_clean(s);
  // The manifest describes the half frame; its bytes are in the side file, exactly.
  EXPECT_EQ(capture(s).at("server").at("unterminated").at("bytes"), half.size());
  EXPECT_EQ(capture(s).at("server").at("unterminated").at("sha256"), json::value(sha256_hex(half)));
  EXPECT_EQ(capture(s).at("server").at("unterminated").at("head"), json::value(base64_encode(half.substr(0, 64))));
  EXPECT_EQ(capture(s).at("server").at("unterminated").at("file"), "server-unterminated.bin");
  EXPECT_EQ(test::read_text(s.dir / "server-unterminated.bin"), half);
  EXPECT_EQ(capture(s).at("exit").at("signal"), SIGKILL);
}

TEST(RecorderE2E, HostExitingWithoutReadingLosesNoServerFrame) {
  TempDir tmp;
  const auto script = handshake_session();
  Session s = record_session(tmp, script, Options().host({"--no-read", "--exit-code", "3"}));
  EXPECT_EQ(s.run.exit.code, 3);
  EXPECT_EQ(s.host.at("sent"), s.client.at("received"));
  EXPECT_EQ(s.host.at("received").at("bytes"), 0);
  EXPECT_EQ(only(s.recorded, Direction::server), only(script, Direction::server));
  const auto client = only(s.recorded, Direction::client);
  const auto expected_client = only(script, Direction::client);
  ASSERT_LE(client.size(), expected_client.size());
  EXPECT_TRUE(std::equal(client.begin(), client.end(), expected_client.begin()));
  expect_manifest_clean(s);
}

TEST(RecorderE2E, ClientEofFirstKeepsRecordingUntilTheHostEnds) {
  TempDir tmp;
  Session s = record_session(tmp, handshake_session(), Options().client({"--close-early"}).host({"--delay-ms", "100"}));
  EXPECT_EQ(s.run.exit.code, 0) << s.run.err;
  expect_bytes_transparent(s);
  EXPECT_EQ(s.recorded, handshake_session());
  expect_manifest_clean(s);
}

TEST(RecorderE2E, SigtermIsForwardedAndTheManifestFinished) {
  TempDir tmp;
  const auto script = handshake_session();
  // Signal once the client has received the fifth line (a server frame) and before it sends
  // the next request: the host waits for that request and dies of the forwarded SIGTERM.
  Session s = record_session(tmp, script, Options().client({"--signal", "TERM", "--after", "6"}).no_host_report());
  EXPECT_EQ(s.run.exit.code, 128 + SIGTERM);
  ASSERT_GE(s.recorded.size(), 6u);
  EXPECT_TRUE(std::equal(s.recorded.begin(), s.recorded.end(), script.begin()));
  // What the client received is exactly what was recorded (at least the first three frames).
  EXPECT_GE(s.client.at("serverFramesMatched").as_int64(), 3);
  EXPECT_EQ(static_cast<std::int64_t>(only(s.recorded, Direction::server).size()),
            s.client.at("serverFramesMatched").as_int64());
  expect_manifest_clean(s);
  EXPECT_EQ(capture(s).at("signalsForwarded"), (json::array{"SIGTERM"}));
  EXPECT_EQ(capture(s).at("exit").at("signal"), SIGTERM);
}

TEST(RecorderE2E, TenMebibyteFramesPassWholeAndAreFlagged) {
  TempDir tmp;
  const std::string big_client = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":")" + std::string(10485760, 'c') + "\"}}";
  const std::string big_server = R"({"jsonrpc":"2.0","id":1,"result":{"pad":")" + std::string(11 << 20, 's') + "\"}}";
  const std::vector<WireFrame> script = {{Direction::client, big_client},
                                         {Direction::server, big_server},
                                         {Direction::client, R"({"jsonrpc":"2.0","method":"bye"})"}};
  Session s = record_session(tmp, script);
  EXPECT_EQ(s.run.exit.code, 0) << s.run.err;
  expect_bytes_transparent(s);
  EXPECT_TRUE(s.recorded == script);
  expect_manifest_clean(s);
  EXPECT_EQ(flags(s), (std::vector<std::string>{"1:client:oversized", "2:server:oversized"}));
}

TEST(RecorderE2E, OneByteReadsAndWritesGiveTheSameFrames) {
  TempDir tmp;
  Session s = record_session(
      tmp, handshake_session(),
      Options().client({"--chunk", "1", "--pause-us", "20"}).host({"--chunk", "1", "--pause-us", "20"}));
  EXPECT_EQ(s.run.exit.code, 0) << s.run.err;
  expect_bytes_transparent(s);
  EXPECT_EQ(s.recorded, handshake_session());
  expect_manifest_clean(s);
}

TEST(RecorderE2E, CarriageReturnsAreKeptAndServerOnesFlagged) {
  TempDir tmp;
  const std::vector<WireFrame> script = {{Direction::client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\r"},
                                         {Direction::server, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r"},
                                         {Direction::client, "{\"jsonrpc\":\"2.0\",\"method\":\"b\"}"}};
  Session s = record_session(tmp, script);
  EXPECT_EQ(s.run.exit.code, 0) << s.run.err;
  expect_bytes_transparent(s);
  EXPECT_EQ(s.recorded, script);
  expect_manifest_clean(s);
  EXPECT_EQ(flags(s), (std::vector<std::string>{"2:server:serverCR"}));
}

TEST(RecorderE2E, InvalidUtf8IsKeptExactlyAndFlagged) {
  TempDir tmp;
  const std::vector<WireFrame> script = {{Direction::client, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}"},
                                         {Direction::server, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xc3\x28\"}"}};
  Session s = record_session(tmp, script);
  EXPECT_EQ(s.run.exit.code, 0) << s.run.err;
  expect_bytes_transparent(s);
  EXPECT_EQ(s.recorded, script);
  EXPECT_NE(test::read_text(s.dir / "transcript.ndjson").find("rawBase64"), std::string::npos);
  expect_manifest_clean(s);
  EXPECT_EQ(flags(s), (std::vector<std::string>{"1:client:invalidUtf8", "2:server:invalidUtf8"}));
}

TEST(RecorderE2E, EmptyLinesAreForwardedCountedNotRecorded) {
  TempDir tmp;
  Session s = record_session(tmp, handshake_session(), Options().client({"--blank-lines"}));
  EXPECT_EQ(s.run.exit.code, 0) << s.run.err;
  expect_bytes_transparent(s);
  EXPECT_EQ(s.recorded, handshake_session());
  expect_manifest_clean(s);
  EXPECT_EQ(capture(s).at("client").at("emptyLines"), 4);
}

TEST(RecorderE2E, FingerprintFallsBackToTheOption) {
  TempDir tmp;
  const std::vector<WireFrame> script = {{Direction::client, R"({"jsonrpc":"2.0","id":1,"method":"initialize"})"},
                                         {Direction::server, R"({"jsonrpc":"2.0","id":1,"result":{}})"}};
  Session s = record_session(tmp, script, Options().record({"--fingerprint", kFingerprint, "--scenario", "scenario"}));
  EXPECT_EQ(s.run.exit.code, 0) << s.run.err;
  expect_manifest_clean(s);
  EXPECT_EQ(s.manifest.manifest.fingerprint, kFingerprint);
  EXPECT_EQ(s.manifest.manifest.scenario, "scenario");  // another id than DIR's name: exit 2 (learn_test.cpp)
  EXPECT_EQ(capture(s).at("fingerprintSource"), "option");
}

TEST(RecorderE2E, SpawnFailureLeavesNothingBehind) {
  TempDir tmp;
  CommandRun run = run_command({msptk_bin(), "record", "--out", (tmp / "out").string(), "--", "msptk-no-such-host"});
  EXPECT_EQ(run.exit.code, 3);
  EXPECT_EQ(run.err, "msptk: error: cannot spawn 'msptk-no-such-host': not found in PATH\n");
  EXPECT_FALSE(fs::exists(tmp / "out"));
}

// Every scenario of the public corpus, recorded through msptk record, comes out with exactly
// its frames: same directions, same bytes, same order.
TEST(RecorderE2E, EveryCorpusScenarioRecordsToItsOwnFrames) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const fs::path& scenario : test::corpus_scenarios()) {
    SCOPED_TRACE(scenario.filename().string());
    TempDir tmp;
    const fs::path transcript = scenario / "transcript.ndjson";
    const fs::path out = tmp / scenario.filename();
    CommandRun run = run_command({fake_client_bin(), "--transcript", transcript.string(), "--report", (tmp / "client.json").string(),
                           "--", msptk_bin(), "record", "--out", out.string(), "--",
                           fake_host_bin(), "--transcript", transcript.string(), "--report", (tmp / "host.json").string()});
    EXPECT_EQ(run.exit.code, 0) << run.err;
    auto expected = read_transcript(transcript);
    ASSERT_TRUE(expected) << expected.error().render();
    EXPECT_TRUE(read_wire_frames(out / "transcript.ndjson") == wire_frames(*expected));
    json::object client = read_json_object(tmp / "client.json");
    json::object host = read_json_object(tmp / "host.json");
    EXPECT_EQ(client.at("sent"), host.at("received"));
    EXPECT_EQ(host.at("sent"), client.at("received"));
    auto manifest = read_manifest(out / "manifest.json");
    ASSERT_TRUE(manifest);
    EXPECT_TRUE(manifest->problems.empty());
    EXPECT_EQ(manifest->manifest.scenario, scenario.filename().string());
  }
}

}  // namespace
}  // namespace msptk::e2e
