// HostLink: the poll loop over one host's pipes (replay_session.hpp).
#include "replay_session.hpp"

#include "msptk/process/fd_io.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <poll.h>
#include <thread>

namespace msptk::playback {

namespace {

constexpr std::size_t kReadSize = 64 * 1024;
constexpr std::size_t kStderrTail = 4096;
// A safety net: a host that exited while a grandchild holds its stdout open is noticed by
// try_wait at this pace (its stdout's EOF normally wakes the loop at once).
constexpr int kPollCapMs = 100;
constexpr int kExitPollMs = 5;

int ms_until(SteadyClock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, kPollCapMs));
}

}  // namespace

HostLink::HostLink(process::HostProcess& host, recorder::Tee& tee, LiveSink& sink, process::SignalPipe* signals,
                   std::function<void(std::string_view)> on_stderr)
    : host_(host),
      tee_(tee),
      sink_(sink),
      signals_(signals),
      on_stderr_(std::move(on_stderr)),
      out_open_(host.stdout_fd() >= 0),
      err_open_(host.stderr_fd() >= 0),
      buffer_(kReadSize) {
  for (int fd : {host.stdin_fd(), host.stdout_fd(), host.stderr_fd()})
    if (fd >= 0) (void)process::set_nonblocking(fd, true);
}

bool HostLink::read_stdout() {
  process::IoResult r = process::read_some(host_.stdout_fd(), buffer_.data(), buffer_.size());
  if (r.error == EAGAIN) return false;
  if (r.eof || r.error) {
    out_open_ = false;
    tee_.close(Direction::server);
    return false;
  }
  tee_.feed(Direction::server, std::string_view(buffer_.data(), r.bytes));  // frames land in the sink
  return true;
}

bool HostLink::read_stderr() {
  process::IoResult r = process::read_some(host_.stderr_fd(), buffer_.data(), buffer_.size());
  if (r.error == EAGAIN) return false;
  if (r.eof || r.error) {
    err_open_ = false;
    return false;
  }
  std::string_view chunk(buffer_.data(), r.bytes);
  stderr_bytes_ += r.bytes;
  stderr_tail_.append(chunk);
  if (stderr_tail_.size() > kStderrTail) stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
  if (on_stderr_) on_stderr_(chunk);
  return true;
}

void HostLink::check_exit() {
  if (exit_) return;
  exit_ = host_.try_wait();
  if (!exit_) return;
  // The host is gone: what it wrote is in the pipes. Drain them, then stop reading, so a
  // grandchild holding them open cannot keep replay waiting.
  while (out_open_ && read_stdout()) {
  }
  while (err_open_ && read_stderr()) {
  }
  if (out_open_) tee_.close(Direction::server);
  out_open_ = err_open_ = false;
}

void HostLink::pump(int timeout_ms, std::string_view* pending, bool* broken) {
  check_exit();
  enum Slot { kSignals, kOut, kErr, kIn, kSlots };
  const bool writing = pending && !pending->empty() && host_.stdin_fd() >= 0;
  pollfd fds[kSlots] = {{signals_ ? signals_->fd() : -1, POLLIN, 0},
                        {out_open_ ? host_.stdout_fd() : -1, POLLIN, 0},
                        {err_open_ ? host_.stderr_fd() : -1, POLLIN, 0},
                        {writing ? host_.stdin_fd() : -1, POLLOUT, 0}};
  // With the pipes closed only the host's exit is awaited: look again soon (SIGCHLD, when
  // signals are handled, wakes the poll at once anyway).
  if (!out_open_ && !err_open_ && !writing) timeout_ms = std::min(timeout_ms, kExitPollMs);
  if (::poll(fds, kSlots, timeout_ms) < 0) return;  // EINTR: the caller loops
  auto fired = [&](Slot slot) { return fds[slot].fd >= 0 && fds[slot].revents != 0; };
  if (fired(kSignals)) {
    for (int signo : signals_->take())
      if (signo != SIGCHLD && !signal_) signal_ = signo;
  }
  if (fired(kOut)) {
    if (stall_ && stall_->due()) std::this_thread::sleep_for(std::chrono::milliseconds(stall_->ms()));
    read_stdout();
  }
  if (fired(kErr)) read_stderr();
  if (fired(kIn)) {
    process::IoResult r = process::write_some(host_.stdin_fd(), *pending);
    if (r.error && r.error != EAGAIN) {
      *broken = true;
    } else {
      pending->remove_prefix(r.bytes);
    }
  }
  check_exit();
}

HostLink::Event HostLink::wait_frame(SteadyClock::time_point deadline) {
  while (true) {
    if (!sink_.server_frames().empty()) return Event::frame;
    if (signal_) return Event::interrupted;
    if (!out_open_) return Event::closed;
    if (SteadyClock::now() >= deadline) return Event::timeout;
    pump(ms_until(deadline), nullptr, nullptr);
  }
}

HostLink::Event HostLink::write(std::string_view bytes, SteadyClock::time_point deadline) {
  bool broken = host_.stdin_fd() < 0;
  while (true) {
    if (bytes.empty()) return Event::done;
    if (broken) return Event::broken;
    if (signal_) return Event::interrupted;
    if (SteadyClock::now() >= deadline) return Event::timeout;
    pump(ms_until(deadline), &bytes, &broken);
  }
}

void HostLink::idle(std::chrono::microseconds pause) {
  const auto until = SteadyClock::now() + pause;
  pump(0, nullptr, nullptr);
  while (!signal_) {
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(until - SteadyClock::now());
    if (left.count() <= 0) return;
    if (left < std::chrono::milliseconds(1)) {
      std::this_thread::sleep_for(left);
      return;
    }
    pump(static_cast<int>(left.count() / 1000), nullptr, nullptr);
  }
}

std::optional<process::ExitStatus> HostLink::await_exit(SteadyClock::time_point deadline) {
  while (!exit_ && !signal_ && SteadyClock::now() < deadline) pump(ms_until(deadline), nullptr, nullptr);
  return exit_;
}

bool HostLink::finish(SteadyClock::time_point deadline, int close_timeout_ms) {
  host_.close_stdin();
  (void)await_exit(deadline);  // returns early when a signal came: then stop at once
  process::StopLadder ladder(host_, close_timeout_ms);
  if (!exit_) ladder.terminate();
  while (!ladder.advance()) pump(ladder.poll_timeout_ms(kPollCapMs), nullptr, nullptr);
  if (!exit_) exit_ = host_.wait();  // reaped by the ladder: returns at once
  while (out_open_ && read_stdout()) {
  }
  while (err_open_ && read_stderr()) {
  }
  tee_.close(Direction::server);
  out_open_ = err_open_ = false;
  stop_signals_ = ladder.signals_sent();
  group_outlived_host_ = ladder.group_outlived_host();
  return ladder.host_did_not_exit();
}

}  // namespace msptk::playback
