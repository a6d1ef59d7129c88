#include "msptk/recorder/forwarder.hpp"

#include "msptk/process/fd_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>

namespace msptk::recorder {

using process::IoResult;

namespace {

constexpr std::size_t kReadSize = 64 * 1024;
constexpr int kPollTimeoutMs = 200;  // a safety net: SIGCHLD normally wakes the loop at once
constexpr int kReadRounds = 4;       // reads of a full buffer in a row before the next poll

bool writable_now(int fd) {
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1;
}

// One write that never blocks, on a descriptor whose flags are left alone: pwritev2 with
// RWF_NOWAIT (pipes, sockets and most character devices on Linux >= 5.x). `supported` is false
// when the kernel or the file refuses the flag.
IoResult write_nowait(int fd, std::string_view bytes, bool& supported) {
  IoResult r;
#if defined(RWF_NOWAIT)
  iovec piece{const_cast<char*>(bytes.data()), bytes.size()};
  while (true) {
    const ssize_t n = ::pwritev2(fd, &piece, 1, -1, RWF_NOWAIT);
    if (n >= 0) {
      r.bytes = static_cast<std::size_t>(n);
      return r;
    }
    if (errno == EINTR) continue;
    if (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS || errno == ESPIPE) {
      supported = false;
      return r;
    }
    r.error = errno;
    return r;
  }
#else
  (void)fd;
  (void)bytes;
  supported = false;
  return r;
#endif
}

// Bytes waiting to be written to one descriptor. A non-blocking descriptor (the host's pipes)
// takes what the kernel takes. msptk's own stdout/stderr are blocking and may be shared with
// other processes, so their flags are left alone: a regular file is written at once (it never
// waits on a reader); anything else with RWF_NOWAIT writes, or, where the kernel lacks them,
// PIPE_BUF pieces while poll says POLLOUT, so a write never blocks the loop.
class Outbox {
 public:
  explicit Outbox(int fd) : fd_(fd), dead_(fd < 0) {
    if (fd_ < 0) return;
    struct stat st{};
    if (process::is_nonblocking(fd_)) {
      mode_ = Mode::nonblocking;
    } else if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      mode_ = Mode::file;
    } else {
      mode_ = Mode::nowait;
    }
  }

  bool dead() const { return dead_; }
  bool idle() const { return dead_ || offset_ == pending_.size(); }
  bool wants_write() const { return !idle(); }
  int fd() const { return fd_; }

  // Writes `bytes` now as far as the descriptor takes them; keeps only the rest (a copy) for
  // later flushes.
  void send(std::string_view bytes) {
    if (dead_) return;
    if (idle()) {
      pending_.clear();
      offset_ = 0;
      while (!bytes.empty()) {
        const std::size_t n = write_once(bytes);
        if (dead_ || n == 0) break;
        bytes.remove_prefix(n);
      }
      if (dead_ || bytes.empty()) return;
    }
    pending_.append(bytes);
  }

  void flush() {
    while (wants_write()) {
      const std::size_t n = write_once(std::string_view(pending_).substr(offset_));
      if (dead_ || n == 0) return;
      offset_ += n;
    }
  }

  void kill() {
    dead_ = true;
    pending_.clear();
    offset_ = 0;
  }

 private:
  enum class Mode { nonblocking, file, nowait, pieces };

  // One write of (a prefix of) `rest`: the bytes taken, 0 when the descriptor would block (or
  // died: then dead_).
  std::size_t write_once(std::string_view rest) {
    IoResult r;
    switch (mode_) {
      case Mode::nonblocking:
      case Mode::file: r = process::write_some(fd_, rest); break;
      case Mode::nowait: {
        bool supported = true;
        r = write_nowait(fd_, rest, supported);
        if (!supported) {
          mode_ = Mode::pieces;
          return write_once(rest);
        }
        break;
      }
      case Mode::pieces:
        if (!writable_now(fd_)) return 0;
        r = process::write_some(fd_, rest.substr(0, PIPE_BUF));
        break;
    }
    if (r.error == EAGAIN || r.error == EWOULDBLOCK) return 0;
    if (r.error) {
      kill();
      return 0;
    }
    return r.bytes;
  }

  int fd_;
  Mode mode_ = Mode::nonblocking;
  bool dead_;
  std::string pending_;
  std::size_t offset_ = 0;
};

bool forwarded_signal(int signo) { return signo == SIGINT || signo == SIGTERM || signo == SIGHUP; }

}  // namespace

Result<SessionEnd> forward_session(process::HostProcess& host, Tee& tee, const Wiring& wiring,
                                   process::SignalPipe* signals, int close_timeout_ms) {
  for (int fd : {host.stdin_fd(), host.stdout_fd(), host.stderr_fd()})
    if (fd >= 0) (void)process::set_nonblocking(fd, true);

  SessionEnd end;
  Outbox to_host(host.stdin_fd()), to_client(wiring.client_out), to_err(wiring.err_out);
  bool client_open = wiring.client_in >= 0;
  bool abandon_open = wiring.client_abandon >= 0;
  bool out_open = host.stdout_fd() >= 0;
  bool err_open = host.stderr_fd() >= 0;
  std::optional<process::ExitStatus> exit;
  std::vector<char> buffer(kReadSize);
  bool last_out_full = false;
  process::StopLadder ladder(host, close_timeout_ms);

  // read_client: true when the read filled the buffer (more is likely waiting).
  auto read_client = [&] {
    IoResult r = process::read_some(wiring.client_in, buffer.data(), buffer.size());
    if (r.error == EAGAIN) return false;
    if (r.eof || r.error) {
      client_open = false;
      tee.close(Direction::client);
      return false;
    }
    std::string_view chunk(buffer.data(), r.bytes);
    if (wiring.on_chunk) wiring.on_chunk(Direction::client, chunk);  // the wire log (wirelog/)
    tee.feed(Direction::client, chunk);  // record first, then forward
    to_host.send(chunk);
    return r.bytes == buffer.size();
  };
  // read_host_out, read_host_err: true when the read moved bytes (more may be waiting);
  // read_host_out_full: when it filled the buffer.
  auto read_host_out = [&] {
    IoResult r = process::read_some(host.stdout_fd(), buffer.data(), buffer.size());
    if (r.error == EAGAIN) return false;
    if (r.eof || r.error) {
      out_open = false;
      tee.close(Direction::server);
      return false;
    }
    std::string_view chunk(buffer.data(), r.bytes);
    if (wiring.on_chunk) wiring.on_chunk(Direction::server, chunk);  // the wire log (wirelog/)
    tee.feed(Direction::server, chunk);  // record first, then forward
    to_client.send(chunk);
    last_out_full = r.bytes == buffer.size();
    return true;
  };
  auto read_host_out_full = [&] { return read_host_out() && last_out_full; };
  auto read_host_err = [&] {
    IoResult r = process::read_some(host.stderr_fd(), buffer.data(), buffer.size());
    if (r.error == EAGAIN) return false;
    if (r.eof || r.error) {
      err_open = false;
      return false;
    }
    std::string_view chunk(buffer.data(), r.bytes);
    end.stderr_bytes += r.bytes;
    if (wiring.stderr_copy) wiring.stderr_copy(chunk);
    to_err.send(chunk);
    return true;
  };

  // Whether this turn looks at the signals, the host's exit and the stop ladder. With a
  // SignalPipe (which has SIGCHLD) only when something may have changed: a signal came, the
  // poll timed out, a source closed, the host already exited, or a step of the ladder is due
  // within the poll timeout; so a turn that only moves bytes makes no other system call.
  bool look = true;
  bool group_gone = false;
  while (true) {
    look = look || !signals || exit.has_value();
    if (signals && look) {
      for (int signo : signals->take()) {
        if (!forwarded_signal(signo)) continue;  // SIGCHLD only wakes the loop
        end.signals_forwarded.push_back(signo);
        if (!exit) {
          (void)host.signal(signo);
          ladder.request(signo);
        }
      }
    }
    if (look && !exit) exit = host.try_wait();
    if (exit) {
      // The host is gone: whatever it wrote is in the pipes now. Drain, then stop reading, so a
      // grandchild holding the pipes open cannot keep the recorder alive.
      while (out_open && read_host_out()) {
      }
      while (err_open && read_host_err()) {
      }
      if (out_open) tee.close(Direction::server);
      out_open = err_open = false;
    }
    if (to_host.dead() && client_open) end.host_stdin_broken = true;
    if ((!client_open || to_host.dead()) && to_host.idle() && host.stdin_fd() >= 0) {
      host.close_stdin();
      ladder.request();
    }
    if (to_client.dead() && wiring.client_out >= 0) end.client_gone = true;
    if (look || ladder.poll_timeout_ms(kPollTimeoutMs) < kPollTimeoutMs) {
      group_gone = ladder.advance();
      if (!exit) exit = host.try_wait();  // the ladder may have reaped it: drained next turn
    }
    if (exit && group_gone && !out_open && !err_open && to_client.idle() && to_err.idle()) break;

    enum Slot { kSignals, kClientIn, kHostOut, kHostErr, kHostIn, kClientOut, kErrOut, kAbandon, kSlots };
    pollfd fds[kSlots];
    auto watch = [&](Slot slot, int fd, short events, bool on) { fds[slot] = {on ? fd : -1, events, 0}; };
    watch(kSignals, signals ? signals->fd() : -1, POLLIN, signals != nullptr);
    watch(kClientIn, wiring.client_in, POLLIN, client_open && !to_host.dead() && to_host.idle());
    watch(kHostOut, host.stdout_fd(), POLLIN, out_open && to_client.idle());
    watch(kHostErr, host.stderr_fd(), POLLIN, err_open && to_err.idle());
    watch(kHostIn, to_host.fd(), POLLOUT, to_host.wants_write());
    watch(kClientOut, to_client.fd(), POLLOUT, to_client.wants_write());
    watch(kErrOut, to_err.fd(), POLLOUT, to_err.wants_write());
    watch(kAbandon, wiring.client_abandon, POLLIN, abandon_open);

    int ready = ::poll(fds, kSlots, ladder.poll_timeout_ms(kPollTimeoutMs));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Error{ErrorKind::peer, fmt::format("poll failed: {}", std::strerror(errno)), {}, 0, {}};
    }
    auto fired = [&](Slot slot) { return fds[slot].fd >= 0 && fds[slot].revents != 0; };
    auto open_sources = [&] { return (client_open ? 1 : 0) | (out_open ? 2 : 0) | (err_open ? 4 : 0); };
    const int were_open = open_sources();
    look = ready == 0 || fired(kSignals);
    if (fired(kAbandon)) {  // a byte: the client gave up (what it had on its way to the host is dropped)
      char byte = 0;
      const IoResult r = process::read_some(wiring.client_abandon, &byte, 1);
      if (r.bytes > 0 || r.eof || (r.error && r.error != EAGAIN)) abandon_open = false;
      if (r.bytes > 0 && client_open) {
        client_open = false;
        tee.close(Direction::client);
        to_host.kill();
      }
      look = true;
    }
    if (fired(kHostIn)) to_host.flush();
    if (fired(kClientOut)) to_client.flush();
    if (fired(kErrOut)) to_err.flush();
    bool host_more = fired(kHostOut) && read_host_out_full();
    if (fired(kHostErr)) read_host_err();
    bool client_more = fired(kClientIn) && read_client();
    // A read that filled the buffer leaves more behind: read on while what was read went out
    // at once, without a poll in between (a few rounds, so the loop's other work is not held up).
    for (int round = 0; round < kReadRounds; ++round) {
      bool moved = false;
      if (host_more && out_open && to_client.idle()) moved = host_more = read_host_out_full();
      if (client_more && client_open && !to_host.dead() && to_host.idle()) moved = (client_more = read_client()) || moved;
      if (!moved) break;
    }
    for (Slot slot : {kHostIn, kClientOut, kErrOut}) {
      if (fired(slot) && (fds[slot].revents & POLLNVAL)) {
        (slot == kHostIn ? to_host : slot == kClientOut ? to_client : to_err).kill();
      }
    }
    if (were_open != open_sources() || to_host.dead() || to_client.dead()) look = true;
  }
  tee.close(Direction::client);
  tee.close(Direction::server);
  end.exit = *exit;
  end.host_did_not_exit = ladder.host_did_not_exit();
  end.group_outlived_host = ladder.group_outlived_host();
  end.stop_signals = ladder.signals_sent();
  return end;
}

}  // namespace msptk::recorder
