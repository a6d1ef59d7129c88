// PipeHost: a fake HostProcess made of three pipes and a thread, for tests of the code that
// drives hosts (recorder, replay) without spawning processes. The thread runs `body` with the
// host's ends of stdin, stdout and stderr and the last signal sent; what `body` returns is how
// the host ended, and its pipe ends are closed when it returns.
#pragma once

#include "msptk/process/host_process.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <thread>
#include <unistd.h>

namespace msptk::test {

using process::ExitStatus;

class PipeHost : public process::HostProcess {
 public:
  using Body = std::function<ExitStatus(int in, int out, int err, const std::atomic<int>& signal)>;
  explicit PipeHost(Body body) {
    int in[2], out[2], err[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    in_ = in[1];
    out_ = out[0];
    err_ = err[0];
    thread_ = std::thread([this, body, hin = in[0], hout = out[1], herr = err[1]] {
      ExitStatus status = body(hin, hout, herr, signal_);
      ::close(hin);
      ::close(hout);
      ::close(herr);
      status_ = status;
      done_ = true;
    });
  }
  ~PipeHost() override {
    close_stdin();
    if (thread_.joinable()) thread_.join();
    ::close(out_);
    ::close(err_);
  }
  int pid() const override { return -1; }
  int stdin_fd() const override { return in_; }
  int stdout_fd() const override { return out_; }
  int stderr_fd() const override { return err_; }
  void close_stdin() override {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }
  Result<void> signal(int signo) override {
    signal_ = signo;
    return {};
  }
  std::optional<ExitStatus> try_wait() override {
    if (!done_) return std::nullopt;
    return wait();
  }
  ExitStatus wait() override {
    if (thread_.joinable()) thread_.join();
    return status_;
  }

 private:
  int in_, out_, err_;
  std::thread thread_;
  std::atomic<bool> done_{false};
  std::atomic<int> signal_{0};
  ExitStatus status_;
};

}  // namespace msptk::test
