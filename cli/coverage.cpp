// `msptk coverage CORPUS... --schema BUNDLE`: which methods, notifications, server requests,
// error codes, capabilities, enum values and item kinds of a schema bundle a corpus exercises,
// as a text table (least covered first), JSON or one self-contained HTML page.
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/coverage/coverage.hpp"
#include "msptk/coverage/render.hpp"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace msptk::cli {

namespace {

struct CoverageCliOptions {
  std::vector<std::string> paths;
  std::string schema;
  std::string format = "text";
};

int run_coverage(const CoverageCliOptions& cli, Streams io) {
  if (cli.paths.empty()) {
    io.err << "msptk: error: coverage needs at least one CORPUS (a corpus folder, a scenario folder or a transcript file)\n"
           << "Run 'msptk coverage --help' for usage.\n";
    return 2;
  }
  auto bundle = schema::Bundle::load(cli.schema);
  if (!bundle) return report_error(io, bundle.error());
  const coverage::CoverageMap map =
      coverage::compute_coverage(std::vector<std::filesystem::path>(cli.paths.begin(), cli.paths.end()), *bundle);
  for (const Error& problem : map.problems) report_error(io, problem);
  if (cli.format == "json") coverage::render_json(map, io.out);
  else if (cli.format == "html") coverage::render_html(map, io.out);
  else coverage::render_text(map, io.out);
  return map.problems.empty() ? 0 : 3;
}

}  // namespace

Runner setup_coverage(CLI::App& app) {
  auto cli = std::make_shared<CoverageCliOptions>();
  CLI::App* sub = app.add_subcommand("coverage", "Map the protocol surface of a schema bundle that a corpus exercises");
  sub->footer(
      "Tables: methods, server requests, notifications, error codes, grantable capabilities, enums (values seen / "
      "never seen), item kinds; rows sorted by least covered; then what the corpus uses that the bundle lacks.\n"
      "Exit status: 0 ok, 2 usage error, 3 unreadable input (the map of the rest is still written).\n"
      "Example: msptk coverage corpus/ ../shared/msp-corpus/transcripts --schema ../shared/msp-corpus/stable "
      "--format html > coverage.html");
  sub->add_option("CORPUS", cli->paths, "A corpus folder, a scenario folder or a transcript file")->type_name("");
  sub->add_option("--schema", cli->schema, "The schema bundle (msp.schema.json, or a folder holding it)")
      ->check(path_check())
      ->type_name("BUNDLE")
      ->required();
  sub->add_option("--format", cli->format, "Output: text (default), json (docs/coverage-json.md) or html (one self-contained page)")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->type_name("FORMAT");
  return [cli](Streams io) { return run_coverage(*cli, io); };
}

}  // namespace msptk::cli
