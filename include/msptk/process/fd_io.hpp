// Thin, EINTR-safe wrappers over read(2)/write(2)/fcntl(2) for the pipe ends of a host and
// msptk's own standard streams. They never throw and never print; failures come back as errno
// values for the caller's poll loop to act on (EAGAIN: try later; EPIPE: the peer went away).
#pragma once

#include "msptk/transcript/error.hpp"

#include <cstddef>
#include <string_view>

namespace msptk::process {

struct IoResult {
  std::size_t bytes = 0;  // bytes read or written
  bool eof = false;       // read: end of file (or the descriptor was closed/invalid)
  int error = 0;          // errno of a failure other than EINTR; EAGAIN when nothing could move
};

// One read(2) of at most `capacity` bytes.
IoResult read_some(int fd, char* buffer, std::size_t capacity);
// One write(2) of at most `bytes.size()` bytes (a partial write is normal).
IoResult write_some(int fd, std::string_view bytes);
// Writes everything, waiting with poll(2) when the descriptor is non-blocking and full.
// timeout_ms < 0 waits forever; a timeout gives error ETIMEDOUT with `bytes` written so far.
IoResult write_all(int fd, std::string_view bytes, int timeout_ms = -1);

bool is_nonblocking(int fd);
Result<void> set_nonblocking(int fd, bool on);
Result<void> set_cloexec(int fd);

}  // namespace msptk::process
