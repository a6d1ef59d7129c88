// The "client behaviour across versions" workflow (README, `## Comparing client versions`):
// record client v1 and client v2 against the canned host, then `msptk diff v1 v2 --side client`
// shows what the client now sends differently, with the ids each version minted unified.
#include "e2e_support.hpp"

#include <fmt/format.h>

namespace msptk::e2e {
namespace {

std::string remint_client_bin() { return MSPTK_REMINT_CLIENT; }

// `CLIENT... -- msptk record --out DIR -- msptk serve-fixture [OPTIONS] --transcript SCENARIO`
CommandRun record_client(std::vector<std::string> client, const std::filesystem::path& out,
                         const std::filesystem::path& scenario, const std::vector<std::string>& options = {}) {
  std::vector<std::string> rest = {"--", msptk_bin(), "record", "--out", out.string(), "--", msptk_bin(),
                                   "serve-fixture"};
  rest.insert(rest.end(), options.begin(), options.end());
  rest.insert(rest.end(), {"--transcript", scenario.string()});
  client.insert(client.end(), rest.begin(), rest.end());
  return run_command(client);
}

// serve-fixture's one report line, from the stderr of the client that ran it.
boost::json::object fixture_report(const std::string& err) {
  const std::size_t at = err.find("{\"kind\":\"serveFixture");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no serve-fixture report in: " << err;
    return {};
  }
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(err.substr(at, err.find('\n', at) - at), ec);
  if (ec || !v.is_object()) {
    ADD_FAILURE() << "not a report: " << err;
    return {};
  }
  return v.as_object();
}

// Replaces the one occurrence of `from` in `text`.
void change(std::string& text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " in " << text;
  text.replace(at, from.size(), to);
}

std::size_t count_server(const std::vector<WireFrame>& frames) { return only(frames, Direction::server).size(); }

// v1 (the recording's own client lines) and v2 (`v2_frames`, written to a transcript the
// scripted client plays) recorded into tmp/v1 and tmp/v2 through `serve-fixture --keep-going`.
// v2's run is divergent (exit 1) but gets every answer its script expects; the fixture's
// report on v2 is returned.
boost::json::object record_versions(const std::filesystem::path& scenario, const std::vector<WireFrame>& v2_frames,
                                    const test::TempDir& tmp) {
  write_transcript(tmp / "v2-client.ndjson", v2_frames);
  const std::vector<std::string> keep_going = {"--keep-going"};
  auto v1 = record_client({fake_client_bin(), "--transcript", (scenario / "transcript.ndjson").string()}, tmp / "v1",
                          scenario, keep_going);
  EXPECT_EQ(v1.exit.shell_code(), 0) << v1.err;
  auto v2 = record_client({fake_client_bin(), "--transcript", (tmp / "v2-client.ndjson").string(), "--report",
                           (tmp / "v2.json").string()},
                          tmp / "v2", scenario, keep_going);
  EXPECT_EQ(v2.exit.shell_code(), 1) << v2.err;
  auto client = read_json_object(tmp / "v2.json");
  EXPECT_TRUE(client["mismatch"].is_null()) << client;
  EXPECT_FALSE(client["truncated"].as_bool());
  EXPECT_EQ(client["serverFramesMatched"].to_number<std::size_t>(), count_server(v2_frames));
  return fixture_report(v2.err);
}


std::string last_line(const std::string& text) {
  std::string trimmed = text.substr(0, text.find_last_not_of('\n') + 1);
  return trimmed.substr(trimmed.rfind('\n') + 1);
}

std::vector<std::filesystem::path> playable_scenarios() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / "corpus"))
    if (std::filesystem::exists(e.path() / "manifest.json")) out.push_back(e.path());
  for (const auto& dir : test::corpus_scenarios()) out.push_back(dir);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ClientVersions, AClientWithItsOwnIdsSendsEquivalentFrames) {
  std::size_t compared = 0;
  for (const auto& scenario : playable_scenarios()) {
    SCOPED_TRACE(scenario.string());
    test::TempDir tmp;
    const auto transcript = (scenario / "transcript.ndjson").string();
    auto v1 = record_client({fake_client_bin(), "--transcript", transcript}, tmp / "v1", scenario);
    ASSERT_EQ(v1.exit.shell_code(), 0) << v1.err;
    auto v2 = record_client({remint_client_bin(), "--transcript", transcript, "--report", (tmp / "r.json").string()},
                            tmp / "v2", scenario);
    ASSERT_EQ(v2.exit.shell_code(), 0) << v2.err;

    auto diff = run_command({msptk_bin(), "diff", (tmp / "v1").string(), (tmp / "v2").string(), "--side", "client"});
    EXPECT_EQ(diff.exit.code, 0) << diff.out;
    // v2 minted other ids and names itself differently: equivalent, never identical.
    EXPECT_TRUE(last_line(diff.out).starts_with("equivalent: ")) << diff.out;
    ++compared;
  }
  EXPECT_GE(compared, 6u);
}

TEST(ClientVersions, AChangedRequestIsShownWithItsPathAndLine) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const auto scenario = test::shared_transcripts() / "text-run-single-turn";
  test::TempDir tmp;
  // Client v2 asks for something else in its turn/start (line 7 of the golden transcript).
  std::vector<WireFrame> frames = read_wire_frames(scenario / "transcript.ndjson");
  std::string& turn_start = frames.at(6).second;
  ASSERT_NE(turn_start.find("\"method\":\"turn/start\""), std::string::npos);
  const std::string before = "Run the agent test suite and summarize failures";
  turn_start.replace(turn_start.find(before), before.size(), "Run only the unit tests");
  write_transcript(tmp / "v2-client.ndjson", frames);

  auto v1 = record_client({fake_client_bin(), "--transcript", (scenario / "transcript.ndjson").string()}, tmp / "v1",
                          scenario);
  ASSERT_EQ(v1.exit.shell_code(), 0) << v1.err;
  // The canned host stops at v2's changed frame (it never improvises): v2's session ends there.
  auto v2 = record_client({fake_client_bin(), "--transcript", (tmp / "v2-client.ndjson").string()}, tmp / "v2",
                          scenario);
  EXPECT_NE(v2.exit.shell_code(), 0);

  auto diff = run_command({msptk_bin(), "diff", (tmp / "v1").string(), (tmp / "v2").string(), "--side", "client"});
  EXPECT_EQ(diff.exit.code, 1) << diff.out;
  EXPECT_NE(diff.out.find(fmt::format("params.input[0].text: \"{}\" → \"Run only the unit tests\"", before)),
            std::string::npos)
      << diff.out;
  EXPECT_NE(diff.out.find("v1/transcript.ndjson:7"), std::string::npos) << diff.out;
  EXPECT_TRUE(last_line(diff.out).starts_with("divergent: ")) << diff.out;
}

// README "Comparing client versions": with --keep-going the canned host plays v2's whole
// session, so one recording shows every change, and serve-fixture's report lists them too.
TEST(ClientVersions, KeepGoingShowsEveryChangeOfAClientVersion) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const auto scenario = test::shared_transcripts() / "text-run-single-turn";
  test::TempDir tmp;
  std::vector<WireFrame> frames = read_wire_frames(scenario / "transcript.ndjson");
  change(frames.at(0).second, R"("version":"0.0.0")", R"("version":"0.0.1")");
  change(frames.at(3).second, R"("workspaceRoot":"/home/me/src/proj")", R"("workspaceRoot":"/home/me/src/other")");
  change(frames.at(6).second, "Run the agent test suite and summarize failures", "Run only the unit tests");
  auto report = record_versions(scenario, frames, tmp);
  EXPECT_EQ(report["kind"], "serveFixtureFailure");
  EXPECT_EQ(report["problem"], "frameDivergence");
  EXPECT_EQ(report["divergentFrames"], 2);
  EXPECT_EQ(report["missingFrames"], 0);
  EXPECT_EQ(report["extraFrames"], 0);
  EXPECT_EQ(report["serverFrames"].to_number<std::size_t>(), count_server(frames));
  const auto& listed = report["frames"].as_array();
  ASSERT_EQ(listed.size(), 2u) << report;
  EXPECT_EQ(listed[0].at("transcriptLine"), 4);
  EXPECT_EQ(listed[0].at("divergences").at(0).at("path"), "params.workspaceRoot");
  EXPECT_EQ(listed[1].at("transcriptLine"), 7);
  EXPECT_EQ(listed[1].at("divergences").at(0).at("path"), "params.input[0].text");
  EXPECT_EQ(listed[1].at("divergences").at(0).at("received"), "Run only the unit tests");
  const auto& info = report["clientInfo"].as_array();
  ASSERT_EQ(info.size(), 1u) << report;
  EXPECT_EQ(info[0].at("path"), "params.clientInfo.version");
  EXPECT_EQ(info[0].at("received"), "0.0.1");

  auto diff = run_command({msptk_bin(), "diff", (tmp / "v1").string(), (tmp / "v2").string(), "--side", "client"});
  EXPECT_EQ(diff.exit.code, 1) << diff.out;
  for (const std::string& line :
       {std::string(R"(params.workspaceRoot: "/home/me/src/proj" → "/home/me/src/other")"),
        std::string(R"(params.input[0].text: "Run the agent test suite and summarize failures" → "Run only the unit tests")"),
        std::string(R"(unified params.clientInfo.version: "0.0.0" → "0.0.1")")})
    EXPECT_NE(diff.out.find(line), std::string::npos) << line << "\n" << diff.out;
  EXPECT_EQ(last_line(diff.out), "divergent: 4 frames (1 identical, 1 equivalent, 2 divergent, 0 missing, 0 extra, 0 moved)")
      << diff.out;
}

// A v2 that sends a request v1 never sent and skips one v1 sent: extra + missing, and the canned
// host still plays the rest of the session.
TEST(ClientVersions, KeepGoingReportsAnExtraAndAMissingRequestAndPlaysOn) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  const auto scenario = test::shared_transcripts() / "text-run-single-turn";
  test::TempDir tmp;
  const std::vector<WireFrame> recorded = read_wire_frames(scenario / "transcript.ndjson");
  ASSERT_NE(recorded.at(3).second.find("session/start"), std::string::npos);
  std::vector<WireFrame> frames(recorded.begin(), recorded.begin() + 3);  // initialize ... initialized
  // An extra request (no answer is expected: the script holds none), then no session/start
  // (lines 4-6: the request and the two server frames it gets).
  frames.emplace_back(Direction::client, R"({"jsonrpc":"2.0","id":90,"method":"model/list","params":{}})");
  frames.insert(frames.end(), recorded.begin() + 6, recorded.end());
  auto report = record_versions(scenario, frames, tmp);
  EXPECT_EQ(report["extraFrames"], 1) << report;
  EXPECT_EQ(report["missingFrames"], 1) << report;
  EXPECT_EQ(report["divergentFrames"], 0) << report;
  EXPECT_EQ(report["skippedServerFrames"], 2) << report;
  // The whole script was played: every server frame but session/start's two.
  EXPECT_EQ(report["serverFrames"].to_number<std::size_t>(), count_server(recorded) - 2);
  const auto& listed = report["frames"].as_array();
  ASSERT_EQ(listed.size(), 2u) << report;
  EXPECT_EQ(listed[0].at("outcome"), "extra");
  EXPECT_EQ(listed[0].at("signature"), "client request model/list");
  EXPECT_EQ(listed[1].at("outcome"), "missing");
  EXPECT_EQ(listed[1].at("transcriptLine"), 4);
  EXPECT_EQ(listed[1].at("signature"), "client request session/start");

  auto diff = run_command({msptk_bin(), "diff", (tmp / "v1").string(), (tmp / "v2").string(), "--side", "client"});
  EXPECT_EQ(diff.exit.code, 1) << diff.out;
  EXPECT_NE(diff.out.find("extra client request model/list"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("missing client request session/start"), std::string::npos) << diff.out;
}

}  // namespace
}  // namespace msptk::e2e
