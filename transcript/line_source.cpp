#include "msptk/transcript/line_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace msptk {

namespace {
constexpr std::size_t kChunk = 1 << 20;
}

std::size_t LineSource::default_max_line_bytes() {
  std::size_t limit = std::size_t{1} << 30;
  if (const char* text = std::getenv("MSPTK_MAX_LINE_BYTES")) {
    std::size_t value = 0;
    const char* end = text + std::strlen(text);
    auto [ptr, ec] = std::from_chars(text, end, value);
    if (ec == std::errc() && ptr == end && value > 0) limit = value;
  }
  return limit;
}

Result<LineSource> LineSource::open(const std::filesystem::path& path, std::size_t max_line_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error::unreadable(path.string(), "is a folder, not a transcript file");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::unreadable(path.string(), fmt::format("cannot open: {}", std::strerror(errno)));
#ifdef POSIX_FADV_SEQUENTIAL
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  LineSource source(path.string(), fd, max_line_bytes);
  struct stat st {};
  source.next_read_ = kChunk;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) < kChunk)
    source.next_read_ = std::max<std::size_t>(static_cast<std::size_t>(st.st_size) + 1, 4096);
  return source;
}

LineSource::LineSource(LineSource&& other) noexcept
    : file_(std::move(other.file_)), fd_(other.fd_), max_line_bytes_(other.max_line_bytes_), buffer_(std::move(other.buffer_)), begin_(other.begin_),
      end_(other.end_), consumed_(other.consumed_), eof_(other.eof_), failed_(other.failed_), next_read_(other.next_read_) {
  other.fd_ = -1;
}

LineSource& LineSource::operator=(LineSource&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    file_ = std::move(other.file_);
    fd_ = other.fd_;
    max_line_bytes_ = other.max_line_bytes_;
    buffer_ = std::move(other.buffer_);
    begin_ = other.begin_;
    end_ = other.end_;
    consumed_ = other.consumed_;
    eof_ = other.eof_;
    next_read_ = other.next_read_;
    failed_ = other.failed_;
    other.fd_ = -1;
  }
  return *this;
}

LineSource::~LineSource() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// Asks for transparent huge pages over the 2 MiB-aligned part of [p, p + n) (where the kernel
// offers them on request: /sys/kernel/mm/transparent_hugepage/enabled [madvise]). Filling a
// multi-MiB buffer then costs a fault per 2 MiB instead of one per 4 KiB page, about 4x less
// time on these machines. Only an advice: an error changes nothing.
void advise_huge_pages(char* p, std::size_t n) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHuge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace

void LineSource::Buffer::reserve(std::size_t n) {
  if (n <= capacity_) return;
  auto bigger = std::make_unique_for_overwrite<char[]>(n);
  if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
  data_ = std::move(bigger);
  capacity_ = n;
}

void LineSource::Buffer::assign(const char* p, std::size_t n) {
  if (n > capacity_) {
    data_ = std::make_unique_for_overwrite<char[]>(n);
    capacity_ = n;
  }
  if (n > 0) std::memmove(data_.get(), p, n);
  size_ = n;
}

void LineSource::grow(std::size_t bytes) {
  // As std::string would grow (at least twice the capacity), but the new memory is advised for
  // huge pages before anything is written into it (a line of a few MiB grows the buffer to 8).
  Buffer bigger;
  bigger.reserve(std::max(bytes, 2 * buffer_.capacity()));
  if (bigger.capacity() >= 4 * kChunk) advise_huge_pages(bigger.data(), bigger.capacity());
  bigger.assign(buffer_.data(), end_);
  buffer_.swap(bigger);
}

void LineSource::release_excess() {
  // A buffer of up to 16 MiB is kept for the next long line (lines of a few MiB recur in a
  // session); a larger one goes back.
  if (buffer_.capacity() <= 16 * kChunk || end_ - begin_ > kChunk) return;
  Buffer kept;
  kept.reserve(kChunk + (end_ - begin_));
  kept.assign(buffer_.data() + begin_, end_ - begin_);
  buffer_.swap(kept);
  end_ -= begin_;
  begin_ = 0;
}

std::optional<Result<LineSource::Line>> LineSource::next() {
  if (failed_) return std::nullopt;
  release_excess();  // the last line's text is no longer valid: a long one's memory goes back
  std::size_t searched = begin_;
  while (true) {
    const void* lf = end_ > searched ? std::memchr(buffer_.data() + searched, '\n', end_ - searched) : nullptr;
    if (lf) {
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(lf) - buffer_.data());
      Line line{std::string_view(buffer_.data() + begin_, at - begin_), consumed_, true, false, at - begin_};
      if (line.length > max_line_bytes_) {
        line.text = {};
        line.oversized = true;
      }
      consumed_ += at + 1 - begin_;
      begin_ = at + 1;
      return Result<Line>(line);
    }
    searched = end_;
    if (eof_) {
      if (begin_ == end_) return std::nullopt;
      Line line{std::string_view(buffer_.data() + begin_, end_ - begin_), consumed_, false, false, end_ - begin_};
      if (line.length > max_line_bytes_) {
        line.text = {};
        line.oversized = true;
      }
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
    if (end_ - begin_ > max_line_bytes_) return skip_oversized();
    const std::size_t room = next_read_ ? next_read_ : kChunk;
    if (next_read_ != kChunk) next_read_ = 4096;  // a small file: what follows is EOF (or what it grew by)
    if (buffer_.size() < end_ + room) {
      try {
        if (buffer_.capacity() < end_ + room) grow(end_ + room);
        buffer_.resize(end_ + room);
      } catch (const std::bad_alloc&) {
        return skip_oversized();
      } catch (const std::length_error&) {
        return skip_oversized();
      }
    }
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

std::optional<Result<LineSource::Line>> LineSource::skip_oversized() {
  const std::uint64_t start = consumed_;
  std::uint64_t length = end_ - begin_;  // no LF among these bytes
  // Give the memory back and read on in chunk-sized pieces until the LF.
  Buffer().swap(buffer_);
  begin_ = end_ = 0;
  std::string chunk(kChunk, '\0');
  while (true) {
    ssize_t n;
    do {
      n = ::read(fd_, chunk.data(), chunk.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      failed_ = true;
      return Result<Line>(Error::unreadable(
          file_, fmt::format("read error at byte {}: {}", start + length, std::strerror(errno))));
    }
    if (n == 0) {
      eof_ = true;
      consumed_ = start + length;
      return Result<Line>(Line{{}, start, false, true, length});
    }
    const auto got = static_cast<std::size_t>(n);
    if (const void* lf = std::memchr(chunk.data(), '\n', got)) {
      const auto at = static_cast<std::size_t>(static_cast<const char*>(lf) - chunk.data());
      length += at;
      consumed_ = start + length + 1;
      // Keep what follows the LF for the next lines.
      buffer_.assign(chunk.data() + at + 1, got - at - 1);
      end_ = buffer_.size();
      return Result<Line>(Line{{}, start, true, true, length});
    }
    length += got;
  }
}

Result<void> LineSource::rewind() { return seek(0); }

Result<void> LineSource::seek(std::uint64_t offset) {
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) != static_cast<off_t>(offset))
    return Error::unreadable(file_, fmt::format("cannot read it again from {}: {}",
                                                offset == 0 ? std::string("the start") : fmt::format("byte {}", offset),
                                                std::strerror(errno)));
  begin_ = end_ = 0;
  consumed_ = offset;
  eof_ = failed_ = false;
  next_read_ = kChunk;  // as open() sizes the first read
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) < kChunk + offset)
    next_read_ = std::max<std::size_t>(static_cast<std::size_t>(st.st_size - static_cast<off_t>(offset)) + 1, 4096);
  return {};
}

Result<std::string> LineSource::read_at(std::uint64_t offset, std::size_t length) const {
  std::string out;
  if (auto done = read_at(offset, length, out); !done) return done.error();
  return out;
}

Result<void> LineSource::read_at(std::uint64_t offset, std::size_t length, std::string& out) const {
  out.resize(length);
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
  return {};
}

}  // namespace msptk
