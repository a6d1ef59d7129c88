// The one place msptk talks to Boost.Process (v1 API): spawn a host from an argv with three
// pipes, and wrap the child in the HostProcess interface.
#include "msptk/process/host_process.hpp"

#include "msptk/process/fd_io.hpp"
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

class BoostHost final : public HostProcess {
 public:
  BoostHost(bp::child child, int in, int out, int err)
      : child_(std::move(child)), in_(in), out_(out), err_(err) {}

  ~BoostHost() override {
    close_fd(in_);
    close_fd(out_);
    close_fd(err_);
    if (!exit_) {
      std::error_code ec;
      if (child_.running(ec)) {
        ::kill(child_.id(), SIGKILL);
      }
      child_.wait(ec);
    }
  }

  int pid() const override { return child_.id(); }
  int stdin_fd() const override { return in_; }
  int stdout_fd() const override { return out_; }
  int stderr_fd() const override { return err_; }
  void close_stdin() override { close_fd(in_); }

  Result<void> signal(int signo) override {
    if (exit_) return {};
    if (::kill(child_.id(), signo) != 0 && errno != ESRCH)
      return Error{ErrorKind::peer, fmt::format("cannot send {} to the host (pid {}): {}", signal_name(signo),
                                                child_.id(), std::strerror(errno)), {}, 0, {}};
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
  int in_, out_, err_;
  std::optional<ExitStatus> exit_;
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

  bp::environment env = spec.inherit_environment ? bp::environment(boost::this_process::environment()) : bp::environment();
  for (const auto& [key, value] : spec.env) env[key] = value;
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  const bool ignore_sigpipe = sigpipe_ignored_by_parent();
  const bool new_group = spec.new_process_group;
  auto child_setup = [ignore_sigpipe, new_group](auto&) {
    // Runs in the child between fork and exec: async-signal-safe calls only.
    ::signal(SIGPIPE, ignore_sigpipe ? SIG_IGN : SIG_DFL);
    if (new_group) ::setpgid(0, 0);
    inherit_only_stdio();
  };
  const boost::filesystem::path start_dir =
      spec.working_dir.empty() ? boost::filesystem::current_path() : boost::filesystem::path(spec.working_dir.string());

  try {
    bp::pipe in, out, err;
    std::error_code ec;
    bp::child child;
    if (spec.pipe_stderr) {
      child = bp::child(bp::exe = program->string(), bp::args = args, bp::env = env, bp::start_dir = start_dir,
                        bp::std_in < in, bp::std_out > out, bp::std_err > err,
                        bp::extend::on_exec_setup = child_setup, ec);
    } else {
      child = bp::child(bp::exe = program->string(), bp::args = args, bp::env = env, bp::start_dir = start_dir,
                        bp::std_in < in, bp::std_out > out,
                        bp::extend::on_exec_setup = child_setup, ec);
    }
    if (ec) return spawn_error(spec.argv.front(), ec.message());
    const int in_fd = take_end(in.native_sink());
    in.assign_sink(-1);
    const int out_fd = take_end(out.native_source());
    out.assign_source(-1);
    int err_fd = -1;
    if (spec.pipe_stderr) {
      err_fd = take_end(err.native_source());
      err.assign_source(-1);
    }
    return std::unique_ptr<HostProcess>(std::make_unique<BoostHost>(std::move(child), in_fd, out_fd, err_fd));
  } catch (const std::exception& e) {
    return spawn_error(spec.argv.front(), e.what());
  }
}

}  // namespace msptk::process
