#include "masking.hpp"
#include "option_checks.hpp"

#include "msptk/normalizer/registry.hpp"

namespace msptk::cli {

void add_mask_options(CLI::App& sub, MaskOptions& options) {
  sub.add_option("--path", options.paths,
                 "Also normalize this path (repeatable); it must be in the registry of allowed paths")
      ->type_name("PATH");
  sub.add_option("--registry", options.registry,
                 "Extend the registry of allowed paths with a JSON array of path strings")
      ->check(file_check())
      ->type_name("FILE");
  sub.add_option("--mask", options.mode,
                 "unify: values at normalized paths are compared through a one-to-one pairing; "
                 "erase: they are not compared, only their presence is")
      ->check(CLI::IsMember({"unify", "erase"}))
      ->default_str("unify")
      ->type_name("MODE");
}

Result<Registry> registry_for(const MaskOptions& options) {
  Registry registry = Registry::builtin();
  if (!options.registry.empty()) {
    if (auto extended = registry.extend_from_file(options.registry); !extended) return extended.error();
  }
  return registry;
}

Result<MaskSpec> mask_spec_for(const Scenario& scenario, const MaskOptions& options) {
  auto registry = registry_for(options);
  if (!registry) return registry.error();
  return msptk::mask_spec_for(scenario, *registry, options.paths,
                              parse_mask_mode(options.mode).value_or(MaskMode::unify));
}

}  // namespace msptk::cli
