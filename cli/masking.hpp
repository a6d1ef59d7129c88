// Options shared by the verbs that mask (diff, normalize): --path, --registry and --mask, and
// how they combine with a scenario's manifest into a MaskSpec.
#pragma once

#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/scenario.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace msptk::cli {

struct MaskOptions {
  std::vector<std::string> paths;
  std::string registry;
  std::string mode = "unify";
};

void add_mask_options(CLI::App& sub, MaskOptions& options);

// The built-in registry extended by --registry.
Result<Registry> registry_for(const MaskOptions& options);

// The manifest's normalize list (when the scenario has a manifest) plus --path, each checked
// against the registry (built-in, extended by --registry).
Result<MaskSpec> mask_spec_for(const Scenario& scenario, const MaskOptions& options);

}  // namespace msptk::cli
