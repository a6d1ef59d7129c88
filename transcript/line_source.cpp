#include "msptk/transcript/line_source.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk {

namespace {
constexpr std::size_t kChunk = 1 << 20;
}

Result<LineSource> LineSource::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error::unreadable(path.string(), "is a folder, not a transcript file");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::unreadable(path.string(), fmt::format("cannot open: {}", std::strerror(errno)));
#ifdef POSIX_FADV_SEQUENTIAL
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return LineSource(path.string(), fd);
}

LineSource::LineSource(LineSource&& other) noexcept
    : file_(std::move(other.file_)), fd_(other.fd_), buffer_(std::move(other.buffer_)), begin_(other.begin_),
      end_(other.end_), consumed_(other.consumed_), eof_(other.eof_), failed_(other.failed_) {
  other.fd_ = -1;
}

LineSource& LineSource::operator=(LineSource&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    file_ = std::move(other.file_);
    fd_ = other.fd_;
    buffer_ = std::move(other.buffer_);
    begin_ = other.begin_;
    end_ = other.end_;
    consumed_ = other.consumed_;
    eof_ = other.eof_;
    failed_ = other.failed_;
    other.fd_ = -1;
  }
  return *this;
}

LineSource::~LineSource() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<Result<LineSource::Line>> LineSource::next() {
  if (failed_) return std::nullopt;
  std::size_t searched = begin_;
  while (true) {
    const void* lf = end_ > searched ? std::memchr(buffer_.data() + searched, '\n', end_ - searched) : nullptr;
    if (lf) {
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(lf) - buffer_.data());
      Line line{std::string_view(buffer_.data() + begin_, at - begin_), consumed_, true};
      consumed_ += at + 1 - begin_;
      begin_ = at + 1;
      return Result<Line>(line);
    }
    searched = end_;
    if (eof_) {
      if (begin_ == end_) return std::nullopt;
      Line line{std::string_view(buffer_.data() + begin_, end_ - begin_), consumed_, false};
      consumed_ += end_ - begin_;
      begin_ = end_;
      return Result<Line>(line);
    }
    // Make room for one more chunk after the pending bytes (moved to the front).
    if (begin_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      searched -= begin_;
      end_ -= begin_;
      begin_ = 0;
    }
    if (buffer_.size() < end_ + kChunk) buffer_.resize(end_ + kChunk);
    ssize_t n;
    do {
      n = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      failed_ = true;
      return Result<Line>(Error::unreadable(file_, fmt::format("read error at byte {}: {}", consumed_ + (end_ - begin_),
                                                               std::strerror(errno))));
    }
    if (n == 0) eof_ = true;
    end_ += static_cast<std::size_t>(n);
  }
}

Result<std::string> LineSource::read_at(std::uint64_t offset, std::size_t length) const {
  std::string out(length, '\0');
  std::size_t got = 0;
  while (got < length) {
    const ssize_t n = ::pread(fd_, out.data() + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Error::unreadable(file_, fmt::format("cannot read again the {} bytes at offset {}: {}", length, offset,
                                                  n < 0 ? std::strerror(errno) : "the file is shorter now"));
    }
    got += static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace msptk
