// Finding processes a test left behind: each test gives the processes it starts a unique
// marker in their argv (a sleep duration such as 7777.0123456), and after msptk has exited the
// test lists the live (non-zombie) processes whose /proc/PID/cmdline holds it. msptk promises
// that none is left (host_process.hpp), so the list must be empty at once.
#pragma once

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace msptk::e2e {

// A number GNU sleep accepts and no other process has in its argv: "7777.<pid><n>".
inline std::string unique_marker() {
  static int n = 0;
  return fmt::format("7777.{}{:04}", ::getpid(), ++n);
}

// The bytes of a /proc file, "" when it cannot be read. Plain read(2): a process that exits
// while its file is read makes read fail with ESRCH, which std::ifstream (libstdc++'s
// basic_filebuf::underflow) turns into an exception.
inline std::string read_proc_file(const std::filesystem::path& path) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

// Live processes (state other than Z) whose argv contains `marker` (and, when `program` is
// given, whose argv[0] is `program`: the marked process itself, not msptk naming it).
inline std::vector<int> processes_with(const std::string& marker, const std::string& program = "") {
  std::vector<int> out;
  std::error_code ec;
  // Processes come and go while /proc is listed: never the throwing increment.
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::directory_entry& e = *it;
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string argv = read_proc_file(e.path() / "cmdline");
    if (argv.find(marker) == std::string::npos) continue;
    if (!program.empty() && argv.compare(0, program.size() + 1, program + std::string(1, '\0')) != 0) continue;
    const std::string line = read_proc_file(e.path() / "stat");
    const auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') continue;
    out.push_back(static_cast<int>(std::strtol(name.c_str(), nullptr, 10)));
  }
  return out;
}

// Waits up to `within` for the marked processes to be gone (after a SIGKILL of msptk, its
// guard needs a moment); returns those still there.
inline std::vector<int> processes_left(const std::string& marker,
                                       std::chrono::milliseconds within = std::chrono::milliseconds(0)) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (true) {
    std::vector<int> left = processes_with(marker);
    if (left.empty() || std::chrono::steady_clock::now() >= until) return left;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Kills what a failed test left (so one failure does not leak into the next test).
inline void kill_marked(const std::string& marker) {
  for (int pid : processes_with(marker)) ::kill(pid, SIGKILL);
}

}  // namespace msptk::e2e
