#include "frame_feed.hpp"

namespace msptk::playback {

FrameFeed::FrameFeed(const std::vector<Frame>& frames)
    : frames_(&frames), current_(frames.empty() ? nullptr : &frames.front()) {}

FrameFeed::FrameFeed(TranscriptReader reader) : reader_(std::move(reader)) { read(); }

FrameFeed::FrameFeed(FrameFeed&& other) noexcept
    : frames_(other.frames_), reader_(std::move(other.reader_)), owned_(std::move(other.owned_)),
      index_(other.index_), error_(std::move(other.error_)) {
  current_ = other.current_ == &other.owned_ ? &owned_ : other.current_;
  other.current_ = nullptr;
}

Result<FrameFeed> FrameFeed::open(const std::filesystem::path& file) {
  auto reader = TranscriptReader::open(file);
  if (!reader) return reader.error();
  return FrameFeed(std::move(*reader));
}

void FrameFeed::read() {
  current_ = nullptr;
  owned_ = Frame{};  // the frame left behind is freed before the next one is read
  std::optional<Result<Frame>> item = reader_->next();
  if (!item) return;
  if (!*item) {
    error_ = item->error();
    return;
  }
  owned_ = std::move(**item);
  reader_->release_line();  // a long line's bytes are decoded into owned_: one copy held, not two
  current_ = &owned_;
}

void FrameFeed::advance() {
  if (!current_) return;
  ++index_;
  if (frames_) {
    current_ = index_ < frames_->size() ? &(*frames_)[index_] : nullptr;
    return;
  }
  read();
}

}  // namespace msptk::playback
