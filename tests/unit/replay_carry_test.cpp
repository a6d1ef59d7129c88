// Carrying learned values into client lines (replay_carry.hpp): value spans, and each rule of
// the carry with a FrameComparer that learned pairings from server frames.
#include "msptk/differ/comparer.hpp"
#include "msptk/playback/replay_carry.hpp"

#include <gtest/gtest.h>

namespace msptk {
namespace {

Frame client(std::string raw, std::size_t line = 1) { return Frame{Direction::client, std::move(raw), std::nullopt, line}; }
Frame server(std::string raw, std::size_t line = 1) { return Frame{Direction::server, std::move(raw), std::nullopt, line}; }

FrameComparer comparer(const std::vector<std::string>& normalize) {
  auto spec = make_mask_spec(Registry::builtin(), normalize, "manifest.json", 1, {}, MaskMode::unify);
  EXPECT_TRUE(spec) << spec.error().render();
  return FrameComparer(*spec);
}

TEST(ReplayCarry, ValueSpansNameEveryValueWithItsBytes) {
  const std::string text = R"( {"a" : 1, "b\u0021":[true, {"c":"x\"y"}], "d":{}} )";
  std::vector<ValueSpan> spans = value_spans(text);
  ASSERT_EQ(spans.size(), 7u);
  auto at = [&](std::size_t i) { return text.substr(spans[i].begin, spans[i].end - spans[i].begin); };
  EXPECT_EQ(spans[0].location, "");
  EXPECT_EQ(at(0), R"({"a" : 1, "b\u0021":[true, {"c":"x\"y"}], "d":{}})");
  EXPECT_EQ(spans[1].location, "a");
  EXPECT_EQ(at(1), "1");
  EXPECT_EQ(spans[2].location, "b!");
  EXPECT_TRUE(spans[2].is_container);
  EXPECT_EQ(spans[3].location, "b![0]");
  EXPECT_EQ(at(3), "true");
  EXPECT_EQ(spans[5].location, "b![1].c");
  EXPECT_EQ(spans[5].depth, 3u);
  EXPECT_TRUE(spans[5].is_string);
  EXPECT_EQ(at(5), R"("x\"y")");
  EXPECT_EQ(spans[6].location, "d");
  EXPECT_TRUE(value_spans("{\"a\":").empty());
  EXPECT_TRUE(value_spans("[1] 2").empty());
}

TEST(ReplayCarry, NothingLearnedDifferentlySendsTheRecordedBytes) {
  FrameComparer cmp = comparer({"id", "result.session.sessionId"});
  cmp.compare(server(R"({"id":2,"result":{"session":{"sessionId":"s1"}}})"),
              server(R"({"id":2,"result":{"session":{"sessionId":"s1"}}})"));
  std::vector<CarriedValue> carried;
  const std::string line = "{ \"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"turn/start\",\"params\":{\"sessionId\":\"s1\"}}\r";
  EXPECT_EQ(carry_learned_values(client(line), cmp.unifier(), carried), line);
  EXPECT_EQ(carry_learned_values(client("not json\r"), cmp.unifier(), carried), "not json\r");
  EXPECT_TRUE(carried.empty());
}

TEST(ReplayCarry, ALearnedSessionIdReachesEveryEchoOfIt) {
  FrameComparer cmp = comparer({"id", "params.commandId", "result.session.sessionId"});
  auto r = cmp.compare(server(R"({"id":2,"result":{"session":{"sessionId":"sess-A"}}})", 5),
                       server(R"({"id":2,"result":{"session":{"sessionId":"sess-B"}}})", 5));
  ASSERT_EQ(r.outcome, FrameOutcome::equivalent);
  std::vector<CarriedValue> carried;
  // Member order, spacing and the CR stay; only the echoes change; the client's own values
  // (its request id, its commandId) are never touched even when they equal a learned value.
  const std::string line =
      "{\"id\":3, \"method\":\"turn/start\",\"params\":{\"sessionId\":\"sess-A\",\"commandId\":\"sess-A\","
      "\"deep\":{\"x\":[\"sess-A\",\"sess-A-suffix\"]}}}\r";
  EXPECT_EQ(carry_learned_values(client(line, 6), cmp.unifier(), carried),
            "{\"id\":3, \"method\":\"turn/start\",\"params\":{\"sessionId\":\"sess-B\",\"commandId\":\"sess-A\","
            "\"deep\":{\"x\":[\"sess-B\",\"sess-A-suffix\"]}}}\r");
  ASSERT_EQ(carried.size(), 2u);
  EXPECT_EQ(carried[0].line, 6u);
  EXPECT_EQ(carried[0].location, "params.sessionId");
  EXPECT_EQ(carried[0].recorded, "\"sess-A\"");
  EXPECT_EQ(carried[0].live, "\"sess-B\"");
  EXPECT_EQ(carried[0].learned_from, "server frames' result.session.sessionId");
  EXPECT_EQ(carried[1].location, "params.deep.x[0]");
}

TEST(ReplayCarry, AServerRequestIdIsCarriedOnlyIntoTheAnswer) {
  FrameComparer cmp = comparer({"id"});
  cmp.compare(server(R"({"jsonrpc":"2.0","id":7,"method":"approval/request","params":{}})"),
              server(R"({"jsonrpc":"2.0","id":9,"method":"approval/request","params":{}})"));
  std::vector<CarriedValue> carried;
  EXPECT_EQ(carry_learned_values(client(R"({"jsonrpc":"2.0","id":7,"result":{"n":7,"s":"7"}})"), cmp.unifier(), carried),
            R"({"jsonrpc":"2.0","id":9,"result":{"n":7,"s":"7"}})");
  // A client request with the same id is the client's own: untouched.
  EXPECT_EQ(carry_learned_values(client(R"({"jsonrpc":"2.0","id":7,"method":"turn/start"})"), cmp.unifier(), carried),
            R"({"jsonrpc":"2.0","id":7,"method":"turn/start"})");
  ASSERT_EQ(carried.size(), 1u);
  EXPECT_EQ(carried[0].learned_from, "server request ids");

  // Without `id` declared, server request ids are exact: nothing is learned, nothing carried.
  FrameComparer exact = comparer({});
  exact.compare(server(R"({"jsonrpc":"2.0","id":7,"method":"approval/request"})"),
                server(R"({"jsonrpc":"2.0","id":9,"method":"approval/request"})"));
  EXPECT_EQ(carry_learned_values(client(R"({"jsonrpc":"2.0","id":7,"result":{}})"), exact.unifier(), carried),
            R"({"jsonrpc":"2.0","id":7,"result":{}})");
}

TEST(ReplayCarry, ADeclaredPathCarriesValuesOfAnyTypeIntoTheSamePath) {
  FrameComparer cmp = comparer({"params.turnId"});
  cmp.compare(server(R"({"method":"turn/started","params":{"turnId":41}})"),
              server(R"({"method":"turn/started","params":{"turnId":42}})"));
  std::vector<CarriedValue> carried;
  // Rule 3 at params.turnId (a number); rule 4 only for strings, so `other: 41` stays.
  EXPECT_EQ(carry_learned_values(client(R"({"id":1,"method":"turn/interrupt","params":{"turnId":41,"other":41}})"),
                                 cmp.unifier(), carried),
            R"({"id":1,"method":"turn/interrupt","params":{"turnId":42,"other":41}})");
  EXPECT_EQ(carried.size(), 1u);
}

TEST(ReplayCarry, TheFirstDeclaredPathThatLearnedAValueDecides) {
  FrameComparer cmp = comparer({"params.turnId", "params.itemId"});
  cmp.compare(server(R"({"method":"a","params":{"turnId":"v","itemId":"v"}})"),
              server(R"({"method":"a","params":{"turnId":"v","itemId":"w"}})"));
  std::vector<CarriedValue> carried;
  EXPECT_EQ(carry_learned_values(client(R"({"method":"b","params":{"x":"v"}})"), cmp.unifier(), carried),
            R"({"method":"b","params":{"x":"v"}})");
  EXPECT_EQ(carry_learned_values(client(R"({"method":"b","params":{"itemId":"v"}})"), cmp.unifier(), carried),
            R"({"method":"b","params":{"itemId":"w"}})");
}

}  // namespace
}  // namespace msptk
