#include "environment_options.hpp"
#include "option_checks.hpp"

namespace msptk::cli {

void add_environment_options(CLI::App& sub, process::EnvironmentOptions& options) {
  sub.add_flag("--hermetic", options.hermetic,
               "Start the host with a fresh HOME and XDG folders, PATH = its own folder:/usr/bin:/bin, TZ=UTC, "
               "LC_ALL=C.UTF-8, the MSP_* pins and only the --env variables");
  sub.add_option("--env", options.env,
                 "Pass NAME (msptk's value) or set NAME=VALUE in the host's environment (repeatable); the manifest "
                 "records the name, never the value")
      ->type_name("NAME[=VALUE]")
      ->allow_extra_args(false);
  sub.add_option("--env-file", options.env_files, "Read --env items from FILE, one NAME or NAME=VALUE a line (# comments)")
      ->check(file_check())
      ->type_name("FILE")
      ->allow_extra_args(false);
  sub.add_option("--env-path", options.env_path, "Append DIR to the hermetic PATH (repeatable; needs --hermetic)")
      ->check(folder_check())
      ->type_name("DIR")
      ->allow_extra_args(false);
  sub.add_option("--keep-env", options.keep_env,
                 "Create the hermetic HOME and XDG folders in DIR (new or empty) and keep them (needs --hermetic)")
      ->check(folder_check())
      ->type_name("DIR");
}

void add_close_timeout_option(CLI::App& sub, int& close_timeout_ms) {
  sub.add_option("--close-timeout-ms", close_timeout_ms,
                 "How long HOST may take to exit once stopped before SIGTERM, then SIGKILL, go to its process group")
      ->check(number_check(1, 86400000))
      ->default_val(5000)
      ->type_name("T");
}

Result<process::EnvironmentPlan> environment_plan(const process::EnvironmentOptions& options) {
  return process::plan_environment(options, process::own_environment());
}

}  // namespace msptk::cli
