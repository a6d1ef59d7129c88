// The real ClientLauncher of check --client: the client spawned in a process group of its own,
// its stdout drained, the tail of its stderr kept, stopped through the StopLadder at the timeout.
#include "msptk/check/client_runner.hpp"

#include "msptk/process/stop_ladder.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace msptk::check {

namespace {

constexpr int kPollCapMs = 100;

class SystemClientLauncher final : public ClientLauncher {
 public:
  explicit SystemClientLauncher(process::EnvironmentPlan environment) : environment_(std::move(environment)) {}

  ClientRun run(const ClientLaunch& launch) override {
    ClientRun result;
    if (launch.argv.empty()) {
      result.spawn_failure = Error::usage("--client: no command");
      return result;
    }
    auto env = process::HostEnvironment::prepare(environment_, launch.argv.front(), {}, launch.keep_env_dir);
    if (!env) {
      result.spawn_failure = env.error();
      return result;
    }
    process::SpawnSpec spec;
    spec.argv = launch.argv;
    env->apply(spec);
    spec.env.insert(spec.env.end(), launch.variables.begin(), launch.variables.end());
    auto child = process::spawn_host(spec);
    if (!child) {
      result.spawn_failure = child.error();
      return result;
    }
    process::HostProcess& client = **child;
    client.close_stdin();
    process::StopLadder ladder(client, launch.close_timeout_ms);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(launch.timeout_ms);
    int out = client.stdout_fd(), err = client.stderr_fd();
    char buffer[65536];
    while (true) {
      if (client.try_wait() && ladder.advance()) break;
      if (!result.timed_out && std::chrono::steady_clock::now() >= deadline && !client.try_wait()) {
        result.timed_out = true;
        ladder.terminate();
      }
      if (result.timed_out && ladder.advance()) break;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      int wait = ladder.poll_timeout_ms(kPollCapMs);
      if (!result.timed_out) wait = static_cast<int>(std::clamp<long long>(left, 0, wait));
      pollfd fds[2] = {{out, POLLIN, 0}, {err, POLLIN, 0}};
      (void)::poll(fds, 2, wait);
      for (int k = 0; k < 2; ++k) {
        if (fds[k].fd < 0 || !fds[k].revents) continue;
        const ssize_t n = ::read(fds[k].fd, buffer, sizeof buffer);
        if (n <= 0) {
          (k == 0 ? out : err) = -1;
          continue;
        }
        if (k == 1) {
          result.stderr_tail.append(buffer, static_cast<std::size_t>(n));
          if (result.stderr_tail.size() > 2 * kClientStderrTailBytes)
            result.stderr_tail.erase(0, result.stderr_tail.size() - kClientStderrTailBytes);
        }
      }
    }
    // What the client wrote last, still in the pipe.
    if (err >= 0) {
      pollfd fd{err, POLLIN, 0};
      while (::poll(&fd, 1, 0) > 0 && (fd.revents & POLLIN)) {
        const ssize_t n = ::read(err, buffer, sizeof buffer);
        if (n <= 0) break;
        result.stderr_tail.append(buffer, static_cast<std::size_t>(n));
      }
    }
    if (result.stderr_tail.size() > kClientStderrTailBytes)
      result.stderr_tail.erase(0, result.stderr_tail.size() - kClientStderrTailBytes);
    result.exit = client.try_wait();
    if (!result.exit) result.exit = client.wait();
    return result;
  }

 private:
  process::EnvironmentPlan environment_;
};

}  // namespace

std::unique_ptr<ClientLauncher> system_client_launcher(process::EnvironmentPlan environment) {
  return std::make_unique<SystemClientLauncher>(std::move(environment));
}

}  // namespace msptk::check
