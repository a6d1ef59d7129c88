// msptk shrink's parts without processes: the exchange segmentation, the ddmin reducer behind a
// predicate oracle, and shrink_scenario with a fake CandidateRunner that fails on a planted
// pair of exchanges.
#include "msptk/shrink/reduce.hpp"
#include "msptk/shrink/segment.hpp"
#include "msptk/shrink/shrink.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/validator/validator.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>

#include <fmt/format.h>

#include <functional>
#include <set>

namespace msptk::shrink {
namespace {

namespace fs = std::filesystem;

Frame frame(Direction dir, std::string raw) { return Frame{dir, std::move(raw), std::nullopt, 0}; }
Frame request(Direction dir, int id, const std::string& method) {
  return frame(dir, fmt::format(R"({{"jsonrpc":"2.0","id":{},"method":"{}","params":{{}}}})", id, method));
}
Frame response(Direction dir, int id) { return frame(dir, fmt::format(R"({{"jsonrpc":"2.0","id":{},"result":{{}}}})", id)); }
Frame note(Direction dir, const std::string& method) {
  return frame(dir, fmt::format(R"({{"jsonrpc":"2.0","method":"{}","params":{{}}}})", method));
}

std::vector<Frame> handshake() {
  return {request(Direction::client, 1, "initialize"), response(Direction::server, 1), note(Direction::client, "initialized")};
}

TEST(Shrink, SegmentsTheHandshakeAndExchangesWithTheirNotifications) {
  std::vector<Frame> f = handshake();
  f.push_back(request(Direction::client, 2, "a"));   // 3
  f.push_back(note(Direction::server, "progress"));  // 4
  f.push_back(response(Direction::server, 2));       // 5
  f.push_back(note(Direction::server, "after"));     // 6
  f.push_back(request(Direction::client, 3, "b"));   // 7
  f.push_back(request(Direction::server, 90, "ask"));  // 8 a server request inside b
  f.push_back(request(Direction::client, 4, "c"));   // 9 overlaps b
  f.push_back(response(Direction::server, 3));       // 10
  f.push_back(response(Direction::client, 90));      // 11 the answer to the server request
  f.push_back(response(Direction::server, 4));       // 12
  f.push_back(request(Direction::client, 5, "d"));   // 13
  f.push_back(response(Direction::server, 5));       // 14
  const Segmentation seg = segment(f);
  EXPECT_EQ(seg.handshake_end, 3u);
  ASSERT_EQ(seg.units.size(), 3u);
  EXPECT_EQ(seg.units[0], (Unit{3, 7}));
  EXPECT_EQ(seg.units[1], (Unit{7, 13}));
  EXPECT_EQ(seg.units[2], (Unit{13, 15}));
  EXPECT_EQ(candidate_indexes(seg, {2}), (std::vector<std::size_t>{0, 1, 2, 13, 14}));
}

TEST(Shrink, TheHandshakeTakesWhatCameBeforeInitializeAndIsWidenedToItsAnswers) {
  std::vector<Frame> f = {request(Direction::client, 1, "session/start"), response(Direction::server, 1)};
  for (const Frame& h : handshake()) f.push_back(h);
  EXPECT_EQ(segment(f).handshake_end, 5u);
  // No initialize: no handshake, every frame in units.
  std::vector<Frame> g = {request(Direction::client, 1, "a"), response(Direction::server, 1)};
  EXPECT_EQ(segment(g).handshake_end, 0u);
  EXPECT_EQ(segment(g).units.size(), 1u);
}

// A client frame that is not a JSON-RPC message is legal only with the server's rejection (the
// next server response with id null): the two are never separated, in the handshake (which then
// reaches to the rejection) or after it (one unit). Found by the shrink_reduce fuzz target.
TEST(Shrink, ABrokenClientFrameStaysWithItsRejection) {
  const Frame rejection = frame(Direction::server, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}})");
  std::vector<Frame> f = {request(Direction::client, 1, "initialize"), frame(Direction::client, "{not json"),
                          response(Direction::server, 1), note(Direction::client, "initialized"),
                          request(Direction::client, 2, "a"), response(Direction::server, 2), rejection};
  const Segmentation seg = segment(f);
  EXPECT_EQ(seg.handshake_end, 7u);  // widened to the rejection (which came after exchange a)
  std::vector<Frame> g = handshake();
  g.push_back(frame(Direction::client, R"({"jsonrpc":"1.0","id":7,"method":"x"})"));  // 3: an invalid envelope
  g.push_back(note(Direction::server, "progress"));                                     // 4
  g.push_back(rejection);                                                               // 5
  g.push_back(request(Direction::client, 2, "a"));                                      // 6
  g.push_back(response(Direction::server, 2));                                          // 7
  const Segmentation seg2 = segment(g);
  EXPECT_EQ(seg2.handshake_end, 3u);
  ASSERT_EQ(seg2.units.size(), 2u);
  EXPECT_EQ(seg2.units[0], (Unit{3, 6}));
  EXPECT_EQ(seg2.units[1], (Unit{6, 8}));
}

// The client's first initialized is in the handshake wherever it comes: without it every server
// notification after it would come "before initialized" (validate's session.before-initialized).
// Found by the shrink_reduce fuzz target (an initialize never answered, a turn before initialized).
TEST(Shrink, TheHandshakeReachesTheFirstInitializedWhereverItIs) {
  std::vector<Frame> f = {request(Direction::client, 1, "initialize"), request(Direction::client, 3, "turn/start"),
                          response(Direction::server, 3), note(Direction::client, "initialized"),
                          request(Direction::client, 2, "session/start"), note(Direction::server, "session/started")};
  const Segmentation seg = segment(f);
  EXPECT_EQ(seg.handshake_end, 4u);
  ASSERT_EQ(seg.units.size(), 1u);
  EXPECT_EQ(seg.units[0], (Unit{4, 6}));
}

// A client frame over serverConfig.frameLimitBytes is only rejected, even a well-formed request:
// validate pairs it with the next server response with id null (a parse error) or with its id
// (inputTooLarge), and so does the segmentation, which is given the manifest's limit.
TEST(Shrink, AnOversizedClientFrameStaysWithItsRejection) {
  const Frame big = request(Direction::client, 7, std::string(300, 'x'));
  const Frame parse_error = frame(Direction::server, R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}})");
  const Frame too_large =
      frame(Direction::server, R"({"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"too large","data":{"limitBytes":200}}})");
  for (const Frame& rejection : {parse_error, too_large}) {
    std::vector<Frame> g = handshake();
    g.push_back(big);                                 // 3
    g.push_back(request(Direction::client, 2, "a"));  // 4
    g.push_back(rejection);                           // 5 (before any later request's answer)
    g.push_back(response(Direction::server, 2));      // 6
    g.push_back(request(Direction::client, 3, "b"));  // 7
    g.push_back(response(Direction::server, 3));      // 8
    const Segmentation seg = segment(g, 200);
    ASSERT_EQ(seg.units.size(), 2u) << rejection.raw;
    EXPECT_EQ(seg.units[0], (Unit{3, 7})) << rejection.raw;
    EXPECT_EQ(seg.units[1], (Unit{7, 9})) << rejection.raw;
    // The scenario and every candidate validate under that limit.
    for (const Finding& finding : validate_frames(g, 200))
      EXPECT_NE(finding.severity, Severity::error) << finding.rule << ": " << finding.message;
    for (const std::vector<std::size_t>& units : {std::vector<std::size_t>{0}, {1}, {0, 1}, {}})
      for (const Finding& finding : validate_frames(candidate_frames(g, seg, units), 200))
        EXPECT_NE(finding.severity, Severity::error) << finding.rule << ": " << finding.message;
    // Under the default limit the request is an exchange with no answer of its own.
    EXPECT_EQ(segment(g).units.size(), rejection.raw == too_large.raw ? 2u : 3u) << rejection.raw;
  }
}

class Predicate final : public Oracle {
 public:
  explicit Predicate(std::function<bool(const std::vector<std::size_t>&)> p) : p_(std::move(p)) {}
  Result<bool> fails_same_way(const std::vector<std::size_t>& units) override {
    ++asked;
    return p_(units);
  }
  std::size_t asked = 0;

 private:
  std::function<bool(const std::vector<std::size_t>&)> p_;
};

bool has(const std::vector<std::size_t>& v, std::size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(Shrink, ReduceFindsThePairOfUnitsThatFailsTogether) {
  Predicate p([](const std::vector<std::size_t>& u) { return has(u, 2) && has(u, 39); });
  auto r = reduce(124, p, 1000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kept, (std::vector<std::size_t>{2, 39}));
  EXPECT_FALSE(r->budget_exhausted);
  EXPECT_LT(r->runs, 150u);
  EXPECT_EQ(r->runs, p.asked);  // every candidate asked once
}

TEST(Shrink, ReduceKeepsNothingWhenTheHandshakeAloneFailsAndStopsAtTheBudget) {
  Predicate always([](const std::vector<std::size_t>&) { return true; });
  auto r = reduce(50, always, 100);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->kept.empty());
  EXPECT_EQ(r->runs, 1u);
  Predicate pair([](const std::vector<std::size_t>& u) { return has(u, 3) && has(u, 40); });
  auto cut = reduce(124, pair, 5);
  ASSERT_TRUE(cut);
  EXPECT_TRUE(cut->budget_exhausted);
  EXPECT_EQ(cut->runs, 5u);
  EXPECT_TRUE(has(cut->kept, 3) && has(cut->kept, 40));  // still failing, not minimal
}

TEST(Shrink, ReduceStopsOnAPeerThatCannotRun) {
  class Broken final : public Oracle {
    Result<bool> fails_same_way(const std::vector<std::size_t>&) override { return Error::unreadable("host", "gone"); }
  } broken;
  EXPECT_FALSE(reduce(10, broken, 100));
}

// A scenario folder: the handshake and `n` exchanges; exchange `trigger` is method "config/set",
// exchange `target` is "tool/run" (the only one after the trigger).
fs::path write_session(const fs::path& dir, std::size_t n, std::size_t trigger, std::size_t target) {
  fs::create_directories(dir);
  auto base = read_manifest(test::source_dir() / "corpus" / "handshake-request-before-initialize" / "manifest.json");
  EXPECT_TRUE(base);
  Manifest m = base->manifest;
  m.scenario = dir.filename().string();
  m.source = {SourceRange{"1-3", "the handshake", 1, 3}, SourceRange{"8-11", "an exchange", 8, 11}};
  EXPECT_TRUE(write_manifest(dir / "manifest.json", m));
  auto w = TranscriptWriter::create(dir / "transcript.ndjson");
  for (const Frame& f : handshake()) w->stage(f.dir, f.raw);
  for (std::size_t k = 1; k <= n; ++k) {
    const int id = static_cast<int>(k) + 1;
    const std::string method = k == trigger ? "config/set" : k == target ? "tool/run" : k < trigger ? "tool/run" : "status/get";
    w->stage(Direction::client, request(Direction::client, id, method).raw);
    w->stage(Direction::server, note(Direction::server, "progress").raw);
    w->stage(Direction::server, response(Direction::server, id).raw);
  }
  EXPECT_TRUE(w->flush());
  return dir;
}

// Fails like the planted bug: when the candidate holds config/set and a later tool/run.
class FakeRunner final : public CandidateRunner {
 public:
  Result<std::optional<FailureSignature>> run(const fs::path& scenario) override {
    ++runs;
    EXPECT_TRUE(validate_scenario(scenario, ValidateOptions{}).ok()) << scenario;  // every candidate valid
    auto frames = read_transcript(scenario / "transcript.ndjson");
    bool armed = false;
    for (const Frame& f : *frames) {
      if (f.raw.find("config/set") != std::string::npos) armed = true;
      if (armed && f.raw.find("tool/run") != std::string::npos)
        return std::optional<FailureSignature>(FailureSignature{"divergent", "result.plantedBug", "server response tool/run"});
    }
    return std::optional<FailureSignature>();
  }
  std::size_t runs = 0;
};

TEST(Shrink, ShrinkWritesTheHandshakeAndThePlantedPairWithShrunkFrom) {
  test::TempDir tmp;
  const fs::path s = write_session(tmp / "long", 100, 3, 40);
  FakeRunner runner;
  ShrinkOptions options;
  options.scenario = s;
  options.out = tmp / "short";
  options.command = {"fake"};
  auto r = shrink_scenario(options, runner);
  ASSERT_TRUE(r) << r.error().render();
  EXPECT_EQ(r->exit_code, 0) << r->problem;
  EXPECT_EQ(r->frames_before, 303u);
  EXPECT_EQ(r->frames_after, 9u);
  EXPECT_EQ(r->kept_lines, "1-3,10-12,121-123");
  EXPECT_EQ(r->runs, runner.runs);
  EXPECT_TRUE(validate_scenario(tmp / "short", ValidateOptions{}).ok());
  auto m = read_manifest(tmp / "short" / "manifest.json");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->manifest.scenario, "short");
  const boost::json::value* from = m->manifest.extra.if_contains("shrunkFrom");
  ASSERT_TRUE(from);
  EXPECT_EQ(from->at("scenario"), "long");
  EXPECT_EQ(from->at("lines"), "1-3,10-12,121-123");
  ASSERT_EQ(m->manifest.source.size(), 2u);  // mapped onto the kept lines
  EXPECT_EQ(m->manifest.source[0].lines, "1-3");
  EXPECT_EQ(m->manifest.source[1].lines, "4-5");  // old 10-11
}

TEST(Shrink, AFailureThatDoesNotReproduceWritesNothing) {
  test::TempDir tmp;
  const fs::path s = write_session(tmp / "long", 10, 3, 40);  // no tool/run after the trigger
  FakeRunner runner;
  ShrinkOptions options;
  options.scenario = s;
  options.out = tmp / "short";
  options.command = {"fake"};
  auto r = shrink_scenario(options, runner);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 1);
  EXPECT_FALSE(fs::exists(tmp / "short"));
}

TEST(Shrink, ShrunkFromMustNameItsScenario) {
  boost::json::value v = boost::json::parse(test::read_text(test::source_dir() / "corpus" /
                                                            "handshake-request-before-initialize" / "manifest.json"));
  v.as_object()["shrunkFrom"] = boost::json::object{{"frames", 3}};
  ManifestParse p = parse_manifest(v);
  ASSERT_FALSE(p.problems.empty());
  EXPECT_EQ(p.problems[0].member, "shrunkFrom");
  v.as_object()["shrunkFrom"] = boost::json::object{{"scenario", "long"}};
  EXPECT_TRUE(parse_manifest(v).problems.empty());
}

}  // namespace
}  // namespace msptk::shrink
