#include "masking.hpp"
#include "option_checks.hpp"

#include "msptk/normalizer/registry.hpp"

namespace msptk::cli {

void add_mask_options(CLI::App& sub, MaskOptions& options) {
  sub.add_option("--path", options.paths,
                 "Also normalize this path (repeatable); it must be in the registry of allowed paths")
      ->type_name("PATH");
  add_registry_option(sub, options.registry);
  sub.add_option("--mask", options.mode,
                 "unify: values at normalized paths are compared through a one-to-one pairing; "
                 "erase: they are not compared, only their presence is")
      ->check(CLI::IsMember({"unify", "erase"}))
      ->default_str("unify")
      ->type_name("MODE");
}

const char* const kRegistryHelp =
    "Declare more normalize paths: a JSON array of paths, or a file shaped like msptk-corpus.json (docs/corpus-file.md); "
    "adds to and overrides the scenario's msptk-corpus.json";

CLI::Option* add_registry_option(CLI::App& sub, std::string& file) {
  return sub.add_option("--registry", file, kRegistryHelp)->check(file_check())->type_name("FILE");
}

Result<Registry> explicit_registry(const std::string& file) {
  Registry registry = Registry::builtin();
  if (!file.empty()) {
    if (auto extended = registry.extend_from_file(file); !extended) return extended.error();
  }
  return registry;
}

Result<Registry> registry_for(const MaskOptions& options) { return explicit_registry(options.registry); }

Result<MaskSpec> mask_spec_for(const Scenario& scenario, const MaskOptions& options) {
  auto registry = registry_for(options);
  if (!registry) return registry.error();
  return msptk::mask_spec_for(scenario, *registry, options.paths,
                              parse_mask_mode(options.mode).value_or(MaskMode::unify));
}

}  // namespace msptk::cli
