#include "frame_feed.hpp"

namespace msptk::playback {

FrameFeed::FrameFeed(const std::vector<Frame>& frames)
    : frames_(&frames), current_(frames.empty() ? nullptr : &frames.front()) {}

FrameFeed::FrameFeed(const std::vector<Frame>& frames, std::size_t index)
    : frames_(&frames), current_(index < frames.size() ? &frames[index] : nullptr), index_(index) {}

FrameFeed::FrameFeed(TranscriptReader reader, std::filesystem::path file, std::size_t index)
    : reader_(std::move(reader)), index_(index), file_(std::move(file)) {
  read();
}

FrameFeed::FrameFeed(FrameFeed&& other) noexcept
    : frames_(other.frames_), reader_(std::move(other.reader_)), owned_(std::move(other.owned_)),
      index_(other.index_), error_(std::move(other.error_)), file_(std::move(other.file_)),
      next_offset_(other.next_offset_) {
  current_ = other.current_ == &other.owned_ ? &owned_ : other.current_;
  other.current_ = nullptr;
}

Result<FrameFeed> FrameFeed::open(const std::filesystem::path& file) {
  auto reader = TranscriptReader::open(file);
  if (!reader) return reader.error();
  return FrameFeed(std::move(*reader), file, 0);
}

Result<FrameFeed> FrameFeed::ahead() const {
  if (frames_) return FrameFeed(*frames_, current_ ? index_ + 1 : index_);
  if (!current_) {
    static const std::vector<Frame> none;
    return FrameFeed(none, index_);
  }
  auto reader = TranscriptReader::open(file_);
  if (!reader) return reader.error();
  if (auto at = reader->seek(next_offset_, current_->line + 1); !at) return at.error();
  return FrameFeed(std::move(*reader), file_, index_ + 1);
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
  next_offset_ = reader_->offset() + reader_->size() + 1;
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
