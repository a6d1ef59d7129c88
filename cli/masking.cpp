#include "masking.hpp"

#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/json_io.hpp"

namespace msptk::cli {

void add_mask_options(CLI::App& sub, MaskOptions& options) {
  sub.add_option("--path", options.paths,
                 "Also normalize this path (repeatable); it must be in the registry of allowed paths")
      ->type_name("PATH");
  sub.add_option("--registry", options.registry,
                 "Extend the registry of allowed paths with a JSON array of path strings")
      ->type_name("FILE");
  sub.add_option("--mask", options.mode,
                 "unify: values at normalized paths are compared through a one-to-one pairing; "
                 "erase: they are not compared, only their presence is")
      ->check(CLI::IsMember({"unify", "erase"}))
      ->default_str("unify")
      ->type_name("MODE");
}

Result<MaskSpec> mask_spec_for(const Scenario& scenario, const MaskOptions& options) {
  Registry registry = Registry::builtin();
  if (!options.registry.empty()) {
    if (auto extended = registry.extend_from_file(options.registry); !extended) return extended.error();
  }
  std::string manifest_file;
  std::size_t manifest_line = 0;
  std::vector<std::string> declared;
  if (scenario.files.manifest) {
    manifest_file = scenario.files.manifest->string();
    declared = scenario.manifest.normalize;
    if (auto text = read_file(*scenario.files.manifest)) manifest_line = line_of_member(*text, "normalize");
    for (const ManifestProblem& problem : scenario.manifest_problems) {
      // A normalize list that cannot be read would silently mask nothing: refuse it.
      if (problem.member.starts_with("normalize") && problem.rule != "manifest.required") {
        return Error::malformed(manifest_file, manifest_line, problem.rule, problem.message);
      }
    }
  }
  return make_mask_spec(registry, declared, manifest_file, manifest_line, options.paths,
                        parse_mask_mode(options.mode).value_or(MaskMode::unify));
}

}  // namespace msptk::cli
