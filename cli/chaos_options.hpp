// --chaos SPEC and --chaos-seed S, shared by the live verbs (serve-fixture, replay, check):
// the spec parsed for the verb's role (chaos/spec.hpp) and the seed, random when not given.
#pragma once

#include "msptk/chaos/spec.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace msptk::cli {

struct ChaosOptions {
  std::string spec;  // "" = no chaos
  std::string seed;  // "" = random
};

void add_chaos_options(CLI::App& sub, ChaosOptions& options);

// nullopt without --chaos; a usage error for a bad spec or seed, or a seed without a spec.
Result<std::optional<chaos::ChaosRun>> chaos_run(const ChaosOptions& options, chaos::ChaosRole role);

}  // namespace msptk::cli
