// A FrameTimeline gives the time of each frame of a recording from its wire log, in transcript
// order, while reading the log a chunk at a time: the recorder's Tee wrote each frame to the
// transcript when the chunk holding its LF was read, so the frames the chunks complete, taken in
// wire-log order (both directions interleaved, empty lines skipped as the Tee skipped them),
// are the transcript's lines in order. A frame's time is the tMicros of the chunk that completed
// it (its first byte may have come earlier: `first_micros`). Memory holds one chunk and the
// times of the frames that chunk completed, whatever the length of the log (the framers keep
// no frame bytes). Used by `msptk show --wire-log`.
#pragma once

#include "msptk/wirelog/wire_log.hpp"
#include "msptk/transcript/framing.hpp"

#include <deque>

namespace msptk::wirelog {

struct FrameTime {
  Direction dir = Direction::client;
  std::int64_t first_micros = 0;  // tMicros of the chunk holding the frame's first byte
  std::int64_t micros = 0;        // tMicros of the chunk holding its LF: when it was complete
};

class FrameTimeline {
 public:
  static Result<FrameTimeline> open(const std::filesystem::path& path);
  // The next frame's time; nullopt when the log has no more frames; an error for a bad line.
  std::optional<Result<FrameTime>> next();
  const std::string& file() const { return reader_.file(); }

 private:
  explicit FrameTimeline(WireLogReader reader) : reader_(std::move(reader)) {}
  WireLogReader reader_;
  // A frame's bytes are not kept: 2 bytes tell an empty line ("" or "\r") from a frame.
  LineFramer client_{2}, server_{2};
  std::int64_t client_start_ = 0, server_start_ = 0;
  std::deque<FrameTime> ready_;
};

}  // namespace msptk::wirelog
