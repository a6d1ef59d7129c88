// `msptk validate PATH...`: checks scenario folders, corpus folders and transcript files
// against the format's rules and prints one line per finding plus a summary.
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/validator/render.hpp"
#include "msptk/validator/rules.hpp"
#include "msptk/validator/validator.hpp"

#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace msptk::cli {

namespace {

struct ValidateCliOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::vector<std::string> registries;
  std::string stable_manifest;
  std::string schema;
  std::string bundles;
  bool list_rules = false;
};

void list_rules(std::ostream& out) {
  for (const RuleInfo& rule : rule_catalogue()) {
    out << fmt::format("{:<28} {:<13} {}\n", rule.id, rule.severity, rule.statement);
  }
}

int run_validate(const ValidateCliOptions& cli, Streams io) {
  if (cli.list_rules) {
    list_rules(io.out);
    return 0;
  }
  if (cli.paths.empty()) {
    io.err << "msptk: error: validate needs at least one PATH (a scenario folder, a corpus folder or a transcript file)\n"
           << "Run 'msptk validate --help' for usage.\n";
    return 2;
  }
  ValidateOptions options;
  for (const std::string& file : cli.registries) {
    if (auto extended = options.registry.extend_from_file(file); !extended) return report_error(io, extended.error());
  }
  if (!cli.stable_manifest.empty()) {
    auto fingerprint = read_stable_fingerprint(cli.stable_manifest);
    if (!fingerprint) return report_error(io, fingerprint.error());
    options.stable_fingerprint = std::move(*fingerprint);
  }
  if (cli.schema == "auto") {
    if (cli.bundles.empty()) {
      io.err << "msptk: error: --schema auto needs --bundles DIR (a folder of bundle subfolders, one of them stable/)\n";
      return 2;
    }
    auto bundles = schema::BundleSet::load(cli.bundles);
    if (!bundles) return report_error(io, bundles.error());
    options.bundles = std::move(*bundles);
  } else if (!cli.bundles.empty()) {
    io.err << "msptk: error: --bundles is used with --schema auto\n";
    return 2;
  } else if (!cli.schema.empty()) {
    auto bundle = schema::Bundle::load(cli.schema);
    if (!bundle) return report_error(io, bundle.error());
    options.schema = std::move(*bundle);
  }
  std::vector<std::filesystem::path> paths(cli.paths.begin(), cli.paths.end());
  const ValidationReport report = validate_paths(paths, options);
  if (cli.format == "json") {
    render_json(report, io.out);
    for (const Error& problem : report.problems) report_error(io, problem);
    for (const ScenarioReport& scenario : report.scenarios)
      for (const Error& problem : scenario.problems) report_error(io, problem);
  } else {
    render_text(report, io.out, io.err);
  }
  return report.exit_code();
}

}  // namespace

Runner setup_validate(CLI::App& app) {
  auto cli = std::make_shared<ValidateCliOptions>();
  CLI::App* sub = app.add_subcommand("validate", "Check scenarios, corpora and transcript files against the MSP format rules");
  sub->footer(
      "Each finding prints as FILE:LINE: error|warning|note: message [rule-id]; --list-rules shows every rule.\n"
      "Exit status: 0 no errors, 1 errors found, 2 usage error, 3 unreadable input.\n"
      "Example: msptk validate corpus/ --stable-manifest ../shared/msp-corpus/stable/manifest.json\n"
      "         msptk validate corpus/ --schema ../shared/msp-corpus/stable\n"
      "         msptk validate corpus/ --schema auto --bundles ../shared/msp-corpus");
  sub->add_option("PATH", cli->paths,
                  "A scenario folder, a corpus folder (every subfolder with a manifest.json) or a transcript file")
      ->type_name("");
  sub->add_option("--format", cli->format, "Output format: text (default) or json (see docs/validate-json.md)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FORMAT");
  sub->add_option("--registry", cli->registries,
                  "A JSON array of extra allowed normalize paths (adds to the built-in registry; repeatable)")
      ->check(file_check())
      ->type_name("FILE")
      ->allow_extra_args(false);  // one FILE per --registry, so PATHs after it stay PATHs
  sub->add_option("--stable-manifest", cli->stable_manifest,
                  "The stable bundle's manifest.json: a scenario fingerprint that differs is a staleness warning")
      ->check(file_check())
      ->type_name("FILE");
  sub->add_option("--schema", cli->schema,
                  "A schema bundle (msp.schema.json, or a folder holding it and manifest.json), or 'auto': every frame "
                  "is validated against it (frame.schema errors; unknown methods, open-enum values and error codes are "
                  "warnings, notes in sdk-tolerance scenarios)")
      ->check(path_check())
      ->type_name("BUNDLE|auto");
  sub->add_option("--bundles", cli->bundles,
                  "With --schema auto: a folder of bundle subfolders (manifest.json + msp.schema.json); each scenario "
                  "uses the one with its manifest's fingerprint, else stable/")
      ->check(folder_check())
      ->type_name("DIR");
  sub->add_flag("--list-rules", cli->list_rules, "Print every rule id with its severity and statement, then exit");
  return [cli](Streams io) { return run_validate(*cli, io); };
}

}  // namespace msptk::cli
