// `msptk record --script` end to end: a script played against msptk_minting_host (a live host
// that mints random session, item and approval ids and timestamps on every run) records a
// scenario that validate accepts, that replays against the same host under its normalize paths,
// and that diffs equivalent with a second recording; the worked example of docs/script.md,
// extracted from the doc, records text-run-single-turn again; the folder is byte for byte what a
// client sending the same frames through `msptk record` leaves; run-time failures keep the
// recording so far.
#include "e2e_support.hpp"

#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/manifest.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace msptk::e2e {
namespace {

namespace fs = std::filesystem;

std::string minting_host_bin() { return MSPTK_MINTING_HOST; }

// What the minting host mints, besides the ids msptk unifies anyway.
const std::vector<std::string> kMinted = {
    "id",
    "params.commandId",
    "params.turnId",
    "result.session.sessionId",
    "result.session.createdAt",
    "params.session.sessionId",
    "params.session.createdAt",
    "params.sessionId",
    "params.emittedAtMs",
    "params.item.itemId",
    "params.item.recordedAt",
    "params.itemId",
    "params.approvalId",
    "result.approvalId",
    "params.item.ref",
    "params.durationMs",
};

constexpr std::string_view kTurnWithApproval =
    R"({"handshake": {"clientInfo": {"name": "script-test", "version": "1.0.0"}}}
{"command": "session/start", "params": {"workspaceRoot": "/home/me/src/proj"}, "name": "start"}
{"command": "turn/start", "params": {"sessionId": "${start:result.session.sessionId}", "input": [{"type": "text", "text": "Bump the version"}]}}
{"answer": "approval/request", "result": {}}
{"command": "approval/decide", "params": {"sessionId": "${start:result.session.sessionId}", "approvalId": "${last approval/request:params.approvalId}", "choiceId": "allow_once"}}
{"wait": "turn/completed", "where": {"params.terminal": "completed"}}
)";

struct Fixture {
  test::TempDir tmp;
  fs::path script, registry;
  Fixture(std::string_view text = kTurnWithApproval) {
    script = tmp / "turn.ndjson";
    test::write_text(script, std::string(text));
    registry = tmp / "registry.json";
    boost::json::array paths;
    for (const auto& p : kMinted) paths.emplace_back(p);
    test::write_text(registry, boost::json::serialize(paths));
  }
  CommandRun record(const fs::path& out, std::vector<std::string> host = {}) const {
    std::vector<std::string> argv = {msptk_bin(), "record", "--script", script.string(), "--out", out.string()};
    for (const auto& p : kMinted) argv.insert(argv.end(), {"--normalize", p});
    argv.insert(argv.end(), {"--registry", registry.string(), "--"});
    if (host.empty()) host = {minting_host_bin()};
    argv.insert(argv.end(), host.begin(), host.end());
    return run_command(argv);
  }
};

boost::json::object capture_of(const fs::path& dir) {
  auto manifest = read_manifest(dir / "manifest.json");
  EXPECT_TRUE(manifest);
  return manifest && manifest->manifest.capture ? *manifest->manifest.capture : boost::json::object{};
}

TEST(ScriptRecord, AScriptedTurnValidatesReplaysAndRecordsEquivalentlyTwice) {
  Fixture f;
  auto a = f.record(f.tmp / "a");
  ASSERT_EQ(a.exit.shell_code(), 0) << a.err;
  EXPECT_EQ(a.out, "");  // stdout is the session's; the player reads it, nothing is printed
  auto frames = read_wire_frames(f.tmp / "a" / "transcript.ndjson");
  // initialize, its result, initialized, session/start, session/started, its result, turn/start,
  // its result, turn/started, item/started, approval/request, the answer, approval/decide, its
  // result, approval/resolved, item/completed, turn/completed.
  ASSERT_EQ(frames.size(), 17u);
  EXPECT_EQ(capture_of(f.tmp / "a").at("status"), "complete");
  EXPECT_EQ(capture_of(f.tmp / "a").at("script").at("stepsPlayed"), 6);
  // The learned sessionId went out in turn/start.
  auto start = parse_json(frames[5].second);
  ASSERT_TRUE(start);
  const std::string session(start->at("result").at("session").at("sessionId").as_string());
  EXPECT_NE(frames[6].second.find("\"sessionId\":\"" + session + "\""), std::string::npos) << frames[6].second;
  // The answer echoes the server request id the host minted.
  EXPECT_EQ(frames[11].second.rfind(R"({"jsonrpc":"2.0","id":"srv-)", 0), 0u) << frames[11].second;

  auto validate = run_command({msptk_bin(), "validate", (f.tmp / "a").string(), "--registry", f.registry.string()});
  EXPECT_EQ(validate.exit.code, 0) << validate.out << validate.err;

  auto replay = run_command({msptk_bin(), "replay", "--transcript", (f.tmp / "a").string(), "--registry",
                             f.registry.string(), "--", minting_host_bin()});
  EXPECT_EQ(replay.exit.code, 0) << replay.out << replay.err;

  auto b = f.record(f.tmp / "b");
  ASSERT_EQ(b.exit.shell_code(), 0) << b.err;
  EXPECT_NE(test::read_text(f.tmp / "a" / "transcript.ndjson"), test::read_text(f.tmp / "b" / "transcript.ndjson"));
  auto diff = run_command({msptk_bin(), "diff", (f.tmp / "a").string(), (f.tmp / "b").string(), "--registry",
                           f.registry.string()});
  EXPECT_EQ(diff.exit.code, 0) << diff.out << diff.err;
  EXPECT_NE(diff.out.find("\nequivalent: "), std::string::npos) << diff.out;
}

TEST(ScriptRecord, AWaitThatTimesOutKeepsTheRecordingSoFar) {
  Fixture f(R"({"handshake": {"clientInfo": {"name": "t", "version": "1"}}}
{"command": "session/start", "name": "start"}
{"wait": "turn/completed", "timeoutMs": 300}
)");
  auto run = f.record(f.tmp / "out");
  EXPECT_EQ(run.exit.code, 1) << run.err;
  EXPECT_NE(run.err.find(fmt::format("msptk: error: {}:3: waiting for turn/completed: timed out after 300 ms; "
                                     "arrived since the previous wait: session/started [script.timeout]",
                                     f.script.string())),
            std::string::npos)
      << run.err;
  auto capture = capture_of(f.tmp / "out");
  EXPECT_EQ(capture.at("status"), "incomplete");
  EXPECT_EQ(capture.at("script").at("failure").at("line"), 3);
  EXPECT_EQ(capture.at("script").at("failure").at("rule"), "script.timeout");
  EXPECT_EQ(read_wire_frames(f.tmp / "out" / "transcript.ndjson").size(), 6u);
  EXPECT_EQ(capture.at("exit").at("code"), 0);  // the host ended on EOF, as after any client
}

TEST(ScriptRecord, AHostThatDiesIsExit3NamingTheStep) {
  Fixture f;
  auto run = f.record(f.tmp / "out", {minting_host_bin(), "--die-on", "turn/start"});
  EXPECT_EQ(run.exit.code, 3) << run.err;
  EXPECT_NE(run.err.find(fmt::format("{}:3: waiting for the response to turn/start (id 3): the host closed its output",
                                     f.script.string())),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("[script.host-closed]"), std::string::npos) << run.err;
  auto capture = capture_of(f.tmp / "out");
  EXPECT_EQ(capture.at("status"), "incomplete");
  EXPECT_EQ(capture.at("exit").at("code"), 3);
  EXPECT_EQ(read_wire_frames(f.tmp / "out" / "transcript.ndjson").size(), 7u);  // up to turn/start
}

TEST(ScriptRecord, AnUnresolvableReferenceSendsNothingAndIsExit1) {
  Fixture f(R"({"handshake": {"clientInfo": {"name": "t", "version": "1"}}}
{"command": "session/start", "name": "start"}
{"command": "turn/start", "params": {"sessionId": "${start:result.session.id}"}}
)");
  auto run = f.record(f.tmp / "out");
  EXPECT_EQ(run.exit.code, 1) << run.err;
  EXPECT_NE(run.err.find(fmt::format("{}:3: reference \"${{start:result.session.id}}\": the response to session/start "
                                     "(line 2) has no value at result.session.id",
                                     f.script.string())),
            std::string::npos)
      << run.err;
  EXPECT_EQ(read_wire_frames(f.tmp / "out" / "transcript.ndjson").size(), 6u);
  EXPECT_EQ(capture_of(f.tmp / "out").at("script").at("failure").at("rule"), "script.unresolved");
}

// The first ```ndjson block of docs/script.md, as written.
std::string doc_example() {
  std::ifstream in(test::source_dir() / "docs" / "script.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const std::size_t open = text.find("```ndjson\n");
  EXPECT_NE(open, std::string::npos) << "docs/script.md has no ```ndjson block";
  if (open == std::string::npos) return "";
  const std::size_t begin = open + 10;
  return text.substr(begin, text.find("```", begin) - begin);
}

TEST(ScriptRecord, TheWorkedExampleOfTheDocRecordsTextRunSingleTurn) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const fs::path golden = test::shared_transcripts() / "text-run-single-turn";
  Fixture f(doc_example());
  auto run = run_command({msptk_bin(), "record", "--script", f.script.string(), "--out", (f.tmp / "out").string(),
                          "--", msptk_bin(), "serve-fixture", "--transcript", golden.string()});
  ASSERT_EQ(run.exit.code, 0) << run.err;
  auto diff = run_command({msptk_bin(), "diff", golden.string(), (f.tmp / "out").string()});
  EXPECT_EQ(diff.exit.code, 0) << diff.out;
  const bool same = diff.out.find("\nidentical: ") != std::string::npos ||
                    diff.out.find("\nequivalent: ") != std::string::npos;
  EXPECT_TRUE(same) << diff.out;
}

TEST(ScriptRecord, TheFolderIsWhatAClientSendingTheSameFramesThroughRecordLeaves) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const fs::path golden = test::shared_transcripts() / "text-run-single-turn";
  Fixture f(doc_example());
  auto scripted = run_command({msptk_bin(), "record", "--script", f.script.string(), "--out",
                               (f.tmp / "scripted").string(), "--", msptk_bin(), "serve-fixture", "--transcript",
                               golden.string()});
  ASSERT_EQ(scripted.exit.code, 0) << scripted.err;
  // A client that sends exactly the scripted frames, waiting for the same server frames.
  const std::string played = (f.tmp / "scripted" / "transcript.ndjson").string();
  auto client = run_command({fake_client_bin(), "--transcript", played, "--", msptk_bin(), "record", "--out",
                             (f.tmp / "client").string(), "--", msptk_bin(), "serve-fixture", "--transcript",
                             golden.string()});
  ASSERT_EQ(client.exit.code, 0) << client.err;
  EXPECT_EQ(test::read_text(f.tmp / "scripted" / "transcript.ndjson"),
            test::read_text(f.tmp / "client" / "transcript.ndjson"));
  auto a = capture_of(f.tmp / "scripted"), b = capture_of(f.tmp / "client");
  for (const char* member : {"client", "server", "exit", "flagged", "fingerprintSource"})
    EXPECT_EQ(a.at(member), b.at(member)) << member;
}

}  // namespace
}  // namespace msptk::e2e
