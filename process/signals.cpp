#include "msptk/process/signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::process {

namespace {

std::atomic<int> g_write_fd{-1};

extern "C" void on_signal(int signo) {
  const int saved = errno;
  const int fd = g_write_fd.load();
  if (fd >= 0) {
    const unsigned char byte = static_cast<unsigned char>(signo);
    [[maybe_unused]] ssize_t n = ::write(fd, &byte, 1);  // a full pipe drops the byte: poll still wakes
  }
  errno = saved;
}

std::atomic<int> g_sigpipe_guards{0};
bool g_sigpipe_was_ignored = false;

}  // namespace

Result<SignalPipe> SignalPipe::create(const std::vector<int>& signals) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
    return Error{ErrorKind::spawn, fmt::format("cannot create the signal pipe: {}", std::strerror(errno)), {}, 0, {}};
  int expected = -1;
  if (!g_write_fd.compare_exchange_strong(expected, fds[1])) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Error{ErrorKind::spawn, "a signal pipe is already installed", {}, 0, {}};
  }
  SignalPipe pipe;
  pipe.read_fd_ = fds[0];
  pipe.signals_ = signals;
  pipe.previous_.resize(signals.size());
  for (std::size_t i = 0; i < signals.size(); ++i) {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(signals[i], &action, &pipe.previous_[i]);
  }
  return pipe;
}

SignalPipe::SignalPipe(SignalPipe&& other) noexcept
    : read_fd_(other.read_fd_),
      signals_(std::move(other.signals_)),
      previous_(std::move(other.previous_)),
      ignored_after_(std::move(other.ignored_after_)) {
  other.read_fd_ = -1;
  other.signals_.clear();
  other.previous_.clear();
}

SignalPipe::~SignalPipe() {
  if (read_fd_ < 0) return;
  for (std::size_t i = 0; i < signals_.size(); ++i) {
    if (std::find(ignored_after_.begin(), ignored_after_.end(), signals_[i]) != ignored_after_.end()) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      ::sigaction(signals_[i], &ignore, nullptr);
    } else {
      ::sigaction(signals_[i], &previous_[i], nullptr);
    }
  }
  const int write_fd = g_write_fd.exchange(-1);
  if (write_fd >= 0) ::close(write_fd);
  ::close(read_fd_);
}

std::vector<int> SignalPipe::take() {
  std::vector<int> out;
  unsigned char buffer[64];
  while (true) {
    ssize_t n = ::read(read_fd_, buffer, sizeof buffer);
    if (n > 0) {
      out.insert(out.end(), buffer, buffer + n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  return out;
}

SigpipeIgnored::SigpipeIgnored() {
  struct sigaction action {};
  action.sa_handler = SIG_IGN;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGPIPE, &action, &previous_);
  if (g_sigpipe_guards.fetch_add(1) == 0) g_sigpipe_was_ignored = previous_.sa_handler == SIG_IGN;
}

SigpipeIgnored::~SigpipeIgnored() {
  g_sigpipe_guards.fetch_sub(1);
  ::sigaction(SIGPIPE, &previous_, nullptr);
}

bool sigpipe_ignored_by_parent() {
  if (g_sigpipe_guards.load() > 0) return g_sigpipe_was_ignored;
  struct sigaction current {};
  ::sigaction(SIGPIPE, nullptr, &current);
  return current.sa_handler == SIG_IGN;
}

std::string signal_name(int signo) {
  const char* abbrev = ::sigabbrev_np(signo);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("SIG{}", signo);
}

}  // namespace msptk::process
