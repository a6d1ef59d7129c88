#include "msptk/process/fd_io.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace msptk::process {

IoResult read_some(int fd, char* buffer, std::size_t capacity) {
  while (true) {
    ssize_t n = ::read(fd, buffer, capacity);
    if (n > 0) return {static_cast<std::size_t>(n), false, 0};
    if (n == 0) return {0, true, 0};
    if (errno == EINTR) continue;
    if (errno == EBADF) return {0, true, EBADF};
    return {0, false, errno};
  }
}

IoResult write_some(int fd, std::string_view bytes) {
  while (true) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n >= 0) return {static_cast<std::size_t>(n), false, 0};
    if (errno == EINTR) continue;
    return {0, false, errno == EWOULDBLOCK ? EAGAIN : errno};
  }
}

IoResult write_all(int fd, std::string_view bytes, int timeout_ms) {
  IoResult total;
  while (!bytes.empty()) {
    IoResult r = write_some(fd, bytes);
    if (r.error == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      int ready = ::poll(&p, 1, timeout_ms);
      if (ready < 0 && errno != EINTR) return {total.bytes, false, errno};
      if (ready == 0) return {total.bytes, false, ETIMEDOUT};
      continue;
    }
    if (r.error) return {total.bytes, false, r.error};
    total.bytes += r.bytes;
    bytes.remove_prefix(r.bytes);
  }
  return total;
}

bool is_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_NONBLOCK) != 0;
}

Result<void> set_nonblocking(int fd, bool on) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) < 0)
    return Error{ErrorKind::peer, fmt::format("cannot change the flags of descriptor {}: {}", fd, std::strerror(errno)), {}, 0, {}};
  return {};
}

Result<void> set_cloexec(int fd) {
  int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0 || ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0)
    return Error{ErrorKind::peer, fmt::format("cannot set close-on-exec on descriptor {}: {}", fd, std::strerror(errno)), {}, 0, {}};
  return {};
}

}  // namespace msptk::process
