// The script player's bounds (issue 30): minted ids and commandIds at their integer edges, a
// send that the host does not take within the step's timeout, what the wait queue keeps of a
// flood, and lines past the link's limit (FdLink over real pipes, EnvelopeScan).
#include "msptk/script/command_id.hpp"
#include "msptk/script/envelope_scan.hpp"
#include "msptk/script/fd_link.hpp"
#include "msptk/script/player.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <climits>
#include <deque>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::script {
namespace {

namespace json = boost::json;
using Clock = ClientLink::Clock;

Result<Script> parse(std::string_view text) { return parse_script(text, "s.ndjson"); }

std::vector<std::string> ids_of(const Script& s) {
  std::vector<std::string> ids;
  for (const Step& step : s.steps)
    if (step.id) ids.push_back(serialize_json(*step.id));
  return ids;
}

TEST(ScriptBounds, MintedIdsCountUpWithinInt64AndStopAtItsEdge) {
  // Negative ids and INT64_MIN do not pull the count below 1.
  auto s = parse(R"({"request": "a", "id": -9223372036854775808}
{"request": "b", "id": -1}
{"request": "c"}
{"request": "d", "id": 0}
{"request": "e"}
)");
  ASSERT_TRUE(s) << s.error().render();
  EXPECT_EQ(ids_of(*s), (std::vector<std::string>{"-9223372036854775808", "-1", "1", "0", "2"}));

  // The last id that can be minted is INT64_MAX; the next request without an id is refused,
  // naming the line that used it.
  s = parse("{\"request\": \"a\", \"id\": 9223372036854775806}\n{\"request\": \"b\"}\n{\"request\": \"c\"}\n");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().rule, "script.id-range");
  EXPECT_EQ(s.error().line, 3u);
  EXPECT_NE(s.error().message.find("line 2 uses the id 9223372036854775807"), std::string::npos) << s.error().message;
  s = parse("{\"request\": \"a\", \"id\": 9223372036854775806}\n{\"request\": \"b\"}\n{\"request\": \"c\", \"id\": \"x\"}\n");
  ASSERT_TRUE(s) << s.error().render();
  EXPECT_EQ(ids_of(*s), (std::vector<std::string>{"9223372036854775806", "9223372036854775807", "\"x\""}));

  // A uint64 id (a send's or a request's) is past int64: nothing can be minted after it.
  for (const char* first : {R"({"send": {"jsonrpc": "2.0", "id": 18446744073709551615, "method": "a"}})",
                            R"({"request": "a", "id": 9223372036854775808})"}) {
    SCOPED_TRACE(first);
    s = parse(std::string(first) + "\n{\"command\": \"b\"}\n");
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().rule, "script.id-range");
    EXPECT_EQ(s.error().line, 2u);
  }
  // Beyond 64 bits, or not an integer: refused as an id.
  for (const char* id : {"18446744073709551616", "-9223372036854775809", "1.5", "1e3", "1e400"}) {
    SCOPED_TRACE(id);
    s = parse(fmt::format("{{\"request\": \"a\", \"id\": {}}}\n", id));
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().rule, "script.member");
    EXPECT_NE(s.error().message.find("an integer from -9223372036854775808 to 18446744073709551615 or a string"),
              std::string::npos);
  }
  for (const char* id : {"18446744073709551616", "-9223372036854775809", "1.5", "1e400"}) {
    SCOPED_TRACE(id);
    s = parse(fmt::format("{{\"send\": {{\"jsonrpc\": \"2.0\", \"id\": {}, \"method\": \"a\"}}}}\n", id));
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().rule, "script.frame");
  }
  // A send's id written as a whole number with an exponent counts as that integer.
  s = parse("{\"send\": {\"jsonrpc\": \"2.0\", \"id\": 1e3, \"method\": \"a\"}}\n{\"request\": \"b\"}\n");
  ASSERT_TRUE(s) << s.error().render();
  EXPECT_EQ(serialize_json(*s->steps[1].id), "1001");
}

TEST(ScriptBounds, CommandIdsAtTheEdgesOfTheSeedAndTheClock) {
  // Every int64 is a seed: distinct streams, well-formed UUIDv7s.
  std::set<std::string> firsts;
  for (std::int64_t seed : {INT64_MIN, std::int64_t{-1}, std::int64_t{0}, std::int64_t{7}, INT64_MAX}) {
    CommandIdMinter minter(seed, 0);
    const std::string id = minter.next();
    ASSERT_EQ(id.size(), 36u);
    EXPECT_EQ(id.substr(0, 13), "00000000-0000");  // time 0
    EXPECT_EQ(id[14], '7');
    firsts.insert(id);
  }
  EXPECT_EQ(firsts.size(), 5u);
  CommandIdMinter last(7, kMaxCommandIdTimeMs);
  EXPECT_EQ(last.next().substr(0, 13), "ffffffff-ffff");

  // The clock start: every minted time within 0 .. 2^48-1, or refused naming --clock-start-ms.
  EXPECT_FALSE(clock_start_problem(0, 1));
  EXPECT_FALSE(clock_start_problem(kMaxCommandIdTimeMs, 1));
  EXPECT_FALSE(clock_start_problem(kMaxCommandIdTimeMs - 2, 3));
  EXPECT_FALSE(clock_start_problem(-1, 0));  // mints nothing: any clock start
  EXPECT_FALSE(clock_start_problem(INT64_MAX, 0));
  for (auto [start, ids] : std::vector<std::pair<std::int64_t, std::size_t>>{
           {-1, 1}, {INT64_MIN, 1}, {kMaxCommandIdTimeMs, 2}, {kMaxCommandIdTimeMs + 1, 1}, {INT64_MAX, 1},
           {0, static_cast<std::size_t>(kMaxCommandIdTimeMs) + 2}, {1, SIZE_MAX}}) {
    SCOPED_TRACE(fmt::format("{} {}", start, ids));
    auto problem = clock_start_problem(start, ids);
    ASSERT_TRUE(problem);
    EXPECT_EQ(problem->rfind(fmt::format("--clock-start-ms {}: ", start), 0), 0u) << *problem;
  }
  auto s = parse("{\"command\": \"a\"}\n{\"command\": \"b\", \"params\": {\"commandId\": \"mine\"}}\n{\"command\": \"c\"}\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->minted_command_ids(), 2u);
}

// An in-memory host that answers "go" with `lines`.
class ListLink : public ClientLink {
 public:
  std::vector<std::string> lines;
  std::deque<ServerLine> pending;
  Sent send(std::string_view frame, Clock::time_point, const LineSink&) override {
    auto v = parse_json(frame);
    if (v && classify(*v).kind == FrameKind::request)
      for (const auto& line : lines) pending.push_back(ServerLine{line, std::nullopt});
    return Sent{Sent::sent, frame.size() + 1};
  }
  Got next(ServerLine& line, Clock::time_point) override {
    if (pending.empty()) return Got::timeout;
    line = std::move(pending.front());
    pending.pop_front();
    return Got::line;
  }
};

// `n` notifications, then the response to request 1: all arrive while the request waits.
std::vector<std::string> ticks(std::size_t n, std::string_view method = "tick") {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(fmt::format(R"({{"jsonrpc":"2.0","method":"{}","params":{{"n":{}}}}})", method, i));
  out.push_back(R"({"jsonrpc":"2.0","id":1,"result":{}})");
  return out;
}

TEST(ScriptBounds, TheWaitQueueKeepsTheLatestFramesOfWaitedMethodsAndCountsTheRest) {
  const std::size_t n = kQueueFrames + 904;
  // The latest is kept: a wait for it is taken.
  auto latest = parse(fmt::format("{{\"request\": \"go\"}}\n{{\"wait\": \"tick\", \"where\": {{\"params.n\": {}}}}}\n", n - 1));
  ASSERT_TRUE(latest);
  ListLink link;
  link.lines = ticks(n);
  EXPECT_TRUE(play(*latest, link, {}).complete());

  // The oldest were dropped: a wait for one of them times out and says how many went.
  auto oldest = parse("{\"request\": \"go\"}\n{\"wait\": \"tick\", \"where\": {\"params.n\": 0}, \"timeoutMs\": 20}\n");
  ASSERT_TRUE(oldest);
  ListLink again;
  again.lines = ticks(n);
  auto outcome = play(*oldest, again, {});
  ASSERT_FALSE(outcome.complete());
  EXPECT_EQ(outcome.failure->rule, "script.timeout");
  const std::string& message = outcome.failure->message;
  EXPECT_NE(message.find(fmt::format("arrived since the previous wait: tick (params.n = {}), ", n - 64)), std::string::npos)
      << message;
  EXPECT_NE(message.find(fmt::format("(and {} earlier frames)", n - 64)), std::string::npos) << message;
  EXPECT_NE(message.find("(904 frames of waited methods were dropped: the wait queue keeps the latest 4096 frames, "
                         "8388608 bytes)"),
            std::string::npos)
      << message;
}

TEST(ScriptBounds, FramesNoLaterStepNamesAreCountedNotKept) {
  // A flood of a method no wait, answer or reference names: the wait for the last frame is
  // taken, and a timeout counts the flood in one entry.
  auto s = parse("{\"request\": \"go\"}\n{\"wait\": \"done\", \"timeoutMs\": 20}\n");  // the in-memory host says no more at once
  ASSERT_TRUE(s);
  ListLink link;
  link.lines = ticks(20000, "item/delta");
  auto outcome = play(*s, link, {});
  ASSERT_FALSE(outcome.complete());
  EXPECT_EQ(outcome.failure->message,
            "waiting for done: timed out after 20 ms; arrived since the previous wait: item/delta x20000");
  link.lines.push_back(R"({"jsonrpc":"2.0","method":"done"})");
  ListLink done;
  done.lines = link.lines;
  EXPECT_TRUE(play(*s, done, {}).complete());
}

// A pipe of our own: the player's end and the host's end.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
  }
};

TEST(ScriptBounds, ASendTheHostDoesNotTakeEndsAtTheDeadlineAndSaysHowMuchWent) {
  Pipe to_host, from_host;
  FdLink link(from_host.read, to_host.write);
  from_host.read = to_host.write = -1;  // the link owns them now
  const std::string frame(1 << 20, 'x');  // more than the pipe holds; nobody reads it
  const auto sent = link.send(frame, Clock::now() + std::chrono::milliseconds(30), [](ServerLine&&) {});
  EXPECT_EQ(sent.status, ClientLink::Sent::timeout);
  EXPECT_GT(sent.written, 0u);
  EXPECT_LT(sent.written, frame.size());
  EXPECT_TRUE(link.stalled());
}

TEST(ScriptBounds, LinesPastTheLimitArriveAsTheirEnvelopeAndAnUnfinishedOneIsDropped) {
  Pipe to_host, from_host;
  FdLink link(from_host.read, to_host.write, 64);
  from_host.read = to_host.write = -1;
  const std::string pad(200, 'p');
  const std::string text = R"({"jsonrpc":"2.0","id":7,"result":{"pad":")" + pad + "\"}}\n" +
                           R"({"jsonrpc":"2.0","method":"big/note","params":{"pad":[[[")" + pad + "\"]]]}}\n" +
                           R"({"jsonrpc":"2.0","id":"s-1","method":"ask","params":")" + pad + "\"}\n" +
                           "[\"" + pad + "\"]\n" + R"({"jsonrpc":"2.0","method":"small"})" "\n" + "{\"unfinished\":\"" + pad;
  // Written in pieces cut anywhere, as a pipe may deliver them.
  for (std::size_t at = 0; at < text.size(); at += 37)
    ASSERT_EQ(::write(from_host.write, text.data() + at, std::min<std::size_t>(37, text.size() - at)),
              static_cast<ssize_t>(std::min<std::size_t>(37, text.size() - at)));
  ::close(from_host.write);
  from_host.write = -1;

  std::vector<ServerLine> got;
  ServerLine line;
  while (link.next(line, Clock::now() + std::chrono::seconds(5)) == ClientLink::Got::line) got.push_back(std::move(line));
  ASSERT_EQ(got.size(), 5u);
  ASSERT_TRUE(got[0].long_frame);
  EXPECT_TRUE(got[0].long_frame->object);
  EXPECT_TRUE(got[0].long_frame->jsonrpc);
  EXPECT_EQ(serialize_json(*got[0].long_frame->id), "7");
  EXPECT_TRUE(got[0].long_frame->has_result);
  EXPECT_FALSE(got[0].long_frame->method);
  EXPECT_EQ(got[0].bytes(), 44 + pad.size());
  ASSERT_TRUE(got[1].long_frame);
  EXPECT_EQ(*got[1].long_frame->method, "big/note");
  EXPECT_FALSE(got[1].long_frame->id);
  ASSERT_TRUE(got[2].long_frame);
  EXPECT_EQ(*got[2].long_frame->method, "ask");
  EXPECT_EQ(serialize_json(*got[2].long_frame->id), "\"s-1\"");
  ASSERT_TRUE(got[3].long_frame);
  EXPECT_FALSE(got[3].long_frame->object);  // an array
  EXPECT_FALSE(got[4].long_frame);
  EXPECT_EQ(got[4].text, R"({"jsonrpc":"2.0","method":"small"})");
}

TEST(ScriptBounds, TheEnvelopeScanKeepsOnlyTheTopLevelAndBoundsWhatItKeeps) {
  EnvelopeScan deep;
  deep.feed(R"({"params":{"id":1,"method":"inner"},"method":")");
  deep.feed("outer\",\"id\":");
  deep.feed("184467440737095516");
  deep.feed("15,\"jsonrpc\":\"2.0\"}");
  LongFrame f = deep.finish();
  EXPECT_TRUE(f.object);
  EXPECT_EQ(*f.method, "outer");
  EXPECT_TRUE(f.id->is_uint64());
  EXPECT_TRUE(f.jsonrpc);

  EnvelopeScan long_method;
  long_method.feed(R"({"jsonrpc":"2.0","method":")" + std::string(kMaxEnvelopeValueBytes + 1, 'm') + "\"}");
  f = long_method.finish();
  EXPECT_TRUE(f.value_too_long);
  EXPECT_FALSE(f.method);

  EnvelopeScan too_deep;
  too_deep.feed("{\"a\":" + std::string(kMaxScanDepth + 1, '['));
  too_deep.feed(std::string(kMaxScanDepth + 1, ']') + "}");
  EXPECT_FALSE(too_deep.finish().object);

  EnvelopeScan cut;
  cut.feed(R"({"jsonrpc":"2.0","method":"m")");
  EXPECT_FALSE(cut.finish().object);  // ended before its closing brace
}

}  // namespace
}  // namespace msptk::script
