// The process seam with real (tiny) processes: spawning from an argv, the environment, exit
// codes and signals, what the child inherits, and the signal pipe.
#include "msptk/process/fd_io.hpp"
#include "msptk/process/host_process.hpp"
#include "msptk/process/signals.hpp"
#include "msptk/process/stop_ladder.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <poll.h>
#include <sstream>
#include <string>
#include <thread>

namespace msptk::process {
namespace {

struct Output {
  ExitStatus exit;
  std::string out;
};

// Runs `sh -c script` with stdin closed and returns its stdout and status.
Output run_sh(const std::string& script, SpawnSpec spec = {}) {
  spec.argv = {"sh", "-c", script};
  auto host = spawn_host(spec);
  EXPECT_TRUE(host) << (host ? "" : host.error().render());
  if (!host) return {};
  (*host)->close_stdin();
  Output result;
  char buffer[4096];
  while (true) {
    IoResult r = read_some((*host)->stdout_fd(), buffer, sizeof buffer);
    if (r.eof || (r.error && r.error != EAGAIN)) break;
    result.out.append(buffer, r.bytes);
  }
  result.exit = (*host)->wait();
  return result;
}

TEST(Process, SpawnsFromAnArgvWithTheAddedEnvironment) {
  SpawnSpec spec;
  spec.env = {{"MSP_ID_SEED", "42"}};
  Output o = run_sh("printf '%s|%s' \"$MSP_ID_SEED\" \"$0\"; exit 3", spec);
  EXPECT_EQ(o.out, "42|" + resolve_program("sh")->string());  // argv[0] is the resolved path
  EXPECT_EQ(o.exit, (ExitStatus{3, 0}));
  EXPECT_EQ(o.exit.shell_code(), 3);
}

TEST(Process, ReportsTheSignalThatEndedTheHost) {
  Output o = run_sh("kill -TERM $$");
  EXPECT_EQ(o.exit.signal, SIGTERM);
  EXPECT_EQ(o.exit.shell_code(), 128 + SIGTERM);
}

TEST(Process, SignalReachesTheHost) {
  SpawnSpec spec;
  spec.argv = {"sleep", "30"};
  auto host = spawn_host(spec);
  ASSERT_TRUE(host);
  EXPECT_FALSE((*host)->try_wait());
  ASSERT_TRUE((*host)->signal(SIGHUP));
  EXPECT_EQ((*host)->wait().signal, SIGHUP);
  EXPECT_TRUE((*host)->signal(SIGHUP));  // already reaped: nothing to do, no error
}

TEST(Process, TheHostInheritsOnlyItsStandardStreams) {
  // The shell's `ls` opens one descriptor of its own (3) to read the folder.
  Output o = run_sh("ls /proc/self/fd | tr '\\n' ' '");
  EXPECT_EQ(o.out, "0 1 2 3 ");
}

TEST(Process, TheHostGetsItsOwnProcessGroupAndDefaultSigpipe) {
  SigpipeIgnored guard;
  Output o = run_sh("set -- $(cat /proc/$$/stat); echo \"$1 $5\"; grep SigIgn /proc/$$/status");
  std::istringstream lines(o.out);
  std::string pid, pgrp, label, sigign;
  lines >> pid >> pgrp >> label >> sigign;
  EXPECT_EQ(pid, pgrp);
  EXPECT_EQ(std::stoull(sigign, nullptr, 16) & (1ull << (SIGPIPE - 1)), 0u) << sigign;
}

TEST(Process, SpawnFailuresNameTheProgram) {
  auto missing = spawn_host(SpawnSpec{{"msptk-no-such-program"}, {}, true, {}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::spawn);
  EXPECT_EQ(missing.error().message, "cannot spawn 'msptk-no-such-program': not found in PATH");
  auto no_file = resolve_program("/nonexistent/host");
  ASSERT_FALSE(no_file);
  EXPECT_EQ(no_file.error().message, "cannot spawn '/nonexistent/host': no such file");
  auto folder = resolve_program("/tmp/");
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().message, "cannot spawn '/tmp/': is a folder");
  auto found = resolve_program("sh");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->filename(), "sh");
}

TEST(Process, SignalPipeTurnsSignalsIntoReadableBytes) {
  struct sigaction before {};
  ::sigaction(SIGUSR1, nullptr, &before);
  {
    auto pipe = SignalPipe::create({SIGUSR1, SIGUSR2});
    ASSERT_TRUE(pipe);
    EXPECT_FALSE(SignalPipe::create({SIGUSR1}));  // one at a time
    EXPECT_TRUE(pipe->take().empty());
    ::raise(SIGUSR2);
    ::raise(SIGUSR1);
    pollfd p{pipe->fd(), POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 1000), 1);
    EXPECT_EQ(pipe->take(), (std::vector<int>{SIGUSR2, SIGUSR1}));
  }
  struct sigaction after {};
  ::sigaction(SIGUSR1, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  EXPECT_TRUE(SignalPipe::create({SIGUSR1}));  // the slot is free again
}

// Runs the ladder to its end the way a poll loop would; returns how long it took.
std::chrono::milliseconds run_ladder(StopLadder& ladder) {
  const auto start = std::chrono::steady_clock::now();
  while (!ladder.advance()) std::this_thread::sleep_for(std::chrono::milliseconds(ladder.poll_timeout_ms(20)));
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

// The child's pid, as the host printed it on its first line.
int first_line_pid(HostProcess& host) {
  std::string text;
  char c;
  while (read_some(host.stdout_fd(), &c, 1).bytes == 1 && c != '\n') text += c;
  return std::stoi(text);
}

TEST(StopLadder, SignalsTheWholeGroupAndWaitsUntilItIsEmpty) {
  auto host = spawn_host(SpawnSpec{{"sh", "-c", "sleep 1000 & echo $!; wait"}, {}, true, {}});
  ASSERT_TRUE(host);
  const int child = first_line_pid(**host);
  StopLadder ladder(**host, 5000);
  ladder.terminate();
  EXPECT_LT(run_ladder(ladder), std::chrono::milliseconds(2000));
  EXPECT_EQ((*host)->try_wait()->signal, SIGTERM);
  EXPECT_FALSE((*host)->group_alive());
  EXPECT_NE(::kill(child, 0), 0) << "the host's child outlived it";
  EXPECT_EQ(ladder.signals_sent(), std::vector<int>{SIGTERM});
  EXPECT_TRUE(ladder.host_did_not_exit());
}

TEST(StopLadder, EscalatesToSigkillAfterTheCloseTimeout) {
  auto host = spawn_host(SpawnSpec{{"sh", "-c", "trap '' TERM; sleep 1000 & echo $!; wait"}, {}, true, {}});
  ASSERT_TRUE(host);
  const int child = first_line_pid(**host);
  StopLadder ladder(**host, 200);
  ladder.request();  // e.g. its stdin closed: 200 ms to exit, then SIGTERM, 200 ms, SIGKILL
  const auto took = run_ladder(ladder);
  EXPECT_GE(took, std::chrono::milliseconds(390));
  EXPECT_LT(took, std::chrono::milliseconds(2000));
  EXPECT_EQ((*host)->try_wait()->signal, SIGKILL);
  EXPECT_NE(::kill(child, 0), 0);
  EXPECT_EQ(ladder.signals_sent(), (std::vector<int>{SIGTERM, SIGKILL}));
}

TEST(StopLadder, AHostThatExitsInTimeIsNotSignalled) {
  auto host = spawn_host(SpawnSpec{{"sh", "-c", "read line; exit 3"}, {}, true, {}});
  ASSERT_TRUE(host);
  (*host)->close_stdin();
  StopLadder ladder(**host, 5000);
  ladder.request();
  EXPECT_LT(run_ladder(ladder), std::chrono::milliseconds(2000));
  EXPECT_EQ((*host)->try_wait()->code, 3);
  EXPECT_FALSE(ladder.host_did_not_exit());
  EXPECT_FALSE(ladder.group_outlived_host());
  EXPECT_TRUE(ladder.signals_sent().empty());
}

TEST(StopLadder, StopsWhatAnExitedHostLeftInItsGroup) {
  auto host = spawn_host(SpawnSpec{{"sh", "-c", "sleep 1000 & echo $!; exit 0"}, {}, true, {}});
  ASSERT_TRUE(host);
  const int child = first_line_pid(**host);
  (void)(*host)->wait();
  EXPECT_TRUE((*host)->group_alive());
  StopLadder ladder(**host, 5000);
  EXPECT_LT(run_ladder(ladder), std::chrono::milliseconds(2000));
  EXPECT_TRUE(ladder.group_outlived_host());
  EXPECT_FALSE(ladder.host_did_not_exit());
  EXPECT_NE(::kill(child, 0), 0);
}

TEST(Process, DestroyingAHostKillsItsWholeGroup) {
  int child = 0;
  {
    auto host = spawn_host(SpawnSpec{{"sh", "-c", "sleep 1000 & echo $!; wait"}, {}, true, {}});
    ASSERT_TRUE(host);
    child = first_line_pid(**host);
  }
  EXPECT_NE(::kill(child, 0), 0);
}

TEST(Process, SignalNames) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
}

}  // namespace
}  // namespace msptk::process
