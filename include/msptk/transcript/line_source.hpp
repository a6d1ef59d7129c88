// A LineSource reads a file in large chunks (1 MiB reads, no per-line system call or copy) and
// hands out its lines one at a time as views into its buffer, each with its byte offset in the
// file, so a reader that only looks at a line never copies it, and a caller that keeps only
// offsets can read a line again later (read_at). It holds at most the longest line plus one
// chunk, whatever the file's length. Lines are cut at LF; the LF is not part of the line (a CR
// before it is). Bytes after the last LF are a last line with `lf_terminated` false.
//
// A line longer than `max_line_bytes`, or one whose bytes cannot be allocated, is never held:
// the source reads on to its LF, discarding, and hands out a Line with `oversized` set, an
// empty text and the line's length; the next line is read as usual.
#pragma once

#include "msptk/transcript/error.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace msptk {

class LineSource {
 public:
  struct Line {
    std::string_view text;      // without LF; valid until the next call of next()
    std::uint64_t offset = 0;   // of the line's first byte in the file
    bool lf_terminated = true;  // false only for bytes after the last LF
    bool oversized = false;     // over the cap or the memory: text is empty, length says how long
    std::uint64_t length = 0;   // the line's length without LF
  };

  // The default cap: 1 GiB, or the environment variable MSPTK_MAX_LINE_BYTES when it holds a
  // positive integer.
  static std::size_t default_max_line_bytes();

  // Opens `path` for reading; a folder or a file that cannot be opened is an `unreadable` error.
  static Result<LineSource> open(const std::filesystem::path& path,
                                 std::size_t max_line_bytes = default_max_line_bytes());

  // The next line; nullopt at end of file. A read failure is returned once, then the source ends.
  std::optional<Result<Line>> next();

  // Gives back the memory a line longer than 16 MiB made the buffer grow to (the bytes after
  // it are kept; a smaller buffer stays for the next long line): the text of the line handed out last is no longer valid. A caller that is done
  // with a long line (it decoded what it needs) frees it now rather than when the next line is
  // read, which also does this.
  void release_excess();

  // Starts over from the file's first byte, keeping the buffer (a reader that reads the file
  // again after a first pass does not allocate and fault another); an error when the file cannot
  // be positioned (a pipe).
  Result<void> rewind();
  // Goes on from `offset` (a line's first byte, as a Line gave it), keeping the buffer; an error
  // when the file cannot be positioned. A second source over the same file can start where the
  // first one is without reading what comes before (serve-fixture looks ahead in its script).
  Result<void> seek(std::uint64_t offset);

  // `length` bytes at `offset` (a line seen before: its offset and text size).
  Result<std::string> read_at(std::uint64_t offset, std::size_t length) const;
  // The same, into `out` (its memory reused).
  Result<void> read_at(std::uint64_t offset, std::size_t length, std::string& out) const;

  const std::string& file() const { return file_; }

  LineSource(LineSource&& other) noexcept;
  LineSource& operator=(LineSource&& other) noexcept;
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;
  ~LineSource();

 private:
  LineSource(std::string file, int fd, std::size_t max_line_bytes)
      : file_(std::move(file)), fd_(fd), max_line_bytes_(max_line_bytes) {}

  // Makes the buffer hold at least `bytes` (its first end_ bytes kept).
  void grow(std::size_t bytes);
  // Discards the oversized line that starts at begin_ up to its LF (or end of file).
  std::optional<Result<Line>> skip_oversized();

  // The read buffer: like a std::string whose new bytes are not zeroed when it grows (a session
  // with multi-MiB lines zeroed each source's buffer, a memset of its whole size, before reading
  // over it). size() is what a read may fill.
  class Buffer {
   public:
    Buffer() = default;
    Buffer(Buffer&& other) noexcept { swap(other); }
    Buffer& operator=(Buffer&& other) noexcept {
      Buffer(std::move(other)).swap(*this);
      return *this;
    }
    char* data() { return data_.get(); }
    const char* data() const { return data_.get(); }
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }
    // Room for `n` bytes, the first size() kept.
    void reserve(std::size_t n);
    void resize(std::size_t n) {
      reserve(n);
      size_ = n;
    }
    void assign(const char* p, std::size_t n);
    void swap(Buffer& other) noexcept {
      data_.swap(other.data_);
      std::swap(size_, other.size_);
      std::swap(capacity_, other.capacity_);
    }

   private:
    std::unique_ptr<char[]> data_;
    std::size_t size_ = 0, capacity_ = 0;
  };

  std::string file_;
  int fd_ = -1;
  std::size_t max_line_bytes_ = 0;
  Buffer buffer_;              // bytes read and not yet handed out start at begin_
  std::size_t begin_ = 0, end_ = 0;
  std::uint64_t consumed_ = 0;  // file offset of buffer_[begin_]
  bool eof_ = false, failed_ = false;
  // Bytes the next read makes room for: a chunk; for a regular file smaller than a chunk, its
  // size plus one the first time (to meet EOF in the same read) and 4 KiB after, so that
  // reading a short transcript (a fuzz input, a scenario of a few frames) allocates no chunk.
  std::size_t next_read_ = 0;
};

}  // namespace msptk
