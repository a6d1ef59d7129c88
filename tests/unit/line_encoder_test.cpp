// Differential tests of the line encoder (line_encoder.hpp), the recorder's fast path for
// writing transcript lines, against the plain path it replaces: is_valid_utf8, then
// append_json_escaped of the bytes (or of lossy_utf8 beside rawBase64). Same line byte for byte,
// same UTF-8 verdict, for every byte value at every offset of a 16-byte step, every UTF-8 edge
// form, random bytes, lines longer than one of the encoder's blocks, and every frame of both
// corpora (the public one skipped when absent).
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/line_encoder.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "test_support.hpp"

#include <fstream>
#include <random>

namespace msptk {
namespace {

namespace fs = std::filesystem;

// The plain path: what canonical_line wrote before the encoder.
std::string plain_line(Direction dir, std::string_view bytes) {
  std::string line = R"({"dir":")" + std::string(to_string(dir)) + R"(","raw":")";
  if (is_valid_utf8(bytes)) {
    append_json_escaped(line, bytes);
  } else {
    append_json_escaped(line, lossy_utf8(bytes));
    line += R"(","rawBase64":")";
    line += base64_encode(bytes);
  }
  line += "\"}";
  return line;
}

void expect_same(std::string_view bytes, const std::string& what) {
  const bool valid = is_valid_utf8(bytes);
  for (Direction dir : {Direction::client, Direction::server}) {
    LineBuffer out;
    out.append("before\n");
    EXPECT_EQ(append_canonical_line(out, dir, bytes), valid) << what;
    EXPECT_EQ(out.view(), "before\n" + plain_line(dir, bytes) + "\n") << what;
    EXPECT_EQ(canonical_line(dir, bytes), plain_line(dir, bytes)) << what;
  }
  LineBuffer fast, scalar;
  EXPECT_EQ(append_escaped_utf8(fast, bytes), valid) << what;
  EXPECT_EQ(append_escaped_utf8_scalar(scalar, bytes), valid) << what;
  if (valid) {
    std::string escaped;
    append_json_escaped(escaped, bytes);
    EXPECT_EQ(fast.view(), escaped) << what;
    EXPECT_EQ(scalar.view(), escaped) << what;
  }
}

std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 0xF];
    out += ' ';
  }
  return out;
}

TEST(LineEncoder, EveryByteValueAtEveryOffsetOfA16ByteStep) {
  for (int c = 0; c < 256; ++c) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string bytes(at, 'a');
      bytes += static_cast<char>(c);
      bytes += std::string(40 - at, 'b');
      expect_same(bytes, "byte " + std::to_string(c) + " at " + std::to_string(at));
      expect_same(std::string_view(bytes).substr(0, at + 1), "byte " + std::to_string(c) + " last at " + std::to_string(at));
    }
  }
}

TEST(LineEncoder, EveryUtf8EdgeFormAtEveryOffset) {
  const std::vector<std::string> forms = {
      "\xC2\x80", "\xDF\xBF", "\xC0\x80", "\xC1\xBF", "\xC2", "\xC2\x41", "\x80", "\xBF",
      "\xE0\xA0\x80", "\xE0\x9F\xBF", "\xED\x9F\xBF", "\xED\xA0\x80", "\xED\xBF\xBF", "\xEE\x80\x80",
      "\xEF\xBF\xBF", "\xE2\x82", "\xE2\x82\x41", "\xE2\x41\xAC",
      "\xF0\x90\x80\x80", "\xF0\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
      "\xF7\xBF\xBF\xBF", "\xF8\x88\x80\x80\x80", "\xFF", "\xFE", "\xF0\x9F\x8E", "\xF0\x9F\x8E\xB5",
      "\xF0\x9F\x41\xB5", "\xC3\xA9\xC3", "\xE2\x86\x92\xF0\x9F\x8E\xB5\xC3\xA9"};
  for (const std::string& form : forms) {
    for (std::size_t at = 0; at < 34; ++at) {
      const std::string bytes = std::string(at, 'x') + form;
      expect_same(bytes, hex(form) + "at the end after " + std::to_string(at));
      expect_same(bytes + "\"tail\\ text past one step\n", hex(form) + "after " + std::to_string(at));
    }
  }
}

// Bytes drawn from what frames hold (ASCII text, quotes, backslashes, control bytes, UTF-8
// sequences of every length) and now and then a byte that is not UTF-8.
std::string random_bytes(std::mt19937& rng, std::size_t size, bool allow_invalid) {
  static const std::vector<std::string> pieces = {
      "a", "b", "lorem", " ", "\"", "\\", "\n", "\t", "\r", std::string(1, '\0'), "\x01", "\x1F", "\x7F", "/",
      "\xC3\xA9", "\xE2\x86\x92", "\xF0\x9F\x8E\xB5", "{\"jsonrpc\":\"2.0\",", "0123456789abcdef"};
  std::string out;
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255), chance(0, 999);
  while (out.size() < size) {
    if (allow_invalid && chance(rng) == 0) {
      out += static_cast<char>(byte(rng));
    } else {
      out += pieces[pick(rng)];
    }
  }
  return out;
}

TEST(LineEncoder, RandomFramesOfEverySize) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 3000; ++round) {
    const std::size_t size = static_cast<std::size_t>(round % 300);
    expect_same(random_bytes(rng, size, round % 2 == 0), "round " + std::to_string(round));
    std::string noise(size, '\0');
    for (char& c : noise) c = static_cast<char>(byte(rng));
    expect_same(noise, "random bytes, round " + std::to_string(round));
  }
}

// Frames longer than one block of the encoder (16 KiB), with a sequence or an escape across
// each block edge and the bad byte anywhere.
TEST(LineEncoder, FramesLongerThanABlock) {
  std::mt19937 rng(7);
  for (std::size_t size : {16383u, 16384u, 16385u, 40000u, 200000u}) {
    expect_same(random_bytes(rng, size, false), "valid " + std::to_string(size));
    std::string all_escapes(size, '\x01');
    expect_same(all_escapes, "control bytes " + std::to_string(size));
    std::string music;
    while (music.size() < size) music += "\xF0\x9F\x8E\xB5";
    expect_same(music, "4-byte sequences " + std::to_string(size));
    std::string bad = random_bytes(rng, size, false);
    bad[bad.size() - 1] = '\xFF';
    expect_same(bad, "bad last byte " + std::to_string(size));
  }
}

TEST(LineEncoder, LineBufferKeepsItsBytesAcrossGrowth) {
  LineBuffer b;
  std::string expected;
  for (int i = 0; i < 2000; ++i) {
    const std::string piece = std::to_string(i) + std::string(static_cast<std::size_t>(i % 37), 'z');
    b.append(piece);
    expected += piece;
  }
  EXPECT_EQ(b.view(), expected);
  b.truncate(10);
  EXPECT_EQ(b.view(), expected.substr(0, 10));
  b.clear();
  EXPECT_TRUE(b.empty());
  b.release();
  EXPECT_EQ(b.capacity(), 0u);
  b.append("again");
  EXPECT_EQ(b.view(), "again");
}

void expect_same_over(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    auto frame = parse_transcript_line_general(line, file.string(), n);
    if (!frame) continue;
    expect_same(frame->wire_bytes(), file.string() + ":" + std::to_string(n));
  }
}

TEST(LineEncoder, EveryFrameOfTheProjectCorpus) {
  for (const auto& e : fs::recursive_directory_iterator(test::source_dir() / "corpus"))
    if (e.path().extension() == ".ndjson") expect_same_over(e.path());
}

TEST(LineEncoder, EveryFrameOfThePublicCorpus) {
  MSPTK_REQUIRE_SHARED_CORPUS();
  for (const fs::path& file : test::corpus_ndjson_files()) expect_same_over(file);
}

}  // namespace
}  // namespace msptk
