// The chaos module (spec parser, seeded plan) and the chaos streams over in-memory byte streams:
// no process, no clock (pauses are recorded, not slept).
#include "msptk/chaos/plan.hpp"
#include "msptk/chaos/spec.hpp"
#include "msptk/playback/chaos_stream.hpp"
#include "msptk/playback/serve_fixture.hpp"
#include "msptk/transcript/framing.hpp"
#include "serve_fixture_support.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace msptk::chaos {
namespace {

ChaosSpec spec(std::string_view text, ChaosRole role = ChaosRole::client) {
  auto s = parse_chaos_spec(text, role);
  EXPECT_TRUE(s) << (s ? "" : s.error().render());
  return s ? *s : ChaosSpec{};
}

std::string error_of(std::string_view text, ChaosRole role = ChaosRole::client) {
  auto s = parse_chaos_spec(text, role);
  EXPECT_FALSE(s) << text;
  if (s) return {};
  EXPECT_EQ(s.error().kind, ErrorKind::usage);
  return s.error().message;
}

// Frames with multibyte UTF-8 (so that a cut can fall inside a code point), each ending in LF.
std::string frames(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += "{\"jsonrpc\":\"2.0\",\"method\":\"item/delta\",\"params\":{\"text\":\"h\xc3\xa9llo \xe2\x82\xac " +
           std::to_string(i) + " \xf0\x9f\x98\x80\"}}\n";
  return out;
}

std::vector<std::string> framed(const std::vector<std::string>& chunks) {
  std::vector<std::string> out;
  LineFramer framer;
  for (const std::string& c : chunks) framer.feed(c, [&](const FramedLine& l) { out.emplace_back(l.bytes); });
  return out;
}

std::vector<std::string> pieces(std::string_view bytes, const std::vector<Write>& writes) {
  std::vector<std::string> out;
  for (const Write& w : writes) out.emplace_back(bytes.substr(w.offset, w.size));
  return out;
}

TEST(Chaos, SpecParsesEveryPerturbationAndSpellsItCanonically) {
  ChaosSpec s = spec("close-after=3,stall=20,delay=5,cr,merge,split");
  EXPECT_TRUE(s.split && s.merge && s.cr);
  EXPECT_EQ(s.delay_ms, 5u);
  EXPECT_EQ(s.stall_ms, 20u);
  EXPECT_EQ(s.close_after, 3u);
  EXPECT_EQ(to_string(s), "split,merge,cr,delay=5,stall=20,close-after=3");
  EXPECT_EQ(to_string(spec("split")), "split");
  EXPECT_EQ((ChaosRun{spec("merge,delay=0"), 42}.label()), "merge,delay=0 (seed 42)");
}

TEST(Chaos, BadSpecsAreUsageErrorsNamingTheBadPart) {
  EXPECT_NE(error_of("split,bogus").find("\"bogus\" is not a perturbation"), std::string::npos);
  EXPECT_NE(error_of("delay").find("\"delay\" needs a value: delay=MS"), std::string::npos);
  EXPECT_NE(error_of("delay=x").find("\"delay=x\" has a value that is not a whole number"), std::string::npos);
  EXPECT_NE(error_of("stall=60001").find("\"stall=60001\" is over the most"), std::string::npos);
  EXPECT_NE(error_of("split=2").find("\"split=2\" takes no value"), std::string::npos);
  EXPECT_NE(error_of("split,,merge").find("is empty"), std::string::npos);
  EXPECT_NE(error_of("split,split").find("\"split\" is given twice"), std::string::npos);
  EXPECT_NE(error_of("close-after=0").find("must be at least 1"), std::string::npos);
  EXPECT_NE(error_of("cr", ChaosRole::server).find("applies to replay only"), std::string::npos);
  EXPECT_FALSE(parse_chaos_seed("12a"));
  EXPECT_EQ(*parse_chaos_seed("18446744073709551615"), 18446744073709551615ull);
}

TEST(Chaos, WritePlansCoverTheBytesExactlyAndRebuildTheSameFrames) {
  const std::string bytes = frames(20);
  const std::vector<std::string> expected = framed({bytes});
  for (const char* text : {"split", "merge", "delay=3", "split,merge", "split,merge,delay=2"}) {
    for (std::uint64_t seed = 0; seed < 50; ++seed) {
      WritePlanner planner(spec(text), seed, "server frame");
      const std::vector<Write> writes = planner.plan(bytes);
      std::size_t next = 0;
      for (const Write& w : writes) {
        ASSERT_EQ(w.offset, next) << text << " seed " << seed;
        ASSERT_GT(w.size, 0u);
        next += w.size;
      }
      ASSERT_EQ(next, bytes.size());
      EXPECT_EQ(framed(pieces(bytes, writes)), expected);
      EXPECT_EQ(planner.frames(), 20u);
    }
  }
}

TEST(Chaos, SplitCutsInsideCodePointsAndRightBeforeTheLf) {
  const std::string bytes = frames(30);
  bool in_code_point = false, before_lf = false;
  WritePlanner planner(spec("split"), 7, "server frame");
  for (const std::string& piece : pieces(bytes, planner.plan(bytes))) {
    if (piece == "\n") before_lf = true;
    const unsigned char first = static_cast<unsigned char>(piece.front());
    if ((first & 0xC0) == 0x80) in_code_point = true;  // a piece starting with a continuation byte
  }
  EXPECT_TRUE(in_code_point);
  EXPECT_TRUE(before_lf);
}

TEST(Chaos, MergeWritesSeveralFramesInOneWriteAndDelayPausesUpToMs) {
  const std::string bytes = frames(12);
  WritePlanner merge(spec("merge"), 3, "server frame");
  std::size_t most = 0;
  for (const std::string& piece : pieces(bytes, merge.plan(bytes)))
    most = std::max<std::size_t>(most, std::count(piece.begin(), piece.end(), '\n'));
  EXPECT_GE(most, 2u);
  EXPECT_LE(most, kMaxMergedFrames);
  WritePlanner delay(spec("delay=4"), 3, "server frame");
  const std::vector<Write> writes = delay.plan(bytes);
  EXPECT_EQ(writes.size(), 12u);
  std::uint32_t longest = 0;
  for (const Write& w : writes) longest = std::max(longest, w.pause_us);
  EXPECT_LE(longest, 4000u);
  EXPECT_GT(longest, 0u);
}

TEST(Chaos, TheSameSeedGivesTheSamePlanAndAnotherSeedAnother) {
  const std::string bytes = frames(10);
  WritePlanner a(spec("split,merge,delay=2"), 99, "f"), b(spec("split,merge,delay=2"), 99, "f"),
      c(spec("split,merge,delay=2"), 100, "f");
  const auto pa = a.plan(bytes);
  EXPECT_EQ(pa, b.plan(bytes));
  EXPECT_NE(pa, c.plan(bytes));
}

TEST(Chaos, AFrameContinuedByTheNextCallKeepsItsNumber) {
  WritePlanner planner(spec("split"), 1, "server frame");
  (void)planner.plan("{\"a\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"}");
  EXPECT_EQ(planner.frames(), 0u);
  (void)planner.plan("\n");
  EXPECT_EQ(planner.frames(), 1u);
  EXPECT_EQ(planner.last().frame, 1u);
  EXPECT_NE(planner.describe_last().find("server frame 1 written in"), std::string::npos) << planner.describe_last();
}

TEST(Chaos, CutOffsetFindsTheNthLfAcrossWrites) {
  std::size_t counted = 0;
  EXPECT_EQ(cut_offset("a\nb\n", counted, 3), std::string_view::npos);
  EXPECT_EQ(counted, 2u);
  EXPECT_EQ(cut_offset("c\nd\n", counted, 3), 2u);
  EXPECT_EQ(counted, 3u);
}

TEST(Chaos, StallHappensOnceWithinTheFirstReads) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    StallPlan plan(50, seed);
    std::size_t stalls = 0;
    for (int i = 0; i < 10; ++i) stalls += plan.due();
    EXPECT_EQ(stalls, 1u);
    EXPECT_GE(plan.at(), 1u);
    EXPECT_LE(plan.at(), kStallReads);
    EXPECT_NE(plan.describe("the client").find("stalled 50 ms before read"), std::string::npos);
  }
}

}  // namespace
}  // namespace msptk::chaos

namespace msptk::playback {
namespace {

// Records every write as it comes.
class ChunkSink final : public ByteSink {
 public:
  process::IoResult write(std::string_view bytes) override {
    chunks.emplace_back(bytes);
    return {bytes.size(), false, 0};
  }
  std::vector<std::string> chunks;
};

struct Pauses {
  std::vector<std::chrono::microseconds> seen;
  chaos::Sleep sleep() {
    return [this](std::chrono::microseconds d) { seen.push_back(d); };
  }
};

chaos::ChaosRun run_of(std::string_view text, std::uint64_t seed, chaos::ChaosRole role = chaos::ChaosRole::server) {
  return chaos::ChaosRun{*chaos::parse_chaos_spec(text, role), seed};
}

TEST(ChaosStream, SinkDeliversTheSameBytesInThePlannedWrites) {
  ChunkSink inner;
  Pauses pauses;
  ChaosSink sink(inner, run_of("split,merge,delay=1", 5), "server frame", pauses.sleep(), nullptr);
  const std::string a = "{\"x\":1}\n{\"y\":\"\xc3\xa9\"}\n", b = "{\"z\":3}\n";
  EXPECT_EQ(sink.write(a).error, 0);
  EXPECT_EQ(sink.write(b).error, 0);
  std::string all;
  for (const std::string& c : inner.chunks) all += c;
  EXPECT_EQ(all, a + b);
  EXPECT_GT(inner.chunks.size(), 3u);
  EXPECT_FALSE(pauses.seen.empty());
  EXPECT_EQ(sink.frames_written(), 3u);
  EXPECT_FALSE(sink.cut());
  EXPECT_NE(sink.in_force().find("server frame 3"), std::string::npos) << sink.in_force();
}

TEST(ChaosStream, CloseAfterWritesUpToTheNthFrameThenClosesAndFails) {
  MemorySink inner;
  int closed = 0;
  ChaosSink sink(inner, run_of("close-after=2", 1), "server frame", chaos::real_sleep(), [&] { ++closed; });
  EXPECT_EQ(sink.write("a\n").error, 0);
  process::IoResult r = sink.write("b\nc\n");
  EXPECT_EQ(r.error, kCutError);
  EXPECT_EQ(r.bytes, 2u);
  EXPECT_EQ(inner.bytes(), "a\nb\n");
  EXPECT_EQ(closed, 1);
  EXPECT_TRUE(sink.cut());
  EXPECT_EQ(sink.write("d\n").error, kCutError);
  EXPECT_EQ(closed, 1);
  EXPECT_NE(sink.in_force().find("closed after 2 frames"), std::string::npos);
}

TEST(ChaosStream, SourceStallsOnceBeforeThePlannedRead) {
  MemorySource inner({"a", "b", "c", "d", "e"});
  Pauses pauses;
  ChaosSource source(inner, run_of("stall=30", 11), "the client", pauses.sleep());
  char buffer[8];
  for (int i = 0; i < 5; ++i) (void)source.read(buffer, sizeof buffer);
  ASSERT_EQ(pauses.seen.size(), 1u);
  EXPECT_EQ(pauses.seen[0], std::chrono::milliseconds(30));
  EXPECT_NE(source.in_force().find("the client"), std::string::npos);
}

const FixtureScript& session() {
  static const FixtureScript s = script_of({
      {Direction::client, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":1,"result":{"name":"h\u00e9"}})"},
      {Direction::server, R"({"jsonrpc":"2.0","method":"note","params":{"t":"é€😀"}})"},
      {Direction::client, R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{}})"},
      {Direction::server, R"({"jsonrpc":"2.0","id":2,"result":{}})"},
  });
  return s;
}

MaskSpec mask() { return *make_mask_spec(Registry::builtin(), {"id"}, "", 0, {}, MaskMode::unify); }

TEST(ChaosStream, ServeFixtureUnderEveryPerturbationServesTheSameFrames) {
  const std::string client = std::string(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") + "\n" +
                             R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{}})" + "\n";
  MemorySource plain_in({client});
  MemorySink plain_out;
  ASSERT_TRUE(serve_fixture(session(), mask(), plain_in, plain_out).complete());
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    MemorySource in_inner({client});
    ChunkSink out_inner;
    Pauses pauses;
    const chaos::ChaosRun run = run_of("split,merge,delay=1,stall=5", seed);
    ChaosSource in(in_inner, run, "the client", pauses.sleep());
    ChaosSink out(out_inner, run, "server frame", pauses.sleep(), nullptr);
    ServeFixtureReport report = serve_fixture(session(), mask(), in, out);
    EXPECT_TRUE(report.complete()) << seed;
    std::string all;
    for (const std::string& c : out_inner.chunks) all += c;
    EXPECT_EQ(all, plain_out.bytes()) << seed;
  }
}

TEST(ChaosStream, ServeFixtureCutByCloseAfterIsReportedAsCut) {
  const std::string client = std::string(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") + "\n";
  MemorySource in({client});
  MemorySink inner;
  int closed = 0;
  ChaosSink out(inner, run_of("close-after=1", 3), "server frame", chaos::real_sleep(), [&] { ++closed; });
  ServeFixtureReport report = serve_fixture(session(), mask(), in, out);
  EXPECT_FALSE(report.failure);
  ASSERT_TRUE(report.cut);
  EXPECT_EQ(report.cut->server_frames, 1u);
  EXPECT_EQ(report.cut->transcript_line, 3u);
  EXPECT_EQ(closed, 1);
  EXPECT_EQ(std::count(inner.bytes().begin(), inner.bytes().end(), '\n'), 1);
  report.chaos = ServeChaos{"close-after=1", 3, out.in_force()};
  std::ostringstream line;
  render_report_json(line, report);
  EXPECT_NE(line.str().find(R"("kind":"serveFixtureCut")"), std::string::npos) << line.str();
  EXPECT_NE(line.str().find(R"("chaos":{"spec":"close-after=1","seed":3})"), std::string::npos) << line.str();
}

}  // namespace
}  // namespace msptk::playback
