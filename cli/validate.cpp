// `msptk validate PATH...`: checks scenario folders, corpus folders and transcript files
// against the format's rules and prints one line per finding plus a summary.
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
  if (!cli.schema.empty()) {
    auto schema = SchemaIndex::load(cli.schema);
    if (!schema) return report_error(io, schema.error());
    options.schema = std::move(*schema);
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
      "Example: msptk validate corpus/ --stable-manifest ../shared/msp-corpus/stable/manifest.json");
  sub->add_option("PATH", cli->paths,
                  "A scenario folder, a corpus folder (every subfolder with a manifest.json) or a transcript file")
      ->type_name("");
  sub->add_option("--format", cli->format, "Output format: text (default) or json (see docs/validate-json.md)")
      ->check(CLI::IsMember({"text", "json"}))
      ->type_name("FORMAT");
  sub->add_option("--registry", cli->registries,
                  "A JSON array of extra allowed normalize paths (adds to the built-in registry; repeatable)")
      ->type_name("FILE")
      ->allow_extra_args(false);  // one FILE per --registry, so PATHs after it stay PATHs
  sub->add_option("--stable-manifest", cli->stable_manifest,
                  "The stable bundle's manifest.json: a scenario fingerprint that differs is a staleness warning")
      ->type_name("FILE");
  sub->add_option("--schema", cli->schema,
                  "A schema bundle (msp.schema.json): unknown methods and enum values become warnings, or notes in "
                  "sdk-tolerance scenarios")
      ->type_name("FILE");
  sub->add_flag("--list-rules", cli->list_rules, "Print every rule id with its severity and statement, then exit");
  return [cli](Streams io) { return run_validate(*cli, io); };
}

}  // namespace msptk::cli
