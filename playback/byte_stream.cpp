#include "msptk/playback/byte_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <poll.h>

namespace msptk::playback {

process::IoResult FdSource::read(char* buffer, std::size_t capacity) { return read_until(buffer, capacity, -1); }

process::IoResult FdSource::read_within(char* buffer, std::size_t capacity, int timeout_ms) {
  return read_until(buffer, capacity, timeout_ms);
}

process::IoResult FdSource::read_until(char* buffer, std::size_t capacity, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  while (true) {
    int wait = -1;
    if (timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      wait = static_cast<int>(std::max<long long>(0, left.count()));
    }
    pollfd p[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const int ready = ::poll(p, stop_fd_ >= 0 ? 2 : 1, wait);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return {0, false, errno};
    }
    if (ready == 0) return {0, false, ETIMEDOUT};
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
