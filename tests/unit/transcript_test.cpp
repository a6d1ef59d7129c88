#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"
#include "msptk/transcript/manifest.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "test_support.hpp"

#include <boost/json/parse.hpp>

#include <fstream>
#include <sstream>

namespace msptk {
namespace {

using test::TempDir;

TEST(Transcript, RoundTripsEveryCorpusFile) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  std::size_t files = 0, lines = 0, canonical = 0;
  for (const auto& path : test::corpus_ndjson_files()) {
    ++files;
    auto frames = read_transcript(path);
    ASSERT_TRUE(frames) << frames.error().render();
    TempDir tmp;
    {
      auto writer = TranscriptWriter::create(tmp / "out.ndjson");
      ASSERT_TRUE(writer);
      for (const auto& f : *frames) ASSERT_TRUE(writer->append(f));
    }
    auto again = read_transcript(tmp / "out.ndjson");
    ASSERT_TRUE(again);
    ASSERT_EQ(frames->size(), again->size()) << path;
    for (std::size_t i = 0; i < frames->size(); ++i) {
      EXPECT_EQ((*frames)[i].dir, (*again)[i].dir) << path << ":" << i + 1;
      EXPECT_EQ((*frames)[i].raw, (*again)[i].raw) << path << ":" << i + 1;
    }
    // Lines already canonical come back byte for byte.
    std::istringstream original(test::read_text(path)), written(test::read_text(tmp / "out.ndjson"));
    std::string a, b;
    while (std::getline(original, a) && std::getline(written, b)) {
      ++lines;
      if (a.rfind(R"({"dir":")", 0) == 0) {
        ++canonical;
        EXPECT_EQ(a, b) << path;
      }
    }
  }
  EXPECT_EQ(files, 38u);  // 37 transcripts and one legs file
  EXPECT_GT(canonical, lines - 10);
}

TEST(Transcript, ReadsSpacedOuterFormatting) {
  TempDir tmp;
  test::write_text(tmp / "t.ndjson", "{\"dir\": \"client\", \"raw\": \"{\\\"jsonrpc\\\":\\\"2.0\\\"}\"}\n");
  auto reader = TranscriptReader::open(tmp / "t.ndjson");
  ASSERT_TRUE(reader);
  auto item = reader->next();
  ASSERT_TRUE(item && *item);
  EXPECT_EQ((*item)->raw, R"({"jsonrpc":"2.0"})");
  EXPECT_FALSE(reader->facts().canonical);
  EXPECT_FALSE(reader->next());
}

TEST(Transcript, ReportsEachBadLineAndGoesOn) {
  TempDir tmp;
  test::write_text(tmp / "t.ndjson",
                   "{\"dir\":\"client\",\"raw\":\"{}\"}\n"
                   "\n"
                   "{\"dir\":\"peer\",\"raw\":\"{}\"}\n"
                   "{\"dir\":\"server\",\"raw\":\"{}\",\"x\":1}\n"
                   "not json\n"
                   "{\"dir\":\"server\",\"raw\":\"\xff\"}\n"
                   "{\"dir\":\"server\",\"raw\":\"{}\"}");
  auto reader = TranscriptReader::open(tmp / "t.ndjson");
  ASSERT_TRUE(reader);
  std::vector<std::string> rules;
  while (auto item = reader->next()) rules.push_back(*item ? "ok" : item->error().rule);
  EXPECT_EQ(rules, (std::vector<std::string>{"ok", "file.blank-line", "file.dir", "file.members", "file.json",
                                             "file.utf8", "ok"}));
  EXPECT_FALSE(reader->facts().lf_terminated);
}

TEST(Transcript, ErrorsNameFileAndLine) {
  TempDir tmp;
  test::write_text(tmp / "t.ndjson", "{\"dir\":\"client\",\"raw\":\"{}\"}\n{\"raw\":\"{}\"}\n");
  auto frames = read_transcript(tmp / "t.ndjson");
  ASSERT_FALSE(frames);
  EXPECT_EQ(frames.error().render(), (tmp / "t.ndjson").string() + ":2: missing member \"dir\" [file.members]");
}

TEST(Transcript, OpenMissingFileIsUnreadable) {
  auto reader = TranscriptReader::open("/nonexistent/transcript.ndjson");
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().kind, ErrorKind::unreadable);
}

TEST(Writer, WritesCanonicalLines) {
  EXPECT_EQ(canonical_line(Direction::client, "{\"a\":\"\xe4\xba\x8b\"}\r"),
            R"({"dir":"client","raw":"{\"a\":\"事\"}\r"})");
  EXPECT_EQ(canonical_line(Direction::server, std::string("\x01\t", 2)), R"({"dir":"server","raw":"\u0001\t"})");
}

TEST(Writer, KeepsInvalidUtf8ExactlyInRawBase64) {
  const std::string bytes = "{\"x\":\"\xff\xfe\"}";
  const std::string line = canonical_line(Direction::server, bytes);
  EXPECT_NE(line.find("rawBase64"), std::string::npos);
  auto frame = parse_transcript_line(line, "f", 1);
  ASSERT_TRUE(frame) << frame.error().render();
  EXPECT_EQ(frame->wire_bytes(), bytes);
  EXPECT_TRUE(is_valid_utf8(frame->raw));
}

TEST(Writer, Base64RoundTrips) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "\xff\x00\x10"}) {
    auto decoded = base64_decode(base64_encode(s));
    ASSERT_TRUE(decoded);
    EXPECT_EQ(*decoded, s);
  }
  EXPECT_EQ(base64_encode("Man"), "TWFu");
  EXPECT_FALSE(base64_decode("abc"));
}

TEST(Utf8, RejectsOverlongsSurrogatesAndTruncation) {
  EXPECT_TRUE(is_valid_utf8("plain \xe2\x9c\x93"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));
  EXPECT_FALSE(is_valid_utf8("\xe2\x9c"));
}

// An id is judged by its value, not its spelling: the canonical form (normalize
// --sort-members) writes 1e3 as 1000, and the frame must stay what it was (a fuzz finding).
TEST(Frame, NumberIdsAreIntegersByValue) {
  auto kind_of = [](const std::string& id) {
    auto v = parse_json(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{}})");
    return classify(*v).kind;
  };
  for (const char* id : {"1000", "1e3", "1e03", "1000.0", "10000e-1", "-0", "18446744073709551615"})
    EXPECT_EQ(kind_of(id), FrameKind::response) << id;
  for (const char* id : {"1.5", "1e400", "123456789012345678901234567890", "18446744073709551616", "-9223372036854775809"})
    EXPECT_EQ(kind_of(id), FrameKind::invalid) << id;
  EXPECT_EQ(id_key(*parse_json("1e3")), id_key(*parse_json("1000")));
  EXPECT_EQ(id_key(*parse_json("1000")), "1000");
  EXPECT_EQ(id_key(*parse_json("\"1000\"")), "\"1000\"");
}

// So is an error code (a fuzz finding: -327e00 made a response invalid that --sort-members,
// writing it as -327, made valid), and validate reads its value whatever the spelling.
TEST(Frame, ErrorCodesAreIntegersByValue) {
  auto kind_of = [](const std::string& code) {
    auto v = parse_json(R"({"jsonrpc":"2.0","id":null,"error":{"code":)" + code + R"(,"message":"m"}})");
    return classify(*v).kind;
  };
  for (const char* code : {"-32700", "-327e2", "-32700.0", "-327e00", "18446744073709551615"})
    EXPECT_EQ(kind_of(code), FrameKind::response) << code;
  for (const char* code : {"-32700.5", "1e400", "\"-32700\"", "123456789012345678901234567890"})
    EXPECT_EQ(kind_of(code), FrameKind::invalid) << code;
  EXPECT_EQ(json_int64(*parse_json("-327e2")), -32700);
  EXPECT_EQ(json_int64(*parse_json("18446744073709551615")), std::nullopt);
  EXPECT_TRUE(is_json_integer(*parse_json("18446744073709551615")));
}

// A rawBase64 line's frame is its bytes: its lossy `raw` is never parsed in their place (a fuzz
// finding: `"rawBase64":""` beside a JSON `raw` was a request to the differ, while normalize
// wrote the empty bytes, so the normalized transcript lost a request).
TEST(Frame, ARawBase64FrameIsItsBytes) {
  auto line = parse_transcript_line(R"({"dir":"server","raw":"{\"jsonrpc\":\"2.0\",\"method\":\"m\"}","rawBase64":""})", "t", 1);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->json_text(), "");
  EXPECT_FALSE(line->parse("t").has_value());
  auto lossy = parse_transcript_line(R"({"dir":"client","raw":"{\"a\":\"�\"}\r","rawBase64":"eyJhIjoi/yJ9DQ=="})", "t", 2);
  ASSERT_TRUE(lossy.has_value());
  EXPECT_EQ(lossy->json_text(), "{\"a\":\"\xff\"}");
  EXPECT_FALSE(lossy->parse("t").has_value());  // not UTF-8: not JSON, whatever raw says
}

TEST(Frame, ClassifiesEnvelopes) {
  auto kind = [](const char* text) { return classify(boost::json::parse(text)); };
  EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})").kind, FrameKind::request);
  EXPECT_EQ(kind(R"({"jsonrpc":"2.0","method":"initialized"})").kind, FrameKind::notification);
  EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":"b9","result":{}})").kind, FrameKind::response);
  EXPECT_TRUE(kind(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})").is_error);
  EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":1,"result":{},"error":{}})").kind, FrameKind::invalid);
  EXPECT_EQ(kind(R"({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}})").kind, FrameKind::invalid);
  EXPECT_EQ(kind(R"({"id":1,"method":"x"})").kind, FrameKind::invalid);
  EXPECT_EQ(kind(R"([1])").kind, FrameKind::invalid);
}

TEST(Manifest, ParsesEveryCorpusManifestWithoutProblems) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const auto& dir : test::corpus_scenarios()) {
    auto scenario = load_scenario(dir);
    ASSERT_TRUE(scenario) << scenario.error().render();
    EXPECT_TRUE(scenario->manifest_problems.empty()) << dir << ": " << scenario->manifest_problems[0].message;
    EXPECT_EQ(scenario->manifest.scenario, dir.filename().string());
  }
}

TEST(Manifest, PreservesUnknownMembersAndWritesAtomically) {
  TempDir tmp;
  auto parsed = parse_manifest(boost::json::parse(R"({"kind":"mspTranscript","schemaVersion":1,"scenario":"s",
    "provenance":"hand-authored","fingerprint":"sha256:0000000000000000000000000000000000000000000000000000000000000000",
    "viewSchemaVersion":1,"serverConfig":{"frameLimitBytes":1024,"other":true},"transports":["stdio"],
    "normalize":["id"],"seeds":{"idSeed":7,"clockStartMs":1,"note":"kept"},"source":[{"lines":"1-2","cite":"x"}],
    "futureMember":{"a":[1,2]}})"));
  ASSERT_TRUE(parsed.problems.empty()) << parsed.problems[0].message;
  EXPECT_EQ(parsed.manifest.frame_limit_bytes, 1024);
  ASSERT_TRUE(write_manifest(tmp / "manifest.json", parsed.manifest));
  auto again = read_manifest(tmp / "manifest.json");
  ASSERT_TRUE(again);
  EXPECT_EQ(boost::json::value(again->manifest.extra), boost::json::parse(R"({"futureMember":{"a":[1,2]}})"));
  EXPECT_TRUE(again->manifest.server_config_extra.contains("other"));
  EXPECT_EQ(again->manifest.seeds_extra.at("note"), "kept");
  EXPECT_EQ(again->manifest.source.at(0).last, 2u);
  EXPECT_FALSE(std::filesystem::exists(tmp / "manifest.json.tmp"));
}

TEST(Manifest, CollectsEveryProblem) {
  auto parsed = parse_manifest(boost::json::parse(R"({"kind":"x","schemaVersion":1,"provenance":"made-up",
    "fingerprint":"sha1:abc","viewSchemaVersion":"1","serverConfig":{"frameLimitBytes":0},"transports":["stdio"],
    "normalize":[3],"seeds":{"idSeed":7},"source":[{"lines":"3-1","cite":"x"}],
    "regenerationJustification":{"cite":"c"}})"));
  std::vector<std::string> rules;
  for (const auto& p : parsed.problems) rules.push_back(p.rule + " " + p.member);
  EXPECT_EQ(rules, (std::vector<std::string>{
                       "manifest.kind kind", "manifest.required scenario", "manifest.provenance provenance",
                       "manifest.regeneration regenerationJustification.rationale",
                       "manifest.regeneration regenerationJustification.trackingIssue",
                       "manifest.fingerprint fingerprint", "manifest.type viewSchemaVersion",
                       "manifest.frame-limit serverConfig.frameLimitBytes", "manifest.type normalize[0]",
                       "manifest.required seeds.clockStartMs", "manifest.source source[0].lines"}));
}

TEST(JsonIo, SyntaxErrorNamesLine) {
  TempDir tmp;
  test::write_text(tmp / "m.json", "{\n  \"a\": 1,\n  \"b\": \n}\n");
  auto value = parse_json_file(tmp / "m.json");
  ASSERT_FALSE(value);
  EXPECT_EQ(value.error().line, 4u);
  EXPECT_EQ(value.error().kind, ErrorKind::malformed);
}

TEST(Scenario, ClassifiesPaths) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  EXPECT_EQ(*classify_path(test::shared_transcripts()), PathKind::corpus);
  EXPECT_EQ(*classify_path(test::shared_transcripts() / "model-round-trip"), PathKind::scenario);
  EXPECT_EQ(*classify_path(test::shared_transcripts() / "model-round-trip/transcript.ndjson"), PathKind::transcript);
  auto files = locate_scenario(test::shared_transcripts() / "model-round-trip");
  ASSERT_TRUE(files);
  ASSERT_EQ(files->legs.size(), 1u);
  EXPECT_EQ(files->legs[0].filename(), "model-command-legs.ndjson");
  EXPECT_FALSE(classify_path("/nonexistent"));
  EXPECT_EQ(list_corpus(test::shared_transcripts())->size(), 37u);
}

}  // namespace
}  // namespace msptk

namespace msptk {
namespace {

Envelope env(const char* text) {
  static std::vector<boost::json::value> keep;  // classify() points into the value
  keep.push_back(boost::json::parse(text));
  return classify(keep.back());
}

TEST(Correlator, PairsResponsesWithRequestsPerDirection) {
  Correlator c;
  EXPECT_EQ(c.observe(Direction::client, env(R"({"jsonrpc":"2.0","id":1,"method":"initialize"})"), 1).status,
            Correlator::Status::ok);
  // The server's own request id 1 lives in a separate space.
  EXPECT_EQ(c.observe(Direction::server, env(R"({"jsonrpc":"2.0","id":1,"method":"approval/request"})"), 2).status,
            Correlator::Status::ok);
  auto answer = c.observe(Direction::server, env(R"({"jsonrpc":"2.0","id":1,"result":{}})"), 3);
  ASSERT_EQ(answer.status, Correlator::Status::ok);
  ASSERT_NE(answer.answered, nullptr);
  EXPECT_EQ(answer.answered->method, "initialize");
  EXPECT_EQ(answer.answered->line, 1u);
  EXPECT_EQ(c.observe(Direction::server, env(R"({"jsonrpc":"2.0","id":1,"result":{}})"), 4).status,
            Correlator::Status::unmatched);
  ASSERT_EQ(c.in_flight().size(), 1u);
  EXPECT_EQ(c.in_flight()[0].method, "approval/request");
}

TEST(Correlator, FlagsAnIdReusedWhileInFlight) {
  Correlator c;
  c.observe(Direction::client, env(R"({"jsonrpc":"2.0","id":"a","method":"x"})"), 1);
  auto dup = c.observe(Direction::client, env(R"({"jsonrpc":"2.0","id":"a","method":"y"})"), 2);
  EXPECT_EQ(dup.status, Correlator::Status::duplicate_id);
  ASSERT_NE(dup.previous, nullptr);
  EXPECT_EQ(dup.previous->line, 1u);
}


TEST(Transcript, DuplicateMembersInALineAreFileMembers) {
  auto twice = parse_transcript_line(R"({"dir":"client","raw":"{}","raw":"[]"})", "t.ndjson", 4);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().rule, "file.members");
  EXPECT_EQ(twice.error().line, 4u);
  EXPECT_NE(twice.error().message.find("duplicate member \"raw\""), std::string::npos) << twice.error().message;
  auto dir_twice = parse_transcript_line(R"({"dir":"client","dir":"server","raw":"{}"})", "t.ndjson", 1);
  ASSERT_FALSE(dir_twice);
  EXPECT_EQ(dir_twice.error().rule, "file.members");
}

TEST(Transcript, FramesWithDuplicateMembersOrDeepNestingSayWhat) {
  Frame f;
  f.raw = R"({"jsonrpc":"2.0","id":1,"id":2,"method":"m"})";
  auto dup = f.parse("t.ndjson");
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().rule, "frame.duplicate-member");
  f.raw = std::string(10001, '[') + std::string(10001, ']');
  auto deep = f.parse("t.ndjson");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, "raw is nested deeper than 10000 levels");
  f.raw = R"({"jsonrpc":"2.0","method":"m","params":)" + std::string(40, '[') + std::string(40, ']') + "}";
  EXPECT_TRUE(f.parse("t.ndjson"));
}

TEST(Transcript, ExactNumbersAreNeitherIdsNorStrings) {
  auto message = parse_json(R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"})");
  ASSERT_TRUE(message);
  EXPECT_EQ(classify(*message).kind, FrameKind::invalid);
  auto method = parse_json(R"({"jsonrpc":"2.0","id":1,"method":1e400})");
  EXPECT_EQ(classify(*method).problem, "method must be a string");
}


TEST(Transcript, LinesOverTheCapAreSkippedWithAnErrorNamingTheLine) {
  TempDir dir;
  const auto path = dir / "t.ndjson";
  const std::string ok = R"({"dir":"client","raw":"{}"})";
  // Lines around the LineSource's 1 MiB chunk size, one over the cap, then more lines.
  const std::size_t chunk = 1 << 20;
  const std::string at_chunk = R"({"dir":"client","raw":")" + std::string(chunk - 25, 'a') + R"("})";
  const std::string over_chunk = R"({"dir":"client","raw":")" + std::string(3 * chunk, 'b') + R"("})";
  ASSERT_EQ(at_chunk.size(), chunk);
  {
    std::ofstream out(path, std::ios::binary);
    out << ok << "\n" << at_chunk << "\n" << over_chunk << "\n" << std::string(5 * chunk, 'c') << "\n\n" << ok;
  }
  auto reader = TranscriptReader::open(path, 4 * chunk);
  ASSERT_TRUE(reader);
  auto l1 = reader->next();
  ASSERT_TRUE(l1 && *l1);
  auto l2 = reader->next();
  ASSERT_TRUE(l2 && *l2);
  EXPECT_EQ((*l2)->raw.size(), chunk - 25);
  auto l3 = reader->next();
  ASSERT_TRUE(l3 && *l3);
  EXPECT_EQ((*l3)->raw, std::string(3 * chunk, 'b'));
  auto l4 = reader->next();
  ASSERT_TRUE(l4 && !*l4);
  EXPECT_EQ(l4->error().kind, ErrorKind::unreadable);
  EXPECT_EQ(l4->error().line, 4u);
  EXPECT_EQ(l4->error().render(),
            path.string() + ":4: line is 5242880 bytes, more than msptk holds in memory (4194304 bytes; "
                            "MSPTK_MAX_LINE_BYTES raises the cap); the line was skipped");
  auto l5 = reader->next();
  ASSERT_TRUE(l5 && !*l5);
  EXPECT_EQ(l5->error().rule, "file.blank-line");
  auto l6 = reader->next();
  ASSERT_TRUE(l6 && *l6);
  EXPECT_FALSE(reader->facts().lf_terminated);
  EXPECT_FALSE(reader->next());
}

TEST(JsonLocate, FindsMembersElementsAndTheirParents) {
  const std::string text = "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      {\"d\": 1},\n      {\n        \"d\": 2\n      }\n    ]\n  }\n}\n";
  EXPECT_EQ(line_of_path(text, ""), 1u);
  EXPECT_EQ(line_of_path(text, "a"), 2u);
  EXPECT_EQ(line_of_path(text, "b.c"), 4u);
  EXPECT_EQ(line_of_path(text, "b.c[0].d"), 5u);
  EXPECT_EQ(line_of_path(text, "b.c[1].d"), 7u);
  EXPECT_EQ(line_of_path(text, "b.c[1].missing"), 6u);  // the object it belongs in
  EXPECT_EQ(line_of_path(text, "zzz"), 1u);
  EXPECT_EQ(line_of_path("{\"s\": \"a\\\"b\",\n\"t\": 1}", "t"), 2u);  // escaped quotes
  EXPECT_EQ(line_of_path("{\"a\": [1, 2", "a[1]"), 1u);                 // truncated text
}

TEST(JsonLocate, DeepNestingOffThePathUsesNoStack) {
  // A million levels beside the member: skipped without recursion (the member is found after).
  std::string text = "{\"deep\": " + std::string(1'000'000, '[') + std::string(1'000'000, ']') + ",\n\"t\": 1}";
  EXPECT_EQ(line_of_path(text, "t"), 2u);
  EXPECT_EQ(line_of_path(std::string(1'000'000, '['), "a[0]"), 1u);  // unclosed, off the path
  EXPECT_EQ(line_of_path("{\"a\": \"x\"\n, \"b\": [\"]\", {\"c\": 1}],\n\"t\": 2}", "t"), 3u);  // brackets in strings
}

TEST(JsonLocate, TopLevelMemberNotANestedOneOfTheSameName) {
  const std::string text = "{\n  \"capture\": {\"fingerprint\": \"x\"},\n  \"fingerprint\": \"y\"\n}";
  EXPECT_EQ(line_of_path(text, "fingerprint"), 3u);
  EXPECT_EQ(line_of_path(text, "capture.fingerprint"), 2u);
}

TEST(JsonLocate, StringEndStepsOverEscapes) {
  const std::string_view text = R"(x"a\"b\\"y"\")";
  EXPECT_EQ(json_string_end(text, 1), 9u);                           // "a\"b\\" then y
  EXPECT_EQ(json_string_end(text, 0), std::string_view::npos);       // not a quote
  EXPECT_EQ(json_string_end(text, 10), std::string_view::npos);      // "\" never ends
  EXPECT_EQ(json_string_end(R"("")", 0), 2u);
  EXPECT_EQ(json_string_end(R"("\)", 0), std::string_view::npos);
  EXPECT_EQ(json_string_end("", 0), std::string_view::npos);
}

}  // namespace
}  // namespace msptk
