#include "msptk/normalizer/bijection.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/placeholders.hpp"
#include "msptk/normalizer/unifier.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>

namespace msptk {
namespace {

namespace json = boost::json;

MaskSpec spec_of(std::vector<std::string> declared, MaskMode mode = MaskMode::unify) {
  auto spec = make_mask_spec(Registry::builtin(), declared, "manifest.json", 3, {}, mode);
  EXPECT_TRUE(spec) << spec.error().render();
  return *spec;
}

FrameRole role(Direction dir, FrameKind kind, bool initialize = false) { return FrameRole{dir, kind, initialize}; }

Frame frame(Direction dir, std::string raw, std::size_t line = 1) {
  Frame f;
  f.dir = dir;
  f.raw = std::move(raw);
  f.line = line;
  return f;
}

TEST(Canonical, SortsMembersAndWritesNumbersByValue) {
  EXPECT_EQ(canonical_json(json::parse(R"({"b":1.0,"a":[2,"x",{"d":null,"c":true}]})")),
            R"({"a":[2,"x",{"c":true,"d":null}],"b":1})");
  EXPECT_EQ(canonical_json(json::parse("1e0")), canonical_json(json::parse("1")));
  EXPECT_NE(canonical_json(json::parse("1.5")), canonical_json(json::parse("1")));
  EXPECT_TRUE(json_equal(json::parse("3"), json::parse("3.0")));
  EXPECT_TRUE(json_equal(json::parse("18446744073709551615"), json::parse("18446744073709551615")));
  EXPECT_FALSE(json_equal(json::parse("-1"), json::parse("18446744073709551615")));
  EXPECT_FALSE(json_equal(json::parse(R"("1")"), json::parse("1")));
  EXPECT_TRUE(json_equal(json::parse(R"({"a":1,"b":2})"), json::parse(R"({"b":2,"a":1})")));
}

TEST(Bijection, HoldsPairingsOneToOne) {
  Bijection b;
  EXPECT_FALSE(b.pair("1", "10", 1, 1));
  EXPECT_FALSE(b.pair("1", "10", 5, 5));  // the same pairing again
  EXPECT_FALSE(b.pair("2", "20", 7, 7));
  EXPECT_FALSE(b.identity());

  auto split = b.pair("1", "30", 9, 9);  // one expected identity split into two actual ones
  ASSERT_TRUE(split);
  ASSERT_TRUE(split->expected_paired);
  EXPECT_EQ(split->expected_paired->actual, "10");
  EXPECT_EQ(split->expected_paired->expected_line, 1u);
  EXPECT_FALSE(split->actual_paired);

  auto collapse = b.pair("3", "20", 11, 11);  // two expected identities collapsed into one
  ASSERT_TRUE(collapse);
  ASSERT_TRUE(collapse->actual_paired);
  EXPECT_EQ(collapse->actual_paired->expected, "2");

  EXPECT_EQ(b.size(), 2u);  // conflicting pairings are not recorded
  EXPECT_EQ(*b.actual_for("1"), "10");
  EXPECT_EQ(*b.expected_for("20"), "2");
  EXPECT_EQ(b.actual_for("3"), nullptr);
}

TEST(MaskSpec, RefusesPathsOutsideTheRegistry) {
  auto manifest = make_mask_spec(Registry::builtin(), {"id", "params.sessionId"}, "m/manifest.json", 12, {},
                                 MaskMode::unify);
  ASSERT_FALSE(manifest);
  EXPECT_EQ(manifest.error().kind, ErrorKind::malformed);
  EXPECT_EQ(manifest.error().file, "m/manifest.json");
  EXPECT_EQ(manifest.error().line, 12u);
  EXPECT_EQ(manifest.error().rule, "manifest.normalize-registry");

  auto flag = make_mask_spec(Registry::builtin(), {}, "", 0, {"params.sessionId"}, MaskMode::unify);
  ASSERT_FALSE(flag);
  EXPECT_EQ(flag.error().kind, ErrorKind::usage);

  Registry extended = Registry::builtin();
  ASSERT_TRUE(extended.add("params.sessionId"));
  auto ok = make_mask_spec(extended, {"id", "id"}, "", 0, {"params.sessionId", "id"}, MaskMode::erase);
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->declared.size(), 2u);  // duplicates dropped, order kept
  EXPECT_EQ(ok->declared[1].text(), "params.sessionId");
  EXPECT_EQ(ok->mode, MaskMode::erase);
}

TEST(Masker, AlwaysUnifiesWhatTheClientMints) {
  Masker m(spec_of({}));
  auto client_request = role(Direction::client, FrameKind::request);
  MaskRule id = m.rule_for(client_request, "id", 1);
  EXPECT_EQ(id.treatment, Treatment::unify);
  EXPECT_EQ(id.space, kClientRequestIds);
  EXPECT_TRUE(id.is_id);
  EXPECT_EQ(id.declared, -1);
  // The server's response to a client request shares the client request ids' space.
  EXPECT_EQ(m.rule_for(role(Direction::server, FrameKind::response), "id", 1).space, kClientRequestIds);
  EXPECT_EQ(m.rule_for(client_request, "params.commandId", 2).space, kClientCommandIds);
  auto init = role(Direction::client, FrameKind::request, true);
  EXPECT_EQ(m.rule_for(init, "params.clientInfo.name", 3).space, kClientInfoName);
  EXPECT_EQ(m.rule_for(init, "params.clientInfo.version", 3).space, kClientInfoVersion);
  EXPECT_EQ(m.rule_for(init, "params.clientInfo.title", 3).treatment, Treatment::ignore);
  // Only on initialize, only on client frames.
  EXPECT_EQ(m.rule_for(client_request, "params.clientInfo.name", 3).treatment, Treatment::exact);
  EXPECT_EQ(m.rule_for(role(Direction::server, FrameKind::notification), "params.commandId", 2).treatment,
            Treatment::exact);
}

TEST(Masker, LearnedValuesAreExactUnlessDeclared) {
  Masker plain(spec_of({}));
  auto answer = role(Direction::client, FrameKind::response);
  auto server_request = role(Direction::server, FrameKind::request);
  EXPECT_EQ(plain.rule_for(answer, "id", 1).treatment, Treatment::exact);
  EXPECT_EQ(plain.rule_for(server_request, "id", 1).treatment, Treatment::exact);
  EXPECT_EQ(plain.rule_for(answer, "params.turnId", 2).treatment, Treatment::exact);

  Masker declared(spec_of({"id", "params.turnId"}));
  MaskRule a = declared.rule_for(answer, "id", 1);
  EXPECT_EQ(a.treatment, Treatment::unify);
  EXPECT_EQ(a.space, kServerRequestIds);
  EXPECT_EQ(a.declared, 0);
  EXPECT_EQ(declared.rule_for(server_request, "id", 1).space, kServerRequestIds);
  // One space per direction and declared path.
  MaskRule client_turn = declared.rule_for(role(Direction::client, FrameKind::request), "params.turnId", 2);
  MaskRule server_turn = declared.rule_for(role(Direction::server, FrameKind::notification), "params.turnId", 2);
  EXPECT_EQ(client_turn.treatment, Treatment::unify);
  EXPECT_EQ(server_turn.treatment, Treatment::unify);
  EXPECT_NE(client_turn.space, server_turn.space);
  EXPECT_EQ(declared.space_name(server_turn.space), "server frames' params.turnId");
  EXPECT_EQ(server_turn.space, declared.declared_space(Direction::server, 1));
  EXPECT_EQ(client_turn.space, declared.declared_space(Direction::client, 1));
  EXPECT_EQ(declared.rule_for(role(Direction::client, FrameKind::request), "params.turnIds", 2).treatment,
            Treatment::exact);
}

TEST(Masker, EraseModeErasesDeclaredPathsOnly) {
  Masker m(spec_of({"params.turnId"}, MaskMode::erase));
  auto req = role(Direction::client, FrameKind::request);
  EXPECT_EQ(m.rule_for(req, "params.turnId", 2).treatment, Treatment::erase);
  EXPECT_EQ(m.rule_for(req, "id", 1).treatment, Treatment::unify);  // not declared: still unified
  Masker ids(spec_of({"id", "params.commandId"}, MaskMode::erase));
  EXPECT_EQ(ids.rule_for(req, "id", 1).treatment, Treatment::erase);
  EXPECT_EQ(ids.rule_for(req, "params.commandId", 2).treatment, Treatment::erase);
}

TEST(Masker, DeclaredWildcardPathsSelectConcreteLocations) {
  Registry registry = Registry::builtin();
  ASSERT_TRUE(registry.add("params.items[].id"));
  auto spec = make_mask_spec(registry, {"params.items[].id"}, "", 0, {}, MaskMode::unify);
  ASSERT_TRUE(spec);
  Masker m(*spec);
  auto note = role(Direction::server, FrameKind::notification);
  EXPECT_EQ(m.rule_for(note, "params.items[3].id", 4).treatment, Treatment::unify);
  EXPECT_EQ(m.rule_for(note, "params.items[3]", 3).treatment, Treatment::exact);
}

TEST(Unifier, CountsDeclaredValuesAndNamesBothPairingsInConflicts) {
  Unifier u(Masker(spec_of({"params.turnId"})));
  const MaskRule rule = u.masker().rule_for(role(Direction::server, FrameKind::notification), "params.turnId", 2);
  EXPECT_FALSE(u.compare(rule, json::string("t1"), json::string("u1"), 3, 3));
  EXPECT_FALSE(u.compare(rule, json::string("t2"), json::string("t2"), 4, 4));
  auto note = u.compare(rule, json::string("t3"), json::string("u1"), 9, 8);
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("server frames' params.turnId"), std::string::npos) << *note;
  EXPECT_EQ(*note,
            R"(server frames' params.turnId must pair one-to-one: expected "t3" ↔ actual "u1" here, but actual "u1" )"
            R"(is already paired with expected "t1" (expected line 3 ↔ actual line 3))");
  ASSERT_EQ(u.accounting().size(), 1u);
  EXPECT_EQ(u.accounting()[0].covered, 3u);
  EXPECT_EQ(u.accounting()[0].differed, 2u);
}

TEST(Placeholders, NumbersMaskedValuesByFirstAppearance) {
  Placeholders p(Masker(spec_of({"id", "params.turnId"})));
  EXPECT_EQ(p.rewrite(frame(Direction::client,
                            R"({"jsonrpc":"2.0","id":7,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1","title":"T"}}})")),
            R"({"jsonrpc":"2.0","id":"<id:1>","method":"initialize","params":{"clientInfo":{"name":"<value:2>","version":"<value:3>"}}})");
  EXPECT_EQ(p.rewrite(frame(Direction::server, R"({"jsonrpc":"2.0","id":7,"result":{}})")),
            R"({"jsonrpc":"2.0","id":"<id:1>","result":{}})");
  EXPECT_EQ(p.rewrite(frame(Direction::client, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"turn/start\",\"params\":{\"commandId\":\"c1\",\"turnId\":\"c1\"}}\r")),
            "{\"jsonrpc\":\"2.0\",\"id\":\"<id:4>\",\"method\":\"turn/start\",\"params\":{\"commandId\":\"<value:5>\",\"turnId\":\"<value:6>\"}}\r");
  // Nothing masked: the bytes come back as they are.
  const std::string untouched = R"({"method":"initialized",  "jsonrpc":"2.0"})";
  EXPECT_EQ(p.rewrite(frame(Direction::client, untouched)), untouched);
  EXPECT_EQ(p.rewrite(frame(Direction::server, "not json")), "not json");
  EXPECT_EQ(p.accounting()[0].covered, 3u);  // id: two client requests, one response
  EXPECT_EQ(p.accounting()[1].covered, 1u);
}

TEST(Placeholders, ErasedValuesCarryNoNumber) {
  Placeholders p(Masker(spec_of({"params.turnId"}, MaskMode::erase)));
  EXPECT_EQ(p.rewrite(frame(Direction::server, R"({"jsonrpc":"2.0","method":"turn/started","params":{"turnId":"t"}})")),
            R"({"jsonrpc":"2.0","method":"turn/started","params":{"turnId":"<value>"}})");
}

// A null id (a parse-error response) names no request: it stays null in both modes, so the
// normalized response still answers nothing (a fuzz finding: erased, it answered a request).
TEST(Placeholders, ANullIdStaysNull) {
  for (MaskMode mode : {MaskMode::unify, MaskMode::erase}) {
    Placeholders p(Masker(spec_of({"id"}, mode)));
    EXPECT_EQ(p.rewrite(frame(Direction::server, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}})")),
              R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}})");
    EXPECT_EQ(p.rewrite(frame(Direction::server, R"({"jsonrpc":"2.0","id":4,"result":{}})")),
              mode == MaskMode::erase ? R"({"jsonrpc":"2.0","id":"<id>","result":{}})" : R"({"jsonrpc":"2.0","id":"<id:1>","result":{}})");
  }
}

// Erased ids keep the pairing (a fuzz finding: as "<id>" everywhere, a response answered the
// oldest request in flight): the lowest free number per sender, a response takes its request's,
// a duplicate id in flight shares it, a response to no request gets "<id>".
TEST(Placeholders, ErasedIdsKeepWhichRequestAResponseAnswers) {
  Placeholders p(Masker(spec_of({"id"}, MaskMode::erase)));
  auto id_of = [&](Direction dir, const std::string& json) {
    auto value = boost::json::parse(p.rewrite(frame(dir, json)));
    return std::string(value.as_object().at("id").as_string());
  };
  const auto c = Direction::client, s = Direction::server;
  EXPECT_EQ(id_of(c, R"({"jsonrpc":"2.0","id":10,"method":"a"})"), "<id@1>");
  EXPECT_EQ(id_of(c, R"({"jsonrpc":"2.0","id":"x","method":"b"})"), "<id@2>");
  EXPECT_EQ(id_of(s, R"({"jsonrpc":"2.0","id":10,"method":"approval/request"})"), "<id@1>");  // its own numbers
  EXPECT_EQ(id_of(s, R"({"jsonrpc":"2.0","id":"x","result":{}})"), "<id@2>");    // out of order
  EXPECT_EQ(id_of(s, R"({"jsonrpc":"2.0","id":99,"result":{}})"), "<id>");       // answers nothing
  EXPECT_EQ(id_of(c, R"({"jsonrpc":"2.0","id":11,"method":"c"})"), "<id@2>");    // 2 is free again
  EXPECT_EQ(id_of(c, R"({"jsonrpc":"2.0","id":11,"method":"d"})"), "<id@2>");    // a duplicate in flight
  EXPECT_EQ(id_of(c, R"({"jsonrpc":"2.0","id":10,"result":{}})"), "<id@1>");     // answers the server's
  EXPECT_EQ(id_of(s, R"({"jsonrpc":"2.0","id":10,"result":{}})"), "<id@1>");
  EXPECT_EQ(id_of(s, R"({"jsonrpc":"2.0","id":10,"result":{}})"), "<id>");       // answered already
  EXPECT_EQ(id_of(c, R"({"jsonrpc":"2.0","id":"y","method":"e"})"), "<id@1>");
  EXPECT_EQ(p.accounting()[0].covered, 11u);
}

// With nothing declared, a server frame that cannot hold a member "id" is kept unparsed (issue
// 12): the shortcut must still see every spelling of "id", and give what the walk gives.
TEST(Placeholders, KeepsUnparsedOnlyServerFramesWithoutAMemberId) {
  Placeholders p(Masker(spec_of({})));
  const std::string notification = R"({"jsonrpc":"2.0","method":"item/delta","params":{"itemId":"i","delta":"id"}})";
  EXPECT_FALSE(p.rewritten(frame(Direction::server, notification)));
  EXPECT_EQ(p.rewrite(frame(Direction::server, notification)), notification);
  EXPECT_EQ(p.rewrite(frame(Direction::server, R"({"jsonrpc":"2.0","id":7,"result":{}})")),
            R"({"jsonrpc":"2.0","id":"<id:1>","result":{}})");
  // The name spelled with escapes, and spaces around it.
  EXPECT_EQ(p.rewrite(frame(Direction::server, R"({"jsonrpc":"2.0","\u0069d":7,"result":{}})")),
            R"({"jsonrpc":"2.0","id":"<id:1>","result":{}})");
  EXPECT_EQ(p.rewrite(frame(Direction::server, R"({"jsonrpc":"2.0","i\u0064":8,"result":{}})")),
            R"({"jsonrpc":"2.0","id":"<id:2>","result":{}})");
  EXPECT_EQ(p.rewrite(frame(Direction::server, "{ \"jsonrpc\" : \"2.0\" , \"id\" : 9 , \"result\" : 1 }")),
            "{\"jsonrpc\":\"2.0\",\"id\":\"<id:3>\",\"result\":1}");
  // Client frames and declared paths always take the walk.
  EXPECT_EQ(p.rewrite(frame(Direction::client, R"({"jsonrpc":"2.0","id":3,"method":"m"})")),
            R"({"jsonrpc":"2.0","id":"<id:4>","method":"m"})");
  Placeholders declared(Masker(spec_of({"params.itemId"})));
  EXPECT_EQ(declared.rewrite(frame(Direction::server, notification)),
            R"({"jsonrpc":"2.0","method":"item/delta","params":{"itemId":"<value:1>","delta":"id"}})");
  // --sort-members rewrites every frame.
  Placeholders sorted(Masker(spec_of({})), true);
  EXPECT_EQ(sorted.rewrite(frame(Direction::server, notification)),
            R"({"jsonrpc":"2.0","method":"item/delta","params":{"delta":"id","itemId":"i"}})");
}

TEST(Canonical, NumbersKeepTheirExactValue) {
  auto canon = [](const char* t) { return canonical_json(*parse_json(t)); };
  EXPECT_EQ(canon("[1e400,1.0,123456789012345678901234567890,0.5]"), "[1e400,1,123456789012345678901234567890,0.5]");
  EXPECT_NE(canon("1e400"), canon("1e401"));
  EXPECT_EQ(canon("1e400"), canon("10e399"));
  EXPECT_FALSE(json_equal(*parse_json("123456789012345678901234567890"), *parse_json("123456789012345678901234567891")));
  EXPECT_TRUE(json_equal(*parse_json("[1e400]"), *parse_json("[1.0e400]")));
  // Canonical text is strict JSON: it parses back.
  EXPECT_TRUE(parse_json(canon(R"({"b":[1e400,-1e-400],"a":"\u001b"})")));
  const std::string deep = std::string(10000, '[') + std::string(10000, ']');
  EXPECT_EQ(canon(deep.c_str()), deep);
}

}  // namespace
}  // namespace msptk
