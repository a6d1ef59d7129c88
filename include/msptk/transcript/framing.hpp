// LineFramer cuts a byte stream into NDJSON frames at LF (seed 000: one message per line,
// LF-terminated). Bytes arrive in chunks of any size: a frame may span many chunks and a chunk
// may complete many frames. The framer hands out each complete frame (without its LF, a
// trailing CR kept) and keeps what follows the last LF as the pending tail.
//
// With a byte limit the framer never buffers more than `limit` bytes of one frame: an
// oversized frame is delivered once, when its LF arrives, as its first `limit` bytes (enough to
// recover an id from its prefix) with `oversized` set and its full size. Without a limit
// (the recorder) every frame is kept whole.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace msptk {

struct FramedLine {
  std::string_view bytes;   // the frame without LF (a prefix of it when oversized)
  std::size_t size = 0;     // the frame's full size in bytes, without LF
  bool oversized = false;   // size exceeded the limit; bytes holds only the first `limit` bytes
};

class LineFramer {
 public:
  explicit LineFramer(std::size_t limit = std::numeric_limits<std::size_t>::max()) : limit_(limit) {}

  // Feeds a chunk; calls on_line(const FramedLine&) for every frame the chunk completes,
  // in order. The FramedLine's bytes are valid only during the call.
  template <class OnLine>
  void feed(std::string_view chunk, OnLine&& on_line) {
    while (!chunk.empty()) {
      const std::size_t lf = chunk.find('\n');
      const std::string_view part = chunk.substr(0, lf);
      if (lf != std::string_view::npos && pending_size_ == 0) {
        // Fast path: a whole frame inside this chunk, nothing buffered.
        FramedLine line{part.substr(0, std::min(part.size(), limit_)), part.size(), part.size() > limit_};
        on_line(static_cast<const FramedLine&>(line));
      } else {
        append(part);
        if (lf != std::string_view::npos) {
          FramedLine line{pending_, pending_size_, pending_size_ > limit_};
          on_line(static_cast<const FramedLine&>(line));
          pending_.clear();
          pending_size_ = 0;
        }
      }
      if (lf == std::string_view::npos) break;
      chunk.remove_prefix(lf + 1);
    }
  }

  // Bytes after the last LF (at most `limit` of them) and their full count.
  const std::string& pending() const { return pending_; }
  std::size_t pending_size() const { return pending_size_; }

 private:
  void append(std::string_view part) {
    if (pending_.size() < limit_) pending_.append(part.substr(0, limit_ - pending_.size()));
    pending_size_ += part.size();
  }

  std::size_t limit_;
  std::string pending_;
  std::size_t pending_size_ = 0;
};

}  // namespace msptk
