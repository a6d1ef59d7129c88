// The text key against the general path (issue 12: a fast path gives what the plain path gives,
// bit for bit): for every text notification_text_key accepts, parse_json + classify +
// content_key give a notification with the same method and the same key; the AVX2 and the
// scalar scans give the same answer. Hand cases for every escape and every reason to decline,
// every frame of the public corpus and of corpus/, frames of the bench generator (which the fast
// path must actually take) and 60,000 generated, mutated notifications.
#include "msptk/transcript/key_hash.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/transcript/text_key.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace msptk {
namespace {

namespace fs = std::filesystem;

// What the general path says: the method and content key of a notification, else nullopt.
std::optional<std::pair<std::string, std::uint64_t>> general(std::string_view text) {
  auto v = parse_json(text, ParseLimits{.utf8_known = true});
  if (!v) return std::nullopt;
  const Envelope env = classify(*v);
  if (env.kind != FrameKind::notification) return std::nullopt;
  static const Masker masker{MaskSpec{}};
  const FrameRole role = FrameRole::of(Direction::server, env);
  EXPECT_TRUE(masker.masks_nothing(role));
  return std::make_pair(env.method, content_key(masker, role, *v));
}

// The bytes of `s` with control bytes as C escapes, for a failure message (long texts cut).
std::string shown(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 400)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  if (s.size() > 400) out += "...";
  return out;
}

// Runs both scans; checks they agree and, when they accept, that the general path agrees.
// Returns whether the text was accepted.
bool check(std::string_view text) {
  static std::string scratch_fast, scratch_plain;
  const std::optional<TextKey> fast = notification_text_key(text, scratch_fast);
  const std::optional<TextKey> plain = notification_text_key_scalar(text, scratch_plain);
  EXPECT_EQ(fast.has_value(), plain.has_value()) << "the AVX2 and scalar scans disagree on: " << shown(text);
  if (fast && plain) {
    EXPECT_EQ(fast->method, plain->method) << shown(text);
    EXPECT_EQ(fast->content, plain->content) << shown(text);
  }
  const std::optional<TextKey>& got = fast ? fast : plain;
  if (!got) return false;
  EXPECT_GE(got->method.data(), text.data()) << "the method is not a view into the text";
  EXPECT_LE(got->method.data() + got->method.size(), text.data() + text.size());
  const auto want = general(text);
  EXPECT_TRUE(want.has_value()) << "accepted what the general path does not take for a notification: " << shown(text);
  if (!want) return true;
  EXPECT_EQ(got->method, want->first) << shown(text);
  EXPECT_EQ(got->content, want->second) << "content keys differ for: " << shown(text);
  return true;
}

void expect_accepted(std::string_view text) { EXPECT_TRUE(check(text)) << "declined: " << shown(text); }

void expect_declined(std::string_view text) { EXPECT_FALSE(check(text)) << "accepted: " << shown(text); }

std::string note(std::string_view params) {
  return std::string(R"({"jsonrpc":"2.0","method":"item/delta","params":)") + std::string(params) + "}";
}

TEST(TextKey, AcceptsANotificationWithTheGeneralPathsKey) {
  expect_accepted(R"({"jsonrpc":"2.0","method":"initialized"})");
  expect_accepted(note(R"({"delta":"hello","n":1})"));
  expect_accepted(note(R"([1,2,3])"));
  std::string scratch;
  const std::string text = note(R"({"a":1})");
  const auto key = notification_text_key(text, scratch);  // its method is a view into `text`
  ASSERT_TRUE(key);
  EXPECT_EQ(key->method, "item/delta");
}

// The pruned text is the frame with each string value cut to `keep` code points (escapes
// decoded and written again), keys, the envelope's jsonrpc and method and everything else as
// they are: it parses to the frame's DOM
// with those strings cut.
boost::json::value cut_strings(const boost::json::value& v, std::size_t keep) {
  if (v.is_string()) {
    const std::string_view s(v.get_string().data(), v.get_string().size());
    std::size_t points = 0, i = 0;
    for (; i < s.size(); ++i)
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && points++ == keep) break;
    return boost::json::value(boost::json::string_view(s.data(), i));
  }
  if (v.is_array()) {
    boost::json::array out;
    for (const auto& e : v.get_array()) out.push_back(cut_strings(e, keep));
    return out;
  }
  if (v.is_object()) {
    boost::json::object out;
    for (const auto& m : v.get_object()) out[m.key()] = cut_strings(m.value(), keep);
    return out;
  }
  return v;
}

TEST(TextKey, PrunedTextIsTheFrameWithItsStringsCut) {
  const std::string long_text = "caf\u00e9 \\\"quoted\\\" line\\nbreak \U0001F3B5 " + std::string(300, 'x');
  for (const std::string& text : std::vector<std::string>
       {note(R"({"delta":"short","n":1})"), note("{\"delta\":\"" + long_text + "\",\"item\":{\"text\":\"" + long_text + "\",\"id\":\"i\"}}"),
        note("[\"" + long_text + "\",[\"" + long_text + "\"],true,null,12]"), note("{\"e\":\"\u00e9\u00e9\u00e9\u00e9\u00e9\"}"),
        note("{\"" + std::string(80, 'k') + "\":\"v\"}"), std::string(R"({"method":"m","jsonrpc":"2.0"})")}) {
    for (std::size_t keep : {0u, 3u, 5u, 49u}) {
      std::string pruned;
      const auto key = notification_text_key_pruned(text, keep, pruned);
      ASSERT_TRUE(key) << shown(text);
      auto full = parse_json(text);
      auto small = parse_json(pruned);
      ASSERT_TRUE(full && small) << shown(pruned);
      boost::json::value expected = cut_strings(*full, keep);
      expected.as_object()["jsonrpc"] = full->at("jsonrpc");  // the envelope's strings are kept whole
      expected.as_object()["method"] = full->at("method");
      EXPECT_EQ(serialize_json(*small), serialize_json(expected)) << keep << " " << shown(text);
      EXPECT_LE(pruned.size(), text.size());
    }
  }
}

TEST(TextKey, DecodesEachShortEscape) {
  for (const char* esc : {R"(\")", R"(\\)", R"(\/)", R"(\b)", R"(\f)", R"(\n)", R"(\r)", R"(\t)"}) {
    const std::string e = esc;
    expect_accepted(note(R"({"s":")" + e + R"("})"));
    expect_accepted(note(R"({"s":"before)" + e + R"(after"})"));
    expect_accepted(note(R"({"s":")" + e + e + e + R"("})"));
    expect_accepted(note(R"({"k)" + e + R"(":1})"));  // in a member name
  }
  // The same decoded bytes give the same key however they are spelled.
  std::string a, b;
  const auto slash = notification_text_key(note(R"({"s":"a\/b"})"), a);
  const auto plain = notification_text_key(note(R"({"s":"a/b"})"), b);
  ASSERT_TRUE(slash && plain);
  EXPECT_EQ(slash->content, plain->content);
  // And different bytes a different one.
  const auto n = notification_text_key(note(R"({"s":"a\nb"})"), a);
  const auto t = notification_text_key(note(R"({"s":"a\tb"})"), b);
  ASSERT_TRUE(n && t);
  EXPECT_NE(n->content, t->content);
}

TEST(TextKey, LongStringsWithEscapesAcrossEveryBlockBoundary) {
  // Escapes and the closing quote at every offset around the 8-, 16-, 32- and 64-byte steps.
  for (std::size_t len = 0; len < 200; ++len) {
    for (std::size_t at : {std::size_t{0}, len / 2, len > 0 ? len - 1 : 0}) {
      std::string s(len, 'x');
      if (len > 0) s.replace(at, 1, "\\n");
      expect_accepted(note(R"({"text":")" + s + R"("})"));
      std::string q(len, 'y');
      if (len > 0) q.replace(at, 1, "\\\"\\\\");
      expect_accepted(note(R"({"text":")" + q + R"("})"));
    }
  }
  std::string big;
  for (int i = 0; i < 20000; ++i) big += i % 7 == 0 ? "line \\\"quoted\\\" caf\xc3\xa9\\n" : "plain words here ";
  expect_accepted(note(R"({"item":{"text":")" + big + R"("}})"));
}

TEST(TextKey, EveryPairOfEscapeOffsetsInTheBlockDecoder) {
  // The AVX2 decoder takes 64-byte blocks from the first backslash on, an escape at byte 63
  // reaching into the next block, and the last bytes one escape at a time: two escapes (or an
  // escape and something to decline) at every pair of offsets, behind prefixes of every phase.
  static const char* const kinds[] = {"\\n", "\\\\", "\\\"", "\\/", "\\t", "\\\\\\\\", "\\\"\\\""};
  static const char* const bad[] = {"\\u0041", "\x01", "\\x", "\\"};
  std::size_t cases = 0;
  for (std::size_t pre = 0; pre < 3; ++pre) {
    for (std::size_t i = 0; i < 140; ++i) {
      for (std::size_t j = i; j < 140; ++j) {
        std::string s(150, 'a');
        const std::size_t kind = (i * 7 + j + pre) % 7;
        const bool decline = (i + 3 * j + pre) % 11 == 0;
        s.insert(j, decline ? bad[(i + j) % 4] : kinds[(kind + 3) % 7]);
        s.insert(i, kinds[kind]);
        s.insert(0, std::string(pre * 21, 'p'));
        s.insert(0, "\\n");  // the decoder starts at the string's first backslash
        const std::string text = note(R"({"text":")" + s + R"(","n":1})");
        if (decline) {
          expect_declined(text);
        } else {
          expect_accepted(text);
        }
        ++cases;
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(cases, 29000u);
}

TEST(TextKey, NestingEmptyContainersAndScalars) {
  expect_accepted(note("{}"));
  expect_accepted(note("[]"));
  expect_accepted(note(R"({"a":{},"b":[],"c":[{}],"d":[[]],"e":{"f":{"g":[1,[2,[3]]]}}})"));
  expect_accepted(note(R"({"t":true,"f":false,"n":null,"z":0,"neg":-12,"s":""})"));
  expect_accepted(note(R"([true,false,null,0,"",{},[]])"));
  std::string deep = "1";
  for (std::size_t i = 0; i + 1 < text_key_max_depth; ++i) deep = "[" + deep + "]";
  expect_accepted(note(deep));  // the root object at depth 0, 47 arrays at depths 1 to 47
}

TEST(TextKey, WhitespaceEverywhere) {
  expect_accepted(" \t\r\n{ \"jsonrpc\" : \"2.0\" ,\n\"method\"\t:\r\"m\" , \"params\" : { \"a\" : [ 1 , 2 , { } , [ ] ] ,"
                  " \"b\" : null } } \n\t ");
  std::string a, b;
  const auto spaced = notification_text_key(R"( { "jsonrpc" : "2.0" , "method" : "m" , "params" : [ 1 , "x" ] } )", a);
  const auto tight = notification_text_key(R"({"jsonrpc":"2.0","method":"m","params":[1,"x"]})", b);
  ASSERT_TRUE(spaced && tight);
  EXPECT_EQ(spaced->content, tight->content);
}

TEST(TextKey, MemberOrderIsFreeArrayOrderIsNot) {
  std::string a, b;
  const auto one = notification_text_key(R"({"jsonrpc":"2.0","method":"m","params":{"a":1,"b":"x"}})", a);
  const auto two = notification_text_key(R"({"params":{"b":"x","a":1},"method":"m","jsonrpc":"2.0"})", b);
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->content, two->content);
  expect_accepted(R"({"params":{"b":"x","a":1},"method":"m","jsonrpc":"2.0"})");
  const auto three = notification_text_key(note("[1,2]"), a);
  const auto four = notification_text_key(note("[2,1]"), b);
  ASSERT_TRUE(three && four);
  EXPECT_NE(three->content, four->content);
}

TEST(TextKey, IntegersUpTo18Digits) {
  for (const char* n : {"0", "7", "-7", "10", "123456789012345678", "-123456789012345678", "999999999999999999",
                        "-999999999999999999"})
    expect_accepted(note(std::string("[") + n + "]"));
  for (const char* n : {"1234567890123456789", "9223372036854775807", "9223372036854775808", "18446744073709551615",
                        "18446744073709551616", "-9223372036854775808", "123456789012345678901234567890"})
    expect_declined(note(std::string("[") + n + "]"));
}

TEST(TextKey, NonAsciiUtf8IsHashedAsItIs) {
  expect_accepted(note("{\"caf\xc3\xa9\":\"na\xc3\xafve \xe2\x86\x92 \xf0\x9f\x8e\xb5\"}"));
  expect_accepted(note("[\"\x7f\"]"));  // DEL is not a control byte for JSON
}

TEST(TextKey, DeclinesWhatItDoesNotFullyUnderstand) {
  // Not valid JSON, or not one value.
  expect_declined(note(R"({"a":1,"a":2})"));                                  // duplicate member
  expect_declined(note(R"({"a":{"x":1,"y":2,"x":3}})"));                      // duplicate member, nested
  expect_declined(R"({"jsonrpc":"2.0","method":"m","method":"m"})");          // duplicate envelope member
  expect_declined(note(R"({"a\n":1,"a\u000a":2})"));                          // \u
  expect_declined(note(R"({"s":"\u00e9"})"));                                 // \u
  expect_declined(note(R"({"s":"\ud800"})"));                                 // \u, a lone surrogate
  expect_declined(note(R"({"s":"\x"})"));                                     // not an escape
  expect_declined(note("{\"s\":\"a\nb\"}"));                                  // raw control byte
  expect_declined(note("{\"s\":\"a\tb\"}"));                                  // raw tab
  expect_declined(note(std::string("{\"s\":\"a") + '\0' + "b\"}"));           // raw NUL
  expect_declined(note("[-0]"));
  expect_declined(note("[1.5]"));
  expect_declined(note("[1.0]"));
  expect_declined(note("[1e3]"));
  expect_declined(note("[1E3]"));
  expect_declined(note("[9223372036854775808]"));  // 2^63
  expect_declined(note("[01]"));
  expect_declined(note("[-]"));
  expect_declined(note("[+1]"));
  expect_declined(note("[tru]"));
  expect_declined(note("[nul]"));
  expect_declined(note("[1,]"));
  expect_declined(note(R"({"a":1,})"));
  expect_declined(note(R"({"a" 1})"));
  expect_declined(note(R"({a:1})"));
  expect_declined(note("[1 2]"));
  expect_declined(note("{}") + "x");   // trailing garbage
  expect_declined(note("{}") + "{}");  // a second value
  const std::string whole = note(R"({"delta":"hello \"world\"","n":[1,2,{"x":null}]})");
  for (std::size_t n = 0; n < whole.size(); ++n) expect_declined(whole.substr(0, n));  // truncated
  expect_declined("");
  expect_declined("   ");
  // Valid JSON, not a notification.
  expect_declined(R"([{"jsonrpc":"2.0","method":"m"}])");  // not an object
  expect_declined(R"("text")");
  expect_declined("42");
  expect_declined(R"({"method":"m","params":{}})");                      // missing jsonrpc
  expect_declined(R"({"jsonrpc":"1.0","method":"m"})");                  // another version
  expect_declined(R"({"jsonrpc":2.0,"method":"m"})");                    // version not a string
  expect_declined(R"({"jsonrpc":"2.0 ","method":"m"})");
  expect_declined(R"({"jsonrpc":"2.0","id":1,"method":"m"})");           // a request
  expect_declined(R"({"jsonrpc":"2.0","id":null,"method":"m"})");
  expect_declined(R"({"jsonrpc":"2.0","method":"m","result":{}})");      // result present
  expect_declined(R"({"jsonrpc":"2.0","method":"m","error":{}})");       // error present
  expect_declined(R"({"jsonrpc":"2.0","id":1,"result":{}})");            // a response
  expect_declined(R"({"jsonrpc":"2.0","method":"m","params":"text"})");  // params a string
  expect_declined(R"({"jsonrpc":"2.0","method":"m","params":null})");
  expect_declined(R"({"jsonrpc":"2.0","method":"m","params":1})");
  expect_declined(R"({"jsonrpc":"2.0","method":1})");                    // method not a string
  expect_declined(R"({"jsonrpc":"2.0","method":null})");
  expect_declined(R"({"jsonrpc":"2.0"})");                               // no method
  expect_declined(R"({"jsonrpc":"2.0","method":"item\/delta"})");        // method with an escape
  // Too deep for the scanner (the general path would take it).
  std::string deep = "1";
  for (std::size_t i = 0; i < text_key_max_depth; ++i) deep = "[" + deep + "]";  // an array at depth 48
  EXPECT_TRUE(general(note(deep)).has_value());
  expect_declined(note(deep));
  std::string deeper = "{}";
  for (int i = 0; i < 5000; ++i) deeper = R"({"a":)" + deeper + "}";
  expect_declined(note(deeper));
}

TEST(TextKey, WideObjectsFindDuplicatesToo) {
  std::string members;
  for (int i = 0; i < 300; ++i) members += (i ? "," : "") + ("\"k" + std::to_string(i) + "\":" + std::to_string(i));
  expect_accepted(note("{" + members + "}"));
  expect_declined(note("{" + members + ",\"k123\":0}"));
  expect_declined(note("{\"k299\":[]," + members + "}"));
  // Escaped and plain spellings of one name are one name.
  expect_declined(note(R"({"a/b":1,"a\/b":2})"));
}

TEST(TextKey, ScratchKeepsItsMemory) {
  std::string scratch;
  const std::string text = note(R"({"s":"a\nb\nc"})");
  ASSERT_TRUE(notification_text_key(text, scratch));
  const std::size_t capacity = scratch.capacity();
  const char* data = scratch.data();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(notification_text_key(text, scratch));
  EXPECT_EQ(scratch.capacity(), capacity);
  EXPECT_EQ(scratch.data(), data);
}

// Every frame of every transcript under `root` (scenario folders with *.ndjson files): the
// property, and the share of server notifications accepted.
struct Tally {
  std::size_t frames = 0, notifications = 0, accepted = 0;
};

void check_file(const fs::path& file, Tally& tally) {
  auto reader = TranscriptReader::open(file);
  ASSERT_TRUE(reader) << reader.error().render();
  while (auto item = reader->next()) {
    if (!*item) continue;
    const Frame& frame = **item;
    const std::string_view text = frame.json_text();
    if (!is_valid_utf8(text)) continue;  // the contract: a reader's frames are UTF-8
    ++tally.frames;
    const bool accepted = check(text);
    if (general(text) && frame.dir == Direction::server) {
      ++tally.notifications;
      tally.accepted += accepted;
    }
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << file << " line " << reader->line();
      return;
    }
  }
}

std::vector<fs::path> ndjson_under(const fs::path& root) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".ndjson") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TextKey, AgreesWithTheGeneralPathOnThePublicCorpus) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  Tally tally;
  for (const fs::path& file : test::corpus_ndjson_files()) check_file(file, tally);
  EXPECT_GT(tally.frames, 100u);
  EXPECT_GT(tally.accepted * 10, tally.notifications * 9)
      << tally.accepted << " of " << tally.notifications << " server notifications accepted";
  std::printf("public corpus: %zu frames, %zu of %zu server notifications accepted\n", tally.frames, tally.accepted,
              tally.notifications);
}

TEST(TextKey, AgreesWithTheGeneralPathOnTheOwnCorpus) {
  Tally tally;
  for (const fs::path& file : ndjson_under(test::source_dir() / "corpus")) check_file(file, tally);
  EXPECT_GT(tally.frames, 10u);
  std::printf("corpus/: %zu frames, %zu of %zu server notifications accepted\n", tally.frames, tally.accepted,
              tally.notifications);
}

TEST(TextKey, TakesTheBenchGeneratorsNotifications) {
  test::TempDir dir;
  const std::string cmd = std::string(MSPTK_BENCH_GEN) + " --out " + dir.path().string() + " --mb 2 --seed 12";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  for (const char* variant : {"base", "equivalent", "divergent"}) {
    Tally tally;
    check_file(dir.path() / variant / "transcript.ndjson", tally);
    EXPECT_GT(tally.notifications, 100u) << variant;
    EXPECT_GT(tally.accepted * 100, tally.notifications * 90)
        << variant << ": " << tally.accepted << " of " << tally.notifications << " server notifications accepted";
    std::printf("bench %s: %zu of %zu server notifications accepted\n", variant, tally.accepted, tally.notifications);
  }
}

// A seeded generator of JSON-RPC notification texts: mostly well formed, with random nesting,
// strings with every escape, UTF-8 and (rarely) raw control bytes, numbers of every form,
// duplicate member names, envelopes that are not notifications, random whitespace.
class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}

  std::string notification() {
    std::string out;
    ws(out);
    out += '{';
    std::vector<std::string> members;
    const auto envelope = pick(20);
    if (envelope != 0) members.push_back(member("jsonrpc", pick(30) == 0 ? R"("1.0")" : R"("2.0")"));
    if (envelope != 1) members.push_back(member("method", pick(30) == 0 ? "7" : string_literal(pick(30) == 0 ? 2 : 0, 12)));
    if (envelope == 2) members.push_back(member("id", "1"));
    if (envelope == 3) members.push_back(member("result", "{}"));
    if (envelope == 4) members.push_back(member("params", R"("text")"));
    else if (pick(10) != 0) members.push_back(member("params", pick(5) == 0 ? array(1) : object(1)));
    if (pick(4) == 0) members.push_back(member(random_key(), value(1)));
    if (pick(25) == 0 && !members.empty()) members.push_back(members[pick(members.size())]);  // duplicate
    std::shuffle(members.begin(), members.end(), rng_);
    join(out, members);
    out += '}';
    ws(out);
    return out;
  }

  // A small change: cut, one byte replaced, inserted or deleted.
  std::string mutate(std::string s) {
    if (s.empty()) return s;
    const std::size_t at = pick(s.size());
    static const char bytes[] = "{}[]\",:\\ 0-1.eu\"\n\x01";
    switch (pick(4)) {
      case 0: s.resize(at); break;
      case 1: s[at] = bytes[pick(sizeof bytes - 1)]; break;
      case 2: s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), bytes[pick(sizeof bytes - 1)]); break;
      default: s.erase(at, 1); break;
    }
    return s;
  }

  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

 private:
  void ws(std::string& out) {
    static const char spaces[] = " \t\r\n";
    if (pick(4) == 0)
      for (std::size_t n = pick(3); n > 0; --n) out += spaces[pick(4)];
  }

  void join(std::string& out, const std::vector<std::string>& parts) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i) {
        ws(out);
        out += ',';
      }
      ws(out);
      out += parts[i];
      ws(out);
    }
  }

  std::string member(const std::string& key, const std::string& value) {
    std::string out = key.front() == '"' ? key : "\"" + key + "\"";
    std::string gap;
    ws(gap);
    out += gap + ":";
    ws(out);
    return out + value;
  }

  std::string random_key() {
    static const char* const keys[] = {"a", "b", "delta", "text", "itemId", "id", "result", "k\\n", "caf\xc3\xa9"};
    return pick(3) == 0 ? string_literal(1, 6) : std::string("\"") + keys[pick(9)] + "\"";
  }

  // A string literal; `wild` 0: plain and short escapes, 1: sometimes \u, 2: sometimes raw
  // control bytes too.
  std::string string_literal(int wild, std::size_t max_len) {
    std::size_t len = pick(max_len + 1);
    if (pick(40) == 0) len = 64 + pick(2000);
    std::string out = "\"";
    static const char* const pieces[] = {"a", "word ", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
                                         "\xc3\xa9", "\xe2\x86\x92", "\xf0\x9f\x8e\xb5", "\x7f", "0123456789abcdef"};
    while (out.size() < len + 1) {
      const std::size_t r = pick(60);
      if (r < 15) out += pieces[r];
      else if (r == 15 && wild >= 1) out += pick(2) ? "\\u00e9" : "\\ud83c\\udfb5";
      else if (r == 16 && wild >= 2) out += static_cast<char>(pick(0x20));
      else out += static_cast<char>('a' + pick(26));
    }
    return out + "\"";
  }

  std::string number() {
    static const char* const odd[] = {"-0", "1.5", "1e3", "1E-2", "0.0", "-0.5", "9223372036854775807",
                                      "9223372036854775808", "18446744073709551616", "123456789012345678901234567890",
                                      "1e400", "100.000"};
    if (pick(8) == 0) return odd[pick(12)];
    std::string out = pick(4) == 0 ? "-" : "";
    const std::size_t digits = 1 + pick(pick(5) == 0 ? 20 : 6);
    out += static_cast<char>('1' + pick(9));
    for (std::size_t i = 1; i < digits; ++i) out += static_cast<char>('0' + pick(10));
    if (pick(10) == 0) return "0";
    return out;
  }

  std::string value(std::size_t depth) {
    const std::size_t r = pick(depth > 50 ? 6 : 10);
    switch (r) {
      case 0: return "true";
      case 1: return "false";
      case 2: return "null";
      case 3: return number();
      case 4:
      case 5: return string_literal(pick(20) == 0 ? 2 : pick(10) == 0 ? 1 : 0, 40);
      case 6:
      case 7: return object(depth + 1);
      default: return array(depth + 1);
    }
  }

  std::string object(std::size_t depth) {
    std::vector<std::string> members;
    const std::size_t n = pick(depth > 3 ? 3 : 6) + (pick(50) == 0 ? 20 : 0);
    for (std::size_t i = 0; i < n; ++i) members.push_back(member(random_key(), value(depth)));
    if (pick(15) == 0 && !members.empty()) members.push_back(members[pick(members.size())]);  // duplicate
    std::string out = "{";
    join(out, members);
    return out + "}";
  }

  std::string array(std::size_t depth) {
    // Now and then a long chain of arrays, around the scanner's depth limit.
    if (pick(60) == 0 && depth < 10) {
      const std::size_t levels = text_key_max_depth - 8 + pick(16);
      return std::string(levels, '[') + value(depth + levels) + std::string(levels, ']');
    }
    std::vector<std::string> items;
    for (std::size_t n = pick(depth > 3 ? 3 : 6); n > 0; --n) items.push_back(value(depth));
    std::string out = "[";
    join(out, items);
    return out + "]";
  }

  std::mt19937_64 rng_;
};

TEST(TextKey, AgreesWithTheGeneralPathOnGeneratedNotifications) {
  Gen gen(20261201);
  std::size_t accepted = 0, valid = 0, cases = 0;
  for (int i = 0; i < 60000 && !::testing::Test::HasFailure(); ++i) {
    std::string text = gen.notification();
    if (gen.pick(3) == 0) text = gen.mutate(text);
    if (!is_valid_utf8(text)) continue;  // the contract: frames are UTF-8 (a cut may split a character)
    ++cases;
    if (general(text)) ++valid;
    if (check(text)) ++accepted;
  }
  std::printf("generated: %zu cases, %zu notifications by the general path, %zu accepted\n", cases, valid, accepted);
  EXPECT_GT(cases, 50000u);
  // The generator must reach both sides: many notifications are plain enough to be taken, and
  // many are valid notifications the scanner declines (odd numbers, \u, depth).
  EXPECT_GT(accepted * 3, valid);
  EXPECT_LT(accepted * 3, valid * 2);
}

}  // namespace
}  // namespace msptk
