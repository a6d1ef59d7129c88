// A HostEnvironment is the set of environment variables one spawned MSP host runs with, and
// the folder that backs it. Every verb that spawns a host (record, replay, check) builds one:
//
// - inherited (the default): msptk's own environment, plus the variables named with
//   `--env NAME[=VALUE]` / `--env-file FILE`, plus the MSP_* pins;
// - hermetic (`--hermetic`): nothing of msptk's environment but
//     HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME, XDG_STATE_HOME
//       fresh folders (home/, config/, data/, cache/, state/) under a temporary folder that is
//       removed when the HostEnvironment goes away, or under `--keep-env DIR`, which is kept;
//     PATH   the host program's own folder, /usr/bin, /bin, then every `--env-path DIR`;
//     TZ=UTC and LC_ALL=C.UTF-8;
//   then the `--env` variables (which may override any of those) and the MSP_* pins (which
//   nothing overrides: they are the manifest's).
//
// `--env NAME` (no value) passes msptk's own value of NAME; `--env NAME=VALUE` sets it. An env
// file holds one `NAME` or `NAME=VALUE` per line (blank lines and `#` comments ignored); a
// folder given as an env file and a value holding a NUL byte are usage errors naming the file
// (and line). The names given are what a recording's manifest keeps (`capture.environment`),
// never the values. Every step from the env file to the block a host is spawned with is linear
// in the number of variables (a later NAME replaces an earlier one through a hash index).
#pragma once

#include "msptk/process/host_process.hpp"
#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace msptk::process {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

// What the user asked for on the command line.
struct EnvironmentOptions {
  bool hermetic = false;
  std::vector<std::string> env;                  // --env NAME[=VALUE], in order
  std::vector<std::filesystem::path> env_files;  // --env-file FILE, in order (before --env)
  std::vector<std::string> env_path;             // --env-path DIR (hermetic only)
  std::filesystem::path keep_env;                // --keep-env DIR (hermetic only); empty: temporary
};

// The options resolved once per run: every variable has its value.
struct EnvironmentPlan {
  bool hermetic = false;
  EnvVars variables;                   // from --env-file then --env; a later NAME replaces an earlier one
  std::vector<std::string> extra_path; // --env-path
  std::filesystem::path keep_dir;      // --keep-env; empty: a temporary folder per host

  std::vector<std::string> names() const;  // the variables' names, in order
};

// Reads msptk's own environment (tests pass a fake).
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup own_environment();

// Resolves the options: reads the env files, takes `--env NAME` values from `lookup`. Usage
// errors: an invalid name (FILE:LINE for env files), `--env NAME` when NAME is not set, a pin
// name (MSP_FRAME_LIMIT_BYTES, MSP_ID_SEED, MSP_CLOCK_START_MS: they come from the pins),
// --env-path or --keep-env without --hermetic. An unreadable env file is `unreadable`.
Result<EnvironmentPlan> plan_environment(const EnvironmentOptions& options, const EnvLookup& lookup);

// The environment block of a spawned host, "NAME=VALUE" entries: `base` (msptk's own `environ`
// when the environment is inherited, null when hermetic) without the names `vars` sets, then
// `vars` in order. Linear in the sizes of both.
std::vector<std::string> environment_block(const char* const* base, const EnvVars& vars);

class HostEnvironment {
 public:
  // The environment of one host running `program` (argv[0]; resolved as spawn_host does to find
  // its folder) with `pins`. Hermetic: creates the folders, under `keep_dir` when not empty (it
  // must be missing or an empty folder: a usage error otherwise) else under a new temporary
  // folder.
  static Result<HostEnvironment> prepare(const EnvironmentPlan& plan, const std::string& program, const EnvVars& pins,
                                         const std::filesystem::path& keep_dir);
  // The same with plan.keep_dir.
  static Result<HostEnvironment> prepare(const EnvironmentPlan& plan, const std::string& program, const EnvVars& pins) {
    return prepare(plan, program, pins, plan.keep_dir);
  }

  HostEnvironment(HostEnvironment&& other) noexcept;
  HostEnvironment& operator=(HostEnvironment&&) = delete;
  ~HostEnvironment();  // removes a temporary folder

  bool hermetic() const { return hermetic_; }
  // Every variable the host gets on top of its base (the whole environment when hermetic).
  const EnvVars& variables() const { return vars_; }
  // The names given with --env / --env-file, in order (what `capture` records).
  const std::vector<std::string>& given_names() const { return given_; }
  // The folder holding HOME and the XDG folders; empty when not hermetic.
  const std::filesystem::path& folder() const { return folder_; }
  bool kept() const { return !temporary_; }

  // Sets spec.env and spec.inherit_environment.
  void apply(SpawnSpec& spec) const;

 private:
  HostEnvironment() = default;
  bool hermetic_ = false;
  EnvVars vars_;
  std::vector<std::string> given_;
  std::filesystem::path folder_;
  bool temporary_ = false;
};

}  // namespace msptk::process
