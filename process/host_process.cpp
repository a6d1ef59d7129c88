// The one place msptk talks to Boost.Process (v1 API): spawn a host from an argv with three
// pipes, and wrap the child in the HostProcess interface.
#include "msptk/process/host_process.hpp"

#include "msptk/process/fd_io.hpp"
#include "msptk/process/host_environment.hpp"
#include "msptk/process/signals.hpp"

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/env.hpp>
#include <boost/process/environment.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <boost/process/pipe.hpp>
#include <boost/process/search_path.hpp>
#include <boost/process/start_dir.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace msptk::process {

namespace bp = boost::process;

namespace {

Error spawn_error(const std::string& name, const std::string& reason) {
  return Error{ErrorKind::spawn, fmt::format("cannot spawn '{}': {}", name, reason), {}, 0, {}};
}

// Takes ownership of one end of a Boost.Process pipe and makes it close-on-exec.
int take_end(int fd) {
  if (fd >= 0) (void)set_cloexec(fd);
  return fd;
}

// In the child: every descriptor above 2 becomes close-on-exec, so the host inherits only its
// stdin/stdout/stderr. (Boost.Process's own limit_handles closes the executor's error pipe
// too early in 1.81, which breaks every spawn.) Async-signal-safe.
void inherit_only_stdio() {
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  long max = ::sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = 3; fd < max; ++fd) {
    int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
}

// A guard is a forked copy of msptk that holds nothing but the read end of a pipe whose write
// end msptk holds. It is started before the host: the host's child process writes its own pid
// (its process group) into the pipe between fork and exec, so the guard knows the group before
// the host runs a single instruction of its own. msptk writes one byte once the group is
// empty; EOF without that byte means msptk died without cleaning up, and the guard kills the
// group (SIGKILL). Everything the guard does is async-signal-safe (it is forked from a
// possibly multithreaded process).
struct Guard {
  int pid = -1;
  int fd = -1;  // msptk's write end (close-on-exec; the host's child writes its pid into it)
};

// Reads exactly `n` bytes; false at EOF or on an error.
bool read_exactly(int fd, char* out, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, out + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

Guard start_guard() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {};
  }
  if (pid == 0) {
    // The guard: keep only the pipe's read end (as fd 3), ignore the signals a terminal or a
    // process manager sends to msptk's group, wait for msptk's word or its death.
    ::dup2(fds[0], 3);
    ::close_range(0, 2, 0);
    ::close_range(4, ~0U, 0);
    for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(signo, SIG_IGN);
    pid_t pgid = 0;
    if (!read_exactly(3, reinterpret_cast<char*>(&pgid), sizeof pgid) || pgid <= 0) ::_exit(0);  // no host
    char done = 0;
    if (read_exactly(3, &done, 1)) ::_exit(0);  // msptk emptied the group itself
    // Not waiting for the group to be empty: the killed processes become zombies of whoever
    // reaps for msptk now, which the guard cannot wait for. A second kill catches a child
    // forked while the first one was delivered.
    ::kill(-pgid, SIGKILL);
    struct timespec pause {0, 10000000};
    ::nanosleep(&pause, nullptr);
    ::kill(-pgid, SIGKILL);
    ::_exit(0);
  }
  ::close(fds[0]);
  return {pid, fds[1]};
}

// `emptied`: the group is gone (the guard exits quietly); false: no host was started.
void stop_guard(Guard& guard, bool emptied = true) {
  if (guard.fd >= 0) {
    const char done = 1;
    if (emptied) [[maybe_unused]] ssize_t n = ::write(guard.fd, &done, 1);
    ::close(guard.fd);
  }
  if (guard.pid > 0) {
    int status = 0;
    while (::waitpid(guard.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  guard = {};
}

void become_subreaper() {
  static const bool done = [] {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    return true;
  }();
  (void)done;
}

class BoostHost final : public HostProcess {
 public:
  BoostHost(bp::child child, int in, int out, int err, Guard guard)
      : child_(std::move(child)), pgid_(child_.id()), in_(in), out_(out), err_(err), guard_(guard) {}

  ~BoostHost() override {
    close_fd(in_);
    close_fd(out_);
    close_fd(err_);
    if (!exit_) {
      std::error_code ec;
      if (child_.running(ec)) ::kill(-pgid_, SIGKILL);
      child_.wait(ec);
      exit_ = decode(child_.native_exit_code());
    }
    // Then whatever is left of the group: killed, reaped, gone before we return.
    for (int i = 0; i < 10000 && group_alive(); ++i) {  // at most about 10 s (a process in D state)
      ::kill(-pgid_, SIGKILL);
      struct timespec pause {0, 1000000};
      ::nanosleep(&pause, nullptr);
    }
    stop_guard(guard_);
  }

  int pid() const override { return child_.id(); }
  int stdin_fd() const override { return in_; }
  int stdout_fd() const override { return out_; }
  int stderr_fd() const override { return err_; }
  void close_stdin() override { close_fd(in_); }

  Result<void> signal(int signo) override {
    if (group_gone_) return {};
    if (::kill(-pgid_, signo) != 0 && errno != ESRCH)
      return Error{ErrorKind::peer, fmt::format("cannot send {} to the host's process group {}: {}", signal_name(signo),
                                                pgid_, std::strerror(errno)), {}, 0, {}};
    return {};
  }

  std::optional<ExitStatus> try_wait() override {
    if (exit_) return exit_;
    std::error_code ec;
    if (child_.running(ec) || ec) return std::nullopt;
    exit_ = decode(child_.native_exit_code());
    return exit_;
  }

  ExitStatus wait() override {
    if (exit_) return *exit_;
    std::error_code ec;
    child_.wait(ec);
    exit_ = decode(child_.native_exit_code());
    return *exit_;
  }

  bool group_alive() override {
    if (group_gone_) return false;
    if (!try_wait()) return true;
    // The host's orphans are our children (subreaper): reap those of its group that ended.
    int status = 0;
    while (::waitpid(-pgid_, &status, WNOHANG) > 0) {
    }
    if (::kill(-pgid_, 0) == 0 || errno == EPERM) return true;
    group_gone_ = true;
    return false;
  }

 private:
  static ExitStatus decode(int status) {
    if (WIFSIGNALED(status)) return ExitStatus{0, WTERMSIG(status)};
    return ExitStatus{WEXITSTATUS(status), 0};
  }
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  bp::child child_;
  int pgid_;
  int in_, out_, err_;
  Guard guard_;
  std::optional<ExitStatus> exit_;
  bool group_gone_ = false;
};

}  // namespace

Result<std::filesystem::path> resolve_program(const std::string& name) {
  if (name.empty()) return spawn_error(name, "empty program name");
  if (name.find('/') != std::string::npos) {
    std::error_code ec;
    if (!std::filesystem::exists(name, ec)) return spawn_error(name, "no such file");
    if (std::filesystem::is_directory(name, ec)) return spawn_error(name, "is a folder");
    if (::access(name.c_str(), X_OK) != 0) return spawn_error(name, std::strerror(errno));
    return std::filesystem::path(name);
  }
  boost::filesystem::path found = bp::search_path(name);
  if (found.empty()) return spawn_error(name, "not found in PATH");
  return std::filesystem::path(found.string());
}

Result<std::unique_ptr<HostProcess>> spawn_host(const SpawnSpec& spec) {
  if (spec.argv.empty()) return spawn_error("", "no program given");
  auto program = resolve_program(spec.argv.front());
  if (!program) return program.error();

  // The block is built once, linearly (host_environment.hpp), and handed to the executor as it
  // is: bp::environment sets a variable by a linear search and rebuilds its whole pointer array
  // each time, quadratic in the number of variables.
  std::vector<std::string> block = environment_block(spec.inherit_environment ? environ : nullptr, spec.env);
  std::vector<char*> env_pointers;
  env_pointers.reserve(block.size() + 1);
  for (std::string& entry : block) env_pointers.push_back(entry.data());
  env_pointers.push_back(nullptr);
  auto set_environment = [&env_pointers](auto& exec) { exec.env = env_pointers.data(); };
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  const bool ignore_sigpipe = sigpipe_ignored_by_parent();
  become_subreaper();
  Guard guard = start_guard();
  const int guard_fd = guard.fd;
  auto child_setup = [ignore_sigpipe, guard_fd](auto&) {
    // Runs in the child between fork and exec: async-signal-safe calls only.
    ::signal(SIGPIPE, ignore_sigpipe ? SIG_IGN : SIG_DFL);
    ::setpgid(0, 0);
    if (guard_fd >= 0) {  // tell the guard which group to kill should msptk die
      const pid_t self = ::getpid();
      [[maybe_unused]] ssize_t n = ::write(guard_fd, &self, sizeof self);
    }
    inherit_only_stdio();
  };
  const boost::filesystem::path start_dir =
      spec.working_dir.empty() ? boost::filesystem::current_path() : boost::filesystem::path(spec.working_dir.string());

  try {
    bp::pipe in, out, err;
    std::error_code ec;
    bp::child child;
    if (spec.pipe_stderr) {
      child = bp::child(bp::exe = program->string(), bp::args = args, bp::start_dir = start_dir, bp::extend::on_setup = set_environment,
                        bp::std_in < in, bp::std_out > out, bp::std_err > err,
                        bp::extend::on_exec_setup = child_setup, ec);
    } else {
      child = bp::child(bp::exe = program->string(), bp::args = args, bp::start_dir = start_dir, bp::extend::on_setup = set_environment,
                        bp::std_in < in, bp::std_out > out,
                        bp::extend::on_exec_setup = child_setup, ec);
    }
    if (ec) {
      stop_guard(guard);  // a child that failed to exec is gone: nothing to guard
      return spawn_error(spec.argv.front(), ec.message());
    }
    const int in_fd = take_end(in.native_sink());
    in.assign_sink(-1);
    const int out_fd = take_end(out.native_source());
    out.assign_source(-1);
    int err_fd = -1;
    if (spec.pipe_stderr) {
      err_fd = take_end(err.native_source());
      err.assign_source(-1);
    }
    return std::unique_ptr<HostProcess>(std::make_unique<BoostHost>(std::move(child), in_fd, out_fd, err_fd, guard));
  } catch (const std::exception& e) {
    stop_guard(guard, false);
    return spawn_error(spec.argv.front(), e.what());
  }
}

}  // namespace msptk::process
