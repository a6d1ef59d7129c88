#include "msptk/process/stop_ladder.hpp"

#include <algorithm>
#include <csignal>

namespace msptk::process {

void StopLadder::request(int delivered) {
  if (requested_) return;
  requested_ = true;
  term_delivered_ = delivered == SIGTERM;
  next_signal_ = delivered == SIGTERM ? SIGKILL : SIGTERM;
  due_ = Clock::now() + close_timeout_;
}

void StopLadder::terminate() {
  if (next_signal_ == SIGKILL && requested_) return;  // SIGTERM already went out
  requested_ = true;
  next_signal_ = SIGTERM;
  due_ = Clock::now();
  (void)advance();
}

void StopLadder::send(int signo) {
  if (signo == SIGTERM) term_delivered_ = true;
  sent_.push_back(signo);
  (void)host_.signal(signo);
}

bool StopLadder::advance() {
  if (done_) return true;
  const bool host_ended = host_.try_wait().has_value();
  if (host_ended && !host_.group_alive()) return done_ = true;
  if (host_ended && !term_delivered_ && !survivors_signalled_) {
    // The host is gone but a process of its group lives on: stop it now.
    survivors_signalled_ = true;
    send(SIGTERM);
    next_signal_ = SIGKILL;
    due_ = Clock::now() + close_timeout_;
    return false;
  }
  if (next_signal_ == 0 || Clock::now() < due_) return false;
  if (!host_ended) host_did_not_exit_ = true;
  const int signo = next_signal_;
  send(signo);
  next_signal_ = SIGKILL;  // and SIGKILL again until the group is gone
  due_ = Clock::now() + (signo == SIGTERM ? close_timeout_ : std::chrono::milliseconds(100));
  return false;
}

int StopLadder::poll_timeout_ms(int cap) const {
  if (done_) return 0;
  if (next_signal_ == 0) return cap;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(due_ - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, cap));
}

}  // namespace msptk::process
