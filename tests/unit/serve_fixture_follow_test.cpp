// serve-fixture --keep-going and --follow-minted, driven through the in-memory byte streams
// (and, for the streamed look ahead, a transcript file).
#include "serve_fixture_support.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <fmt/format.h>

#include <fstream>

namespace msptk::playback {
namespace {

// A session: initialize, session/start, a turn, an interrupt of that turn.
const std::string kTurn =
    R"({"jsonrpc":"2.0","id":3,"method":"turn/start","params":{"sessionId":"s1","commandId":"t-1","input":[{"type":"text","text":"hello"}]}})";
const std::string kAck =
    R"({"jsonrpc":"2.0","id":3,"result":{"commandId":"t-1","status":"accepted","turnId":"t-1"}})";
const std::string kTurnStarted =
    R"({"jsonrpc":"2.0","method":"turn/started","params":{"turnId":"t-1","stream":{"id":"t-1"},"note":"t-1x","t-1":true}})";
const std::string kInterrupt =
    R"({"jsonrpc":"2.0","id":4,"method":"turn/interrupt","params":{"sessionId":"s1","turnId":"t-1","commandId":"i-1"}})";
const std::string kInterruptResult = R"({"jsonrpc":"2.0","id":4,"result":{"commandId":"i-1","status":"accepted"}})";

FixtureScript session() {
  return script_of({{Direction::client, kInit},
                    {Direction::server, kInitResult},
                    {Direction::client, kInitialized},
                    {Direction::client, kStart},
                    {Direction::server, kStarted},
                    {Direction::server, kStartResult},
                    {Direction::client, kTurn},
                    {Direction::server, kAck},
                    {Direction::server, kTurnStarted},
                    {Direction::client, kInterrupt},
                    {Direction::server, kInterruptResult}});
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in " << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

ServeOptions keep_going() {
  ServeOptions o;
  o.keep_going = true;
  return o;
}

ServeOptions follow_minted() {
  ServeOptions o;
  o.follow_minted = true;
  return o;
}

Played play_with(const FixtureScript& script, const std::string& input, const ServeOptions& options) {
  return play(script, {input}, spec_of({}), std::numeric_limits<std::size_t>::max(), options);
}

TEST(ServeFixtureKeepGoing, ADivergentFrameStandsInForItsLineAndTheRunGoesOn) {
  // Client v2: another clientInfo version, workspaceRoot and turn text.
  const std::string init = replaced(kInit, R"("version":"0.0.0")", R"("version":"0.0.1")");
  const std::string start = replaced(kStart, R"("/w")", R"("/v2")");
  const std::string turn = replaced(kTurn, "hello", "hi there");
  Played run = play_with(session(), lines({init, kInitialized, start, turn, kInterrupt}), keep_going());
  // Every recorded server line was written: each changed frame got its line's answer.
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult, kAck, kTurnStarted, kInterruptResult}));
  ASSERT_TRUE(run.report.failure) << json_line(run.report);
  EXPECT_EQ(run.report.exit_code(), 1);
  EXPECT_EQ(run.report.failure->problem, ServeProblem::frame_divergence);
  EXPECT_EQ(run.report.client_frames, 5u);
  const KeepGoingReport& k = *run.report.keep_going;
  EXPECT_EQ(k.divergent, 2u);
  EXPECT_EQ(k.missing + k.extra, 0u);
  ASSERT_EQ(k.differences.size(), 2u);
  EXPECT_EQ(k.differences[0].transcript_line, 4u);
  EXPECT_EQ(k.differences[0].input_line, 3u);
  EXPECT_EQ(k.differences[0].divergences.at(0).path, "params.workspaceRoot");
  EXPECT_EQ(k.differences[1].transcript_line, 7u);
  EXPECT_EQ(k.differences[1].divergences.at(0).path, "params.input[0].text");
  // The clientInfo version is unified (not a divergence) and listed.
  ASSERT_EQ(k.client_info.size(), 1u);
  EXPECT_EQ(k.client_info[0].path, "params.clientInfo.version");
  EXPECT_EQ(k.client_info[0].expected, R"("0.0.0")");
  EXPECT_EQ(k.client_info[0].actual, R"("0.0.1")");
  // The upstream members describe the first difference, as a run without --keep-going would.
  EXPECT_EQ(run.report.failure->transcript_line, 4u);
  EXPECT_EQ(run.report.failure->divergences.at(0).path, "params.workspaceRoot");
  const std::string json = json_line(run.report);
  EXPECT_NE(json.find(R"("divergentFrames":2,"missingFrames":0,"extraFrames":0,"skippedServerFrames":0,"frames":[)"
                      R"({"outcome":"divergent","transcriptLine":4,"inputLine":3,"signature":"client request session/start",)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("clientInfo":[{"path":"params.clientInfo.version","expected":"0.0.0","received":"0.0.1","note":""}])"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("does not match unit/transcript.ndjson:7 (client request turn/start); it stands in"),
            std::string::npos)
      << json;
}

TEST(ServeFixtureKeepGoing, AnExtraFrameIsUnansweredAndASkippedLineIsMissing) {
  const std::string extra = R"({"jsonrpc":"2.0","id":9,"method":"model/list","params":{}})";
  // v2 sends an extra request and no session/start.
  Played run = play_with(session(), lines({kInit, kInitialized, extra, kTurn, kInterrupt}), keep_going());
  // model/list gets no answer; session/start's server lines are not written.
  EXPECT_EQ(run.out, lines({kInitResult, kAck, kTurnStarted, kInterruptResult}));
  ASSERT_TRUE(run.report.failure) << json_line(run.report);
  const KeepGoingReport& k = *run.report.keep_going;
  EXPECT_EQ(k.extra, 1u);
  EXPECT_EQ(k.missing, 1u);
  EXPECT_EQ(k.divergent, 0u);
  EXPECT_EQ(k.skipped_server_frames, 2u);
  ASSERT_EQ(k.differences.size(), 2u);
  EXPECT_EQ(k.differences[0].outcome, ScriptOutcome::extra);
  EXPECT_EQ(k.differences[0].input_line, 3u);
  EXPECT_EQ(k.differences[0].signature, "client request model/list");
  EXPECT_EQ(k.differences[1].outcome, ScriptOutcome::missing);
  EXPECT_EQ(k.differences[1].transcript_line, 4u);
  EXPECT_EQ(k.differences[1].signature, "client request session/start");
  const std::string json = json_line(run.report);
  EXPECT_NE(json.find(R"("extraFrames":1,"skippedServerFrames":2)"), std::string::npos) << json;
  EXPECT_NE(json.find("unit/transcript.ndjson:4 (client request session/start) is missing: the client sent a later "
                      "line first (input line 4)"),
            std::string::npos)
      << json;
}

TEST(ServeFixtureKeepGoing, ARunWithoutDifferencesIsComplete) {
  Played run = play_with(session(), lines({kInit, kInitialized, kStart, kTurn, kInterrupt}), keep_going());
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.report.exit_code(), 0);
  EXPECT_EQ(json_line(run.report),
            R"({"kind":"serveFixtureComplete","scenario":"unit","transcript":"unit/transcript.ndjson","clientFrames":5,)"
            R"("serverFrames":6,"divergentFrames":0,"missingFrames":0,"extraFrames":0,"skippedServerFrames":0,"frames":[],)"
            R"("clientInfo":[]})"
            "\n");
}

TEST(ServeFixtureKeepGoing, TheClientClosingStdinEarlyLeavesTheRestMissing) {
  Played run = play_with(session(), lines({kInit, kInitialized, kStart}), keep_going());
  ASSERT_TRUE(run.report.failure) << json_line(run.report);
  EXPECT_EQ(run.report.failure->problem, ServeProblem::frame_divergence);
  const KeepGoingReport& k = *run.report.keep_going;
  EXPECT_EQ(k.missing, 2u);
  EXPECT_EQ(k.skipped_server_frames, 3u);
  EXPECT_EQ(k.differences.at(0).transcript_line, 7u);
  EXPECT_EQ(k.differences.at(1).transcript_line, 10u);
  EXPECT_EQ(run.report.failure->transcript_line, 7u);
  EXPECT_EQ(run.report.failure->received_frame, std::nullopt);
}

TEST(ServeFixtureKeepGoing, AFrameAfterTheEndIsExtraUntilEof) {
  ServeOptions options = keep_going();
  options.until_eof = true;
  Played run = play_with(session(), lines({kInit, kInitialized, kStart, kTurn, kInterrupt, kInitialized}), options);
  ASSERT_TRUE(run.report.failure) << json_line(run.report);
  EXPECT_EQ(run.report.keep_going->extra, 1u);
  EXPECT_EQ(run.report.keep_going->differences.at(0).signature, "client notification initialized");
  EXPECT_EQ(run.report.server_frames, 6u);
}

TEST(ServeFixtureKeepGoing, TheReportListsAtMost64FramesAndCountsTheRest) {
  std::string input = lines({kInit});
  for (int i = 0; i < 100; ++i) input += R"({"jsonrpc":"2.0","method":"client/ping"})" "\n";
  input += lines({kInitialized, kStart, kTurn, kInterrupt});
  Played run = play_with(session(), input, keep_going());
  ASSERT_TRUE(run.report.failure);
  EXPECT_EQ(run.report.keep_going->extra, 100u);
  EXPECT_EQ(run.report.keep_going->differences.size(), kReportDivergences);
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult, kAck, kTurnStarted, kInterruptResult}));
  const std::string json = json_line(run.report);
  EXPECT_NE(json.find(R"("framesOmitted":36)"), std::string::npos);
  EXPECT_LT(json.size(), 64u * 1024);
}

TEST(ServeFixtureKeepGoing, LooksAheadAtMostAWindowOfClientLines) {
  std::vector<std::pair<Direction, std::string>> lines_of = {{Direction::client, kInit}, {Direction::server, kInitResult}};
  for (std::size_t i = 0; i < kLookaheadClientLines + 1; ++i)
    lines_of.emplace_back(Direction::client, R"({"jsonrpc":"2.0","method":"client/ping"})");
  lines_of.emplace_back(Direction::client, kInitialized);
  FixtureScript far = script_of(lines_of);
  // initialized is the 257th client line after the one at the cursor: beyond the window, extra.
  Played beyond = play_with(far, lines({kInit, kInitialized}), keep_going());
  EXPECT_EQ(beyond.report.keep_going->extra, 1u);
  lines_of.erase(lines_of.begin() + 2);
  Played within = play_with(script_of(lines_of), lines({kInit, kInitialized}), keep_going());
  EXPECT_EQ(within.report.keep_going->extra, 0u);
  EXPECT_EQ(within.report.keep_going->missing, kLookaheadClientLines);
  EXPECT_EQ(within.report.client_frames, 2u);
}

// The script written as a transcript file and played streamed: the look ahead reads the file
// again from the line after the cursor.
TEST(ServeFixtureKeepGoing, LooksAheadInAStreamedTranscript) {
  test::TempDir tmp;
  FixtureScript s = session();
  {
    std::ofstream out(tmp / "transcript.ndjson", std::ios::binary);
    for (const Frame& f : s.frames)
      out << R"({"dir":")" << to_string(f.dir) << R"(","raw":)" << boost::json::serialize(boost::json::string(f.raw))
          << "}\n";
  }
  s.transcript = (tmp / "transcript.ndjson").string();
  s.stream = true;
  s.frames.clear();
  const std::string extra = R"({"jsonrpc":"2.0","id":9,"method":"model/list","params":{}})";
  Played run = play_with(s, lines({kInit, kInitialized, extra, kInterrupt}), keep_going());
  ASSERT_FALSE(run.report.error) << run.report.error->render();
  EXPECT_EQ(run.out, lines({kInitResult, kInterruptResult}));
  const KeepGoingReport& k = *run.report.keep_going;
  EXPECT_EQ(k.extra, 1u);
  EXPECT_EQ(k.missing, 2u);
  EXPECT_EQ(k.skipped_server_frames, 4u);
  EXPECT_EQ(k.differences.at(2).transcript_line, 7u);
}

TEST(ServeFixtureFollowMinted, AcksAndNotificationsCarryTheClientsCommandId) {
  const std::string turn = replaced(kTurn, R"("commandId":"t-1")", R"("commandId":"mine-1")");
  // The client echoes the turnId it was sent: its own commandId.
  const std::string interrupt = replaced(kInterrupt, R"("turnId":"t-1")", R"("turnId":"mine-1")");
  Played run = play_with(session(), lines({kInit, kInitialized, kStart, turn, interrupt}), follow_minted());
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  // Whole string values only: not a member name ("t-1":true), not a longer string ("t-1x").
  const std::string ack = R"({"jsonrpc":"2.0","id":3,"result":{"commandId":"mine-1","status":"accepted","turnId":"mine-1"}})";
  const std::string started =
      R"({"jsonrpc":"2.0","method":"turn/started","params":{"turnId":"mine-1","stream":{"id":"mine-1"},"note":"t-1x","t-1":true}})";
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult, ack, started, kInterruptResult}));
  EXPECT_EQ(run.report.substitutions, 4u);
  EXPECT_NE(json_line(run.report).find(R"("serverFrames":6,"substitutions":4})"), std::string::npos)
      << json_line(run.report);
}

TEST(ServeFixtureFollowMinted, WithoutItTheAckKeepsTheRecordedIdAndTheEchoDiverges) {
  const std::string turn = replaced(kTurn, R"("commandId":"t-1")", R"("commandId":"mine-1")");
  const std::string interrupt = replaced(kInterrupt, R"("turnId":"t-1")", R"("turnId":"mine-1")");
  Played run = play(session(), {lines({kInit, kInitialized, kStart, turn, interrupt})}, spec_of({}));
  ASSERT_TRUE(run.report.failure);
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult, kAck, kTurnStarted}));
  EXPECT_EQ(run.report.failure->divergences.at(0).path, "params.turnId");
  EXPECT_FALSE(run.report.substitutions);
  EXPECT_EQ(json_line(run.report).find("substitutions"), std::string::npos);
}

TEST(ServeFixtureFollowMinted, AnEscapedSpellingIsTheSameStringAndRecordedValuesPairedWithThemselvesStay) {
  FixtureScript s = script_of({{Direction::client, kTurn},
                               {Direction::server, R"({"jsonrpc":"2.0","id":3,"result":{"turnId":"\u0074-1","other":"t-2"}})"}});
  const std::string turn = replaced(kTurn, R"("commandId":"t-1")", R"("commandId":"m\"1")");
  Played run = play_with(s, lines({turn}), follow_minted());
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, R"({"jsonrpc":"2.0","id":3,"result":{"turnId":"m\"1","other":"t-2"}})" "\n");
  Played same = play_with(s, lines({kTurn}), follow_minted());
  EXPECT_EQ(same.out, R"({"jsonrpc":"2.0","id":3,"result":{"turnId":"\u0074-1","other":"t-2"}})" "\n");
  EXPECT_EQ(same.report.substitutions, 0u);
}

TEST(ServeFixtureFollowMinted, StringRequestIdsAreFollowedAndTheResponseIdIsStillTheClientsToken) {
  FixtureScript s = script_of({{Direction::client, R"({"jsonrpc":"2.0","id":"r-1","method":"model/list"})"},
                               {Direction::client, R"({"jsonrpc":"2.0","id":"r-2","method":"model/list"})"},
                               {Direction::server, R"({"jsonrpc":"2.0","id":"r-1","result":{"after":"r-2"}})"},
                               {Direction::server, R"({"jsonrpc":"2.0","id":"r-2","result":{}})"}});
  // The client's ids are the recorded ones shifted: r-1 -> r-2, r-2 -> r-3.
  Played run = play_with(s,
                         lines({R"({"jsonrpc":"2.0","id":"r-2","method":"model/list"})",
                                R"({"jsonrpc":"2.0","id":"r-3","method":"model/list"})"}),
                         follow_minted());
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, lines({R"({"jsonrpc":"2.0","id":"r-2","result":{"after":"r-3"}})",
                            R"({"jsonrpc":"2.0","id":"r-3","result":{}})"}));
}

}  // namespace
}  // namespace msptk::playback
