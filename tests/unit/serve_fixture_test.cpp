// serve-fixture's player driven through in-memory byte streams: no process, no file.
#include "msptk/playback/member_scan.hpp"
#include "msptk/playback/serve_fixture.hpp"
#include "serve_fixture_support.hpp"
#include "msptk/transcript/reader.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include <sstream>

namespace msptk::playback {
namespace {

namespace json = boost::json;

TEST(ServeFixture, PlaysTheRecordedServerLinesByteForByte) {
  Played run = play(handshake(), {lines({kInit, kInitialized, kStart})});
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult}));
  EXPECT_EQ(run.report.client_frames, 3u);
  EXPECT_EQ(run.report.server_frames, 3u);
  EXPECT_EQ(json_line(run.report),
            R"({"kind":"serveFixtureComplete","scenario":"unit","transcript":"unit/transcript.ndjson","clientFrames":3,"serverFrames":3})"
            "\n");
}

TEST(ServeFixture, AnswersEachFrameBeforeReadingTheNextOne) {
  // One byte per read: frames span reads; the answer to initialize is due after its LF only.
  std::string wire = lines({kInit, kInitialized, kStart});
  std::vector<std::string> bytes;
  for (char c : wire) bytes.emplace_back(1, c);
  Played run = play(handshake(), bytes);
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult}));
}

TEST(ServeFixture, GivesTheClientItsOwnIdsAndIgnoresItsNameAndMemberOrder) {
  const std::string init =
      R"({"params":{"clientInfo":{"title":"Other Client","version":"9.1","name":"other"}},"method":"initialize","id":"c-1","jsonrpc":"2.0"})";
  const std::string start =
      R"({"params":{"workspaceRoot":"/w","commandId":"mine-7"},"method":"session/start","id":101,"jsonrpc":"2.0"})";
  Played run = play(handshake(), {lines({init, kInitialized, start})});
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  // The response ids are the client's; every other byte (the nested "id":2 and the recorded
  // commandId the server echoed included) is the recording's.
  const std::string init_result = R"({"jsonrpc":"2.0","id":"c-1","result":{"serverInfo":{"name":"muse"}}})";
  const std::string start_result = R"({"id":101,"jsonrpc":"2.0","result":{"session":{"sessionId":"s1","id":2}}})";
  EXPECT_EQ(run.out, lines({init_result, kStarted, start_result}));
}

TEST(ServeFixture, SplicesTheIdTokenAsTheClientWroteIt) {
  const std::string init = R"({"jsonrpc":"2.0","id":"\u0063-1","method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}})";
  FixtureScript s = script_of({{Direction::client, kInit}, {Direction::server, kInitResult}});
  Played run = play(s, {init + "\n"});
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, R"({"jsonrpc":"2.0","id":"\u0063-1","result":{"serverInfo":{"name":"muse"}}})" "\n");
}

TEST(ServeFixture, KeepsServerRequestIdsAndTheClientsAnswersExact) {
  FixtureScript s = script_of({{Direction::client, kInit},
                               {Direction::server, kInitResult},
                               {Direction::server, R"({"jsonrpc":"2.0","id":1,"method":"approval/request","params":{}})"},
                               {Direction::client, R"({"jsonrpc":"2.0","id":1,"result":{"decision":"allow"}})"},
                               {Direction::server, R"({"jsonrpc":"2.0","method":"approval/resolved"})"}});
  const std::string init = R"({"jsonrpc":"2.0","id":7,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}})";
  Played ok = play(s, {lines({init, R"({"jsonrpc":"2.0","id":1,"result":{"decision":"allow"}})"})});
  ASSERT_TRUE(ok.report.complete()) << json_line(ok.report);
  EXPECT_EQ(ok.out, lines({R"({"jsonrpc":"2.0","id":7,"result":{"serverInfo":{"name":"muse"}}})",
                           R"({"jsonrpc":"2.0","id":1,"method":"approval/request","params":{}})",
                           R"({"jsonrpc":"2.0","method":"approval/resolved"})"}));
  // Answering with another id than the server's is a correlation bug, without `id` declared.
  Played bad = play(s, {lines({init, R"({"jsonrpc":"2.0","id":7,"result":{"decision":"allow"}})"})},
                 spec_of({"params.commandId"}));
  ASSERT_FALSE(bad.report.complete());
  EXPECT_EQ(bad.report.failure->divergences.at(0).path, "id");
}

TEST(ServeFixture, IdsStillComeBackUnderEraseMode) {
  const std::string init = R"({"jsonrpc":"2.0","id":"e","method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}})";
  FixtureScript s = script_of({{Direction::client, kInit}, {Direction::server, kInitResult}});
  Played run = play(s, {init + "\n"}, spec_of({"id"}, MaskMode::erase));
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, R"({"jsonrpc":"2.0","id":"e","result":{"serverInfo":{"name":"muse"}}})" "\n");
}

TEST(ServeFixture, AChangedValueIsAFrameDivergenceNamingThePath) {
  const std::string start = R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"commandId":"c-aaa","workspaceRoot":"/other"}})";
  Played run = play(handshake(), {lines({kInit, kInitialized, start, kInitialized})});
  ASSERT_FALSE(run.report.complete());
  const ServeFailure& f = *run.report.failure;
  EXPECT_EQ(f.problem, ServeProblem::frame_divergence);
  EXPECT_EQ(f.transcript_line, 4u);
  EXPECT_EQ(f.expected_frame, kStart);
  EXPECT_EQ(f.received_frame, start);
  ASSERT_EQ(f.divergences.size(), 1u);
  EXPECT_EQ(f.divergences[0].path, "params.workspaceRoot");
  EXPECT_EQ(f.divergences[0].expected, R"("/w")");
  EXPECT_EQ(f.divergences[0].actual, R"("/other")");
  // Nothing after the divergence is answered.
  EXPECT_EQ(run.out, lines({kInitResult}));
  EXPECT_EQ(run.report.client_frames, 2u);
  EXPECT_EQ(
      json_line(run.report),
      R"({"kind":"serveFixtureFailure","problem":"frameDivergence","scenario":"unit","transcript":"unit/transcript.ndjson","transcriptLine":4,)"
      R"("expectedFrame":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/start\",\"params\":{\"commandId\":\"c-aaa\",\"workspaceRoot\":\"/w\"}}",)"
      R"("receivedFrame":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/start\",\"params\":{\"commandId\":\"c-aaa\",\"workspaceRoot\":\"/other\"}}",)"
      R"("receivedBytes":105,"clientFrames":2,"serverFrames":1,)"
      R"("divergences":[{"path":"params.workspaceRoot","expected":"/w","received":"/other","note":""}],)"
      R"x("errors":["client frame 3 (input line 3) does not match unit/transcript.ndjson:4 (client request session/start)"]})x"
      "\n");
}

TEST(ServeFixture, AReusedIdIsABrokenPairing) {
  FixtureScript s = script_of({{Direction::client, kInit},
                               {Direction::server, kInitResult},
                               {Direction::client, kStart},
                               {Direction::server, kStartResult}});
  const std::string init = R"({"jsonrpc":"2.0","id":5,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}})";
  const std::string start = R"({"jsonrpc":"2.0","id":5,"method":"session/start","params":{"commandId":"c","workspaceRoot":"/w"}})";
  Played run = play(s, {lines({init, start})});
  ASSERT_FALSE(run.report.complete());
  ASSERT_EQ(run.report.failure->divergences.size(), 1u);
  EXPECT_EQ(run.report.failure->divergences[0].path, "id");
  EXPECT_NE(run.report.failure->divergences[0].note.find("already paired"), std::string::npos)
      << run.report.failure->divergences[0].note;
}

TEST(ServeFixture, ANonJsonLineIsAMalformedClientFrame) {
  Played run = play(handshake(), {lines({kInit, R"({"jsonrpc":"2.0","method":)"})});
  ASSERT_FALSE(run.report.complete());
  const ServeFailure& f = *run.report.failure;
  EXPECT_EQ(f.problem, ServeProblem::malformed_client_frame);
  EXPECT_EQ(f.transcript_line, 3u);
  EXPECT_EQ(f.received_frame, R"({"jsonrpc":"2.0","method":)");
  EXPECT_TRUE(f.divergences.empty());
  ASSERT_EQ(f.errors.size(), 2u);
  EXPECT_NE(f.errors[1].find("not JSON"), std::string::npos);
}

TEST(ServeFixture, ARecordedBrokenFrameMatchesTheSameBytesOnly) {
  const std::string broken = R"({"jsonrpc":"2.0","id":2,"method":"session/start")";
  FixtureScript s = script_of({{Direction::client, broken},
                               {Direction::server, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}})"}});
  Played same = play(s, {broken + "\r\n"});
  EXPECT_TRUE(same.report.complete()) << json_line(same.report);
  EXPECT_EQ(same.report.server_frames, 1u);
  Played other = play(s, {R"({"jsonrpc":"2.0","id":3,"method":"session/start")" "\n"});
  ASSERT_FALSE(other.report.complete());
  EXPECT_EQ(other.report.failure->problem, ServeProblem::frame_divergence);
  Played valid = play(s, {kInitialized + "\n"});
  ASSERT_FALSE(valid.report.complete());
  EXPECT_EQ(valid.report.failure->problem, ServeProblem::frame_divergence);
}

TEST(ServeFixture, HangingUpEarlyIsClientEof) {
  Played run = play(handshake(), {lines({kInit, kInitialized})});
  ASSERT_FALSE(run.report.complete());
  const ServeFailure& f = *run.report.failure;
  EXPECT_EQ(f.problem, ServeProblem::client_eof);
  EXPECT_EQ(f.transcript_line, 4u);
  EXPECT_EQ(f.expected_frame, kStart);
  EXPECT_FALSE(f.received_frame);
  EXPECT_EQ(run.report.client_frames, 2u);
  EXPECT_EQ(run.out, lines({kInitResult}));
}

TEST(ServeFixture, AnUnterminatedLastFrameIsNotAFrame) {
  Played run = play(handshake(), {lines({kInit, kInitialized}) + kStart});
  ASSERT_FALSE(run.report.complete());
  EXPECT_EQ(run.report.failure->problem, ServeProblem::client_eof);
  EXPECT_EQ(run.report.failure->received_frame, kStart);
  EXPECT_EQ(run.report.failure->received_bytes, kStart.size());
}

TEST(ServeFixture, IgnoresEmptyLinesAndAcceptsCarriageReturns) {
  Played run = play(handshake(), {"\n\r\n" + kInit + "\r\n\n" + kInitialized + "\r\n" + kStart + "\r\n\n"});
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.report.empty_lines, 3u);  // the one after the last exchange is not read
  EXPECT_EQ(run.report.client_frames, 3u);
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult}));
}

TEST(ServeFixture, CompletesOnceEveryLineIsPlayedWithoutReadingFurther) {
  // The source would block forever after these chunks (no EOF): the run must not read again.
  class NoEof final : public ByteSource {
   public:
    explicit NoEof(std::string bytes) : bytes_(std::move(bytes)) {}
    process::IoResult read(char* buffer, std::size_t capacity) override {
      if (given_) {
        ADD_FAILURE() << "read again after the transcript was played";
        return process::IoResult{0, true, 0};
      }
      given_ = true;
      const std::size_t n = std::min(capacity, bytes_.size());
      std::memcpy(buffer, bytes_.data(), n);
      return process::IoResult{n, false, 0};
    }

   private:
    std::string bytes_;
    bool given_ = false;
  };
  // The frame after the last exchange is in the same read: not judged, not answered.
  NoEof source(lines({kInit, kInitialized, kStart, R"({"jsonrpc":"2.0","method":"anything"})"}));
  MemorySink sink;
  ServeFixtureReport report = serve_fixture(handshake(), spec_of(), source, sink);
  ASSERT_TRUE(report.complete()) << json_line(report);
  EXPECT_EQ(report.client_frames, 3u);
  EXPECT_EQ(sink.bytes(), lines({kInitResult, kStarted, kStartResult}));
}

TEST(ServeFixture, UntilEofAFrameAfterTheEndIsADivergenceNeverAnswered) {
  ServeOptions until_eof;
  until_eof.until_eof = true;
  Played run = play(handshake(), {lines({kInit, kInitialized, kStart, kInitialized})}, spec_of(),
                    std::numeric_limits<std::size_t>::max(), until_eof);
  ASSERT_FALSE(run.report.complete());
  const ServeFailure& f = *run.report.failure;
  EXPECT_EQ(f.problem, ServeProblem::frame_divergence);
  EXPECT_FALSE(f.transcript_line);
  EXPECT_FALSE(f.expected_frame);
  EXPECT_EQ(f.received_frame, kInitialized);
  ASSERT_EQ(f.divergences.size(), 1u);
  EXPECT_EQ(f.divergences[0].note, "extra client frame");
  EXPECT_EQ(run.out, lines({kInitResult, kStarted, kStartResult}));
}

// A source that delivers its chunks, then reports that the host was told to stop.
class StoppedSource final : public ByteSource {
 public:
  explicit StoppedSource(std::vector<std::string> chunks) : memory_(std::move(chunks)) {}
  process::IoResult read(char* buffer, std::size_t capacity) override {
    process::IoResult r = memory_.read(buffer, capacity);
    return r.eof ? process::IoResult{0, false, ECANCELED} : r;
  }

 private:
  MemorySource memory_;
};

TEST(ServeFixture, AStopAfterTheLastExchangeIsCompletionAndBeforeItClientEof) {
  StoppedSource done({lines({kInit, kInitialized, kStart})});
  MemorySink sink;
  ServeOptions until_eof;
  until_eof.until_eof = true;
  ServeFixtureReport complete = serve_fixture(handshake(), spec_of(), done, sink, until_eof);
  EXPECT_TRUE(complete.complete()) << json_line(complete);
  StoppedSource early({lines({kInit})});
  ServeFixtureReport failed = serve_fixture(handshake(), spec_of(), early, sink);
  ASSERT_FALSE(failed.complete());
  EXPECT_EQ(failed.failure->problem, ServeProblem::client_eof);
  EXPECT_EQ(failed.failure->transcript_line, 3u);
  EXPECT_NE(failed.failure->errors.at(0).find("stopped"), std::string::npos) << failed.failure->errors.at(0);
}

TEST(ServeFixture, WritesServerLinesBeforeTheFirstClientLineAtOnce) {
  FixtureScript s = script_of({{Direction::server, kStarted}, {Direction::client, kInit}, {Direction::server, kInitResult}});
  Played silent = play(s, {});
  ASSERT_FALSE(silent.report.complete());
  EXPECT_EQ(silent.report.failure->problem, ServeProblem::client_eof);
  EXPECT_EQ(silent.out, lines({kStarted}));
  FixtureScript only_server = script_of({{Direction::server, kStarted}});
  Played done = play(only_server, {});
  EXPECT_TRUE(done.report.complete());
  EXPECT_EQ(done.report.server_frames, 1u);
}

TEST(ServeFixture, AClientThatStopsReadingIsClientEof) {
  // The reader goes away in the middle of the second server frame of the third exchange.
  const std::size_t capacity = kInitResult.size() + 1 + kStarted.size() + 1 + 5;
  Played run = play(handshake(), {lines({kInit, kInitialized, kStart})}, spec_of(), capacity);
  ASSERT_FALSE(run.report.complete());
  EXPECT_EQ(run.report.failure->problem, ServeProblem::client_eof);
  EXPECT_EQ(run.report.failure->transcript_line, 6u);
  EXPECT_EQ(run.report.server_frames, 2u);
  EXPECT_EQ(run.report.client_frames, 3u);
}

// An oversized frame: limit 64, the recorded request 120 bytes with its id in the prefix.
std::string padded(const std::string& id, std::size_t size, bool id_first = true) {
  std::string head = id_first ? R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"session/start","params":{"pad":")"
                              : R"({"jsonrpc":"2.0","method":"session/start","params":{"pad":")";
  std::string tail = id_first ? R"("}})" : R"("},"id":)" + id + "}";
  return head + std::string(size - head.size() - tail.size(), 'x') + tail;
}

FixtureScript oversized_script(bool id_first) {
  return script_of({{Direction::client, padded("2", 120, id_first)},
                    {Direction::server, R"({"jsonrpc":"2.0","id":)" + std::string(id_first ? "2" : "null") +
                                            R"(,"error":{"code":-32002,"message":"too large"}})"},
                    {Direction::client, kInitialized}},
                   64);
}

TEST(ServeFixture, MatchesAnOversizedFrameOnWhatItsPrefixHolds) {
  // The client's own id, another size and other bytes after the limit: the host sees the same.
  Played run = play(oversized_script(true), {padded(R"("c-9")", 5000) + "\n" + kInitialized + "\n"});
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, R"({"jsonrpc":"2.0","id":"c-9","error":{"code":-32002,"message":"too large"}})" "\n");
  // No id in the prefix where the recording has one: the host would answer differently.
  Played no_id = play(oversized_script(true), {padded("3", 5000, false) + "\n"});
  ASSERT_FALSE(no_id.report.complete());
  EXPECT_EQ(no_id.report.failure->divergences.at(0).path, "id");
  EXPECT_EQ(no_id.report.failure->received_bytes, 5000u);
  EXPECT_EQ(no_id.report.failure->received_frame->size(), 64u);
  // A different method inside the prefix diverges.
  std::string other = padded("2", 200);
  other.replace(other.find("session/start"), 13, "session/resume");
  Played method = play(oversized_script(true), {other + "\n"});
  ASSERT_FALSE(method.report.complete());
  EXPECT_EQ(method.report.failure->divergences.at(0).path, "method");
}

TEST(ServeFixture, AnOversizedFrameWithoutARecoverableIdMatchesOneWithout) {
  Played run = play(oversized_script(false), {padded("77", 300, false) + "\n" + kInitialized + "\n"});
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"too large"}})" "\n");
  Played with_id = play(oversized_script(false), {padded("77", 300, true) + "\n"});
  ASSERT_FALSE(with_id.report.complete());
  EXPECT_EQ(with_id.report.failure->divergences.at(0).path, "id");
}

TEST(ServeFixture, OversizedAgainstNotOversizedDiverges) {
  Played small = play(oversized_script(true), {R"({"jsonrpc":"2.0","id":2,"method":"session/start"})" "\n"});
  ASSERT_FALSE(small.report.complete());
  EXPECT_EQ(small.report.failure->problem, ServeProblem::frame_divergence);
  EXPECT_NE(small.report.failure->divergences.at(0).note.find("over frameLimitBytes 64"), std::string::npos);
  FixtureScript s = script_of({{Direction::client, kInitialized}}, 64);
  Played big = play(s, {padded("1", 100) + "\n"});
  ASSERT_FALSE(big.report.complete());
  EXPECT_EQ(big.report.failure->problem, ServeProblem::frame_divergence);
  Played garbage = play(oversized_script(true), {std::string(100, '#') + "\n"});
  ASSERT_FALSE(garbage.report.complete());
  EXPECT_EQ(garbage.report.failure->problem, ServeProblem::malformed_client_frame);
}

TEST(ServeFixture, ReportsInvalidUtf8AsReplacementCharacters) {
  Played run = play(handshake(), {"\xff\xfe{\n"});
  ASSERT_FALSE(run.report.complete());
  EXPECT_EQ(run.report.failure->problem, ServeProblem::malformed_client_frame);
  const std::string line = json_line(run.report);
  boost::system::error_code ec;
  json::value parsed = json::parse(line, ec);
  ASSERT_FALSE(ec) << line;
  EXPECT_EQ(parsed.at("kind"), "serveFixtureFailure");
  EXPECT_EQ(parsed.at("receivedFrame"), "\xEF\xBF\xBD\xEF\xBF\xBD{");
}

TEST(ServeFixture, VerbatimKeepsTheRecordedIds) {
  const std::string init = R"({"jsonrpc":"2.0","id":"c-1","method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}})";
  FixtureScript s = script_of({{Direction::client, kInit}, {Direction::server, kInitResult}});
  ServeOptions verbatim;
  verbatim.verbatim = true;
  Played run = play(s, {init + "\n"}, spec_of(), std::numeric_limits<std::size_t>::max(), verbatim);
  ASSERT_TRUE(run.report.complete()) << json_line(run.report);
  EXPECT_EQ(run.out, kInitResult + "\n");
}

TEST(ServeFixture, ReportsQuoteAtMostAFewKilobytesOfEachFrameAndSayHowManyWereLeftOut) {
  // A 1 MiB text where the recording has "/w": the failure line stays small.
  const std::string huge(1 << 20, 'x');
  const std::string start =
      R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"commandId":"c-aaa","workspaceRoot":")" + huge + R"("}})";
  Played run = play(handshake(), {lines({kInit, kInitialized, start})});
  ASSERT_FALSE(run.report.complete());
  const std::string line = json_line(run.report);
  EXPECT_LT(line.size(), 4 * kReportQuoteBytes);
  json::object parsed = json::parse(line).as_object();
  EXPECT_EQ(parsed.at("receivedBytes"), start.size());
  EXPECT_EQ(parsed.at("receivedFrame").as_string().size(), kReportQuoteBytes);
  EXPECT_EQ(parsed.at("receivedFrameOmittedBytes"), start.size() - kReportQuoteBytes);
  EXPECT_FALSE(parsed.contains("expectedFrameOmittedBytes"));
  const json::object& d = parsed.at("divergences").at(0).as_object();
  EXPECT_EQ(d.at("path"), "params.workspaceRoot");
  EXPECT_EQ(d.at("expected"), "/w");
  EXPECT_EQ(d.at("received").as_string().size(), kReportQuoteBytes);
  EXPECT_EQ(d.at("receivedOmittedBytes"), huge.size() + 2 - kReportQuoteBytes);  // the value's JSON text, quotes included
}

TEST(ServeFixture, AQuotedFrameIsCutBetweenUtf8Sequences) {
  ServeFixtureReport report;
  report.failure.emplace();
  report.failure->problem = ServeProblem::malformed_client_frame;
  report.failure->received_frame = std::string(kReportQuoteBytes - 1, 'a') + "\xC3\xA9" + "tail";  // é across the cut
  json::object parsed = json::parse(json_line(report)).as_object();
  EXPECT_EQ(parsed.at("receivedFrame").as_string().size(), kReportQuoteBytes - 1);
  EXPECT_EQ(parsed.at("receivedFrameOmittedBytes"), 6u);
}

TEST(ServeFixture, ReportsListAtMostSoManyDivergencesAndCountTheRest) {
  ServeFixtureReport report;
  report.failure.emplace();
  for (std::size_t i = 0; i < kReportDivergences + 10; ++i)
    report.failure->divergences.push_back(PathDivergence{fmt::format("params.a{}", i), "1", "2", ""});
  json::object parsed = json::parse(json_line(report)).as_object();
  EXPECT_EQ(parsed.at("divergences").as_array().size(), kReportDivergences);
  EXPECT_EQ(parsed.at("divergencesOmitted"), 10u);
}

TEST(MemberScan, FindsTopLevelValueTokens) {
  const std::string text = R"( { "a" : {"id":1,"s":"}\"{"} , "i\u0064":"x\"y", "n":-1.5e3,"t":true } )";
  MemberScan scan = scan_members(text);
  EXPECT_TRUE(scan.object);
  EXPECT_TRUE(scan.closed);
  EXPECT_FALSE(scan.malformed);
  ASSERT_EQ(scan.members.size(), 4u);
  EXPECT_EQ(scan.token(text, "a"), R"({"id":1,"s":"}\"{"})");
  EXPECT_EQ(scan.token(text, "id"), R"("x\"y")");
  EXPECT_EQ(scan.token(text, "n"), "-1.5e3");
  EXPECT_EQ(scan.token(text, "t"), "true");
  EXPECT_EQ(splice_member(text, "id", "7"), R"( { "a" : {"id":1,"s":"}\"{"} , "i\u0064":7, "n":-1.5e3,"t":true } )");
  EXPECT_FALSE(splice_member(text, "missing", "7"));
}

TEST(MemberScan, SetMemberReplacesOrAddsAfterTheLast) {
  const std::string text = "{\n  \"a\": 1,\n  \"b\": [2]\n}\n";
  EXPECT_EQ(set_member(text, "a", "\"x\""), "{\n  \"a\": \"x\",\n  \"b\": [2]\n}\n");
  EXPECT_EQ(set_member(text, "c\"d", "{}"), "{\n  \"a\": 1,\n  \"b\": [2],\n  \"c\\\"d\": {}\n}\n");
  EXPECT_FALSE(set_member("{}", "c", "1"));               // no member to follow
  EXPECT_FALSE(set_member("{\"a\": 1", "c", "1"));        // not closed
  EXPECT_FALSE(set_member("[1]", "c", "1"));              // not an object
}

TEST(MemberScan, StopsWhereAPrefixIsCut) {
  MemberScan scan = scan_members(R"({"jsonrpc":"2.0","id":12)");
  EXPECT_EQ(scan.members.size(), 1u);
  EXPECT_EQ(scan.cut_member, "id");  // 12 may go on
  scan = scan_members(R"({"jsonrpc":"2.0","id":12,"params":{"a":[1,2)");
  EXPECT_EQ(scan.members.size(), 2u);
  EXPECT_EQ(scan.cut_member, "params");
  scan = scan_members(R"({"jsonrpc":"2.0","i)");
  EXPECT_EQ(scan.cut_member, "");
  EXPECT_FALSE(scan.closed);
  EXPECT_TRUE(scan_members("[1]").malformed);
  EXPECT_TRUE(scan_members(R"({"a" 1})").malformed);
  EXPECT_FALSE(scan_members("").object);
}

TEST(MemberScan, TheLastDuplicateWinsAsInBoostJson) {
  const std::string text = R"({"id":1,"id":2})";
  EXPECT_EQ(scan_members(text).token(text, "id"), "2");
}

TEST(ServeFixtureLoad, LoadsAScenarioAndRefusesBrokenOnes) {
  const auto own = test::source_dir() / "corpus" / "framing-oversized-id-recovered";
  auto loaded = load_fixture(own, Registry::builtin());
  ASSERT_TRUE(loaded) << loaded.error().render();
  EXPECT_EQ(loaded->id(), "framing-oversized-id-recovered");
  EXPECT_EQ(loaded->frame_limit, 1024u);
  // Streamed: the frames are read as they are played, none held by the script.
  EXPECT_TRUE(loaded->stream);
  EXPECT_TRUE(loaded->frames.empty());
  EXPECT_EQ(loaded->transcript, (own / "transcript.ndjson").string());

  test::TempDir tmp;
  auto missing = load_fixture(tmp / "nope", Registry::builtin());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::unreadable);

  const auto copy = tmp / "framing-oversized-id-recovered";
  std::filesystem::create_directory(copy);
  std::filesystem::copy_file(own / "transcript.ndjson", copy / "transcript.ndjson");
  auto no_manifest = load_fixture(copy, Registry::builtin());
  ASSERT_FALSE(no_manifest);
  EXPECT_EQ(no_manifest.error().rule, "manifest.missing");
  EXPECT_EQ(exit_code(no_manifest.error().kind), 3);

  std::filesystem::copy_file(own / "manifest.json", copy / "manifest.json");
  EXPECT_TRUE(load_fixture(copy, Registry::builtin()));
  EXPECT_TRUE(load_fixture(copy / "transcript.ndjson", Registry::builtin()));
  test::write_text(copy / "transcript.ndjson", test::read_text(own / "transcript.ndjson") + "{\"dir\":\"sideways\",\"raw\":\"{}\"}\n");
  auto broken = load_fixture(copy, Registry::builtin());
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().rule, "file.dir");
  EXPECT_EQ(broken.error().line, 9u);
  EXPECT_EQ(exit_code(broken.error().kind), 3);
}

}  // namespace
}  // namespace msptk::playback

namespace msptk::playback {
namespace {

// The recorded client lines of a script, as a client that plays them writes them.
std::string client_bytes(const std::vector<Frame>& frames) {
  std::string out;
  for (const Frame& f : frames)
    if (f.dir == Direction::client) out += f.wire_bytes() + "\n";
  return out;
}

// A scenario played streamed (load_fixture) and held whole (the same frames in memory) gives
// the same bytes and the same report, for every transcript of the own and the public corpus,
// each client written whole and one byte per read.
TEST(ServeFixtureStream, AStreamedScriptPlaysExactlyAsTheSameFramesInMemory) {
  std::vector<std::filesystem::path> transcripts;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / "corpus"))
    if (e.is_directory()) transcripts.push_back(e.path() / "transcript.ndjson");
  for (const auto& file : test::corpus_ndjson_files()) transcripts.push_back(file);
  std::sort(transcripts.begin(), transcripts.end());
  std::size_t played = 0;
  for (const auto& file : transcripts) {
    SCOPED_TRACE(file.string());
    auto streamed = load_fixture(file, Registry::builtin());
    if (!streamed) continue;  // refused before any frame: nothing to compare
    ASSERT_TRUE(streamed->stream);
    auto frames = read_transcript(file);
    ASSERT_TRUE(frames) << frames.error().render();
    FixtureScript held = *streamed;
    held.stream = false;
    held.frames = std::move(*frames);
    auto spec = mask_spec_for(streamed->scenario, Registry::builtin(), {}, MaskMode::unify);
    ASSERT_TRUE(spec) << spec.error().render();
    const std::string client = client_bytes(held.frames);
    std::vector<std::string> bytewise;
    for (char c : client) bytewise.emplace_back(1, c);
    for (const auto& chunks : {std::vector<std::string>{client}, bytewise}) {
      for (bool until_eof : {false, true}) {
        ServeOptions options;
        options.until_eof = until_eof;
        Played a = play(*streamed, chunks, *spec, std::numeric_limits<std::size_t>::max(), options);
        Played b = play(held, chunks, *spec, std::numeric_limits<std::size_t>::max(), options);
        EXPECT_FALSE(a.report.error);
        EXPECT_EQ(a.out, b.out);
        EXPECT_EQ(json_line(a.report), json_line(b.report));
      }
    }
    ++played;
  }
  EXPECT_GE(played, 5u);
}

// A long run of server lines is written in batches: what the client saw before it went away,
// the count and the lost frame's line are those of the frame the write stopped in.
TEST(ServeFixtureStream, ALongRunOfServerLinesIsWrittenInBatchesAndAFailedWriteNamesItsFrame) {
  const std::string delta(1000, 'd');
  std::vector<std::pair<Direction, std::string>> lines{{Direction::client, kInit}};
  std::string all;
  for (int i = 0; i < 3000; ++i) {
    std::string frame = fmt::format(R"({{"jsonrpc":"2.0","method":"item/delta","params":{{"n":{},"text":"{}"}}}})", i, delta);
    all += frame + "\n";
    lines.emplace_back(Direction::server, std::move(frame));
  }
  const FixtureScript s = script_of(lines);
  Played whole = play(s, {kInit + "\n"});
  EXPECT_TRUE(whole.report.complete());
  EXPECT_EQ(whole.report.server_frames, 3000u);
  EXPECT_EQ(whole.out, all);

  // The client stops reading 10 bytes into frame 2501 (transcript line 2502), past two batches.
  std::size_t first_2500 = 0;
  for (int i = 0; i < 2500; ++i) first_2500 = all.find('\n', first_2500) + 1;
  Played cut = play(s, {kInit + "\n"}, spec_of(), first_2500 + 10);
  ASSERT_TRUE(cut.report.failure);
  EXPECT_EQ(cut.report.failure->problem, ServeProblem::client_eof);
  EXPECT_EQ(cut.report.server_frames, 2500u);
  EXPECT_EQ(cut.report.failure->transcript_line, 2502u);
  EXPECT_EQ(cut.out, all.substr(0, first_2500 + 10));
  EXPECT_NE(json_line(cut.report).find("unit/transcript.ndjson:2502 (server notification item/delta)"),
            std::string::npos)
      << json_line(cut.report);
}

// A transcript that changes after it was validated is read on as it is played: a line that
// can no longer be read stops the run with an infrastructure error (exit 3), not a verdict.
TEST(ServeFixtureStream, ALineThatCannotBeReadOnceThePlayStartedIsAnError) {
  test::TempDir tmp;
  const auto own = test::source_dir() / "corpus" / "framing-oversized-id-recovered";
  const auto copy = tmp / "framing-oversized-id-recovered";
  std::filesystem::copy(own, copy);
  auto script = load_fixture(copy, Registry::builtin());
  ASSERT_TRUE(script) << script.error().render();
  auto frames = read_transcript(copy / "transcript.ndjson");
  ASSERT_TRUE(frames);
  const std::string text = test::read_text(copy / "transcript.ndjson");
  const std::size_t second = text.find('\n') + 1;
  test::write_text(copy / "transcript.ndjson", text.substr(0, second) + "{\"dir\":\"sideways\",\"raw\":\"{}\"}\n");
  auto spec = mask_spec_for(script->scenario, Registry::builtin(), {}, MaskMode::unify);
  ASSERT_TRUE(spec);
  Played run = play(*script, {client_bytes(*frames)}, *spec);
  ASSERT_TRUE(run.report.error);
  EXPECT_EQ(run.report.error->rule, "file.dir");
  EXPECT_EQ(run.report.error->line, 2u);
  EXPECT_EQ(run.report.exit_code(), 3);
  EXPECT_FALSE(run.report.complete());
}

}  // namespace
}  // namespace msptk::playback
