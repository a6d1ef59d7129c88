#include "msptk/script/fd_link.hpp"

#include "msptk/process/fd_io.hpp"

#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace msptk::script {

namespace {
constexpr std::size_t kReadSize = 64 * 1024;
}

FdLink::FdLink(int from_host, int to_host) : in_(from_host), out_(to_host) {
  (void)process::set_nonblocking(in_, true);
  (void)process::set_nonblocking(out_, true);
}

FdLink::~FdLink() {
  close_send();
  if (in_ >= 0) ::close(in_);
}

void FdLink::close_send() {
  if (out_ >= 0) ::close(out_);
  out_ = -1;
}

bool FdLink::read_available() {
  char buffer[kReadSize];
  while (true) {
    const process::IoResult r = process::read_some(in_, buffer, sizeof buffer);
    if (r.error == EAGAIN || r.error == EWOULDBLOCK) return true;
    if (r.eof || r.error) {
      eof_ = true;
      return false;
    }
    if (start_ > 0 && start_ * 2 > inbound_.size()) {
      inbound_.erase(0, start_);
      start_ = 0;
    }
    inbound_.append(buffer, r.bytes);
    if (r.bytes < sizeof buffer) return true;
  }
}

bool FdLink::take_line(std::string& line) {
  const std::size_t lf = inbound_.find('\n', start_);
  if (lf == std::string::npos) return false;
  line.assign(inbound_, start_, lf - start_);
  start_ = lf + 1;
  return true;
}

bool FdLink::send(std::string_view frame) {
  if (out_ < 0) return false;
  std::string bytes(frame);
  bytes.push_back('\n');
  std::string_view rest = bytes;
  while (!rest.empty()) {
    pollfd fds[2] = {{out_, POLLOUT, 0}, {eof_ ? -1 : in_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (fds[1].revents) read_available();
    if (fds[0].revents & (POLLERR | POLLNVAL)) return false;
    if (!fds[0].revents) continue;
    const process::IoResult w = process::write_some(out_, rest);
    if (w.error == EAGAIN || w.error == EWOULDBLOCK) continue;
    if (w.error) return false;
    rest.remove_prefix(w.bytes);
  }
  return true;
}

ClientLink::Got FdLink::next(std::string& line, Clock::time_point deadline) {
  while (true) {
    if (take_line(line)) return Got::line;
    if (eof_) return Got::closed;
    const auto now = Clock::now();
    if (now >= deadline) return Got::timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    pollfd fd{in_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(std::min<long long>(left, 60000)));
    if (ready < 0 && errno != EINTR) {
      eof_ = true;
      continue;
    }
    if (ready > 0) read_available();
  }
}

void FdLink::drain() {
  std::string line;
  while (!eof_) {
    while (take_line(line)) {
    }
    start_ = 0;
    inbound_.clear();
    pollfd fd{in_, POLLIN, 0};
    if (::poll(&fd, 1, -1) < 0 && errno != EINTR) return;
    read_available();
  }
}

}  // namespace msptk::script
