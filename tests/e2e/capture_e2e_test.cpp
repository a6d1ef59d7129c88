// End-to-end tests of capturing fixtures from a real host (issue 13) with real processes:
//   msptk_fake_client --transcript T -- msptk record --out DIR [capture options] -- msptk_fake_host ...
// - hermetic: the scripted host reports its whole environment and writes into its HOME;
// - redaction: the host sends a token, the client an API key; the peers still see the real bytes
//   while nothing of the secrets reaches DIR;
// - wire log: the chunks logged rebuild exactly the frames of the transcript.
#include "e2e_support.hpp"

#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <set>

namespace msptk::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using test::TempDir;

const std::string kFingerprint = "sha256:" + std::string(64, 'c');

std::vector<WireFrame> account_session() {
  return {
      {Direction::client, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"0"}}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"fake"},"schema":{"version":1,"fingerprint":")" +
                              kFingerprint + R"("}}})"},
      {Direction::client, R"({"jsonrpc":"2.0","method":"initialized"})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":2,"method":"account/login","params":{"apiKey":"sk-live-4242","user":"ada"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":2,"result":{"account":{"token":"tok-secret-77","refreshToken":"rt-secret-88"}}})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":3,"method":"session/start","params":{"apiKey":"sk-live-4242","title":"h\u00e9llo"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":3,"result":{"session":{"sessionId":"s1","title":"h\u00e9llo \u2603"}}})"},
  };
}

struct Recording {
  CommandRun run;
  json::object client, host;
  fs::path dir;
  Manifest manifest;
};

Recording record(const TempDir& tmp, const std::vector<WireFrame>& script, const std::vector<std::string>& record_args,
                 const std::vector<std::string>& host_args = {}, const std::vector<std::string>& client_args = {}) {
  Recording r;
  const fs::path transcript = tmp / "script.ndjson";
  write_transcript(transcript, script);
  r.dir = tmp / "scenario";
  std::vector<std::string> argv = {fake_client_bin(), "--transcript", transcript.string(), "--report",
                                   (tmp / "client.json").string()};
  argv.insert(argv.end(), client_args.begin(), client_args.end());
  argv.insert(argv.end(), {"--", msptk_bin(), "record", "--out", r.dir.string()});
  argv.insert(argv.end(), record_args.begin(), record_args.end());
  argv.insert(argv.end(), {"--", fake_host_bin(), "--transcript", transcript.string(), "--report",
                           (tmp / "host.json").string()});
  argv.insert(argv.end(), host_args.begin(), host_args.end());
  r.run = run_command(argv);
  r.client = read_json_object(tmp / "client.json");
  r.host = read_json_object(tmp / "host.json");
  auto manifest = read_manifest(r.dir / "manifest.json");
  EXPECT_TRUE(manifest) << (manifest ? "" : manifest.error().render());
  if (manifest) {
    for (const auto& p : manifest->problems) ADD_FAILURE() << "manifest problem: " << p.member << ": " << p.message;
    r.manifest = std::move(manifest->manifest);
  }
  return r;
}

void expect_bytes_transparent(const Recording& r) {
  EXPECT_EQ(r.client.at("sent"), r.host.at("received")) << "client -> host";
  EXPECT_EQ(r.host.at("sent"), r.client.at("received")) << "host -> client";
  EXPECT_TRUE(r.client.at("mismatch").is_null()) << r.client.at("mismatch");
  EXPECT_TRUE(r.host.at("mismatch").is_null()) << r.host.at("mismatch");
}

std::string env_of(const Recording& r, const std::string& name) {
  const json::object& environment = r.host.at("environment").as_object();
  const json::value* v = environment.if_contains(name);
  return v ? std::string(v->as_string()) : "<unset>";
}

struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  const char* name_;
};

TEST(CaptureE2E, HermeticHostSeesAFreshHomeAndOnlyTheGivenVariables) {
  TempDir tmp;
  ScopedEnv leak("MSPTK_E2E_LEAK", "from-the-developer-machine");
  ScopedEnv passed("MSPTK_E2E_PASSED", "passed-value-123");
  fs::create_directories(tmp / "opt-bin");
  {
    std::ofstream(tmp / "host.env") << "# settings\nFROM_FILE=file-value-456\n";
  }
  Recording r = record(tmp, account_session(),
                       {"--hermetic", "--env", "GIVEN=given-value-789", "--env", "MSPTK_E2E_PASSED", "--env-file",
                        (tmp / "host.env").string(), "--env-path", (tmp / "opt-bin").string(), "--keep-env",
                        (tmp / "env").string()},
                       {"--home-file", "marker.txt"});
  EXPECT_EQ(r.run.exit.code, 0) << r.run.err;
  expect_bytes_transparent(r);

  const fs::path env_dir = fs::absolute(tmp / "env");
  EXPECT_EQ(env_of(r, "HOME"), (env_dir / "home").string());
  EXPECT_EQ(env_of(r, "XDG_CONFIG_HOME"), (env_dir / "config").string());
  EXPECT_EQ(env_of(r, "XDG_DATA_HOME"), (env_dir / "data").string());
  EXPECT_EQ(env_of(r, "XDG_CACHE_HOME"), (env_dir / "cache").string());
  EXPECT_EQ(env_of(r, "XDG_STATE_HOME"), (env_dir / "state").string());
  const std::string host_dir = fs::absolute(fake_host_bin()).lexically_normal().parent_path().string();
  EXPECT_EQ(env_of(r, "PATH"), host_dir + ":/usr/bin:/bin:" + (tmp / "opt-bin").string());
  EXPECT_EQ(env_of(r, "TZ"), "UTC");
  EXPECT_EQ(env_of(r, "LC_ALL"), "C.UTF-8");
  EXPECT_EQ(env_of(r, "GIVEN"), "given-value-789");
  EXPECT_EQ(env_of(r, "MSPTK_E2E_PASSED"), "passed-value-123");
  EXPECT_EQ(env_of(r, "FROM_FILE"), "file-value-456");
  EXPECT_EQ(env_of(r, "MSP_ID_SEED"), "7");
  EXPECT_EQ(env_of(r, "MSPTK_E2E_LEAK"), "<unset>");
  const std::set<std::string> allowed = {"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
                                         "PATH", "TZ", "LC_ALL", "GIVEN", "MSPTK_E2E_PASSED", "FROM_FILE",
                                         "MSP_FRAME_LIMIT_BYTES", "MSP_ID_SEED", "MSP_CLOCK_START_MS"};
  for (const auto& member : r.host.at("environment").as_object())
    EXPECT_TRUE(allowed.count(std::string(member.key()))) << "the host inherited " << member.key();
  // The host wrote into its own HOME, kept by --keep-env.
  EXPECT_EQ(test::read_text(env_dir / "home" / "marker.txt"), "written by the host\n");

  const json::object& environment = r.manifest.capture->at("environment").as_object();
  EXPECT_EQ(environment.at("mode"), "hermetic");
  EXPECT_EQ(environment.at("hermetic"), true);
  EXPECT_EQ(environment.at("variables"), (json::array{"FROM_FILE", "GIVEN", "MSPTK_E2E_PASSED"}));
  const std::string manifest_text = test::read_text(r.dir / "manifest.json");
  for (const char* value : {"given-value-789", "passed-value-123", "file-value-456"})
    EXPECT_EQ(manifest_text.find(value), std::string::npos) << "the manifest holds the value " << value;
}

// regen --hermetic starts the host as replay --hermetic does, and the regenerated manifest's
// `capture` says how it ran (never a value).
TEST(CaptureE2E, RegenStartsAHermeticHostAndTheManifestSaysSo) {
  TempDir tmp;
  ScopedEnv leak("MSPTK_E2E_LEAK", "from-the-developer-machine");
  Recording golden = record(tmp, account_session(), {});
  ASSERT_EQ(golden.run.exit.code, 0) << golden.run.err;
  // The golden server frame with its members in another order: the host's capture is then
  // equivalent, not identical, and regen rewrites the scenario.
  std::vector<WireFrame> frames = read_wire_frames(golden.dir / "transcript.ndjson");
  ASSERT_GE(frames.size(), 2u);
  const std::string head = R"({"jsonrpc":"2.0","id":1,)";
  ASSERT_EQ(frames[1].second.rfind(head, 0), 0u) << frames[1].second;
  frames[1].second = R"({"id":1,"jsonrpc":"2.0",)" + frames[1].second.substr(head.size());
  write_transcript(golden.dir / "transcript.ndjson", frames);

  const fs::path host_report = tmp / "regen-host.json";
  CommandRun regen = run_command({msptk_bin(), "regen", "--transcript", golden.dir.string(), "--hermetic", "--env",
                                  "GIVEN=secret-value-1", "--", fake_host_bin(), "--transcript",
                                  (tmp / "script.ndjson").string(), "--report", host_report.string()});
  EXPECT_EQ(regen.exit.code, 0) << regen.out << regen.err;
  EXPECT_NE(regen.out.find("equivalent"), std::string::npos) << regen.out;
  const json::object host = read_json_object(host_report);
  const json::object& environment = host.at("environment").as_object();
  EXPECT_FALSE(environment.contains("MSPTK_E2E_LEAK"));
  EXPECT_EQ(environment.at("GIVEN"), "secret-value-1");
  EXPECT_EQ(environment.at("TZ"), "UTC");
  EXPECT_EQ(environment.at("LC_ALL"), "C.UTF-8");
  EXPECT_NE(std::string(environment.at("HOME").as_string()), std::string(std::getenv("HOME") ? std::getenv("HOME") : ""));

  auto regenerated = read_manifest(golden.dir / "manifest.json");
  ASSERT_TRUE(regenerated) << regenerated.error().render();
  EXPECT_TRUE(regenerated->problems.empty());
  EXPECT_EQ(regenerated->manifest.provenance, "host-generated");
  ASSERT_TRUE(regenerated->manifest.capture);
  EXPECT_EQ(regenerated->manifest.capture->at("recorder"), "msptk regen");
  EXPECT_EQ(regenerated->manifest.capture->at("environment").at("mode"), "hermetic");
  EXPECT_EQ(regenerated->manifest.capture->at("environment").at("variables"), (json::array{"GIVEN"}));
  EXPECT_EQ(test::read_text(golden.dir / "manifest.json").find("secret-value-1"), std::string::npos);
  CommandRun validate = run_command({msptk_bin(), "validate", golden.dir.string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;
}

TEST(CaptureE2E, WithoutHermeticTheEnvironmentIsInheritedAndSaysSo) {
  TempDir tmp;
  ScopedEnv leak("MSPTK_E2E_LEAK", "inherited");
  Recording r = record(tmp, account_session(), {"--env", "EXTRA=1"});
  EXPECT_EQ(r.run.exit.code, 0) << r.run.err;
  EXPECT_EQ(env_of(r, "MSPTK_E2E_LEAK"), "inherited");
  EXPECT_EQ(env_of(r, "EXTRA"), "1");
  EXPECT_TRUE(r.manifest.capture->at("wireLog").is_null());
  const json::object& environment = r.manifest.capture->at("environment").as_object();
  EXPECT_EQ(environment.at("mode"), "inherited");
  EXPECT_EQ(environment.at("hermetic"), false);
  EXPECT_EQ(environment.at("variables"), (json::array{"EXTRA"}));
}

TEST(CaptureE2E, ReplayAndCheckStartHermeticHosts) {
  TempDir tmp;
  ScopedEnv leak("MSPTK_E2E_LEAK", "from-the-developer-machine");
  Recording golden = record(tmp, account_session(), {});
  ASSERT_EQ(golden.run.exit.code, 0) << golden.run.err;

  const fs::path host_report = tmp / "replayed-host.json";
  CommandRun replay = run_command({msptk_bin(), "replay", "--transcript", golden.dir.string(), "--hermetic", "--env",
                                   "GIVEN=1", "--record", (tmp / "replayed").string(), "--", fake_host_bin(),
                                   "--transcript", (golden.dir / "transcript.ndjson").string(), "--report",
                                   host_report.string()});
  EXPECT_EQ(replay.exit.code, 0) << replay.out << replay.err;
  json::object host = read_json_object(host_report);
  EXPECT_FALSE(host.at("environment").as_object().contains("MSPTK_E2E_LEAK"));
  EXPECT_EQ(host.at("environment").at("GIVEN"), "1");
  EXPECT_EQ(host.at("environment").at("TZ"), "UTC");
  auto replayed = read_manifest(tmp / "replayed" / "manifest.json");
  ASSERT_TRUE(replayed);
  EXPECT_EQ(replayed->manifest.capture->at("environment").at("mode"), "hermetic");

  const fs::path check_report = tmp / "checked-host.json";
  CommandRun check = run_command({msptk_bin(), "check", golden.dir.string(), "--hermetic", "--keep-env",
                                  (tmp / "check-env").string(), "--host",
                                  fake_host_bin() + " --transcript {scenario}/transcript.ndjson --report " +
                                      check_report.string() + " --home-file marker"});
  EXPECT_EQ(check.exit.code, 0) << check.out << check.err;
  host = read_json_object(check_report);
  EXPECT_FALSE(host.at("environment").as_object().contains("MSPTK_E2E_LEAK"));
  const fs::path home = fs::absolute(tmp / "check-env" / tmp.path().filename() / "scenario" / "home");
  EXPECT_EQ(host.at("environment").at("HOME"), home.c_str());
  EXPECT_TRUE(fs::exists(home / "marker"));
}

TEST(CaptureE2E, RedactionKeepsSecretsOffTheDiskAndTheWireUntouched) {
  TempDir tmp;
  Recording r = record(tmp, account_session(), {"--redact", "params.apiKey", "--redact", "result.account.token"});
  EXPECT_EQ(r.run.exit.code, 0) << r.run.err;
  expect_bytes_transparent(r);  // the client got the real token, the host the real key

  const auto recorded = read_wire_frames(r.dir / "transcript.ndjson");
  ASSERT_EQ(recorded.size(), account_session().size());
  EXPECT_EQ(recorded[3].second,
            R"({"jsonrpc":"2.0","id":2,"method":"account/login","params":{"apiKey":"<redacted:1>","user":"ada"}})");
  EXPECT_NE(recorded[4].second.find(R"("token":"<redacted:2>")"), std::string::npos) << recorded[4].second;
  EXPECT_NE(recorded[5].second.find(R"("apiKey":"<redacted:1>")"), std::string::npos);  // the same key, the same N
  EXPECT_EQ(recorded[6], account_session()[6]);  // nothing selected: the exact bytes
  for (const char* file : {"transcript.ndjson", "manifest.json", "host-stderr.log"}) {
    const std::string text = test::read_text(r.dir / file);
    EXPECT_EQ(text.find("sk-live-4242"), std::string::npos) << file;
    EXPECT_EQ(text.find("tok-secret-77"), std::string::npos) << file;
  }
  const json::object& redaction = r.manifest.capture->at("redaction").as_object();
  EXPECT_EQ(redaction.at("paths"), (json::array{json::object{{"path", "params.apiKey"}, {"values", 2}},
                                                json::object{{"path", "result.account.token"}, {"values", 1}}}));
  EXPECT_EQ(redaction.at("distinctValues"), 2);
  // The refresh token was not covered: a warning on stderr (FILE:LINE) and in the manifest.
  const std::string where = (r.dir / "transcript.ndjson").string() + ":5: ";
  EXPECT_NE(r.run.err.find("msptk: warning: " + where +
                           "server frame: result.account.refreshToken looks like a credential and is recorded in the "
                           "clear (--redact result.account.refreshToken)"),
            std::string::npos)
      << r.run.err;
  ASSERT_EQ(redaction.at("warnings").as_array().size(), 1u);
  EXPECT_EQ(redaction.at("warnings").at(0).at("location"), "result.account.refreshToken");

  // validate accepts the redacted scenario.
  CommandRun validate = run_command({msptk_bin(), "validate", r.dir.string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;
}

TEST(CaptureE2E, ServeFixturePlaysARedactedScenarioOnlyWhenToldToAcceptRedactedValues) {
  TempDir tmp;
  Recording r = record(tmp, account_session(), {"--redact", "params.apiKey"});
  ASSERT_EQ(r.run.exit.code, 0) << r.run.err;
  // A client with the real key: without --accept-redacted its key is a divergence that says why.
  CommandRun refused = run_command({fake_client_bin(), "--transcript", (tmp / "script.ndjson").string(), "--",
                                    msptk_bin(), "serve-fixture", "--transcript", r.dir.string()});
  EXPECT_EQ(refused.exit.code, 1) << refused.err;
  EXPECT_NE(refused.err.find("the recorded value was redacted (<redacted:1>, record --redact): --accept-redacted"),
            std::string::npos)
      << refused.err;
  CommandRun accepted = run_command({fake_client_bin(), "--transcript", (tmp / "script.ndjson").string(), "--report",
                                     (tmp / "played.json").string(), "--", msptk_bin(), "serve-fixture",
                                     "--transcript", r.dir.string(), "--accept-redacted"});
  EXPECT_EQ(accepted.exit.code, 0) << accepted.err;
  EXPECT_NE(accepted.err.find("serveFixtureComplete"), std::string::npos) << accepted.err;
  // The same placeholder must get the same value: another key on line 6 diverges.
  auto script = account_session();
  script[5].second = R"({"jsonrpc":"2.0","id":3,"method":"session/start","params":{"apiKey":"sk-other","title":"h\u00e9llo"}})";
  write_transcript(tmp / "other-key.ndjson", script);
  CommandRun other = run_command({fake_client_bin(), "--transcript", (tmp / "other-key.ndjson").string(), "--",
                                  msptk_bin(), "serve-fixture", "--transcript", r.dir.string(), "--accept-redacted"});
  EXPECT_EQ(other.exit.code, 1) << other.err;
  EXPECT_NE(other.err.find("<redacted:1> was paired with"), std::string::npos) << other.err;
}

TEST(CaptureE2E, WireLogRebuildsTheTranscriptsFrames) {
  TempDir tmp;
  const fs::path wire = tmp / "session.wire";
  // Small writes on both sides: frames (and the UTF-8 of the titles) are cut across chunks.
  Recording r = record(tmp, account_session(), {"--wire-log", wire.string()}, {"--chunk", "7", "--pause-us", "200"},
                       {"--chunk", "5", "--pause-us", "200"});
  EXPECT_EQ(r.run.exit.code, 0) << r.run.err;
  expect_bytes_transparent(r);
  // The manifest says where the wire log went and how many chunks it holds.
  ASSERT_TRUE(r.manifest.capture);
  const json::object& logged = r.manifest.capture->at("wireLog").as_object();
  EXPECT_EQ(logged.at("file"), wire.c_str());
  std::size_t lines = 0;
  for (char c : test::read_text(wire)) lines += c == '\n';
  EXPECT_EQ(logged.at("chunks"), lines);
  EXPECT_GT(lines, account_session().size());

  CommandRun check = run_command({msptk_bin(), "wire-log", wire.string(), "--check", r.dir.string()});
  EXPECT_EQ(check.exit.code, 0) << check.out << check.err;
  EXPECT_EQ(check.out, fmt::format("{}: {} frames rebuilt, identical to {}\n", wire.string(), account_session().size(),
                                   (r.dir / "transcript.ndjson").string()));

  CommandRun table = run_command({msptk_bin(), "wire-log", wire.string(), "--format", "json"});
  ASSERT_EQ(table.exit.code, 0) << table.err;
  json::value doc = json::parse(table.out);
  EXPECT_EQ(doc.at("frames"), account_session().size());
  EXPECT_GT(doc.at("server").at("cutFrames").as_int64(), 0);
  EXPECT_GT(doc.at("client").at("cutFrames").as_int64(), 0);
  EXPECT_EQ(doc.at("client").at("bytes"), r.client.at("sent").at("bytes"));
  EXPECT_EQ(doc.at("server").at("bytes"), r.host.at("sent").at("bytes"));

  CommandRun rebuild = run_command({msptk_bin(), "wire-log", wire.string(), "--rebuild", (tmp / "rebuilt.ndjson").string()});
  ASSERT_EQ(rebuild.exit.code, 0) << rebuild.err;
  EXPECT_EQ(read_wire_frames(tmp / "rebuilt.ndjson"), read_wire_frames(r.dir / "transcript.ndjson"));

  // A transcript that is not the one logged: the mismatching line is named.
  auto frames = read_wire_frames(r.dir / "transcript.ndjson");
  frames[2].second = R"({"jsonrpc":"2.0","method":"initialised"})";
  write_transcript(tmp / "other.ndjson", frames);
  CommandRun other = run_command({msptk_bin(), "wire-log", wire.string(), "--check", (tmp / "other.ndjson").string()});
  EXPECT_EQ(other.exit.code, 1);
  EXPECT_NE(other.out.find((tmp / "other.ndjson").string() + ":3: rebuilt client frame 3"), std::string::npos) << other.out;
}

TEST(CaptureE2E, WireLogAndRedactionTogetherAreRefused) {
  TempDir tmp;
  CommandRun run = run_command({msptk_bin(), "record", "--out", (tmp / "s").string(), "--wire-log",
                                (tmp / "w").string(), "--redact", "params.apiKey", "--", fake_host_bin(),
                                "--transcript", "x"});
  EXPECT_EQ(run.exit.code, 2);
  EXPECT_NE(run.err.find("cannot be combined with --redact"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(tmp / "s"));
}

}  // namespace
}  // namespace msptk::e2e
