#include "msptk/differ/align.hpp"
#include "msptk/differ/comparer.hpp"
#include "msptk/differ/diff.hpp"
#include "msptk/differ/render.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/normalizer/canonical.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>

#include <limits>
#include <random>
#include <set>
#include <sstream>

namespace msptk {
namespace {

namespace json = boost::json;

Frame frame(Direction dir, std::string raw, std::size_t line = 1) {
  Frame f;
  f.dir = dir;
  f.raw = std::move(raw);
  f.line = line;
  return f;
}
Frame client(std::string raw, std::size_t line = 1) { return frame(Direction::client, std::move(raw), line); }
Frame server(std::string raw, std::size_t line = 1) { return frame(Direction::server, std::move(raw), line); }

MaskSpec spec_of(std::vector<std::string> declared, MaskMode mode = MaskMode::unify) {
  auto spec = make_mask_spec(Registry::builtin(), declared, "", 0, {}, mode);
  EXPECT_TRUE(spec);
  return *spec;
}

std::size_t dp_lcs(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

TEST(Align, FindsALongestCommonSubsequence) {
  std::mt19937 rng(42);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::uint64_t> a(rng() % 30), b(rng() % 30);
    for (auto& x : a) x = rng() % 4;
    for (auto& x : b) x = rng() % 4;
    const auto matches = longest_common_subsequence(a, b);
    ASSERT_EQ(matches.size(), dp_lcs(a, b)) << "round " << round;
    for (std::size_t k = 0; k < matches.size(); ++k) {
      EXPECT_EQ(a[matches[k].first], b[matches[k].second]);
      if (k > 0) {
        EXPECT_LT(matches[k - 1].first, matches[k].first);
        EXPECT_LT(matches[k - 1].second, matches[k].second);
      }
    }
  }
}

// Found by the json_path fuzz target: under a declared `result.*.updatedAt`, a member named
// "a.txt" made the location "result.a.txt.updatedAt", which the mask did not recognize, so the
// masked value was compared exactly and two equivalent frames were divergent.
TEST(FrameComparer, MasksPlacesUnderMemberNamesWithDots) {
  Registry registry = Registry::builtin();
  ASSERT_TRUE(registry.add("result.*.updatedAt"));
  auto spec = make_mask_spec(registry, {"result.*.updatedAt"}, "m.json", 1, {}, MaskMode::unify);
  ASSERT_TRUE(spec);
  FrameComparer comparer(*spec);
  const FrameComparison c = comparer.compare(server(R"({"id":1,"result":{"a.txt":{"updatedAt":5},"":{"updatedAt":6}}})"),
                                             server(R"({"id":1,"result":{"a.txt":{"updatedAt":7},"":{"updatedAt":8}}})"));
  EXPECT_EQ(c.outcome, FrameOutcome::equivalent);
  ASSERT_EQ(comparer.accounting().size(), 1u);
  EXPECT_EQ(comparer.accounting()[0].covered, 2u);
  // An exact place under such a name is reported with the bracketed name.
  const FrameComparison d = comparer.compare(server(R"({"id":2,"result":{"a.txt":{"size":1}}})"),
                                             server(R"({"id":2,"result":{"a.txt":{"size":2}}})"));
  ASSERT_EQ(d.divergences.size(), 1u);
  EXPECT_EQ(d.divergences[0].path, R"(result["a.txt"].size)");
}

TEST(Align, LeavesTheMiddleUnmatchedBeyondTheEditBound) {
  std::vector<std::uint64_t> a{1, 2, 3, 5, 4, 9}, b{1, 5, 6, 7, 8, 9};
  EXPECT_EQ(longest_common_subsequence(a, b, 1).size(), 2u);  // prefix 1, suffix 9 (5 needs more edits)
  EXPECT_EQ(longest_common_subsequence(a, b).size(), 3u);
}

TEST(FrameComparer, ClientFramesAreComparedStructurally) {
  FrameComparer c(spec_of({}));
  auto r = c.compare(client(R"({"jsonrpc":"2.0","method":"x","params":{"a":1,"b":[1,2]}})"),
                     client("{ \"params\": {\"b\": [1, 2.0], \"a\": 1e0}, \"method\": \"x\", \"jsonrpc\": \"2.0\" }\r"));
  EXPECT_EQ(r.outcome, FrameOutcome::equivalent);
  EXPECT_TRUE(r.divergences.empty());
}

TEST(FrameComparer, ReportsEachDifferingPlaceWithArrayIndices) {
  FrameComparer c(spec_of({}));
  auto r = c.compare(
      client(R"({"jsonrpc":"2.0","method":"turn/start","params":{"input":[{"type":"text","text":"a"}],"x":1}})", 4),
      client(R"({"jsonrpc":"2.0","method":"turn/start","params":{"input":[{"type":"text","text":"b"},{}],"y":1}})",
             6));
  ASSERT_EQ(r.outcome, FrameOutcome::divergent);
  ASSERT_EQ(r.divergences.size(), 4u);
  EXPECT_EQ(r.divergences[0].path, "params.input[0].text");
  EXPECT_EQ(r.divergences[0].expected, R"("a")");
  EXPECT_EQ(r.divergences[0].actual, R"("b")");
  EXPECT_EQ(r.divergences[1].path, "params.input[1]");
  EXPECT_FALSE(r.divergences[1].expected);
  EXPECT_EQ(r.divergences[1].actual, "{}");
  EXPECT_EQ(r.divergences[2].path, "params.x");
  EXPECT_FALSE(r.divergences[2].actual);
  EXPECT_EQ(r.divergences[3].path, "params.y");
}

TEST(FrameComparer, ServerFramesAreByteFirst) {
  FrameComparer c(spec_of({}));
  const std::string bytes = R"({"jsonrpc":"2.0","method":"turn/started","params":{"a":1,"b":2}})";
  EXPECT_EQ(c.compare(server(bytes), server(bytes)).outcome, FrameOutcome::identical);
  EXPECT_EQ(c.compare(server(bytes), server(R"({"jsonrpc":"2.0","method":"turn/started","params":{"b":2,"a":1}})"))
                .outcome,
            FrameOutcome::equivalent);
  // Not JSON: compared by bytes alone.
  EXPECT_EQ(c.compare(server("not json"), server("not json")).outcome, FrameOutcome::identical);
  auto r = c.compare(server("not json"), server("not json either"));
  EXPECT_EQ(r.outcome, FrameOutcome::divergent);
  EXPECT_EQ(r.divergences[0].path, "");
}

TEST(FrameComparer, UnifiesClientRequestIdsWithTheServerResponses) {
  FrameComparer c(spec_of({}));
  EXPECT_EQ(c.compare(client(R"({"jsonrpc":"2.0","id":1,"method":"m"})", 1),
                      client(R"({"jsonrpc":"2.0","id":"a","method":"m"})", 1))
                .outcome,
            FrameOutcome::equivalent);
  EXPECT_EQ(c.compare(server(R"({"jsonrpc":"2.0","id":1,"result":{}})", 2),
                      server(R"({"jsonrpc":"2.0","id":"a","result":{}})", 2))
                .outcome,
            FrameOutcome::equivalent);
  // The server answered with another id than the one the client used.
  auto wrong = c.compare(server(R"({"jsonrpc":"2.0","id":1,"result":{}})", 3),
                         server(R"({"jsonrpc":"2.0","id":"b","result":{}})", 3));
  ASSERT_EQ(wrong.outcome, FrameOutcome::divergent);
  EXPECT_EQ(wrong.divergences[0].path, "id");
  EXPECT_NE(wrong.divergences[0].note.find("client request ids"), std::string::npos);
  // Byte-identical, yet against the pairing 1 ↔ "a": divergent.
  auto same = c.compare(server(R"({"jsonrpc":"2.0","id":"a","result":{}})", 4),
                        server(R"({"jsonrpc":"2.0","id":"a","result":{}})", 4));
  EXPECT_EQ(same.outcome, FrameOutcome::divergent);
}

TEST(FrameComparer, LearnedIdsAreExactUnlessDeclared) {
  const Frame request = server(R"({"jsonrpc":"2.0","id":5,"method":"approval/request","params":{}})", 1);
  const Frame answer = client(R"({"jsonrpc":"2.0","id":5,"result":{}})", 2);
  const Frame other_answer = client(R"({"jsonrpc":"2.0","id":6,"result":{}})", 2);
  FrameComparer exact(spec_of({}));
  exact.compare(request, request);
  auto r = exact.compare(answer, other_answer);
  ASSERT_EQ(r.outcome, FrameOutcome::divergent);
  EXPECT_EQ(r.divergences[0].path, "id");
  EXPECT_TRUE(r.divergences[0].note.empty());

  FrameComparer declared(spec_of({"id"}));
  declared.compare(request, request);  // pairs 5 ↔ 5
  auto d = declared.compare(answer, other_answer);
  ASSERT_EQ(d.outcome, FrameOutcome::divergent);
  EXPECT_NE(d.divergences[0].note.find("server request ids"), std::string::npos) << d.divergences[0].note;
  // A consistently re-minted server request id passes when `id` is declared.
  FrameComparer remint(spec_of({"id"}));
  remint.compare(request, server(R"({"jsonrpc":"2.0","id":9,"method":"approval/request","params":{}})", 1));
  EXPECT_EQ(remint.compare(answer, client(R"({"jsonrpc":"2.0","id":9,"result":{}})", 2)).outcome,
            FrameOutcome::equivalent);
}

TEST(FrameComparer, ClientInfoIsUnifiedAndTitleIgnored) {
  FrameComparer c(spec_of({}));
  auto r = c.compare(
      client(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"conformance","version":"0.0.0"}}})"),
      client(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"me","version":"2.1","title":"Me"}}})"));
  EXPECT_EQ(r.outcome, FrameOutcome::equivalent);
}

TEST(FrameComparer, EraseComparesPresenceOnly) {
  FrameComparer c(spec_of({"params.turnId"}, MaskMode::erase));
  const Frame e = server(R"({"jsonrpc":"2.0","method":"turn/started","params":{"turnId":"t1"}})");
  EXPECT_EQ(c.compare(e, server(R"({"jsonrpc":"2.0","method":"turn/started","params":{"turnId":"zz"}})")).outcome,
            FrameOutcome::equivalent);
  EXPECT_EQ(c.compare(e, server(R"({"jsonrpc":"2.0","method":"turn/started","params":{"turnId":"yy"}})")).outcome,
            FrameOutcome::equivalent);
  auto absent = c.compare(e, server(R"({"jsonrpc":"2.0","method":"turn/started","params":{}})"));
  ASSERT_EQ(absent.outcome, FrameOutcome::divergent);
  EXPECT_EQ(absent.divergences[0].path, "params.turnId");
  ASSERT_EQ(c.accounting().size(), 1u);
  EXPECT_EQ(c.accounting()[0].covered, 2u);
  EXPECT_EQ(c.accounting()[0].differed, 2u);
}

TEST(FrameComparer, DirectionAndKindMismatchesAreDivergent) {
  FrameComparer c(spec_of({}));
  EXPECT_EQ(c.compare(client(R"({"jsonrpc":"2.0","method":"m"})"), server(R"({"jsonrpc":"2.0","method":"m"})"))
                .outcome,
            FrameOutcome::divergent);
  auto r = c.compare(client(R"({"jsonrpc":"2.0","method":"m"})"), client(R"({"jsonrpc":"2.0","id":3,"method":"m"})"));
  ASSERT_EQ(r.outcome, FrameOutcome::divergent);
  EXPECT_EQ(r.divergences[0].note, "expected a notification, got a request");
}

TEST(Signature, NamesResponsesAfterTheirRequests) {
  SignatureTracker t;
  auto observe = [&](const Frame& f) { return t.observe(f, classify(json::parse(f.json_text()))).text(); };
  EXPECT_EQ(observe(client(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})")), "client request initialize");
  EXPECT_EQ(observe(server(R"({"jsonrpc":"2.0","id":1,"result":{}})")), "server response to initialize");
  EXPECT_EQ(observe(server(R"({"jsonrpc":"2.0","id":7,"method":"approval/request","params":{}})")),
            "server request approval/request");
  EXPECT_EQ(observe(client(R"({"jsonrpc":"2.0","id":8,"result":{}})")), "client response to no request");
  EXPECT_EQ(observe(client(R"({"jsonrpc":"2.0","id":7,"result":{}})")), "client response to approval/request");
  EXPECT_EQ(observe(server(R"({"jsonrpc":"2.0","method":"turn/started"})")), "server notification turn/started");
}

TEST(Signature, ContentKeyIgnoresMemberOrderAndMaskedValues) {
  Masker m(spec_of({"params.turnId"}));
  auto key = [&](const char* raw) {
    json::value v = json::parse(raw);
    return content_key(m, FrameRole::of(Direction::server, classify(v)), v);
  };
  EXPECT_EQ(key(R"({"jsonrpc":"2.0","method":"a","params":{"turnId":"x","n":1}})"),
            key(R"({"params":{"n":1.0,"turnId":"y"},"method":"a","jsonrpc":"2.0"})"));
  EXPECT_NE(key(R"({"jsonrpc":"2.0","method":"a","params":{"turnId":"x","n":1}})"),
            key(R"({"jsonrpc":"2.0","method":"a","params":{"n":1}})"));
  EXPECT_NE(key(R"({"jsonrpc":"2.0","method":"a","params":{"n":[1,2]}})"),
            key(R"({"jsonrpc":"2.0","method":"a","params":{"n":[2,1]}})"));
}

// A whole number as a double keys as the integer of that value; one beyond both integer ranges
// keys by its bits (a fuzz finding: converting it to int64 was undefined behaviour).
TEST(Signature, WholeDoublesKeyAsTheirIntegersAndHugeOnesAreDefined) {
  Masker m(spec_of({}));
  auto key = [&](json::value n) {
    json::value v = {{"jsonrpc", "2.0"}, {"method", "a"}, {"params", {{"n", n}}}};
    return content_key(m, FrameRole::of(Direction::server, classify(v)), v);
  };
  EXPECT_EQ(key(json::value(-3.0)), key(json::value(std::int64_t{-3})));
  EXPECT_EQ(key(json::value(9223372036854775808.0)), key(json::value(std::uint64_t{9223372036854775808ULL})));
  EXPECT_EQ(key(json::value(-9223372036854775808.0)), key(json::value(std::numeric_limits<std::int64_t>::min())));
  for (double huge : {1.8446744073709552e19, -3.11845e21, 6.814e25, 1e308, -1e308}) {
    EXPECT_EQ(key(json::value(huge)), key(json::value(huge))) << huge;
    EXPECT_NE(key(json::value(huge)), key(json::value(huge / 2))) << huge;
  }
}

// A role in which nothing is masked keys its frames without asking the mask anything: the same
// key as a mask whose only declared path selects nothing in those frames.
TEST(Signature, AFrameWithNothingMaskedKeysAsUnderAMaskThatSelectsNothingThere) {
  Masker plain(spec_of({}));
  Masker elsewhere(spec_of({"params.turnId"}));
  for (const char* raw : {R"({"jsonrpc":"2.0","method":"item/delta","params":{"itemId":"i","delta":"d","n":[1,{"a":null}]}})",
                          R"({"jsonrpc":"2.0","id":"s1","method":"approval/request","params":{"x":true}})"}) {
    json::value v = json::parse(raw);
    const FrameRole role = FrameRole::of(Direction::server, classify(v));
    ASSERT_TRUE(plain.masks_nothing(role));
    EXPECT_EQ(content_key(plain, role, v), content_key(elsewhere, role, v)) << raw;
  }
}

TEST(Signature, HashBytesTellsApartEveryLengthAndEveryByte) {
  std::set<std::uint64_t> seen;
  std::string text;
  std::size_t made = 0;
  for (std::size_t n = 0; n < 80; ++n) {
    EXPECT_EQ(hash_bytes(text), hash_bytes(std::string(text))) << n;
    seen.insert(hash_bytes(text));
    ++made;
    for (std::size_t i = 0; i < n; ++i) {  // one bit flipped anywhere
      std::string flipped = text;
      flipped[i] = static_cast<char>(flipped[i] ^ 1);
      seen.insert(hash_bytes(flipped));
      ++made;
    }
    text += static_cast<char>('a' + n % 26);
  }
  EXPECT_EQ(seen.size(), made);
  EXPECT_NE(hash_bytes(std::string(16, '\0')), hash_bytes(std::string(17, '\0')));
}

std::vector<Frame> transcript(std::initializer_list<std::pair<Direction, const char*>> lines) {
  std::vector<Frame> out;
  for (const auto& [dir, raw] : lines) out.push_back(frame(dir, raw, out.size() + 1));
  return out;
}

const auto C = Direction::client;
const auto S = Direction::server;

TEST(Diff, ReportsMissingExtraAndMovedInTranscriptOrder) {
  const auto expected = transcript({{C, R"({"jsonrpc":"2.0","id":1,"method":"a"})"},
                                    {S, R"({"jsonrpc":"2.0","id":1,"result":{}})"},
                                    {S, R"({"jsonrpc":"2.0","method":"n1"})"},
                                    {S, R"({"jsonrpc":"2.0","method":"n2"})"},
                                    {S, R"({"jsonrpc":"2.0","method":"n3"})"}});
  const auto actual = transcript({{C, R"({"jsonrpc":"2.0","id":1,"method":"a"})"},
                                  {S, R"({"jsonrpc":"2.0","id":1,"result":{}})"},
                                  {S, R"({"jsonrpc":"2.0","method":"n3"})"},
                                  {S, R"({"jsonrpc":"2.0","method":"n2"})"},
                                  {S, R"({"jsonrpc":"2.0","method":"x"})"}});
  DiffResult r = diff_frames(expected, actual, DiffOptions{}, "e", "a");
  EXPECT_EQ(r.verdict, Verdict::divergent);
  EXPECT_EQ(r.counts.identical, 3u);
  EXPECT_EQ(r.counts.missing, 1u);
  EXPECT_EQ(r.counts.moved, 1u);
  EXPECT_EQ(r.counts.extra, 1u);
  EXPECT_EQ(r.counts.frames(), 6u);
  ASSERT_EQ(r.entries.size(), 3u);
  EXPECT_EQ(r.entries[0].kind, EntryKind::missing);
  EXPECT_EQ(r.entries[0].signature, "server notification n1");
  EXPECT_EQ(r.entries[1].kind, EntryKind::moved);
  EXPECT_EQ(r.entries[1].expected_line, 4u);
  EXPECT_EQ(r.entries[1].actual_line, 4u);  // n2 matched; n3 moved ...
  EXPECT_EQ(r.entries[2].kind, EntryKind::extra);
}

TEST(Diff, AReplacedNotificationIsMissingAndExtraButAMisaddressedResponseIsDivergent) {
  const auto expected = transcript({{C, R"({"jsonrpc":"2.0","id":1,"method":"a"})"},
                                    {S, R"({"jsonrpc":"2.0","method":"n1"})"},
                                    {S, R"({"jsonrpc":"2.0","id":1,"result":{}})"}});
  const auto actual = transcript({{C, R"({"jsonrpc":"2.0","id":1,"method":"a"})"},
                                  {S, R"({"jsonrpc":"2.0","method":"n2"})"},
                                  {S, R"({"jsonrpc":"2.0","id":2,"result":{}})"}});
  DiffResult r = diff_frames(expected, actual, DiffOptions{}, "e", "a");
  EXPECT_EQ(r.counts.missing, 1u);
  EXPECT_EQ(r.counts.extra, 1u);
  EXPECT_EQ(r.counts.divergent, 1u);
  ASSERT_EQ(r.entries.size(), 3u);
  const DiffEntry& response = r.entries[2];
  EXPECT_EQ(response.kind, EntryKind::divergent);
  EXPECT_EQ(response.signature, "server response to a");
  EXPECT_EQ(response.actual_signature, "server response to no request");
  EXPECT_EQ(response.divergences.at(0).path, "id");
}

TEST(Diff, SideSelectsTheFramesCompared) {
  const auto expected = transcript({{C, R"({"jsonrpc":"2.0","method":"c","params":{"x":1}})"},
                                    {S, R"({"jsonrpc":"2.0","method":"s","params":{"x":1}})"}});
  const auto actual = transcript({{C, R"({"jsonrpc":"2.0","method":"c","params":{"x":1}})"},
                                  {S, R"({"jsonrpc":"2.0","method":"s","params":{"x":2}})"}});
  DiffOptions options;
  options.side = Side::client;
  DiffResult client_only = diff_frames(expected, actual, options);
  EXPECT_EQ(client_only.verdict, Verdict::identical);
  EXPECT_TRUE(client_only.byte_identical);
  EXPECT_EQ(client_only.counts.frames(), 1u);
  options.side = Side::server;
  EXPECT_EQ(diff_frames(expected, actual, options).verdict, Verdict::divergent);
}

TEST(Diff, WarnsAboutStaleDeclarations) {
  const auto t = transcript({{C, R"({"jsonrpc":"2.0","id":1,"method":"a","params":{"commandId":"c"}})"}});
  DiffResult r = diff_frames(t, t, DiffOptions{spec_of({"params.commandId", "params.itemId"}), Side::both}, "e", "a");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("\"params.itemId\""), std::string::npos);
}

TEST(Render, TextEndsWithTheVerdictLineAndJsonFollowsTheSchema) {
  const auto expected = transcript({{S, R"({"jsonrpc":"2.0","method":"n","params":{"v":"a"}})"}});
  const auto actual = transcript({{S, R"({"jsonrpc":"2.0","method":"n","params":{"v":"b"}})"}});
  DiffReport report;
  report.comparisons.push_back(diff_frames(expected, actual, DiffOptions{}, "e.ndjson", "a.ndjson"));
  std::ostringstream text;
  render_text(text, report);
  EXPECT_EQ(text.str(),
            "divergent server notification n\n"
            "  expected e.ndjson:1\n"
            "  actual   a.ndjson:1\n"
            "  params.v: \"a\" → \"b\"\n"
            "\n"
            "masked paths (unify): none declared\n"
            "divergent: 1 frames (0 identical, 0 equivalent, 1 divergent, 0 missing, 0 extra, 0 moved)\n");
  std::ostringstream colored;
  render_text(colored, report, TextStyle{true});
  EXPECT_NE(colored.str().find("\x1b[31m"), std::string::npos);

  json::value doc = to_json(report);
  EXPECT_EQ(doc.at("verdict"), "divergent");
  const json::value& frame = doc.at("comparisons").at(0).at("frames").at(0);
  EXPECT_EQ(frame.at("outcome"), "divergent");
  EXPECT_EQ(frame.at("expected").at("line"), 1);
  EXPECT_EQ(frame.at("divergences").at(0).at("expected"), "a");
  EXPECT_EQ(frame.at("divergences").at(0).at("actual"), "b");
}


TEST(FrameComparer, NumbersCompareByExactValue) {
  FrameComparer comparer(spec_of({}));
  auto outcome = [&](const char* a, const char* b) {
    return comparer.compare(server(std::string(R"({"jsonrpc":"2.0","method":"n","params":{"v":)") + a + "}}"),
                            server(std::string(R"({"jsonrpc":"2.0","method":"n","params":{"v":)") + b + "}}"))
        .outcome;
  };
  EXPECT_EQ(outcome("1e400", "1e401"), FrameOutcome::divergent);
  EXPECT_EQ(outcome("123456789012345678901234567890", "123456789012345678901234567891"), FrameOutcome::divergent);
  EXPECT_EQ(outcome("9007199254740993", "9007199254740992.0"), FrameOutcome::divergent);
  EXPECT_EQ(outcome("0.1", "0.10000000000000000001"), FrameOutcome::divergent);
  EXPECT_EQ(outcome("1.0", "1e0"), FrameOutcome::equivalent);
  EXPECT_EQ(outcome("1e400", "10e399"), FrameOutcome::equivalent);
  EXPECT_EQ(outcome("[1e400]", "[\"\\u00ff1e400\"]"), FrameOutcome::divergent);
}

TEST(FrameComparer, RawBase64BytesAreTheFrame) {
  FrameComparer comparer(spec_of({}));
  Frame a = server("{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"v\":\"\xEF\xBF\xBD\"}}");
  Frame b = a;
  a.exact_bytes = "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"v\":\"\xFF\"}}";
  b.exact_bytes = "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"v\":\"\xFE\"}}";
  FrameComparison c = comparer.compare(a, b);
  EXPECT_EQ(c.outcome, FrameOutcome::divergent);
  ASSERT_EQ(c.divergences.size(), 1u);
  EXPECT_NE(c.divergences[0].note.find("first difference at byte 45"), std::string::npos) << c.divergences[0].note;
  EXPECT_EQ(comparer.compare(a, a).outcome, FrameOutcome::identical);
}

TEST(FrameComparer, TenThousandLevelsDeepFramesCompareWithoutRecursionTrouble) {
  FrameComparer comparer(spec_of({}));
  const std::string deep = std::string(9990, '[') + "1" + std::string(9990, ']');
  const std::string deeper = std::string(9990, '[') + "2" + std::string(9990, ']');
  auto frame_of = [](const std::string& v) { return server(R"({"jsonrpc":"2.0","method":"n","params":{"v":)" + v + "}}"); };
  EXPECT_EQ(comparer.compare(frame_of(deep), frame_of(" " + deep)).outcome, FrameOutcome::equivalent);
  FrameComparison c = comparer.compare(frame_of(deep), frame_of(deeper));
  EXPECT_EQ(c.outcome, FrameOutcome::divergent);
  EXPECT_EQ(c.divergences.size(), 1u);
}

}  // namespace
}  // namespace msptk

namespace msptk {
namespace {

const std::vector<Frame>& spool_expected() {
  static const auto frames = transcript({{C, R"({"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1}})"},
                                         {S, R"({"jsonrpc":"2.0","method":"n1"})"},
                                         {S, R"({"jsonrpc":"2.0","method":"n2"})"}});
  return frames;
}
const std::vector<Frame>& spool_actual() {
  static const auto frames = transcript({{C, R"({"jsonrpc":"2.0","id":1,"method":"a","params":{"x":2}})"},
                                         {S, R"({"jsonrpc":"2.0","method":"n2"})"},
                                         {S, R"({"jsonrpc":"2.0","method":"x"})"}});
  return frames;
}

DiffReport spool_report(EntrySink* sink) {
  DiffOptions options;
  options.sink = sink;
  DiffReport report;
  report.comparisons.push_back(diff_frames(spool_expected(), spool_actual(), options, "e", "a"));
  report.comparisons.push_back(diff_frames(spool_actual(), spool_expected(), options, "a", "e"));
  return report;
}

TEST(SpooledReport, WritesWhatTheRenderersWriteForInMemoryFrames) {
  for (const ReportFormat format : {ReportFormat::text, ReportFormat::json}) {
    auto spool = SpooledReport::create(format);
    ASSERT_TRUE(spool) << spool.error().render();
    const DiffReport spooled = spool_report(spool->get());
    for (const DiffResult& r : spooled.comparisons) EXPECT_TRUE(r.entries.empty());
    std::ostringstream got, want;
    ASSERT_TRUE((*spool)->finish(got, spooled));
    const DiffReport kept = spool_report(nullptr);
    ASSERT_EQ(kept.comparisons[0].entries.size(), 3u);  // divergent, missing, extra
    if (format == ReportFormat::json) {
      render_json(want, kept);
    } else {
      render_text(want, kept);
    }
    EXPECT_EQ(got.str(), want.str());
  }
}

TEST(SpooledReport, AFailedWriteIsAnErrorBeforeAnythingIsWritten) {
  std::FILE* read_only = std::fopen("/dev/null", "rb");
  ASSERT_NE(read_only, nullptr);
  SpooledReport spool(ReportFormat::text, TextStyle{}, read_only);
  const DiffReport report = spool_report(&spool);
  EXPECT_TRUE(spool.failed());
  std::ostringstream out;
  auto written = spool.finish(out, report);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("cannot write the diff report's spool"), std::string::npos)
      << written.error().message;
  EXPECT_EQ(out.str(), "");
}

TEST(SpooledReport, ACountOfComparisonsOtherThanTheSinkSawIsAnError) {
  auto spool = SpooledReport::create(ReportFormat::json);
  ASSERT_TRUE(spool);
  DiffReport report = spool_report(spool->get());
  report.comparisons.pop_back();
  std::ostringstream out;
  EXPECT_FALSE((*spool)->finish(out, report));
}

// compare_same (replay: the live copy of a recorded frame dropped before anything is parsed)
// says what compare says of a frame with the same bytes, and leaves the same pairings behind:
// over every frame of the public corpus, and where an earlier pairing conflicts.
TEST(FrameComparer, CompareSameSaysWhatCompareSaysOfTheSameBytes) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  auto same = [](const FrameComparison& x, const FrameComparison& y) {
    if (x.outcome != y.outcome || x.divergences.size() != y.divergences.size()) return false;
    for (std::size_t k = 0; k < x.divergences.size(); ++k)
      if (x.divergences[k].path != y.divergences[k].path || x.divergences[k].note != y.divergences[k].note) return false;
    return true;
  };
  std::size_t frames = 0;
  for (const auto& file : test::corpus_ndjson_files()) {
    auto transcript = read_transcript(file);
    if (!transcript) continue;
    FrameComparer plain(spec_of({})), by_role(spec_of({})), kept(spec_of({})), kept_by_role(spec_of({}));
    for (const Frame& e : *transcript) {
      Frame a = e;
      a.line = e.line + 1000;
      auto message = parse_json(e.json_text());
      const FrameRole role = FrameRole::of(e.dir, message ? classify(*message) : Envelope{});
      const FrameComparison want = plain.compare(e, a);
      EXPECT_TRUE(same(want, kept.compare_same(e, a.line))) << file << ":" << e.line;
      EXPECT_TRUE(same(by_role.compare(e, a, role), kept_by_role.compare_same(e, a.line, role))) << file << ":" << e.line;
      ++frames;
    }
    EXPECT_EQ(plain.accounting().size(), kept.accounting().size());
  }
  EXPECT_GT(frames, 100u);
  // A request id paired with another before: the same bytes now conflict, both ways.
  FrameComparer plain(spec_of({})), kept(spec_of({}));
  const Frame e1 = client(R"({"jsonrpc":"2.0","id":1,"method":"x"})", 1);
  const Frame a2 = client(R"({"jsonrpc":"2.0","id":2,"method":"x"})", 1);
  (void)plain.compare(e1, a2);
  (void)kept.compare(e1, a2);
  const FrameComparison want = plain.compare(e1, e1);
  EXPECT_EQ(want.outcome, FrameOutcome::divergent);
  EXPECT_TRUE(same(want, kept.compare_same(e1, e1.line)));
}

}  // namespace
}  // namespace msptk
