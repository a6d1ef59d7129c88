#include "msptk/wirelog/timeline.hpp"

namespace msptk::wirelog {

Result<FrameTimeline> FrameTimeline::open(const std::filesystem::path& path) {
  auto reader = WireLogReader::open(path);
  if (!reader) return reader.error();
  return FrameTimeline(std::move(*reader));
}

std::optional<Result<FrameTime>> FrameTimeline::next() {
  while (ready_.empty()) {
    auto chunk = reader_.next();
    if (!chunk) return std::nullopt;
    if (!*chunk) return Result<FrameTime>((*chunk).error());
    const WireChunk& c = **chunk;
    const bool client = c.dir == Direction::client;
    LineFramer& framer = client ? client_ : server_;
    std::int64_t& start = client ? client_start_ : server_start_;
    if (framer.pending_size() == 0) start = c.t_micros;
    framer.feed(c.bytes, [&](const FramedLine& line) {
      const bool empty = line.size == 0 || (line.size == 1 && line.bytes == "\r");
      if (!empty) ready_.push_back(FrameTime{c.dir, start, c.t_micros});
      start = c.t_micros;  // the next frame begins in this chunk
    });
  }
  FrameTime time = ready_.front();
  ready_.pop_front();
  return Result<FrameTime>(time);
}

}  // namespace msptk::wirelog
