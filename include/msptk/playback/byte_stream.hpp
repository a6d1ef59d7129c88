// Byte streams are the seam between a live verb's session logic and the descriptors it talks
// over: a ByteSource delivers what a peer wrote (serve-fixture: the client's frames on stdin),
// a ByteSink carries what msptk writes to the peer (serve-fixture: the server frames on stdout).
// The descriptor implementations wrap process/fd_io.hpp (EINTR-safe; a non-blocking
// descriptor is waited on with poll(2)); the in-memory ones let unit tests play a whole
// session without a process: chunks in, bytes out, and a reader that goes away mid-stream.
#pragma once

#include "msptk/process/fd_io.hpp"

#include <cstddef>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::playback {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Blocks until at least one byte arrived (bytes > 0), the end of the stream (eof) or a
  // failure (error = errno; ECANCELED: the reader was told to stop, e.g. by a signal).
  virtual process::IoResult read(char* buffer, std::size_t capacity) = 0;
  // Like read, but gives up after `timeout_ms` with error = ETIMEDOUT (a peer that neither
  // writes nor closes). Sources that never block (memory) read at once.
  virtual process::IoResult read_within(char* buffer, std::size_t capacity, int timeout_ms) {
    (void)timeout_ms;
    return read(buffer, capacity);
  }
};

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Writes all of `bytes`, or fails with error = errno (EPIPE: the reader went away) and
  // `bytes` = how many were written before the failure.
  virtual process::IoResult write(std::string_view bytes) = 0;
  // True once the sink closed the peer's input on purpose (chaos close-after, chaos_stream.hpp).
  virtual bool cut() const { return false; }
};

// Reads a descriptor. When `stop_fd` (e.g. a SignalPipe's) becomes readable, a read returns
// ECANCELED instead of waiting any longer.
class FdSource final : public ByteSource {
 public:
  explicit FdSource(int fd, int stop_fd = -1) : fd_(fd), stop_fd_(stop_fd) {}
  process::IoResult read(char* buffer, std::size_t capacity) override;
  process::IoResult read_within(char* buffer, std::size_t capacity, int timeout_ms) override;

 private:
  process::IoResult read_until(char* buffer, std::size_t capacity, int timeout_ms);

  int fd_;
  int stop_fd_;
};

class FdSink final : public ByteSink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  process::IoResult write(std::string_view bytes) override;

 private:
  int fd_;
};

// Delivers the given chunks one read at a time (a chunk larger than the read's capacity over
// several reads), then the end of the stream.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::vector<std::string> chunks) : chunks_(chunks.begin(), chunks.end()) {}
  process::IoResult read(char* buffer, std::size_t capacity) override;

 private:
  std::deque<std::string> chunks_;
};

// Collects what is written; after `capacity` bytes the reader "goes away" (EPIPE).
class MemorySink final : public ByteSink {
 public:
  explicit MemorySink(std::size_t capacity = std::numeric_limits<std::size_t>::max()) : capacity_(capacity) {}
  process::IoResult write(std::string_view bytes) override;
  const std::string& bytes() const { return bytes_; }

 private:
  std::size_t capacity_;
  std::string bytes_;
};

}  // namespace msptk::playback
