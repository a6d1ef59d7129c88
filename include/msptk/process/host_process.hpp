// A HostProcess is a spawned MSP host seen from the spawning side: its pid, the three pipe ends
// msptk holds (the write end of its stdin, the read ends of its stdout and stderr), a way to
// signal it and a way to learn how it ended. It is the seam between msptk's session logic
// (recorder, playback, check) and the operating system: the one real implementation,
// `spawn_host`, uses Boost.Process; tests may implement the interface over plain pipes.
//
// Process group: every host runs in a process group of its own (its pgid is its pid), and
// every signal msptk sends goes to that whole group, so a host's children (`sh -c '… & wait'`,
// a real server's workers) are stopped with it. msptk is a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): a host's orphaned children are re-parented to msptk, which
// reaps them, so "the group is empty" can be decided with kill(-pgid, 0) after reaping.
//
// Ownership: the HostProcess owns its pipe ends (closed on destruction) and its group: when the
// object is destroyed every process of the group still alive is killed (SIGKILL) and reaped,
// and the destructor returns only once the group is empty. A guard process (forked at spawn,
// holding nothing but one pipe) kills the group with SIGKILL when msptk itself dies without
// having done so (SIGKILL, a crash), so msptk never leaves a process of a host behind. A
// process that leaves the group on purpose (setsid, setpgid) is out of msptk's reach. Not
// thread-safe; one owner drives it (usually from a poll loop on the three fds).
#pragma once

#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace msptk::process {

// How a host ended: an exit code, or the signal that killed it.
struct ExitStatus {
  int code = 0;    // exit code (0-255) when signal == 0
  int signal = 0;  // terminating signal number, 0 when the host exited by itself

  bool signaled() const { return signal != 0; }
  // The status a shell reports: the exit code, or 128 + N for signal N.
  int shell_code() const { return signaled() ? 128 + signal : code; }
  bool operator==(const ExitStatus&) const = default;
};

class HostProcess {
 public:
  virtual ~HostProcess() = default;

  virtual int pid() const = 0;
  // msptk's ends of the host's standard streams; -1 once closed (stderr: also -1 when the
  // host inherited msptk's stderr instead of getting a pipe).
  virtual int stdin_fd() const = 0;
  virtual int stdout_fd() const = 0;
  virtual int stderr_fd() const = 0;

  // Closes msptk's end of the host's stdin: the host reads EOF. Idempotent.
  virtual void close_stdin() = 0;
  // Sends `signo` to the host's process group (every process in it). Once the host was reaped
  // and its group found empty nothing is signalled.
  virtual Result<void> signal(int signo) = 0;
  // The exit status when the host has ended (reaping it), nullopt while it runs. Never blocks.
  virtual std::optional<ExitStatus> try_wait() = 0;
  // Blocks until the host ends.
  virtual ExitStatus wait() = 0;
  // True while a process of the host's group is alive: the host itself (not yet reaped), or
  // once it was reaped, a child of it still in the group (ended ones are reaped first). Never
  // blocks. Fakes without a group: false once try_wait() saw the host end.
  virtual bool group_alive() { return !try_wait().has_value(); }
};

// What to spawn. The host is started from an argv, never through a shell.
struct SpawnSpec {
  // argv[0] names the program: a path when it contains a '/', else it is searched in PATH.
  // The child's argv[0] is the resolved path.
  std::vector<std::string> argv;
  // Variables added to (or replacing in) msptk's own environment for the child.
  std::vector<std::pair<std::string, std::string>> env;
  // Give the host a stderr pipe (true) or let it inherit msptk's stderr (false).
  bool pipe_stderr = true;
  // Working folder of the child; msptk's own when empty.
  std::filesystem::path working_dir;
  // false: the child gets `env` only, nothing of msptk's environment (host_environment.hpp).
  bool inherit_environment = true;
};

// Resolves a program name the way spawn_host does: a name with a '/' must be an executable
// file; a bare name is searched in PATH. Errors are `spawn` errors:
// "cannot spawn 'NAME': not found in PATH".
Result<std::filesystem::path> resolve_program(const std::string& name);

// Spawns the host in a process group of its own (so a terminal's Ctrl-C reaches msptk only,
// which forwards it, and every stop reaches the host's children too). Only the child's stdin/stdout/stderr are inherited (every other descriptor
// of msptk is closed in the child), SIGPIPE is reset to the disposition msptk started with
// (see signals.hpp), and msptk's ends of the pipes are close-on-exec. Errors are `spawn` errors
// ("cannot spawn 'NAME': <reason>").
Result<std::unique_ptr<HostProcess>> spawn_host(const SpawnSpec& spec);

}  // namespace msptk::process
