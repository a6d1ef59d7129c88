// The recorder's batched appends (issue 12): the frames one read chunk completes reach the
// transcript with one write, before the chunk is forwarded, and nothing is staged past it.
#include "msptk/recorder/tee.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"
#include "test_support.hpp"

#include <sys/stat.h>

namespace msptk {
namespace {

namespace fs = std::filesystem;

struct CountingSink : recorder::FrameSink {
  std::vector<std::string> events;
  Result<void> append(Direction dir, std::string_view bytes) override {
    events.push_back(std::string(to_string(dir)) + ":" + std::string(bytes));
    return {};
  }
  Result<void> end_of_chunk() override {
    events.push_back("end");
    return {};
  }
};

TEST(RecorderBatching, TheSinkHearsTheEndOfEveryChunkAfterItsFrames) {
  CountingSink sink;
  recorder::Tee tee(sink, 1 << 20);
  tee.feed(Direction::client, "{\"a\":1}\n{\"b\":2}\n{\"c\"");
  EXPECT_EQ(sink.events, (std::vector<std::string>{"client:{\"a\":1}", "client:{\"b\":2}", "end"}));
  tee.feed(Direction::client, ":3}\n");
  EXPECT_EQ(sink.events.back(), "end");
  EXPECT_EQ(sink.events[sink.events.size() - 2], "client:{\"c\":3}");
  EXPECT_EQ(tee.lines_recorded(), 3u);
}

TEST(RecorderBatching, StagedLinesReachTheFileAtFlushWithTheirCount) {
  test::TempDir dir;
  const fs::path file = dir / "t.ndjson";
  auto writer = TranscriptWriter::create(file);
  ASSERT_TRUE(writer);
  writer->stage(Direction::client, "{\"id\":1}");
  writer->stage(Direction::server, "{\"id\":1,\"result\":{}}");
  EXPECT_EQ(fs::file_size(file), 0u);
  EXPECT_EQ(writer->lines_written(), 0u);
  ASSERT_TRUE(writer->flush());
  EXPECT_EQ(writer->lines_written(), 2u);
  ASSERT_TRUE(writer->append(Direction::client, "{\"x\":\"\xff\"}"));  // append still writes at once
  EXPECT_EQ(writer->lines_written(), 3u);
  auto frames = read_transcript(file);
  ASSERT_TRUE(frames) << frames.error().render();
  ASSERT_EQ(frames->size(), 3u);
  EXPECT_EQ((*frames)[1].raw, "{\"id\":1,\"result\":{}}");
  EXPECT_EQ((*frames)[2].wire_bytes(), "{\"x\":\"\xff\"}");
}

TEST(RecorderBatching, AFailedFlushIsAnErrorNamingTheFirstLine) {
  auto writer = TranscriptWriter::create("/dev/full");
  ASSERT_TRUE(writer);
  writer->stage(Direction::client, "{}");
  auto flushed = writer->flush();
  ASSERT_FALSE(flushed);
  EXPECT_NE(flushed.error().message.find("line 1"), std::string::npos) << flushed.error().message;
  EXPECT_EQ(writer->lines_written(), 0u);
}

}  // namespace
}  // namespace msptk
