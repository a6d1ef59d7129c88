// The script module: the parser and its rules, references, the commandId minter, the player
// against an in-memory host (FakeLink), and record_script through record() with a PipeHost.
#include "msptk/recorder/clock.hpp"
#include "msptk/script/command_id.hpp"
#include "msptk/script/player.hpp"
#include "msptk/script/reference.hpp"
#include "msptk/script/scripted_record.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"
#include "pipe_host.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <set>

namespace msptk::script {
namespace {

namespace json = boost::json;

Result<Script> parse(std::string_view text) { return parse_script(text, "s.ndjson"); }

// The rule and line of a script that must not parse.
std::pair<std::string, std::size_t> refused(std::string_view text) {
  auto s = parse(text);
  if (s) return {"(parsed)", 0};
  EXPECT_EQ(s.error().kind, ErrorKind::usage);
  EXPECT_EQ(s.error().file, "s.ndjson");
  return {s.error().rule, s.error().line};
}

TEST(Script, ParsesEveryStepKindWithMintedIds) {
  auto s = parse(R"(# a comment, then a blank line

{"handshake": {"clientInfo": {"name": "t", "version": "1"}}}
{"command": "session/start", "params": {"workspaceRoot": "/w"}, "name": "start"}
{"request": "model/list", "wait": false}
{"send": {"jsonrpc": "2.0", "id": 7, "method": "x/y"}}
{"request": "after/seven"}
{"notify": "userInput/engaged", "params": {"a": 1}}
{"answer": "approval/request", "result": {}, "timeoutMs": 50}
{"answer": "userInput/request", "error": {"code": -32000, "message": "no"}, "always": true}
{"wait": "turn/completed", "where": {"params.sessionId": "${start:result.session.sessionId}"}}
{"quiet": 100, "timeoutMs": 500}
)");
  ASSERT_TRUE(s) << s.error().render();
  ASSERT_EQ(s->steps.size(), 10u);
  const auto& st = s->steps;
  EXPECT_EQ(st[0].kind, StepKind::handshake);
  EXPECT_EQ(st[0].line, 3u);
  EXPECT_EQ(*st[0].id, json::value(1));
  EXPECT_TRUE(st[1].command);
  EXPECT_EQ(*st[1].id, json::value(2));
  EXPECT_EQ(st[1].name, "start");
  EXPECT_FALSE(st[2].wait_response);
  EXPECT_EQ(*st[2].id, json::value(3));
  EXPECT_TRUE(st[3].is_request);
  EXPECT_EQ(*st[3].id, json::value(7));
  EXPECT_EQ(*st[4].id, json::value(8));  // past every integer id used before
  EXPECT_EQ(st[5].kind, StepKind::notify);
  EXPECT_FALSE(st[5].is_request);
  EXPECT_EQ(st[6].timeout_ms, 50);
  EXPECT_TRUE(st[7].is_error);
  EXPECT_TRUE(st[7].always);
  ASSERT_EQ(st[8].where.size(), 1u);
  EXPECT_EQ(st[8].where[0].first.text(), "params.sessionId");
  EXPECT_EQ(st[9].quiet_ms, 100);
  EXPECT_EQ(s->named("start"), &st[1]);
  EXPECT_EQ(s->sha256.size(), 64u);
}

TEST(Script, EachRuleNamesItsLine) {
  EXPECT_EQ(refused("{\"notify\": \"a\"}\n{nope\n"), (std::pair<std::string, std::size_t>{"script.json", 2}));
  EXPECT_EQ(refused("[1]\n").first, "script.step");
  EXPECT_EQ(refused("{\"request\": \"a\", \"notify\": \"b\"}\n").first, "script.step");
  EXPECT_EQ(refused("{\"sleep\": 5}\n").first, "script.unknown-step");
  EXPECT_EQ(refused("{\"wait\": true}\n").first, "script.unknown-step");
  EXPECT_EQ(refused("{\"request\": \"a\", \"parms\": {}}\n").first, "script.member");
  EXPECT_EQ(refused("{\"request\": \"\"}\n").first, "script.member");
  EXPECT_EQ(refused("{\"command\": \"a\", \"params\": [1]}\n").first, "script.member");
  EXPECT_EQ(refused("{\"notify\": \"a\", \"wait\": false}\n").first, "script.member");
  EXPECT_EQ(refused("{\"request\": \"a\", \"timeoutMs\": 0}\n").first, "script.member");
  EXPECT_EQ(refused("{\"answer\": \"a\"}\n").first, "script.member");
  EXPECT_EQ(refused("{\"answer\": \"a\", \"error\": {\"code\": \"x\"}}\n").first, "script.member");
  EXPECT_EQ(refused("{\"quiet\": 500, \"timeoutMs\": 500}\n").first, "script.member");
  EXPECT_EQ(refused("{\"send\": {\"id\": 1, \"method\": \"a\"}}\n").first, "script.frame");
  EXPECT_EQ(refused("{\"request\": \"a\", \"name\": \"n\"}\n{\"send\": {\"jsonrpc\": \"2.0\", \"id\": \"${n:id}\", \"method\": \"b\"}}\n").first,
            "script.member");
  EXPECT_EQ(refused("{\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"a\"}, \"wait\": false}\n").first, "script.member");
  EXPECT_EQ(refused("{\"notify\": \"a\", \"params\": {\"x\": \"${start}\"}}\n").first, "script.reference");
  EXPECT_EQ(refused("{\"notify\": \"a\", \"params\": {\"x\": \"${last :id}\"}}\n").first, "script.reference");
  EXPECT_EQ(refused("{\"notify\": \"a\", \"params\": {\"x\": \"${a:result..x}\"}}\n").first, "script.path");
  EXPECT_EQ(refused("{\"wait\": \"a\", \"where\": {\"params[\": 1}}\n").first, "script.path");
  EXPECT_EQ(refused("{\"notify\": \"a\", \"params\": {\"x\": \"${later:result}\"}}\n{\"request\": \"b\", \"name\": \"later\"}\n"),
            (std::pair<std::string, std::size_t>{"script.unknown-name", 1}));
  EXPECT_EQ(refused("{\"wait\": \"a\", \"name\": \"w\"}\n{\"notify\": \"b\", \"params\": {\"x\": \"${w:params}\"}}\n"),
            (std::pair<std::string, std::size_t>{"script.not-request", 2}));
  EXPECT_EQ(refused("{\"request\": \"a\", \"name\": \"n\"}\n{\"request\": \"b\", \"name\": \"n\"}\n").first,
            "script.duplicate-name");
  EXPECT_EQ(refused("{\"request\": \"a\"}\n{\"request\": \"b\", \"id\": 1}\n").first, "script.duplicate-id");
  EXPECT_EQ(refused("# only a comment\n\n"), (std::pair<std::string, std::size_t>{"script.empty", 0}));
  // Every rule a parse can break is listed.
  std::set<std::string> listed;
  for (const auto& rule : script_rules()) listed.insert(std::string(rule.id));
  for (const char* id : {"script.json", "script.step", "script.unknown-step", "script.member", "script.frame",
                         "script.reference", "script.path", "script.unknown-name", "script.not-request",
                         "script.duplicate-name", "script.duplicate-id", "script.empty", "script.timeout",
                         "script.unresolved", "script.handshake", "script.host-closed"})
    EXPECT_TRUE(listed.count(id)) << id;
}

TEST(Script, ReferencesAreWholeStringsAndResolveToAnyType) {
  auto ref = parse_reference("${start:result.session.sessionId}");
  ASSERT_TRUE(ref && *ref);
  EXPECT_FALSE((*ref)->last);
  EXPECT_EQ((*ref)->name, "start");
  EXPECT_EQ((*ref)->path.text(), "result.session.sessionId");
  auto last = parse_reference("${last approval/request:params.approvalId}");
  ASSERT_TRUE(last && *last);
  EXPECT_TRUE((*last)->last);
  EXPECT_EQ((*last)->name, "approval/request");
  auto plain = parse_reference("a ${x:y} in text");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(*plain);

  auto value = parse_json(R"({"a": "${s:result.n}", "b": ["$${s:x}", "${last m:params}"], "${k:x}": 1})");
  ASSERT_TRUE(value);
  auto out = resolve_references(*value, [](const Reference& r) -> Result<json::value> {
    if (r.last) return json::value(json::object{{"deep", true}});
    return json::value(42);
  });
  ASSERT_TRUE(out);
  EXPECT_EQ(serialize_json(*out), R"({"a":42,"b":["${s:x}",{"deep":true}],"${k:x}":1})");
}

TEST(Script, CommandIdsAreSeededUuidV7) {
  CommandIdMinter a(7, 1754590931000), b(7, 1754590931000), c(8, 1754590931000);
  const std::string first = a.next(), second = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, c.next());
  EXPECT_NE(first, second);
  ASSERT_EQ(first.size(), 36u);
  EXPECT_EQ(first[14], '7');                                   // version 7
  EXPECT_TRUE(std::string("89ab").find(first[19]) != std::string::npos);  // variant 10
  EXPECT_EQ(first.substr(0, 13), "019885c4-e838");              // 1754590931000 ms = 0x019885c4e838
  EXPECT_LT(first, second);                                    // the timestamp counts up
}

// An in-memory host: `respond` sees every frame the player sends and returns the lines the host
// writes in answer. With nothing left to read, next() times out at once (or says closed).
class FakeLink : public ClientLink {
 public:
  std::function<std::vector<std::string>(const json::value&)> respond = [](const json::value&) {
    return std::vector<std::string>{};
  };
  std::vector<std::string> sent;
  std::deque<std::string> pending;
  bool closes = false;  // the host's output ends once pending is read
  bool endless = false;  // the host writes a tick notification whenever one is read (never quiet)
  Sent send(std::string_view frame, Clock::time_point, const LineSink&) override {
    sent.emplace_back(frame);
    auto v = parse_json(frame);
    EXPECT_TRUE(v);
    for (auto& line : respond(*v)) pending.push_back(line);
    return Sent{Sent::sent, frame.size() + 1};
  }
  Got next(ServerLine& line, Clock::time_point) override {
    if (pending.empty() && endless) pending.push_back(R"({"jsonrpc":"2.0","method":"tick"})");
    if (pending.empty()) return closes ? Got::closed : Got::timeout;
    line = ServerLine{pending.front(), std::nullopt};
    pending.pop_front();
    return Got::line;
  }
};

std::string result_for(const json::value& frame, std::string_view result) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + serialize_json(frame.at("id")) + ",\"result\":" + std::string(result) + "}";
}

// A small MSP host in memory: a session id "S-1", a turn with an approval request.
std::vector<std::string> msp_host(const json::value& f) {
  const Envelope env = classify(f);
  if (env.kind == FrameKind::response) return {R"({"jsonrpc":"2.0","method":"turn/completed","params":{"sessionId":"S-1","terminal":"completed"}})"};
  if (env.kind != FrameKind::request) return {};
  if (env.method == "initialize") return {result_for(f, R"({"schema":{"version":1}})")};
  if (env.method == "session/start")
    return {R"({"jsonrpc":"2.0","method":"session/started","params":{"session":{"sessionId":"S-1"}}})",
            result_for(f, R"({"session":{"sessionId":"S-1","n":3}})")};
  if (env.method == "turn/start")
    return {result_for(f, R"({"turnId":"T-1"})"),
            R"({"jsonrpc":"2.0","method":"turn/started","params":{"sessionId":"S-1"}})",
            R"({"jsonrpc":"2.0","id":"srv-1","method":"approval/request","params":{"approvalId":"A-9"}})"};
  if (env.method == "fail") return {R"({"jsonrpc":"2.0","id":)" + serialize_json(f.at("id")) + R"(,"error":{"code":-32000,"message":"no"}})"};
  return {result_for(f, "{}")};
}

TEST(Script, PlayerSendsMintsLearnsWaitsAndAnswers) {
  auto s = parse(R"({"handshake": {"clientInfo": {"name": "t", "version": "1"}}}
{"command": "session/start", "params": {"workspaceRoot": "/w"}, "name": "start"}
{"command": "turn/start", "params": {"sessionId": "${start:result.session.sessionId}", "n": "${start:result.session.n}"}}
{"answer": "approval/request", "result": {"seen": "${last approval/request:params.approvalId}"}}
{"wait": "turn/completed", "where": {"params.sessionId": "${start:result.session.sessionId}"}}
)");
  ASSERT_TRUE(s) << s.error().render();
  FakeLink link;
  link.respond = msp_host;
  auto outcome = play(*s, link, PlayOptions{7, 1754590931000});
  ASSERT_TRUE(outcome.complete()) << outcome.failure->render();
  EXPECT_EQ(outcome.steps_played, 5u);
  CommandIdMinter minter(7, 1754590931000);
  const std::string c1 = minter.next(), c2 = minter.next();
  ASSERT_EQ(link.sent.size(), 5u);
  EXPECT_EQ(link.sent[0], R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}})");
  EXPECT_EQ(link.sent[1], R"({"jsonrpc":"2.0","method":"initialized"})");
  EXPECT_EQ(link.sent[2], R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"workspaceRoot":"/w","commandId":")" + c1 + R"("}})");
  EXPECT_EQ(link.sent[3], R"({"jsonrpc":"2.0","id":3,"method":"turn/start","params":{"sessionId":"S-1","n":3,"commandId":")" + c2 + R"("}})");
  EXPECT_EQ(link.sent[4], R"({"jsonrpc":"2.0","id":"srv-1","result":{"seen":"A-9"}})");
}

TEST(Script, AWaitTakesFramesInOrderAndForgetsWhatCameBefore) {
  auto s = parse(R"({"request": "go"}
{"wait": "tick", "where": {"params.n": 2}}
{"wait": "tick"}
{"wait": "tick", "where": {"params.n": 1}, "timeoutMs": 20}
)");
  ASSERT_TRUE(s);
  FakeLink link;
  link.respond = [](const json::value& f) {
    return std::vector<std::string>{result_for(f, "{}"), R"({"jsonrpc":"2.0","method":"tick","params":{"n":1}})",
                                    R"({"jsonrpc":"2.0","method":"tick","params":{"n":2}})",
                                    R"({"jsonrpc":"2.0","method":"tick","params":{"n":3}})"};
  };
  auto outcome = play(*s, link, {});
  ASSERT_FALSE(outcome.complete());
  EXPECT_EQ(outcome.steps_played, 3u);  // n=2, then n=3; n=1 came before n=2, so it is gone
  EXPECT_EQ(outcome.failure->rule, "script.timeout");
  EXPECT_EQ(outcome.failure->line, 4u);
  EXPECT_EQ(outcome.failure->kind, ErrorKind::conformance);
  EXPECT_EQ(outcome.failure->message,
            "waiting for tick with params.n = 1: timed out after 20 ms; nothing arrived since the previous wait");

  // What arrived instead of the waited frame: every frame since the previous wait, with its values.
  auto nine = parse("{\"request\": \"go\"}\n{\"wait\": \"tick\", \"where\": {\"params.n\": 9}, \"timeoutMs\": 20}\n");
  ASSERT_TRUE(nine);
  FakeLink again;
  again.respond = link.respond;
  outcome = play(*nine, again, {});
  ASSERT_FALSE(outcome.complete());
  EXPECT_EQ(outcome.failure->message,
            "waiting for tick with params.n = 9: timed out after 20 ms; arrived since the previous wait: tick "
            "(params.n = 1), tick (params.n = 2), tick (params.n = 3)");
}

TEST(Script, ATimeoutSaysWhatArrivedInstead) {
  auto s = parse("{\"command\": \"turn/start\"}\n{\"wait\": \"turn/completed\", \"timeoutMs\": 30}\n");
  ASSERT_TRUE(s);
  FakeLink link;
  link.respond = [](const json::value& f) {
    auto lines = msp_host(f);
    lines.push_back(R"({"jsonrpc":"2.0","method":"item/delta"})");
    lines.push_back(R"({"jsonrpc":"2.0","method":"item/delta"})");
    lines.push_back("not json");
    return lines;
  };
  // The response arrives during step 1; what follows it, during step 2.
  auto outcome = play(*s, link, {});
  ASSERT_FALSE(outcome.complete());
  EXPECT_EQ(outcome.failure->render(),
            "s.ndjson:2: waiting for turn/completed: timed out after 30 ms; arrived since the previous wait: "
            "turn/started, approval/request (request id \"srv-1\"), item/delta x2 [script.timeout]");
}

TEST(Script, AHostThatNeverStopsWritingCannotHoldAStepPastItsTimeout) {
  auto s = parse("{\"quiet\": 5}\n");
  ASSERT_TRUE(s);
  FakeLink quiet;
  auto o = play(*s, quiet, {});
  EXPECT_TRUE(o.complete());  // nothing to read: quiet at once

  for (const char* text : {"{\"quiet\": 5, \"timeoutMs\": 30}\n", "{\"wait\": \"done\", \"timeoutMs\": 30}\n",
                           "{\"answer\": \"approval/request\", \"result\": {}, \"timeoutMs\": 30}\n"}) {
    SCOPED_TRACE(text);
    auto chatty = parse(text);
    ASSERT_TRUE(chatty);
    FakeLink link;
    link.endless = true;
    o = play(*chatty, link, {});
    ASSERT_FALSE(o.complete());
    EXPECT_EQ(o.failure->rule, "script.timeout");
    EXPECT_NE(o.failure->message.find("timed out after 30 ms; "), std::string::npos) << o.failure->message;
  }
}

TEST(Script, UnresolvableReferencesStopThePlay) {
  FakeLink link;
  link.respond = msp_host;
  auto error_response = parse(R"({"request": "fail", "name": "f"}
{"notify": "x", "params": {"v": "${f:result.v}"}}
)");
  ASSERT_TRUE(error_response);
  auto o = play(*error_response, link, {});
  ASSERT_FALSE(o.complete());
  EXPECT_EQ(o.failure->rule, "script.unresolved");
  EXPECT_EQ(o.failure->line, 2u);
  EXPECT_EQ(o.failure->message,
            "reference \"${f:result.v}\": the response to fail (line 1) is an error: {\"code\":-32000,\"message\":\"no\"}");

  auto no_path = parse(R"({"command": "session/start", "name": "s"}
{"notify": "x", "params": {"v": "${s:result.session.missing}"}}
)");
  ASSERT_TRUE(no_path);
  FakeLink link2;
  link2.respond = msp_host;
  o = play(*no_path, link2, {});
  ASSERT_FALSE(o.complete());
  EXPECT_EQ(o.failure->rule, "script.unresolved");
  EXPECT_NE(o.failure->message.find("has no value at result.session.missing"), std::string::npos) << o.failure->message;

  auto nothing_yet = parse("{\"notify\": \"x\", \"params\": {\"v\": \"${last turn/started:params}\"}}\n");
  ASSERT_TRUE(nothing_yet);
  FakeLink link3;
  o = play(*nothing_yet, link3, {});
  ASSERT_FALSE(o.complete());
  EXPECT_EQ(o.failure->message, "reference \"${last turn/started:params}\": no turn/started frame has arrived from the host; nothing arrived");
  EXPECT_TRUE(link3.sent.empty());  // nothing improvised: the frame was not sent
}

TEST(Script, PipelinedRequestsAreAnsweredLaterAndReferencesWaitForThem) {
  auto s = parse(R"({"command": "session/start", "name": "s", "wait": false}
{"request": "model/list", "wait": false}
{"notify": "x", "params": {"v": "${s:result.session.sessionId}"}}
)");
  ASSERT_TRUE(s);
  FakeLink link;
  std::vector<std::string> held;  // the host answers only once both requests are in
  link.respond = [&](const json::value& f) {
    auto lines = msp_host(f);
    if (classify(f).method == "session/start") {
      held = lines;
      return std::vector<std::string>{};
    }
    lines.insert(lines.end(), held.begin(), held.end());
    return lines;
  };
  auto o = play(*s, link, {});
  ASSERT_TRUE(o.complete()) << o.failure->render();
  ASSERT_EQ(link.sent.size(), 3u);
  EXPECT_EQ(link.sent[2], R"({"jsonrpc":"2.0","method":"x","params":{"v":"S-1"}})");
}

TEST(Script, HandshakeErrorsAndAClosedHost) {
  auto s = parse("{\"handshake\": {}}\n{\"request\": \"a\"}\n");
  ASSERT_TRUE(s);
  FakeLink link;
  link.respond = [](const json::value& f) {
    return std::vector<std::string>{R"({"jsonrpc":"2.0","id":)" + serialize_json(f.at("id")) +
                                    R"(,"error":{"code":-32600,"message":"bad"}})"};
  };
  auto o = play(*s, link, {});
  ASSERT_FALSE(o.complete());
  EXPECT_EQ(o.failure->rule, "script.handshake");
  EXPECT_EQ(link.sent.size(), 1u);  // no initialized after a failed initialize

  FakeLink gone;
  gone.closes = true;
  o = play(*s, gone, {});
  ASSERT_FALSE(o.complete());
  EXPECT_EQ(o.failure->kind, ErrorKind::peer);
  EXPECT_EQ(o.failure->render(),
            "s.ndjson:1: waiting for the response to initialize (id 1): the host closed its output (it exited or "
            "died); nothing arrived [script.host-closed]");
}

TEST(Script, AlwaysAnswersEveryRequestOfItsMethod) {
  auto s = parse(R"({"answer": "userInput/request", "result": {"ok": true}, "always": true}
{"request": "go"}
{"wait": "done"}
)");
  ASSERT_TRUE(s);
  FakeLink link;
  int answered = 0;
  link.respond = [&](const json::value& f) {
    const Envelope env = classify(f);
    if (env.kind == FrameKind::response) {
      if (++answered == 2) return std::vector<std::string>{R"({"jsonrpc":"2.0","method":"done"})"};
      return std::vector<std::string>{};
    }
    return std::vector<std::string>{result_for(f, "{}"), R"({"jsonrpc":"2.0","id":10,"method":"userInput/request"})",
                                    R"({"jsonrpc":"2.0","id":11,"method":"userInput/request"})"};
  };
  auto o = play(*s, link, {});
  ASSERT_TRUE(o.complete()) << o.failure->render();
  ASSERT_EQ(link.sent.size(), 3u);
  EXPECT_EQ(link.sent[1], R"({"jsonrpc":"2.0","id":10,"result":{"ok":true}})");
  EXPECT_EQ(link.sent[2], R"({"jsonrpc":"2.0","id":11,"result":{"ok":true}})");
}

// record_script through record(): the player's frames go through the recorder like a client's.
process::ExitStatus pipe_msp_host(int in, int out) {
  std::string buffer;
  char chunk[4096];
  while (true) {
    const ssize_t n = ::read(in, chunk, sizeof chunk);
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    std::size_t lf;
    while ((lf = buffer.find('\n')) != std::string::npos) {
      auto frame = parse_json(std::string_view(buffer).substr(0, lf));
      buffer.erase(0, lf + 1);
      if (!frame) continue;
      for (const auto& line : msp_host(*frame)) {
        std::string wire = line + "\n";
        if (::write(out, wire.data(), wire.size()) < 0) return {};
      }
    }
  }
  return {};
}

TEST(Script, RecordScriptRecordsThroughTheRecorder) {
  test::TempDir tmp;
  auto s = parse(R"({"handshake": {"clientInfo": {"name": "t", "version": "1"}}}
{"command": "session/start", "name": "start"}
{"command": "turn/start", "params": {"sessionId": "${start:result.session.sessionId}"}}
{"answer": "approval/request", "result": {}}
{"wait": "turn/completed"}
{"wait": "never", "timeoutMs": 50}
)");
  ASSERT_TRUE(s);
  recorder::FixedClock clock(std::chrono::system_clock::time_point(std::chrono::milliseconds(1754590931000)));
  recorder::RecordEnv env;
  env.clock = &clock;
  env.handle_signals = false;
  env.spawn = [](const process::SpawnSpec&) -> Result<std::unique_ptr<process::HostProcess>> {
    return std::unique_ptr<process::HostProcess>(
        std::make_unique<test::PipeHost>([](int in, int out, int, const auto&) { return pipe_msp_host(in, out); }));
  };
  recorder::RecordOptions options;
  options.out = tmp / "rec";
  options.host_argv = {"host"};
  auto outcome = record_script(*s, options, PlayOptions{9, options.clock_start_ms}, env);
  ASSERT_TRUE(outcome) << outcome.error().render();
  ASSERT_FALSE(outcome->play.complete());
  EXPECT_EQ(outcome->play.failure->line, 6u);
  auto frames = read_transcript(tmp / "rec" / "transcript.ndjson");
  ASSERT_TRUE(frames);
  ASSERT_EQ(frames->size(), 12u);
  EXPECT_EQ((*frames)[0].raw, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}})");
  EXPECT_EQ((*frames)[10].raw, R"({"jsonrpc":"2.0","id":"srv-1","result":{}})");
  auto manifest = read_manifest(tmp / "rec" / "manifest.json");
  ASSERT_TRUE(manifest);
  const Manifest& m = manifest->manifest;
  EXPECT_EQ(m.seeds_extra.at("commandIdSeed"), 9);
  EXPECT_EQ(m.capture->at("status"), "incomplete");
  EXPECT_EQ(m.capture->at("script").at("stepsPlayed"), 5);
  EXPECT_EQ(m.capture->at("script").at("failure").at("rule"), "script.timeout");
  EXPECT_EQ(m.capture->at("client").at("frames"), 5);
}

}  // namespace
}  // namespace msptk::script
