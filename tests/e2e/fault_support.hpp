// Helpers of the fault tests (fault_test.cpp): running msptk with its standard streams on files
// and measuring it (wall time, peak RSS through wait4), a small tmpfs for a full disk, and
// the checks every fault test makes (nothing left running, a manifest `validate` accepts).
#pragma once

#include "e2e_support.hpp"
#include "leak_check.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <optional>
#include <random>
#include <string>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace msptk::e2e {

// Sanitizer builds carry their own memory overhead: peak-RSS bounds are asserted only without.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

struct Measured {
  process::ExitStatus exit;
  std::chrono::milliseconds took{0};
  long max_rss_kib = 0;  // the peak RSS of the largest process waited for (ru_maxrss)
  std::string out, err;  // what it wrote (when sent to files)
  bool timed_out = false;
};

// Runs argv in a process group of its own with stdin from `in` ("" = /dev/null) and stdout,
// stderr into files under `scratch` (stdout to /dev/null when `discard_out`); kills the group
// after `limit`. `signal_after` sends a signal to it after a delay (0: none).
inline Measured run_measured(const std::vector<std::string>& argv, const std::filesystem::path& scratch,
                             const std::filesystem::path& in = {}, bool discard_out = false,
                             std::chrono::milliseconds limit = std::chrono::seconds(30), int signo = 0,
                             std::chrono::milliseconds signal_after = std::chrono::milliseconds(0)) {
  const std::filesystem::path out_file = scratch / "measured.out", err_file = scratch / "measured.err";
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int i = ::open(in.empty() ? "/dev/null" : in.c_str(), O_RDONLY);
    const int o = ::open(discard_out ? "/dev/null" : out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(i, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  Measured m;
  bool signalled = signo == 0;
  int status = 0;
  struct rusage usage {};
  while (true) {
    const pid_t r = ::wait4(pid, &status, WNOHANG, &usage);
    if (r == pid) break;
    const auto now = std::chrono::steady_clock::now();
    if (!signalled && now - start >= signal_after) {
      ::kill(pid, signo);
      signalled = true;
    }
    if (now - start > limit) {
      m.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  m.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  m.max_rss_kib = usage.ru_maxrss;
  m.exit = WIFSIGNALED(status) ? process::ExitStatus{0, WTERMSIG(status)} : process::ExitStatus{WEXITSTATUS(status), 0};
  if (!discard_out) m.out = test::read_text(out_file);
  m.err = test::read_text(err_file);
  return m;
}

// A sparse file of `bytes` NUL bytes and no LF (a peer that writes without ever ending a line).
inline std::filesystem::path no_newline_file(const std::filesystem::path& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(bytes)), 0);
  ::close(fd);
  return path;
}

// A 2 MiB tmpfs mounted at DIR for as long as it lives (we run as root); `mounted()` false when
// mounting is not permitted (the fault is then injected through the recorder's Disk seam in
// the unit tests instead).
class SmallDisk {
 public:
  explicit SmallDisk(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=2m") == 0;
    if (!mounted_) why_ = std::strerror(errno);
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string why_;
};

#define MSPTK_REQUIRE_SMALL_DISK(disk)                                                             \
  do {                                                                                             \
    if (!(disk).mounted())                                                                         \
      GTEST_SKIP() << "cannot mount a tmpfs here (" << (disk).why()                                \
                   << "): the full-disk fault is covered by the Disk seam tests (RecorderDisk.*)"; \
  } while (0)

// `msptk validate DIR` passes (exit 0).
inline void expect_validates(const std::filesystem::path& dir) {
  CommandRun v = run_command({msptk_bin(), "validate", dir.string()});
  EXPECT_EQ(v.exit.code, 0) << "validate " << dir << ":\n" << v.out << v.err;
}

// The seeded random points of the signal tests: the same seed, the same points.
inline std::mt19937& fault_rng() {
  static std::mt19937 rng(20251201);
  return rng;
}

}  // namespace msptk::e2e
