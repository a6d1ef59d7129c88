// End-to-end tests of `msptk serve-fixture` with real processes:
//   msptk_fake_client   --transcript T -- msptk serve-fixture --transcript S   (the recording's own bytes)
//   msptk_remint_client --transcript T -- msptk serve-fixture --transcript S   (a client with its own ids)
// on every playable scenario of the public corpus and of corpus/, legs files included, and the
// failures a client under test must be told about. The fixture's stderr report reaches the
// test through the client, which lets the fixture inherit its stderr.
#include "e2e_support.hpp"
#include "tool_support.hpp"

#include <fmt/format.h>

#include <set>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

namespace msptk::e2e {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using test::TempDir;

std::string remint_client_bin() { return MSPTK_REMINT_CLIENT; }

// A file serve-fixture can play: a scenario's transcript.ndjson or one of its legs files.
struct Playable {
  fs::path scenario;    // the folder
  fs::path transcript;  // the file played
  bool legs = false;
  std::string name() const { return scenario.filename().string() + (legs ? "/" + transcript.filename().string() : ""); }
};

std::vector<Playable> playables(const fs::path& corpus) {
  std::vector<Playable> out;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(corpus))
    if (e.is_directory() && fs::exists(e.path() / "manifest.json")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    out.push_back({dir, dir / "transcript.ndjson", false});
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().ends_with("-legs.ndjson")) out.push_back({dir, e.path(), true});
  }
  return out;
}

std::vector<Playable> all_playables() {
  std::vector<Playable> out = playables(test::source_dir() / "corpus");
  if (fs::is_directory(test::shared_transcripts())) {
    auto shared = playables(test::shared_transcripts());
    out.insert(out.end(), shared.begin(), shared.end());
  }
  return out;
}

std::vector<std::string> fixture_argv(const fs::path& played) {
  return {msptk_bin(), "serve-fixture", "--transcript", played.string()};
}

// The single JSON line serve-fixture leaves on stderr.
json::object stderr_report(const std::string& err) {
  EXPECT_FALSE(err.empty());
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << "expected exactly one stderr line:\n" << err;
  boost::system::error_code ec;
  json::value v = json::parse(err, ec);
  if (ec || !v.is_object()) {
    ADD_FAILURE() << "stderr is not one JSON object: " << err;
    return {};
  }
  return v.as_object();
}

std::size_t count(const std::vector<WireFrame>& frames, Direction dir) { return only(frames, dir).size(); }

void expect_complete(const CommandRun& run, const Playable& p) {
  EXPECT_EQ(run.exit.code, 0) << run.err;
  json::object report = stderr_report(run.err);
  ASSERT_EQ(report.if_contains("kind") ? *report.if_contains("kind") : json::value(), "serveFixtureComplete") << run.err;
  const json::object& c = report;
  const auto frames = read_wire_frames(p.transcript);
  EXPECT_EQ(c.at("scenario").as_string(), p.scenario.filename().string());
  EXPECT_EQ(c.at("transcript").as_string(), (p.legs ? p.transcript : p.scenario / "transcript.ndjson").string());
  EXPECT_EQ(c.at("clientFrames").as_int64(), static_cast<std::int64_t>(count(frames, Direction::client)));
  EXPECT_EQ(c.at("serverFrames").as_int64(), static_cast<std::int64_t>(count(frames, Direction::server)));
}

const json::object& failure_of(const json::object& report) {
  static const json::object empty;
  const json::value* kind = report.if_contains("kind");
  if (!kind || *kind != "serveFixtureFailure") {
    ADD_FAILURE() << "not a failure: " << json::serialize(report);
    return empty;
  }
  return report;
}

TEST(ServeFixtureE2E, EveryPlayableScenarioPassesTheRecordingsOwnBytes) {
  TempDir tmp;
  const auto list = all_playables();
  ASSERT_GE(list.size(), 6u);
  for (const Playable& p : list) {
    SCOPED_TRACE(p.name());
    const auto report = tmp / "client.json";
    std::vector<std::string> argv = {fake_client_bin(), "--transcript", p.transcript.string(), "--report", report.string(), "--"};
    auto fixture = fixture_argv(p.legs ? p.transcript : p.scenario);
    argv.insert(argv.end(), fixture.begin(), fixture.end());
    CommandRun run = run_command(argv);
    expect_complete(run, p);
    json::object client = read_json_object(report);
    EXPECT_TRUE(client.at("mismatch").is_null()) << client.at("mismatch");
    EXPECT_EQ(client.at("serverFramesMatched").as_int64(),
              static_cast<std::int64_t>(count(read_wire_frames(p.transcript), Direction::server)));
  }
}

void play_reminting(const std::string& ids) {
  TempDir tmp;
  std::size_t own_id_responses = 0;
  for (const Playable& p : all_playables()) {
    SCOPED_TRACE(p.name() + " --ids " + ids);
    const auto report = tmp / "client.json";
    std::vector<std::string> argv = {remint_client_bin(), "--transcript", p.transcript.string(), "--report",
                                     report.string(), "--ids", ids, "--"};
    auto fixture = fixture_argv(p.legs ? p.transcript : p.scenario);
    argv.insert(argv.end(), fixture.begin(), fixture.end());
    CommandRun run = run_command(argv);
    expect_complete(run, p);
    json::object client = read_json_object(report);
    EXPECT_TRUE(client.at("mismatch").is_null()) << client.at("mismatch");
    EXPECT_EQ(client.at("ownIdResponses"), client.at("expectedOwnIdResponses"));
    own_id_responses += static_cast<std::size_t>(client.at("ownIdResponses").as_int64());
    // A legs file continues a connection: it echoes values learned on the main one.
    if (!p.legs) {
      EXPECT_TRUE(client.at("echoProblems").as_array().empty()) << client.at("echoProblems");
    }
  }
  // corpus/ alone has 14 responses to requests; with the public corpus there are hundreds.
  EXPECT_GT(own_id_responses, fs::is_directory(test::shared_transcripts()) ? 100u : 10u);
}

TEST(ServeFixtureE2E, EveryPlayableScenarioPassesAClientWithItsOwnStringIds) { play_reminting("string"); }
TEST(ServeFixtureE2E, EveryPlayableScenarioPassesAClientWithItsOwnIntegerIds) { play_reminting("int"); }

// The first server line that carries, as a whole JSON string, a commandId the client sent and
// minted itself (no server frame had sent it before: a client re-sends a commandId it learned
// as it is): where an SDK that checks its acks sees one that does not echo its commandId when
// the canned host does not follow. 0 when no server line echoes one. `holds` says whether any
// client frame holds a params.commandId.
std::size_t first_echo_line(const fs::path& transcript, bool& holds) {
  auto frames = read_transcript(transcript);
  if (!frames) {
    ADD_FAILURE() << frames.error().render();
    return 0;
  }
  std::set<std::string> minted;  // quoted recorded commandIds
  std::string server_so_far;
  for (const Frame& f : *frames) {
    if (f.dir == Direction::server) {
      for (const std::string& q : minted)
        if (f.raw.find(q) != std::string::npos) return f.line;
      server_so_far += f.raw;
      continue;
    }
    boost::system::error_code ec;
    json::value v = json::parse(f.json_text(), ec);
    if (ec || !v.is_object()) continue;
    const json::value* params = v.as_object().if_contains("params");
    const json::value* cid = params && params->is_object() ? params->as_object().if_contains("commandId") : nullptr;
    if (!cid || !cid->is_string()) continue;
    holds = true;
    const std::string q = json::serialize(*cid);
    if (server_so_far.find(q) == std::string::npos) minted.insert(q);
  }
  return 0;
}

// An SDK that mints fresh request ids and UUIDv7 commandIds on every run and checks that its acks
// echo its commandId passes every scenario that holds a commandId with --follow-minted, and
// without it fails each one exactly at the first server frame that does not echo.
TEST(ServeFixtureE2E, FollowMintedLetsAClientMintingFreshCommandIdsPassEveryScenario) {
  std::size_t with_commands = 0, echoing = 0;
  for (const Playable& p : all_playables()) {
    SCOPED_TRACE(p.name());
    bool holds = false;
    const std::size_t echo = first_echo_line(p.transcript, holds);
    if (!holds) continue;
    ++with_commands;
    TempDir tmp;
    auto run_client = [&](bool follow_minted, const fs::path& report) {
      std::vector<std::string> argv = {remint_client_bin(), "--transcript", p.transcript.string(), "--ids", "int",
                                       "--fresh", "--follow", "--report", report.string(), "--", msptk_bin(),
                                       "serve-fixture"};
      if (follow_minted) argv.push_back("--follow-minted");
      argv.insert(argv.end(), {"--transcript", p.transcript.string()});
      return run_command(argv);
    };
    const std::vector<WireFrame> frames = read_wire_frames(p.transcript);
    auto with = run_client(true, tmp / "with.json");
    EXPECT_EQ(with.exit.shell_code(), 0) << with.err;
    json::object client = read_json_object(tmp / "with.json");
    EXPECT_TRUE(client["mismatch"].is_null()) << client;
    EXPECT_TRUE(client["echoProblems"].as_array().empty()) << client;
    EXPECT_EQ(client["serverFramesMatched"].to_number<std::size_t>(), count(frames, Direction::server));
    json::object report = stderr_report(with.err);
    EXPECT_EQ(report["kind"], "serveFixtureComplete") << with.err;
    if (echo > 0) {
      EXPECT_GT(report["substitutions"].to_number<std::size_t>(), 0u) << with.err;
    }

    auto without = run_client(false, tmp / "without.json");
    json::object failed = read_json_object(tmp / "without.json");
    if (echo == 0) {
      EXPECT_TRUE(failed["mismatch"].is_null()) << failed;
      continue;
    }
    ++echoing;
    ASSERT_TRUE(failed["mismatch"].is_string()) << failed;
    EXPECT_TRUE(std::string(failed["mismatch"].as_string()).starts_with(fmt::format("transcript line {}:", echo)))
        << failed["mismatch"];
  }
  if (fs::is_directory(test::shared_transcripts())) {
    EXPECT_GE(with_commands, 30u);
    EXPECT_GE(echoing, 25u);
  }
}

TEST(ServeFixtureE2E, EmptyLinesAreIgnored) {
  TempDir tmp;
  const fs::path s = test::source_dir() / "corpus" / "framing-missing-jsonrpc-version";
  CommandRun run = run_command({remint_client_bin(), "--transcript", (s / "transcript.ndjson").string(), "--blank-lines",
                                "--report", (tmp / "r.json").string(), "--", msptk_bin(), "serve-fixture",
                                "--transcript", s.string()});
  expect_complete(run, {s, s / "transcript.ndjson", false});
}

// A client whose script is a variant of the scenario's: the fixture plays the scenario.
CommandRun play_variant(const TempDir& tmp, const fs::path& scenario, std::vector<WireFrame> script,
                        std::vector<std::string> options = {}) {
  const fs::path variant = tmp / "variant.ndjson";
  write_transcript(variant, script);
  std::vector<std::string> argv = {fake_client_bin(), "--transcript", variant.string(), "--", msptk_bin(),
                                   "serve-fixture", "--transcript", scenario.string()};
  argv.insert(argv.end(), options.begin(), options.end());
  return run_command(argv);
}

const fs::path kMalformed = test::source_dir() / "corpus" / "framing-malformed-json";

TEST(ServeFixtureE2E, CarriageReturnTerminatedFramesAreAccepted) {
  TempDir tmp;
  auto script = read_wire_frames(kMalformed / "transcript.ndjson");
  for (auto& [dir, bytes] : script)
    if (dir == Direction::client) bytes += "\r";
  CommandRun run = play_variant(tmp, kMalformed, script);
  expect_complete(run, {kMalformed, kMalformed / "transcript.ndjson", false});
}

TEST(ServeFixtureE2E, AChangedValueIsAFrameDivergenceWithItsPath) {
  TempDir tmp;
  auto script = read_wire_frames(kMalformed / "transcript.ndjson");
  auto& line6 = script.at(5).second;
  line6.replace(line6.find("/home/me/src/proj"), 17, "/home/me/src/other");
  CommandRun run = play_variant(tmp, kMalformed, script);
  EXPECT_EQ(run.exit.code, 1);
  const json::object report = stderr_report(run.err);
  const json::object& f = failure_of(report);
  EXPECT_EQ(f.at("problem"), "frameDivergence");
  EXPECT_EQ(f.at("scenario"), "framing-malformed-json");
  EXPECT_EQ(f.at("transcriptLine"), 6);
  EXPECT_EQ(f.at("receivedFrame").as_string(), line6);
  EXPECT_EQ(f.at("clientFrames"), 3);
  EXPECT_EQ(f.at("serverFrames"), 2);
  ASSERT_EQ(f.at("divergences").as_array().size(), 1u);
  const json::object& d = f.at("divergences").as_array()[0].as_object();
  EXPECT_EQ(d.at("path"), "params.workspaceRoot");
  EXPECT_EQ(d.at("expected"), "/home/me/src/proj");
  EXPECT_EQ(d.at("received"), "/home/me/src/other");
}

TEST(ServeFixtureE2E, ANonJsonLineIsAMalformedClientFrame) {
  TempDir tmp;
  auto script = read_wire_frames(kMalformed / "transcript.ndjson");
  script.at(2).second = R"({"jsonrpc":"2.0","method":"initialized")";
  CommandRun run = play_variant(tmp, kMalformed, script);
  EXPECT_EQ(run.exit.code, 1);
  const json::object report = stderr_report(run.err);
  const json::object& f = failure_of(report);
  EXPECT_EQ(f.at("problem"), "malformedClientFrame");
  EXPECT_EQ(f.at("transcriptLine"), 3);
  EXPECT_EQ(f.at("expectedFrame"), R"({"jsonrpc":"2.0","method":"initialized"})");
}

TEST(ServeFixtureE2E, HangingUpEarlyIsClientEof) {
  TempDir tmp;
  auto script = read_wire_frames(kMalformed / "transcript.ndjson");
  script.resize(3);
  CommandRun run = play_variant(tmp, kMalformed, script);
  EXPECT_EQ(run.exit.code, 1);
  const json::object report = stderr_report(run.err);
  const json::object& f = failure_of(report);
  EXPECT_EQ(f.at("problem"), "clientEof");
  EXPECT_EQ(f.at("transcriptLine"), 4);
  EXPECT_EQ(f.at("clientFrames"), 2);
  EXPECT_TRUE(f.at("receivedFrame").is_null());
}

TEST(ServeFixtureE2E, UntilEofAnExtraFrameAfterTheEndIsADivergenceNotAnswered) {
  TempDir tmp;
  auto script = read_wire_frames(kMalformed / "transcript.ndjson");
  script.push_back({Direction::client, R"({"jsonrpc":"2.0","method":"initialized"})"});
  CommandRun run = play_variant(tmp, kMalformed, script, {"--until-eof"});
  EXPECT_EQ(run.exit.code, 1);
  const json::object report = stderr_report(run.err);
  const json::object& f = failure_of(report);
  EXPECT_EQ(f.at("problem"), "frameDivergence");
  EXPECT_TRUE(f.at("transcriptLine").is_null());
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(ServeFixtureE2E, ProcessDeathModeWritesDiagnosticsOnly) {
  CommandRun run = run_command({msptk_bin(), "serve-fixture", "--exit-code", "7", "--stderr-lines", "3"});
  EXPECT_EQ(run.exit.code, 7);
  EXPECT_EQ(run.out, "");
  const auto lines = split_lines(run.err);
  ASSERT_EQ(lines.size(), 3u);
  for (std::size_t k = 1; k <= lines.size(); ++k) EXPECT_TRUE(lines[k - 1].ends_with(fmt::format("diagnostic line {}", k)));
  EXPECT_EQ(run.err.back(), '\n');
  CommandRun zero = run_command({msptk_bin(), "serve-fixture", "--exit-code", "0", "--stderr-lines", "0"});
  EXPECT_EQ(zero.exit.code, 0);
  EXPECT_EQ(zero.out + zero.err, "");
  CommandRun bad = run_command({msptk_bin(), "serve-fixture", "--exit-code", "256", "--stderr-lines", "1"});
  EXPECT_EQ(bad.exit.code, 2);
  for (auto alone : {std::vector<std::string>{"--exit-code", "3"}, std::vector<std::string>{"--stderr-lines", "3"}}) {
    std::vector<std::string> argv = {msptk_bin(), "serve-fixture"};
    argv.insert(argv.end(), alone.begin(), alone.end());
    CommandRun half = run_command(argv);
    EXPECT_EQ(half.exit.code, 2);
    EXPECT_NE(half.err.find("go together"), std::string::npos) << half.err;
  }
  CommandRun both = run_command({msptk_bin(), "serve-fixture", "--exit-code", "3", "--stderr-lines", "3", "--transcript",
                                 kMalformed.string()});
  EXPECT_EQ(both.exit.code, 2);
  EXPECT_NE(both.err.find("--transcript"), std::string::npos) << both.err;
}

// What an SDK asserts about a dead host's stderr: it keeps the last 100 lines / 8 KiB, and
// all 100 must fit, the last one ending in `diagnostic line 400`.
TEST(ServeFixtureE2E, AHundredDiagnosticLinesFitInEightKibibytes) {
  CommandRun run = run_command({msptk_bin(), "serve-fixture", "--exit-code", "1", "--stderr-lines", "400"});
  EXPECT_EQ(run.exit.code, 1);
  EXPECT_EQ(run.out, "");
  const auto lines = split_lines(run.err);
  ASSERT_EQ(lines.size(), 400u);
  std::size_t tail_bytes = 0;
  for (std::size_t i = lines.size() - 100; i < lines.size(); ++i) tail_bytes += lines[i].size() + 1;
  EXPECT_LE(tail_bytes, 8192u);
  for (const auto& line : lines) {
    EXPECT_FALSE(line.empty());
    EXPECT_LT(line.size(), 80u) << line;
  }
  EXPECT_TRUE(lines.back().ends_with("diagnostic line 400")) << lines.back();
}

// serve-fixture with stdin from a file and stdout a pipe nobody reads any more (closed before
// the fixture starts): its first write fails with EPIPE, which must be a clientEof report,
// not a death by SIGPIPE.
TEST(ServeFixtureE2E, AClientThatWentAwayIsClientEofNotSigpipe) {
  TempDir tmp;
  test::write_text(tmp / "in.ndjson", read_wire_frames(kMalformed / "transcript.ndjson").at(0).second + "\n");
  int in = ::open((tmp / "in.ndjson").c_str(), O_RDONLY);
  int err = ::open((tmp / "err.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::close(pipe_fds[0]);  // no reader
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  const std::string bin = msptk_bin(), verb = "serve-fixture", opt = "--transcript", dir = kMalformed.string();
  char* argv[] = {const_cast<char*>(bin.c_str()), const_cast<char*>(verb.c_str()), const_cast<char*>(opt.c_str()),
                  const_cast<char*>(dir.c_str()), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in);
  ::close(err);
  ::close(pipe_fds[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const json::object report = stderr_report(test::read_text(tmp / "err.txt"));
  const json::object& f = failure_of(report);
  EXPECT_EQ(f.at("problem"), "clientEof");
  EXPECT_EQ(f.at("transcriptLine"), 2);
  EXPECT_EQ(f.at("serverFrames"), 0);
}

// Clients often stop their host with SIGTERM instead of closing its stdin. The client here
// sends `client_lines` client lines, waiting for the server lines between them, and sends
// SIGTERM when it meets the next client line (or the end).
struct Terminated {
  process::ExitStatus exit;
  json::object report;
};

Terminated terminate_after(std::size_t client_lines) {
  process::SpawnSpec spec;
  spec.argv = fixture_argv(kMalformed);
  auto child = process::spawn_host(spec);
  EXPECT_TRUE(child);
  process::HostProcess& host = **child;
  Inbox inbox(host.stdout_fd(), 65536);
  std::size_t sent = 0;
  for (const auto& [dir, bytes] : read_wire_frames(kMalformed / "transcript.ndjson")) {
    if (dir == Direction::server) {
      EXPECT_EQ(inbox.next(), bytes);
    } else if (sent++ < client_lines) {
      EXPECT_FALSE(process::write_all(host.stdin_fd(), bytes + "\n").error);
    } else {
      break;
    }
  }
  EXPECT_TRUE(host.signal(SIGTERM));
  std::string err;
  char buffer[4096];
  while (true) {
    process::IoResult r = process::read_some(host.stderr_fd(), buffer, sizeof buffer);
    if (r.eof || r.error) break;
    err.append(buffer, r.bytes);
  }
  return {host.wait(), stderr_report(err)};
}

TEST(ServeFixtureE2E, SigtermAfterTheLastExchangeIsCompletion) {
  Terminated t = terminate_after(5);
  EXPECT_EQ(t.exit, (process::ExitStatus{0, 0}));
  EXPECT_EQ(t.report.at("kind"), "serveFixtureComplete") << json::serialize(t.report);
}

TEST(ServeFixtureE2E, SigtermBeforeTheEndIsClientEof) {
  Terminated t = terminate_after(1);  // stopped once the answer to initialize arrived
  EXPECT_EQ(t.exit, (process::ExitStatus{1, 0}));
  const json::object& f = failure_of(t.report);
  EXPECT_EQ(f.at("problem"), "clientEof");
  EXPECT_EQ(f.at("transcriptLine"), 3);
  const auto& errors = f.at("errors").as_array();
  EXPECT_EQ(errors.back(), "received SIGTERM");
}

TEST(ServeFixtureE2E, AnInvalidScenarioIsRefusedBeforeAnyFrame) {
  TempDir tmp;
  const fs::path copy = tmp / "framing-malformed-json";
  fs::create_directory(copy);
  fs::copy_file(kMalformed / "manifest.json", copy / "manifest.json");
  test::write_text(copy / "transcript.ndjson", test::read_text(kMalformed / "transcript.ndjson") + "not json\n");
  CommandRun run = run_command({msptk_bin(), "serve-fixture", "--transcript", copy.string()});
  EXPECT_EQ(run.exit.code, 3);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("transcript.ndjson:9:"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("[file.json]"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace msptk::e2e
