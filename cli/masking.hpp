// Options shared by the verbs that mask (diff, normalize): --path, --registry and --mask, and
// how they combine with a scenario's manifest into a MaskSpec; --registry alone for every other
// verb that reads a manifest. The scenario's corpus file (msptk-corpus.json, found walking up
// from its folder) is read by the library (normalizer/corpus_file.hpp); --registry adds to it
// and overrides it.
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

// --registry FILE (one), with the same help on every verb.
CLI::Option* add_registry_option(CLI::App& sub, std::string& file);
extern const char* const kRegistryHelp;

// The built-in registry extended by `file` (none when empty).
Result<Registry> explicit_registry(const std::string& file);

// The built-in registry extended by --registry.
Result<Registry> registry_for(const MaskOptions& options);

// The manifest's normalize list (when the scenario has a manifest) plus --path, each checked
// against the registry (built-in, extended by --registry).
Result<MaskSpec> mask_spec_for(const Scenario& scenario, const MaskOptions& options);

}  // namespace msptk::cli
