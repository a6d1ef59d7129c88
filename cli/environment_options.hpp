// Options shared by the verbs that spawn a host (record, replay, check): --hermetic, --env,
// --env-file, --env-path and --keep-env, resolved into the EnvironmentPlan every host of the
// run is started with (process/host_environment.hpp).
#pragma once

#include "msptk/process/host_environment.hpp"

#include <CLI/CLI.hpp>

namespace msptk::cli {

void add_environment_options(CLI::App& sub, process::EnvironmentOptions& options);

// --close-timeout-ms T (default 5000) of the verbs that stop a host they replay to (replay, regen).
void add_close_timeout_option(CLI::App& sub, int& close_timeout_ms);

// The options resolved against msptk's own environment.
Result<process::EnvironmentPlan> environment_plan(const process::EnvironmentOptions& options);

}  // namespace msptk::cli
