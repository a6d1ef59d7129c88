// The AVX2 body scan against the scalar one (issue 12: a fast path gives what the plain path
// gives, byte for byte): the same closing quote or refusal, the same decoded bytes, over bodies
// built to put every escape, every UTF-8 form (well formed or not) and every quote on each side
// of the 64-byte blocks the vector scan works in, and of the hand-over to the scalar scan.
#include "msptk/transcript/body_scan.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace msptk {
namespace {

struct Scan {
  std::size_t close;
  std::string decoded;
};

Scan run(std::string_view s, std::size_t at, bool scalar) {
  std::string out(s.size() - at, '\x7f');
  std::size_t written = 0;
  const std::size_t close = scalar ? scan_canonical_body_scalar(s, at, out.data(), &written)
                                   : scan_canonical_body(s, at, out.data(), &written);
  const std::size_t check = scalar ? scan_canonical_body_scalar(s, at, nullptr, nullptr)
                                   : scan_canonical_body(s, at, nullptr, nullptr);
  EXPECT_EQ(close, check) << "decoding and checking disagree";
  out.resize(close == std::string_view::npos ? 0 : written);
  return {close, out};
}

// The bytes of `s` as C escapes, for a failure message.
std::string shown(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  return out;
}

void expect_same(std::string_view s, std::size_t at, const std::string& what) {
  const Scan fast = run(s, at, false);
  const Scan plain = run(s, at, true);
  ASSERT_EQ(fast.close, plain.close) << what << ", from " << at << ": " << shown(s);
  ASSERT_EQ(fast.decoded, plain.decoded) << what << ", from " << at << ": " << shown(s);
}

// A piece of a body: mostly what the writer writes, sometimes what it never writes.
std::string piece(std::mt19937& rng) {
  static const char* const kPieces[] = {
      "a", "bc", "hello world ", "0123456789abcdef", "\\\"", "\\\\", "\\n", "\\t", "\\r", "\\b", "\\f",
      "\\u0001", "\\u001f", "\\u0000", "\\u000a" /* the writer writes \n */, "\\u00A1", "\\u0020", "\\u1234",
      "\\/", "\\x", "\\", "\"", "\x01", "\x1f", "\x7f", " ", "{\\\"k\\\":\\\"v\\\"}",
      "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\x9f\xbf", "\xf4\x8f\xbf\xbf", "\xef\xbf\xbd",
      "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80",
      "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xff", "\xfe", "\xf8\x88\x80\x80\x80",
  };
  constexpr std::size_t kCount = sizeof(kPieces) / sizeof(kPieces[0]);
  const unsigned roll = rng() % 100;
  if (roll < 45) return std::string(1 + rng() % 40, static_cast<char>('a' + rng() % 26));
  if (roll < 55) return "\\\"";
  if (roll < 65) {  // well-formed UTF-8 runs
    static const char* const kGood[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xe4\xb8\xad"};
    std::string out;
    for (unsigned k = 1 + rng() % 12; k > 0; --k) out += kGood[rng() % 4];
    return out;
  }
  if (roll < 70) {  // random bytes
    std::string out;
    for (unsigned k = 1 + rng() % 6; k > 0; --k) out += static_cast<char>(rng() % 256);
    return out;
  }
  return kPieces[rng() % kCount];
}

TEST(BodyScan, TheVectorScanAgreesWithTheScalarScanOnGeneratedBodies) {
  if (!body_scan_uses_simd()) GTEST_SKIP() << "this CPU has no AVX2 (or MSPTK_NO_SIMD is set): only the scalar scan runs";
  std::mt19937 rng(20261201);
  std::size_t closed = 0, refused = 0;
  // MSPTK_BODY_SCAN_ROUNDS runs more rounds (a one-off soak); CI runs 40,000.
  long rounds = 40000;
  if (const char* more = std::getenv("MSPTK_BODY_SCAN_ROUNDS")) rounds = std::max(rounds, std::atol(more));
  for (long round = 0; round < rounds; ++round) {
    std::string body;
    const std::size_t target = rng() % 400;
    // Mostly canonical bodies (so that the scan gets far), some with a flaw anywhere.
    const bool clean = rng() % 3 != 0;
    while (body.size() < target) {
      std::string p = piece(rng);
      if (clean) {
        const std::string line = canonical_line(Direction::client, p);
        if (!parse_canonical_line(line, 1)) continue;  // keep only what the writer writes
        const std::size_t start = line.find("\"raw\":\"") + 7;
        p = line.substr(start, line.size() - start - 2);
      }
      body += p;
    }
    std::string prefix(rng() % 70, 'p');
    std::string s = prefix + body;
    if (rng() % 4 != 0) s += "\"}";
    for (std::size_t tail = rng() % 3; tail > 0; --tail) s += piece(rng);
    expect_same(s, prefix.size(), "round " + std::to_string(round));
    if (HasFatalFailure()) return;
    (scan_canonical_body_scalar(s, prefix.size(), nullptr, nullptr) == std::string_view::npos ? refused : closed)++;
  }
  // Both outcomes were exercised plenty.
  EXPECT_GT(closed, 10000u);
  EXPECT_GT(refused, 5000u);
}

TEST(BodyScan, EveryByteValueAtEveryPlaceOfABlock) {
  if (!body_scan_uses_simd()) GTEST_SKIP() << "this CPU has no AVX2 (or MSPTK_NO_SIMD is set): only the scalar scan runs";
  const std::string base = std::string(150, 'x');
  for (std::size_t place = 0; place < 140; ++place) {
    for (int b = 0; b < 256; ++b) {
      std::string s = base;
      s[place] = static_cast<char>(b);
      s += "\"}";
      expect_same(s, 0, "byte " + std::to_string(b) + " at " + std::to_string(place));
      // The same byte after an escaping backslash, and as the lead of a cut sequence.
      std::string e = base;
      e[place] = '\\';
      e[place + 1] = static_cast<char>(b);
      e += "\"}";
      expect_same(e, 0, "escape of " + std::to_string(b) + " at " + std::to_string(place));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(BodyScan, BackslashRunsAcrossABlockBoundary) {
  if (!body_scan_uses_simd()) GTEST_SKIP() << "this CPU has no AVX2 (or MSPTK_NO_SIMD is set): only the scalar scan runs";
  for (std::size_t lead = 40; lead < 140; ++lead) {
    for (std::size_t run = 1; run < 9; ++run) {
      for (const char* after : {"\"", "\"}", "n", "u0001", "u00zz", "\xc3\xa9", "x"}) {
        std::string s = std::string(lead, 'a') + std::string(run, '\\') + after + std::string(70, 'b') + "\"}";
        expect_same(s, 0, "run " + std::to_string(run) + " after " + std::to_string(lead) + " then " + after);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(BodyScan, LongValidUtf8AndEscapesDecodeAsTheScalarScanDoes) {
  std::string text;
  for (int k = 0; k < 5000; ++k) text += (k % 7 == 0) ? "\"q\"\n" : (k % 3 == 0 ? "\xe4\xb8\xad\xf0\x9f\x98\x80" : "plain text ");
  text += '\x01';
  const std::string line = canonical_line(Direction::server, text);
  const std::optional<Frame> frame = parse_canonical_line(line, 1);
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->raw, text);
  expect_same(line, 23, "long line");
}

}  // namespace
}  // namespace msptk

namespace msptk {
namespace {

// canonical_line_may_name_id is a proof, never a guess: whenever a canonical line's frame text
// holds `"id` or `\u`, it says so (through the line's escaping), and the AVX2 scan says what the
// scalar one says, whatever the line holds and wherever the needle falls in a 32-byte block.
TEST(BodyScan, MayNameIdNeverMissesAnIdOrAUnicodeEscape) {
  std::mt19937 rng(1212);
  static const char* const kParts[] = {"\"id\"", "\"id", "id", "\"i", "d\"", "\\u0069d", "\\u", "\\\\u", "\\",
                                       "\"", "u", "{\"jsonrpc\":\"2.0\",\"method\":\"m\"", "\"itemId\":\"x\"",
                                       "\xc3\xa9", "\n", "\x01", "\"idx\""};
  std::size_t said = 0;
  for (int round = 0; round < 30000; ++round) {
    std::string raw(rng() % 90, 'a');
    for (int k = rng() % 4; k > 0; --k)
      raw.insert(rng() % (raw.size() + 1), kParts[rng() % (sizeof(kParts) / sizeof(kParts[0]))]);
    const std::string line = canonical_line(rng() % 2 ? Direction::client : Direction::server, raw);
    const bool may = canonical_line_may_name_id_scalar(line);
    if (raw.find("\"id") != std::string::npos || raw.find("\\u") != std::string::npos) {
      ASSERT_TRUE(may) << shown(raw);
    }
    ASSERT_EQ(canonical_line_may_name_id(line), may) << shown(line);
    said += may;
  }
  EXPECT_GT(said, 5000u);
  EXPECT_LT(said, 28000u);
  // Every offset of the needle around block boundaries.
  for (const std::string needle : {"\\\"id", "\\\\u"}) {
    for (std::size_t at = 0; at < 100; ++at) {
      std::string line(100, 'x');
      line.replace(at, needle.size(), needle);
      line.resize(100);
      const bool expected = line.find(needle) != std::string::npos;
      EXPECT_EQ(canonical_line_may_name_id(line), expected) << at;
      EXPECT_EQ(canonical_line_may_name_id_scalar(line), expected) << at;
    }
  }
}

// line_may_name_id asks the same of a line in any spelling JSON allows for its raw string: a
// character written as a `\u` escape of the line (the frame's quote, a letter of "id") cannot
// hide an `id`, and the AVX2 scan says what the scalar one says.
TEST(BodyScan, LineMayNameIdNeverMissesAnIdInAnySpellingOfTheLine) {
  std::mt19937 rng(1213);
  static const char* const kParts[] = {"\"id\"", "\"id", "id", "\"i", "d\"", "\\u0069d", "\\", "\"", "u",
                                       "{\"jsonrpc\":\"2.0\",\"method\":\"m\"", "\"itemId\":\"x\"", "\"idx\""};
  std::size_t said = 0;
  for (int round = 0; round < 30000; ++round) {
    std::string raw(rng() % 90, 'a');
    for (int k = rng() % 4; k > 0; --k)
      raw.insert(rng() % (raw.size() + 1), kParts[rng() % (sizeof(kParts) / sizeof(kParts[0]))]);
    // The raw as a JSON string, some characters written as \u escapes of the line.
    std::string body;
    const bool spell = rng() % 2;
    for (char c : raw) {
      if (spell && rng() % 8 == 0) body += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
      else if (c == '"' || c == '\\') body += std::string("\\") + c;
      else body += c;
    }
    const bool may = line_may_name_id_scalar(body);
    if (raw.find("\"id") != std::string::npos || raw.find("\\u") != std::string::npos) {
      ASSERT_TRUE(may) << shown(body);
    }
    ASSERT_EQ(line_may_name_id(body), may) << shown(body);
    said += may;
  }
  EXPECT_GT(said, 5000u);
  EXPECT_LT(said, 28000u);
  for (const std::string needle : {"\\\"id", "\\u"}) {
    for (std::size_t at = 0; at < 100; ++at) {
      std::string line(100, 'x');
      line.replace(at, needle.size(), needle);
      line.resize(100);
      const bool expected = line.find(needle) != std::string::npos;
      EXPECT_EQ(line_may_name_id(line), expected) << at;
      EXPECT_EQ(line_may_name_id_scalar(line), expected) << at;
    }
  }
}

}  // namespace
}  // namespace msptk
