#include "msptk/transcript/framing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace msptk {
namespace {

std::vector<std::string> feed_all(LineFramer& framer, const std::vector<std::string>& chunks) {
  std::vector<std::string> out;
  for (const auto& chunk : chunks)
    framer.feed(chunk, [&](const FramedLine& line) {
      out.push_back(std::string(line.bytes) + (line.oversized ? "|" + std::to_string(line.size) : ""));
    });
  return out;
}

TEST(Framing, CutsFramesAcrossAndWithinChunks) {
  LineFramer framer;
  EXPECT_EQ(feed_all(framer, {"{\"a\"", ":1}\n{\"b\":2}\r\n{\"c\"", "", ":3}\n\n{\"d"}),
            (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}\r", "{\"c\":3}", ""}));
  EXPECT_EQ(framer.pending(), "{\"d");
  EXPECT_EQ(framer.pending_size(), 3u);
}

TEST(Framing, OneByteReadsGiveTheSameFrames) {
  const std::string wire = "{\"x\":1}\n{\"y\":\"long\"}\n";
  LineFramer framer;
  std::vector<std::string> chunks;
  for (char c : wire) chunks.emplace_back(1, c);
  EXPECT_EQ(feed_all(framer, chunks), (std::vector<std::string>{"{\"x\":1}", "{\"y\":\"long\"}"}));
}

TEST(Framing, BoundsOversizedFramesToTheLimit) {
  LineFramer framer(4);
  EXPECT_EQ(feed_all(framer, {"abcdefgh", "ij\nab\nabcdefgh\n"}),
            (std::vector<std::string>{"abcd|10", "ab", "abcd|8"}));
  EXPECT_LE(framer.pending().capacity(), 64u);
}

}  // namespace
}  // namespace msptk
