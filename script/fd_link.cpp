#include "msptk/script/fd_link.hpp"

#include "msptk/process/fd_io.hpp"

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace msptk::script {

namespace {
constexpr std::size_t kReadSize = 64 * 1024;
constexpr int kReadsPerTurn = 4;  // complete lines waiting stay within a few reads

int poll_ms(ClientLink::Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - ClientLink::Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left + 1, 0, 60000));
}
}  // namespace

FdLink::FdLink(int from_host, int to_host, std::size_t max_line) : in_(from_host), out_(to_host), max_line_(max_line) {
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

void FdLink::end_line() {
  if (discard_) {
    long_.reset();
    partial_.clear();
    return;
  }
  ServerLine line;
  if (long_) {
    line.long_frame = long_->finish();
    long_.reset();
  } else {
    line.text = std::move(partial_);
    partial_ = std::string();
  }
  ready_.push_back(std::move(line));
}

void FdLink::split(std::string_view chunk) {
  while (!chunk.empty()) {
    const std::size_t lf = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, lf);
    if (!long_ && partial_.size() + piece.size() > max_line_ && !discard_) {
      long_ = std::make_unique<EnvelopeScan>();  // too long to hold: keep its envelope only
      long_->feed(partial_);
      partial_ = std::string();
    }
    if (long_) {
      long_->feed(piece);
    } else if (!discard_) {
      partial_.append(piece);
    }
    if (lf == std::string_view::npos) return;
    end_line();
    chunk.remove_prefix(lf + 1);
  }
}

void FdLink::read_available() {
  char buffer[kReadSize];
  for (int round = 0; round < kReadsPerTurn && !eof_; ++round) {
    const process::IoResult r = process::read_some(in_, buffer, sizeof buffer);
    if (r.error == EAGAIN || r.error == EWOULDBLOCK) return;
    if (r.eof || r.error) {
      eof_ = true;
      long_.reset();  // a last line without LF is not a frame
      partial_ = std::string();
      return;
    }
    split(std::string_view(buffer, r.bytes));
    if (r.bytes < sizeof buffer) return;
  }
}

ClientLink::Sent FdLink::send(std::string_view frame, Clock::time_point deadline, const LineSink& arrived) {
  Sent sent;
  if (out_ < 0) {
    sent.status = Sent::closed;
    return sent;
  }
  std::string bytes(frame);
  bytes.push_back('\n');
  std::string_view rest = bytes;
  while (!rest.empty()) {
    while (!ready_.empty()) {  // what arrived meanwhile goes to the player as it comes
      ServerLine line = std::move(ready_.front());
      ready_.pop_front();
      arrived(std::move(line));
    }
    pollfd fds[2] = {{out_, POLLOUT, 0}, {eof_ ? -1 : in_, POLLIN, 0}};
    if (::poll(fds, 2, poll_ms(deadline)) < 0) {
      if (errno == EINTR) continue;
      sent.status = Sent::closed;
      return sent;
    }
    if (fds[1].revents) read_available();
    if (fds[0].revents & (POLLERR | POLLNVAL)) {
      sent.status = Sent::closed;
      return sent;
    }
    if (fds[0].revents) {
      const process::IoResult w = process::write_some(out_, rest);
      if (w.error && w.error != EAGAIN && w.error != EWOULDBLOCK) {
        sent.status = Sent::closed;
        return sent;
      }
      rest.remove_prefix(w.bytes);
      sent.written += w.bytes;
    }
    // Every turn writes what the host takes (one try even past the deadline); once the deadline
    // has passed with bytes left, the host did not take the frame in time (also while it floods
    // its output, which keeps the poll busy).
    if (!rest.empty() && Clock::now() >= deadline) {
      stalled_ = true;
      sent.status = Sent::timeout;
      return sent;
    }
  }
  return sent;
}

ClientLink::Got FdLink::next(ServerLine& line, Clock::time_point deadline) {
  while (true) {
    if (!ready_.empty()) {
      line = std::move(ready_.front());
      ready_.pop_front();
      return Got::line;
    }
    if (eof_) return Got::closed;
    if (Clock::now() >= deadline) return Got::timeout;
    pollfd fd{in_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, poll_ms(deadline));
    if (ready < 0 && errno != EINTR) {
      eof_ = true;
      continue;
    }
    if (ready > 0) read_available();
  }
}

void FdLink::drain() {
  discard_ = true;
  ready_.clear();
  long_.reset();
  partial_ = std::string();
  while (!eof_) {
    pollfd fd{in_, POLLIN, 0};
    if (::poll(&fd, 1, -1) < 0 && errno != EINTR) return;
    read_available();
  }
}

}  // namespace msptk::script
