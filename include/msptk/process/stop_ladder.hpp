// A StopLadder ends a host's process group within bounded time, as a step of the poll loop that
// keeps reading the host's pipes meanwhile. Once msptk asks the host to end (it closed the
// host's stdin, forwarded a stop signal, or gave up on the run) the host has the close timeout
// (`--close-timeout-ms`, default 5000) to exit by itself; then msptk sends SIGTERM to its group,
// and after another close timeout SIGKILL. When the host itself has exited, processes of its
// group still alive (a child it left running) get SIGTERM at once and SIGKILL after the close
// timeout. The ladder is done when the host was reaped and its group is empty: msptk never
// returns while a process of a group it started is alive.
//
// `host_did_not_exit()` is true when msptk had to signal the host itself (not just forward a
// user's signal): the manifest's capture records it as `hostDidNotExit`. Single-threaded; the
// ladder holds a reference to its host.
#pragma once

#include "msptk/process/host_process.hpp"

#include <chrono>
#include <vector>

namespace msptk::process {

constexpr int kDefaultCloseTimeoutMs = 5000;

class StopLadder {
 public:
  using Clock = std::chrono::steady_clock;

  StopLadder(HostProcess& host, int close_timeout_ms) : host_(host), close_timeout_(close_timeout_ms) {}

  // The host was asked to end. `delivered` is a signal already sent to its group (a forwarded
  // SIGTERM means the next step is SIGKILL; 0, SIGINT or SIGHUP: SIGTERM first). The first call
  // starts the clock; later calls never delay a step already scheduled.
  void request(int delivered = 0);
  // Ends the host now: SIGTERM to its group at once (failed runs, a timeout), SIGKILL after the
  // close timeout.
  void terminate();
  // One step, called on every turn of the caller's loop: reaps, escalates when a deadline
  // passed. Returns true once the host was reaped and its group is empty.
  bool advance();
  // How long the caller's poll may sleep before the next step is due (ms, capped at `cap`).
  int poll_timeout_ms(int cap) const;

  bool host_did_not_exit() const { return host_did_not_exit_; }
  // Processes of the group outlived the host and were signalled by msptk.
  bool group_outlived_host() const { return survivors_signalled_; }
  // The signals msptk sent on its own (not forwarded), in order.
  const std::vector<int>& signals_sent() const { return sent_; }
  int close_timeout_ms() const { return static_cast<int>(close_timeout_.count()); }

 private:
  void send(int signo);

  HostProcess& host_;
  std::chrono::milliseconds close_timeout_;
  bool requested_ = false;
  int next_signal_ = 0;  // SIGTERM or SIGKILL once requested; 0 when nothing is scheduled
  Clock::time_point due_{};
  bool host_did_not_exit_ = false;
  bool survivors_signalled_ = false;
  bool term_delivered_ = false;  // the group got SIGTERM (sent or forwarded)
  bool done_ = false;
  std::vector<int> sent_;
};

}  // namespace msptk::process
