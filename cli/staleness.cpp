// msptk staleness [--root DIR] [--bundles DIR]... [--format text|json]: every manifest's
// fingerprint pin against the stable bundle, waived only by the acknowledgment ledger, with
// the drift of each stale fingerprint classified (maintenance/staleness.hpp).
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/maintenance/render.hpp"
#include "msptk/maintenance/staleness.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct StalenessCli {
  std::string root = ".";
  std::vector<std::string> bundles;
  std::string format = "text";
};

int run_staleness(const StalenessCli& cli, Streams io) {
  maintenance::StalenessOptions options;
  options.root = cli.root;
  for (const auto& b : cli.bundles) options.bundles.emplace_back(b);
  auto report = maintenance::check_staleness(options);
  if (!report) return report_error(io, report.error());
  if (cli.format == "json") maintenance::render_staleness_json(*report, io.out);
  else maintenance::render_staleness_text(*report, io.out);
  return report->exit_code();
}

}  // namespace

void add_root_option(CLI::App& sub, std::string& root) {
  sub.add_option("--root", root,
                 "A source tree holding schema/msp/ (transcripts/, stable/, changelog/, bundles) or a schema/msp "
                 "folder itself")
      ->check(folder_check())
      ->default_str(".")
      ->type_name("DIR");
}

void add_bundles_option(CLI::App& sub, std::vector<std::string>& bundles) {
  sub.add_option("--bundles", bundles,
                 "Where pinned bundles are looked for (repeatable): any folder with manifest.json + msp.schema.json at "
                 "or below DIR; default: the folders beside transcripts/ (stable/, release-baseline/, experimental/)")
      ->check(folder_check())
      ->type_name("DIR");
}

Runner setup_staleness(CLI::App& app) {
  auto cli = std::make_shared<StalenessCli>();
  CLI::App* sub = app.add_subcommand(
      "staleness", "Check every manifest's fingerprint against the stable bundle (waivers: the acknowledgment ledger)");
  sub->footer(
      "A pin that differs from stable/manifest.json's fingerprint fails unless changelog/acknowledgments.json has a\n"
      "changelogAcknowledgment with fingerprintFrom = the pin, fingerprintTo = the stable fingerprint and the\n"
      "manifest's path in changes. A malformed ledger entry fails closed (exit 2). The drift of every stale\n"
      "fingerprint is classified when its bundle is at hand: additive, non-additive (each changed JSON pointer\n"
      "named) or unclassified.\n\n"
      "Exit status: 0 no stale pin, 1 stale pins, 2 usage error or malformed ledger, 3 unreadable input.");
  add_root_option(*sub, cli->root);
  add_bundles_option(*sub, cli->bundles);
  sub->add_option("--format", cli->format, "Report format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text")
      ->type_name("FORMAT");
  return [cli](Streams io) { return run_staleness(*cli, io); };
}

}  // namespace msptk::cli
