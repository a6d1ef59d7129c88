#include "msptk/playback/byte_stream.hpp"

#include <cerrno>
#include <cstring>
#include <poll.h>

namespace msptk::playback {

process::IoResult FdSource::read(char* buffer, std::size_t capacity) {
  while (true) {
    pollfd p[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(p, stop_fd_ >= 0 ? 2 : 1, -1) < 0) {
      if (errno == EINTR) continue;
      return {0, false, errno};
    }
    if (stop_fd_ >= 0 && p[1].revents) return {0, false, ECANCELED};
    process::IoResult r = process::read_some(fd_, buffer, capacity);
    if (r.error != EAGAIN) return r;
  }
}

process::IoResult FdSink::write(std::string_view bytes) { return process::write_all(fd_, bytes); }

process::IoResult MemorySource::read(char* buffer, std::size_t capacity) {
  while (!chunks_.empty() && chunks_.front().empty()) chunks_.pop_front();
  if (chunks_.empty()) return {0, true, 0};
  std::string& front = chunks_.front();
  const std::size_t n = std::min(capacity, front.size());
  std::memcpy(buffer, front.data(), n);
  front.erase(0, n);
  return {n, false, 0};
}

process::IoResult MemorySink::write(std::string_view bytes) {
  const std::size_t room = capacity_ - std::min(capacity_, bytes_.size());
  const std::size_t n = std::min(room, bytes.size());
  bytes_.append(bytes.substr(0, n));
  if (n < bytes.size()) return {n, false, EPIPE};
  return {n, false, 0};
}

}  // namespace msptk::playback
