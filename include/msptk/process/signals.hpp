// Signals as events of a poll loop. A SignalPipe catches a set of signals for as long as it
// lives and turns each delivery into a byte on a pipe (the self-pipe trick): a poll loop waits
// on `fd()` beside its other descriptors and calls `take()` to learn which signals arrived,
// in order. The previous dispositions are restored on destruction. At most one SignalPipe
// exists at a time (the handler is process-wide); creating a second one fails.
//
// SigpipeIgnored makes writes to a closed pipe fail with EPIPE instead of killing msptk, for
// as long as it lives. spawn_host resets SIGPIPE in the child to the disposition msptk had
// before, so hosts see the signal dispositions they would have had without msptk in between.
#pragma once

#include "msptk/transcript/error.hpp"

#include <csignal>
#include <string>
#include <vector>

namespace msptk::process {

class SignalPipe {
 public:
  static Result<SignalPipe> create(const std::vector<int>& signals);
  SignalPipe(SignalPipe&& other) noexcept;
  SignalPipe& operator=(SignalPipe&&) = delete;
  ~SignalPipe();

  // Readable when a signal arrived since the last take().
  int fd() const { return read_fd_; }
  // The signals delivered since the last call, in delivery order (empty when none).
  std::vector<int> take();
  // Once the verdict is final: on destruction these signals get SIG_IGN instead of their
  // previous disposition, so a stop request arriving while msptk exits (a client sending
  // SIGTERM once it has every answer) cannot turn a written report into a death by signal.
  void ignore_after_release(std::vector<int> signals) { ignored_after_ = std::move(signals); }

 private:
  SignalPipe() = default;
  int read_fd_ = -1;
  std::vector<int> signals_;
  std::vector<struct sigaction> previous_;
  std::vector<int> ignored_after_;
};

class SigpipeIgnored {
 public:
  SigpipeIgnored();
  ~SigpipeIgnored();
  SigpipeIgnored(const SigpipeIgnored&) = delete;
  SigpipeIgnored& operator=(const SigpipeIgnored&) = delete;

 private:
  struct sigaction previous_ {};
};

// The SIGPIPE disposition a child should get: SIG_IGN when msptk itself was started with
// SIGPIPE ignored, else SIG_DFL.
bool sigpipe_ignored_by_parent();

// "SIGTERM" for 15 and so on; "SIG<N>" for numbers without a name.
std::string signal_name(int signo);

}  // namespace msptk::process
